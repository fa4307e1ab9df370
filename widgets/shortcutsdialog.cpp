// SPDX-License-Identifier: GPL-3.0-or-later
#include "shortcutsdialog.h"
#include "textdialog.h"

#include <QStringList>

namespace tpuscope::widgets {

QList<ShortcutEntry> ShortcutsDialog::shortcuts()
{
    const auto tr = [](const char* text) { return ShortcutsDialog::tr(text); };
    const QString anywhere = tr("Anywhere");
    const QString timeline = tr("Timeline");
    const QString search = tr("Search box");
    // Open, Close and Quit are the platform's standard keys (Close is Ctrl+W on some desktops and Ctrl+F4 on
    // others; the offscreen platform has none for Quit): list what this platform binds, as the menus do.
    QList<ShortcutEntry> entries;
    const auto standard = [&](QKeySequence::StandardKey key, const QString& action) {
        const QList<QKeySequence> bindings = QKeySequence::keyBindings(key);
        QStringList text;
        for (const QKeySequence& binding : bindings)
            text << binding.toString(QKeySequence::NativeText);
        if (!bindings.isEmpty())
            entries.append({anywhere, text.join(tr(" or ")), action, bindings});
    };
    standard(QKeySequence::Open, tr("Open a profile"));
    standard(QKeySequence::Close, tr("Close the profile"));
    standard(QKeySequence::Quit, tr("Quit"));
    entries += QList<ShortcutEntry> {
        {anywhere, tr("Ctrl+0"), tr("Reset the timeline zoom"), {QKeySequence(Qt::CTRL | Qt::Key_0)}},
        {anywhere, tr("F1 or ?"), tr("This list of shortcuts"),
            {QKeySequence(Qt::Key_F1), QKeySequence(Qt::Key_Question)}},
        {anywhere, tr("Esc"), tr("Cancel a load that is running"), {QKeySequence(Qt::Key_Escape)}},
        // TimelineView::keyPressEvent, mouse and wheel handlers (widgets/timelineview.cpp).
        {timeline, tr("W or + or ="), tr("Zoom in around the mouse"),
            {QKeySequence(Qt::Key_W), QKeySequence(Qt::Key_Plus), QKeySequence(Qt::Key_Equal)}},
        {timeline, tr("S or -"), tr("Zoom out around the mouse"),
            {QKeySequence(Qt::Key_S), QKeySequence(Qt::Key_Minus)}},
        {timeline, tr("A / D"), tr("Pan left / right by a tenth of the view"),
            {QKeySequence(Qt::Key_A), QKeySequence(Qt::Key_D)}},
        {timeline, tr("Z"), tr("Zoom to the selected range"), {QKeySequence(Qt::Key_Z)}},
        {timeline, tr("0 or Home"), tr("Reset the zoom"), {QKeySequence(Qt::Key_0), QKeySequence(Qt::Key_Home)}},
        {timeline, tr("Esc"), tr("Clear the selected range"), {QKeySequence(Qt::Key_Escape)}},
        {timeline, tr("Ctrl+wheel"), tr("Zoom around the mouse"), {}},
        {timeline, tr("Shift+wheel or horizontal wheel"), tr("Pan"), {}},
        {timeline, tr("Wheel"), tr("Scroll the rows"), {}},
        {timeline, tr("Drag"), tr("Pan (sideways) and scroll (up and down)"), {}},
        {timeline, tr("Shift+drag or right-drag"), tr("Select a time range: its ops fill the Selection dock (Esc clears)"), {}},
        {timeline, tr("Click"), tr("Select an event (the ▸/▾ of a group header collapses or expands the group)"), {}},
        {timeline, tr("Double-click"), tr("Zoom to the event"), {}},
        // TimelineSearch (widgets/timelinesearch.cpp).
        {search, tr("Enter"), tr("Next match"), {QKeySequence(Qt::Key_Return)}},
        {search, tr("Shift+Enter"), tr("Previous match"), {QKeySequence(Qt::SHIFT | Qt::Key_Return)}},
    };
    return entries;
}

QString ShortcutsDialog::html()
{
    QString out = QStringLiteral("<table cellspacing=0 cellpadding=4>");
    QString area;
    for (const ShortcutEntry& e : shortcuts()) {
        if (e.area != area) {
            area = e.area;
            out += QStringLiteral("<tr><td colspan=2><h3>%1</h3></td></tr>").arg(area.toHtmlEscaped());
        }
        out += QStringLiteral("<tr><td valign=top><b>%1</b></td><td>%2</td></tr>")
                   .arg(e.keys.toHtmlEscaped(), e.action.toHtmlEscaped());
    }
    return out + QStringLiteral("</table>");
}

ShortcutsDialog::ShortcutsDialog(QWidget* parent)
    : QDialog(parent)
{
    setUpTextDialog(*this, tr("Keyboard Shortcuts — tpuscope"), html(), 560, 640);
}

} // namespace tpuscope::widgets
