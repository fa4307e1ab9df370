// SPDX-License-Identifier: GPL-3.0-or-later
#include "shortcutsdialog.h"
#include "textdialog.h"

#include <QAction>
#include <QStringList>

namespace tpuscope::widgets {

ShortcutEntry ShortcutsDialog::entryOf(const QString& area, const QAction* action)
{
    QStringList keys;
    for (const QKeySequence& key : action->shortcuts())
        keys << key.toString(QKeySequence::NativeText);
    QString description = action->statusTip();
    if (description.isEmpty()) {
        description = action->text();
        description.remove(QLatin1Char('&'));
        if (description.endsWith(QChar(0x2026)))
            description.chop(1);
    }
    return {area, keys.join(tr(" or ")), description, action->shortcuts()};
}

QString ShortcutsDialog::html(const QList<ShortcutEntry>& entries)
{
    QString out = QStringLiteral("<table cellspacing=0 cellpadding=4>");
    QString area;
    for (const ShortcutEntry& e : entries) {
        if (e.area != area) {
            area = e.area;
            out += QStringLiteral("<tr><td colspan=2><h3>%1</h3></td></tr>").arg(area.toHtmlEscaped());
        }
        out += QStringLiteral("<tr><td valign=top><b>%1</b></td><td>%2</td></tr>")
                   .arg(e.keys.toHtmlEscaped(), e.action.toHtmlEscaped());
    }
    return out + QStringLiteral("</table>");
}

ShortcutsDialog::ShortcutsDialog(const QList<ShortcutEntry>& entries, QWidget* parent)
    : QDialog(parent)
{
    setUpTextDialog(*this, tr("Keyboard Shortcuts — tpuscope"), html(entries), 560, 640);
}

} // namespace tpuscope::widgets
