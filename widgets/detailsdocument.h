// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/layout.h"
#include "analysis/opbreakdown.h"
#include "core/hlo.h"
#include "core/profile.h"

#include <QColor>
#include <QList>
#include <QPalette>
#include <QString>
#include <QStringList>

#include <functional>
#include <string>
#include <vector>

namespace tpuscope::widgets {

/// The details dock's document, apart from the widget: one builder writes the same content as
/// HTML (for the QTextBrowser) and as Markdown (for Copy). The panel composes a document per
/// thing it shows (an op, a fused instruction; non-op events get their own function the same way).

inline QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

/// Builds the same content as HTML (for the browser) and Markdown (for the clipboard).
class DetailsDocument
{
public:
    explicit DetailsDocument(const QPalette& pal)
        : m_pal(pal)
    {
    }

    void heading(const QString& text)
    {
        flushKv();
        m_html += QStringLiteral("<h4 style=\"margin-top:10px; margin-bottom:3px;\">%1</h4>").arg(esc(text));
        m_md += QStringLiteral("### %1\n\n").arg(text);
    }
    /// `html` replaces the escaped value in the HTML output (links, chips).
    void kv(const QString& key, const QString& value, const QString& html = {})
    {
        m_kv.push_back({key, value, html.isEmpty() ? esc(value) : html});
    }
    void para(const QString& text, const QString& html = {})
    {
        flushKv();
        m_html += QStringLiteral("<p style=\"margin-top:3px; margin-bottom:3px;\">%1</p>")
                      .arg(html.isEmpty() ? esc(text) : html);
        m_md += text + QStringLiteral("\n\n");
    }
    void code(const QString& text)
    {
        flushKv();
        QColor bg = m_pal.color(QPalette::AlternateBase);
        m_html += QStringLiteral("<table width=\"100%\" cellpadding=\"5\" cellspacing=\"0\" bgcolor=\"%1\"><tr><td>"
                                 "<pre style=\"white-space:pre-wrap; margin:0;\">%2</pre></td></tr></table>")
                      .arg(bg.name(), esc(text));
        m_md += QStringLiteral("```\n%1\n```\n\n").arg(text);
    }
    struct Cell
    {
        Cell(QString t = {}, QColor bg = {}, QString h = {})
            : text(std::move(t))
            , background(bg)
            , html(std::move(h))
        {
        }
        QString text;
        QColor background; // invalid = none
        QString html;
        bool bold = false;
    };
    void table(const QStringList& header, const QList<QList<Cell>>& rows, const QList<bool>& rightAligned = {})
    {
        flushKv();
        const QColor headBg = m_pal.color(QPalette::AlternateBase);
        m_html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\" style=\"border-collapse:collapse;\">");
        m_html += QStringLiteral("<tr>");
        for (int c = 0; c < header.size(); ++c)
            m_html += QStringLiteral("<th align=\"%1\" bgcolor=\"%2\">%3</th>")
                          .arg(c < rightAligned.size() && rightAligned[c] ? QStringLiteral("right")
                                                                          : QStringLiteral("left"),
                              headBg.name(), esc(header[c]));
        m_html += QStringLiteral("</tr>");
        for (const auto& row : rows) {
            m_html += QStringLiteral("<tr>");
            for (int c = 0; c < row.size(); ++c) {
                const Cell& cell = row[c];
                QString content = cell.html.isEmpty() ? esc(cell.text) : cell.html;
                if (cell.bold)
                    content = QStringLiteral("<b>%1</b>").arg(content);
                m_html
                    += QStringLiteral("<td align=\"%1\"%2>%3</td>")
                           .arg(c < rightAligned.size() && rightAligned[c] ? QStringLiteral("right")
                                                                           : QStringLiteral("left"),
                               cell.background.isValid() ? QStringLiteral(" bgcolor=\"%1\"").arg(cell.background.name())
                                                         : QString(),
                               content);
            }
            m_html += QStringLiteral("</tr>");
        }
        m_html += QStringLiteral("</table>");
        m_md += QStringLiteral("| ") + header.join(QStringLiteral(" | ")) + QStringLiteral(" |\n|");
        for (int c = 0; c < header.size(); ++c)
            m_md += c < rightAligned.size() && rightAligned[c] ? QStringLiteral("---:|") : QStringLiteral("---|");
        m_md += QLatin1Char('\n');
        for (const auto& row : rows) {
            QStringList cells;
            for (const Cell& cell : row)
                cells << QString(cell.text).replace(QLatin1Char('|'), QStringLiteral("\\|"));
            m_md += QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
        }
        m_md += QLatin1Char('\n');
    }
    void rawHtml(const QString& html)
    {
        flushKv();
        m_html += html;
    }
    void rawMarkdown(const QString& md)
    {
        flushKv();
        m_md += md;
    }

