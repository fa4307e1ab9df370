// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>
#include <QKeySequence>
#include <QList>
#include <QString>

class QAction;

namespace tpuscope::widgets {

/// One row of Help → Keyboard Shortcuts.
struct ShortcutEntry
{
    QString area; ///< where it works: "Anywhere", "Timeline", "Search box"
    QString keys; ///< as shown, e.g. "W or + or =", "Shift+drag"
    QString action; ///< what it does
    QList<QKeySequence> sequences; ///< the keys as key sequences; empty for mouse gestures
};

/// Help → Keyboard Shortcuts (also F1 and ?): every key and mouse gesture of the window, the timeline and the
/// search box in one table. The window builds the entries from the actions that have the keys and from the
/// timeline's key table (app/windowshortcuts), so the list cannot drift from what the keys do.
class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    ShortcutsDialog(const QList<ShortcutEntry>& entries, QWidget* parent = nullptr);
    /// A menu action's row: its keys as this platform shows them ("Ctrl+O", "F1 or ?") and what it does
    /// (its status tip, else its text without the mnemonic and the ellipsis).
    static ShortcutEntry entryOf(const QString& area, const QAction* action);
    /// The dialog's text as HTML: one heading per area, in the entries' order.
    static QString html(const QList<ShortcutEntry>& entries);
};

} // namespace tpuscope::widgets
