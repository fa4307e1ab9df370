// SPDX-License-Identifier: GPL-3.0-or-later
#include "glossarydialog.h"

#include "report/glossary.h"
#include "textdialog.h"

namespace tpuscope::widgets {

namespace {

QString html(const char* text)
{
    return QString::fromUtf8(text).toHtmlEscaped();
}

} // namespace

QString GlossaryDialog::html()
{
    QString out = QStringLiteral("<table cellspacing=0 cellpadding=4>");
    for (const model::GlossaryEntry& e : model::glossary())
        out += QStringLiteral(
            "<tr><td valign=top><b>%1</b></td><td>%2<br><i>%3</i> &middot; <small>%4</small></td></tr>")
                   .arg(widgets::html(e.term), widgets::html(e.sentence), widgets::html(e.formula),
                       widgets::html(e.source));
    return out + QStringLiteral("</table>");
}

GlossaryDialog::GlossaryDialog(QWidget* parent)
    : QDialog(parent)
{
    setUpTextDialog(*this, tr("Glossary — tpuscope"), html(), 820, 640);
}

} // namespace tpuscope::widgets