    QString html()
    {
        flushKv();
        return m_html;
    }
    QString markdown()
    {
        flushKv();
        return m_md;
    }

private:
    struct Kv
    {
        QString key, value, html;
    };
    void flushKv()
    {
        if (m_kv.isEmpty())
            return;
        const QColor keyColor = m_pal.color(QPalette::PlaceholderText);
        m_html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">");
        for (const Kv& kv : m_kv)
            m_html += QStringLiteral("<tr><td style=\"color:%1; padding-right:12px;\">%2</td><td>%3</td></tr>")
                          .arg(keyColor.name(), esc(kv.key), kv.html);
        m_html += QStringLiteral("</table>");
        for (const Kv& kv : m_kv)
            m_md += QStringLiteral("- **%1:** %2\n").arg(kv.key, kv.value);
        m_md += QLatin1Char('\n');
        m_kv.clear();
    }

    QPalette m_pal;
    QString m_html, m_md;
    QList<Kv> m_kv;
};

/// A shape's text with zero-width break opportunities (after commas and colons, before the layout
/// brace), so that a long shape wraps in a narrow dock instead of being elided in the middle.
QString wrappableShapeText(const QString& shape);

/// Chip backgrounds: the flame colour of a padding efficiency / utilization over the palette's base.
QColor paddingColor(double efficiency, const QPalette& pal);
QColor flopsUtilColor(double u, const QPalette& pal);
QColor hbmUtilColor(double u, const QPalette& pal);
/// "99.5%", two decimals below 10 % (the model's paddingEfficiencyText).
QString efficiencyText(double e);
/// formatPercent with two decimals below 10 %.
QString pct(double fraction);
/// `text` on a coloured background.
QString chip(const QString& text, const QColor& background);
/// HLO-text-like line for an instruction: "%name = shape opcode(%a, %b), kind=kLoop, calls=%comp".
QString instructionText(const model::hlo::Module* module, const model::hlo::Instruction& in);
bool isComputeOpcode(const std::string& opcode);
/// A fused instruction's shape: its text, padding efficiency and per-dimension table (a tuple
/// element by element).
void addShapeSection(DetailsDocument& doc, const QPalette& pal, const model::hlo::Shape& shape,
    const std::vector<model::layout::DimSemantics>& semantics, const QString& label);

/// The op an op document describes, resolved once by the panel.
struct OpDetails
{
    const model::Profile* profile = nullptr;
    model::OpId op = model::kNone;
    const model::OpRow* row = nullptr; // the op's breakdown row; null when it has none
    const model::hlo::Module* module = nullptr; // the op's program, when the file has HLO
    const model::hlo::Instruction* instruction = nullptr;
    QString category, program; // as the subtitle shows them; empty when unknown
};

// The sections of an op's document, in the order the panel composes them.
/// Occurrences, times, FLOPs and bytes, utilizations and what bounds the op (or why they are unknown).
/// `heading` replaces "Performance" (a selected event's op: its totals over all occurrences).
void addPerformanceSection(DetailsDocument& doc, const QPalette& pal, const OpDetails& op, const QString& heading = {});
/// Category, program, framework op, source line.
void addProvenanceSection(DetailsDocument& doc, const OpDetails& op);
/// The op's HLO text (the event's long name, else the instruction).
void addHloSection(DetailsDocument& doc, const OpDetails& op);
/// The arrays resolveOpPadding gives the op (outputs, tuple elements one by one, a convolution's
/// activation, or the op_profile layout analysis), each with its padding, or why there are none.
void addOutputShapeSection(DetailsDocument& doc, const QPalette& pal, const OpDetails& op);
/// The operands in the op's program; those that are profiled ops are "op:ID" links.
void addOperandsSection(
    DetailsDocument& doc, const OpDetails& op, const std::function<model::OpId(const std::string&)>& opForInstruction);
/// A fusion's computation (its instructions go to the Markdown; the panel's tree shows them).
/// Returns the fused computation, null when the op is no fusion with HLO.
const model::hlo::Computation* addFusedComputationSection(
    DetailsDocument& doc, const QPalette& pal, const OpDetails& op);

} // namespace tpuscope::widgets
