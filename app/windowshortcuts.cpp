// SPDX-License-Identifier: GPL-3.0-or-later
#include "windowshortcuts.h"

#include "qt/tracesession.h"
#include "timelineinput.h"
#include "timelinesearch.h"
#include "timelineview.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>

namespace tpuscope::app {

using widgets::ShortcutEntry;
using widgets::ShortcutsDialog;
using widgets::TimelineCommand;
using widgets::TimelineInput;

namespace {

const char* const kAreaProperty = "tpuscopeShortcutArea";
const char* const kKeysProperty = "tpuscopeShortcutKeys";

QString anywhere()
{
    return WindowShortcuts::tr("Anywhere");
}
QString timelineArea()
{
    return WindowShortcuts::tr("Timeline");
}
QString searchArea()
{
    return WindowShortcuts::tr("Search box");
}

/// A widget the user types into: it keeps Esc to itself as far as the timeline is concerned.
bool isTextField(const QWidget* w)
{
    if (!w)
        return false;
    if (qobject_cast<const QLineEdit*>(w) || qobject_cast<const QAbstractSpinBox*>(w))
        return true;
    if (const auto* edit = qobject_cast<const QTextEdit*>(w))
        return !edit->isReadOnly();
    if (const auto* edit = qobject_cast<const QPlainTextEdit*>(w))
        return !edit->isReadOnly();
    return false;
}

} // namespace

WindowShortcuts::WindowShortcuts(
    QWidget* window, widgets::TimelineView* timeline, widgets::TimelineSearch* search, qt::TraceSession* session)
    : QObject(window)
    , m_window(window)
    , m_timeline(timeline)
    , m_search(search)
    , m_session(session)
{
    if (m_search) {
        QAction* find = addAction(anywhere(), tr("Ctrl+F or /"), tr("Find an op in the timeline (the search box)"),
            {QKeySequence(Qt::CTRL | Qt::Key_F), QKeySequence(Qt::Key_Slash)}, Qt::WindowShortcut, window);
        connect(find, &QAction::triggered, this, [this] {
            emit findRequested();
            m_search->focusSearch();
        });
    }
    QAction* esc = addAction(anywhere(), tr("Esc"), tr("Cancel a load that is running"), {QKeySequence(Qt::Key_Escape)},
        Qt::WindowShortcut, window);
    connect(esc, &QAction::triggered, this, &WindowShortcuts::escape);

    // The focused timeline takes these keys itself (TimelineView::event); with the focus on
    // another widget they are the window's while the pointer is over the timeline. A text field
    // with the focus overrides them (QLineEdit and spin boxes accept the keys they type), so a
    // letter typed there is never a zoom. Esc is the window's one Esc action above.
    for (const widgets::TimelineKey& key : TimelineInput::keys()) {
        if (key.command == TimelineCommand::ClearSelection)
            continue;
        QAction* action
            = addAction(timelineArea(), key.keysText, key.description, key.keys, Qt::WindowShortcut, window);
        const TimelineCommand command = key.command;
        connect(action, &QAction::triggered, this, [this, command] {
            if (m_timeline)
                m_timeline->runCommand(command);
        });
        m_navigation << action;
    }
    connect(m_timeline, &widgets::TimelineView::pointerOverChanged, this, &WindowShortcuts::updateNavigationEnabled);
    updateNavigationEnabled();

    if (m_search) {
        // Enter steps to a match and hands the keys to the timeline (W/A/S/D then move around the
        // match instead of being typed into the box); on the focused timeline Enter goes on.
        const auto stepper = [this](int direction) {
            return [this, direction] {
                if (direction > 0)
                    m_search->next();
                else
                    m_search->previous();
                if (m_timeline)
                    m_timeline->setFocus(Qt::OtherFocusReason);
            };
        };
        QLineEdit* edit = m_search->lineEdit();
        const QList<QKeySequence> enter {QKeySequence(Qt::Key_Return), QKeySequence(Qt::Key_Enter)};
        const QList<QKeySequence> shiftEnter {
            QKeySequence(Qt::SHIFT | Qt::Key_Return), QKeySequence(Qt::SHIFT | Qt::Key_Enter)};
        const QString nextText = tr("Next match; the timeline takes the focus, where Enter goes on");
        const QString previousText = tr("Previous match; the timeline takes the focus, where Shift+Enter goes on");
        connect(addAction(searchArea(), tr("Enter"), nextText, enter, Qt::WidgetShortcut, edit), &QAction::triggered,
            this, stepper(+1));
        connect(addAction(searchArea(), tr("Shift+Enter"), previousText, shiftEnter, Qt::WidgetShortcut, edit),
            &QAction::triggered, this, stepper(-1));
        connect(addAction(searchArea(), tr("Enter"), nextText, enter, Qt::WidgetShortcut, m_timeline),
            &QAction::triggered, this, stepper(+1));
        connect(addAction(searchArea(), tr("Shift+Enter"), previousText, shiftEnter, Qt::WidgetShortcut, m_timeline),
            &QAction::triggered, this, stepper(-1));
    }
}

QAction* WindowShortcuts::addAction(const QString& area, const QString& keysText, const QString& description,
    const QList<QKeySequence>& keys, Qt::ShortcutContext context, QWidget* owner)
{
    auto* action = new QAction(description, owner);
    action->setShortcuts(keys);
    action->setShortcutContext(context);
    action->setProperty(kAreaProperty, area);
    action->setProperty(kKeysProperty, keysText);
    owner->addAction(action);
    m_actions << action;
    return action;
}

QString WindowShortcuts::areaOf(const QAction* action)
{
    const QString area = action->property(kAreaProperty).toString();
    return area.isEmpty() ? anywhere() : area; // the menus' actions work anywhere in the window
}

void WindowShortcuts::updateNavigationEnabled()
{
    const bool over = m_timeline && m_timeline->isPointerOver();
    for (QAction* action : std::as_const(m_navigation))
        action->setEnabled(over);
}

void WindowShortcuts::escape()
{
    QWidget* focus = QApplication::focusWidget();
    const bool loading = m_session && m_session->isLoading();
    if (m_search && m_timeline && focus == m_search->lineEdit()) {
        m_timeline->setFocus(Qt::OtherFocusReason);
    } else if (m_timeline && m_timeline->isPointerOver() && !isTextField(focus)
        && m_timeline->selectedRange().second > m_timeline->selectedRange().first) {
        // The range under the pointer is what Esc clears, not a load running meanwhile.
        m_timeline->runCommand(TimelineCommand::ClearSelection);
        return;
    }
    if (loading)
        m_session->cancel();
}

QList<ShortcutEntry> WindowShortcuts::entries() const
{
    QList<ShortcutEntry> entries;
    const auto entryOf = [](const QAction* action) {
        return ShortcutEntry {
            areaOf(action), action->property(kKeysProperty).toString(), action->text(), action->shortcuts()};
    };
    // The menus' actions first (Open, Close and Quit are the platform's keys: list what it binds).
    if (m_window)
        for (const QAction* action : m_window->findChildren<QAction*>())
            if (!action->shortcuts().isEmpty() && !m_actions.contains(action))
                entries << ShortcutsDialog::entryOf(anywhere(), action);
    for (const QAction* action : m_actions)
        if (areaOf(action) == anywhere())
            entries << entryOf(action);
    // The timeline's keys from its own table (the navigation actions repeat it), then its gestures.
    QString lastKeys;
    for (const widgets::TimelineKey& key : TimelineInput::keys()) {
        if (key.keysText == lastKeys) {
            entries.back().sequences += key.keys; // A / D: one row
            continue;
        }
        lastKeys = key.keysText;
        entries << ShortcutEntry {timelineArea(), key.keysText, key.description, key.keys};
    }
    for (const widgets::TimelineGesture& gesture : TimelineInput::gestures())
        entries << ShortcutEntry {timelineArea(), gesture.keys, gesture.description, {}};
    if (m_search) {
        QStringList listed;
        for (const QAction* action : m_actions) {
            if (areaOf(action) != searchArea() || listed.contains(action->text()))
                continue;
            listed << action->text();
            entries << entryOf(action);
        }
        entries << ShortcutEntry {
            searchArea(), tr("Esc"), tr("Back to the timeline (it takes the focus)"), {QKeySequence(Qt::Key_Escape)}};
    }
    return entries;
}

} // namespace tpuscope::app
