// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "shortcutsdialog.h"

#include <QList>
#include <QObject>
#include <QPointer>

class QAction;
class QWidget;

namespace tpuscope::qt {
class TraceSession;
}

namespace tpuscope::widgets {
class TimelineSearch;
class TimelineView;
} // namespace tpuscope::widgets

namespace tpuscope::app {

/// The window's keys that are not a menu's, as context shortcuts (Qt decides who gets a key, no
/// event filter; a focused text field keeps the keys it types):
/// - the timeline's navigation keys (TimelineInput::keys) as window shortcuts, enabled while the
///   pointer is over the timeline, so they work after a click elsewhere (the focused timeline
///   handles them itself);
/// - Esc: back from the search box to the timeline, else clear the range under the pointer, else
///   cancel a load that is running;
/// - Ctrl+F and / focus the timeline's search box (the browser's and Perfetto's keys);
/// - Enter / Shift+Enter in the search box step through the matches and give the timeline the
///   focus, where they go on stepping.
/// Help → Keyboard Shortcuts lists entries(): these actions, the menus' and the timeline's gestures.
class WindowShortcuts : public QObject
{
    Q_OBJECT
public:
    /// `search` and `session` may be null (no search box, no load to cancel).
    WindowShortcuts(
        QWidget* window, widgets::TimelineView* timeline, widgets::TimelineSearch* search, qt::TraceSession* session);

    /// Every key and gesture of the window for the shortcut list, by area: the menus' actions
    /// with a key and Ctrl+F, /, Esc ("Anywhere"), the timeline's keys and gestures ("Timeline"),
    /// the search box's keys ("Search box").
    QList<widgets::ShortcutEntry> entries() const;
    /// Where an action of the window works, as the shortcut list names it (every action with a key).
    static QString areaOf(const QAction* action);

signals:
    /// Ctrl+F or /: the search box is about to take the focus (the window shows the timeline).
    void findRequested();

private:
    QAction* addAction(const QString& area, const QString& keysText, const QString& description,
        const QList<QKeySequence>& keys, Qt::ShortcutContext context, QWidget* owner);
    void updateNavigationEnabled();
    void escape();

    QPointer<QWidget> m_window;
    QPointer<widgets::TimelineView> m_timeline;
    QPointer<widgets::TimelineSearch> m_search;
    QPointer<qt::TraceSession> m_session;
    QList<QAction*> m_actions; // in the order the shortcut list shows them
    QList<QAction*> m_navigation;
};

} // namespace tpuscope::app
