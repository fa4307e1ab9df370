// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>
#include <QKeySequence>
#include <QList>
#include <QString>

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
/// search box in one table. The list is kept beside the code that handles the keys; tests check that every
/// shortcut of the window's actions and every key the timeline accepts is in it.
class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ShortcutsDialog(QWidget* parent = nullptr);
    static QList<ShortcutEntry> shortcuts();
    /// The dialog's text as HTML, for tests.
    static QString html();
};

} // namespace tpuscope::widgets
