// SPDX-License-Identifier: GPL-3.0-or-later
#include "detailsdocument.h"

#include "qt/colors.h"
#include "qt/qstrings.h"
#include "report/report.h"

#include <algorithm>
#include <cmath>

namespace tpuscope::widgets {

using namespace tpuscope::model;
namespace L = tpuscope::model::layout;
using tpuscope::qt::qs;
using Doc = DetailsDocument;

namespace {
constexpr int kMaxTupleElements = 8;
} // namespace

QString wrappableShapeText(const QString& shape)
{
    // Zero-width spaces where a shape may break: after commas and colons, before the layout's
    // brace. The text stays the same to read and to copy (tooltips and Markdown keep the plain form).
    QString out;
    out.reserve(shape.size() + shape.size() / 3);
    for (QChar c : shape) {
        if (c == QLatin1Char('{') && !out.isEmpty())
            out += QChar(0x200B);
        out += c;
        if (c == QLatin1Char(',') || c == QLatin1Char(':'))
            out += QChar(0x200B);
    }
    return out;
}

using qt::colors::flameColor;
using qt::colors::FlameCurve;
using qt::colors::over;

QColor paddingColor(double efficiency, const QPalette& pal)
{
    return over(flameColor(efficiency, 1.0, FlameCurve::Harsh), 0.35, pal);
}
QColor flopsUtilColor(double u, const QPalette& pal)
{
    return over(flameColor(std::min(u, 1.0), 0.85), 0.35, pal);
}
QColor hbmUtilColor(double u, const QPalette& pal)
{
    return over(flameColor(std::max(1 - u, 0.0), 0.85), 0.35, pal);
}

QString efficiencyText(double e)
{
    const double v = e * 100;
    if (v >= 99.995)
        return QStringLiteral("100%");
    return QString::number(v, 'f', v < 10 ? 2 : 1) + QLatin1Char('%');
}

QString pct(double fraction)
{
    return qs(formatPercent(fraction, fraction < 0.1 ? 2 : 1));
}

/// Builds the same content as HTML (for the browser) and Markdown (for the clipboard).
QString chip(const QString& text, const QColor& background)
{
    return QStringLiteral("<span style=\"background-color:%1;\">&nbsp;%2&nbsp;</span>")
        .arg(background.name(), esc(text));
}

/// HLO-text-like line for an instruction: "%name = shape opcode(%a, %b), kind=kLoop, calls=%comp".
QString instructionText(const hlo::Module* module, const hlo::Instruction& in)
{
    QStringList operands;
    for (int64_t id : in.operandIds) {
        const hlo::Instruction* op = module ? module->instructionById(id) : nullptr;
        operands << (op ? QStringLiteral("%") + qs(op->name) : QStringLiteral("#%1").arg(id));
    }
    QString text
        = QStringLiteral("%%1 = %2 %3(%4)")
              .arg(qs(in.name), qs(hlo::shapeToString(in.shape)), qs(in.opcode), operands.join(QStringLiteral(", ")));
    if (in.opcode == "parameter")
        text = QStringLiteral("%%1 = %2 parameter(%3)")
                   .arg(qs(in.name), qs(hlo::shapeToString(in.shape)))
                   .arg(in.parameterNumber);
    if (!in.fusionKind.empty())
        text += QStringLiteral(", kind=") + qs(in.fusionKind);
    for (int64_t id : in.calledComputationIds) {
        const hlo::Computation* c = module ? module->computation(id) : nullptr;
        if (c)
            text
                += (in.opcode == "fusion" ? QStringLiteral(", calls=%") : QStringLiteral(", to_apply=%")) + qs(c->name);
    }
    if (!in.customCallTarget.empty())
        text += QStringLiteral(", custom_call_target=\"%1\"").arg(qs(in.customCallTarget));
    return text;
}

bool isComputeOpcode(const std::string& opcode)
{
    return opcode == "convolution" || opcode == "dot";
}

/// Output shape section: shape text, combined padding efficiency and the per-dimension table.
void addShapeSection(Doc& doc, const QPalette& pal, const hlo::Shape& shape,
    const std::vector<L::DimSemantics>& semantics, const QString& label)
{
    if (shape.isTuple()) {
        doc.para(QStringLiteral("%1: tuple of %2 elements").arg(label).arg(shape.tupleShapes.size()));
        int index = 0;
        for (const hlo::Shape& element : shape.tupleShapes) {
            if (index == kMaxTupleElements) {
                doc.para(QStringLiteral("… %1 more elements").arg(shape.tupleShapes.size() - kMaxTupleElements));
                break;
            }
            addShapeSection(doc, pal, element, {}, QStringLiteral("Element %1").arg(index++));
        }
        return;
    }
    const QString shapeText = qs(hlo::shapeToString(shape));
    doc.para(QStringLiteral("%1: %2").arg(label, shapeText),
        QStringLiteral("%1: <code>%2</code>").arg(esc(label), esc(wrappableShapeText(shapeText))));
    const L::PaddingInfo info = L::computePadding(shape, semantics);
    if (!info.valid) {
        doc.para(QStringLiteral("Padding: %1")
                     .arg(info.error.empty() ? QStringLiteral("unknown (no layout)") : qs(info.error)));
        if (info.dims.empty())
            return;
    } else {
        const QString used = qs(info.usedOfTileText());
        const QString eff = efficiencyText(info.efficiency);
        const QString sentence = used.isEmpty() ? QStringLiteral("no tiling, %1 of the buffer used").arg(eff)
                                                : QStringLiteral("%1 = %2").arg(used, eff);
        doc.para(QStringLiteral("Padding efficiency: ") + sentence,
            QStringLiteral("Padding efficiency: %1").arg(chip(sentence, paddingColor(info.efficiency, pal))));
        QString memory = QStringLiteral("Memory: %1 used of %2 padded")
                             .arg(qs(formatBytes(static_cast<double>(info.logicalBytes))),
                                 qs(formatBytes(static_cast<double>(info.paddedBytes))));
        if (!info.tileText.empty())
            memory += QStringLiteral(", tile %1").arg(qs(info.tileText));
        memory += QStringLiteral(", memory space S(%1)%2")
                      .arg(info.memorySpace)
                      .arg(info.memorySpace == 0      ? QStringLiteral(" HBM")
                              : info.memorySpace == 1 ? QStringLiteral(" VMEM")
                              : info.memorySpace == 5 ? QStringLiteral(" host")
                                                      : QString());
        doc.para(memory);
    }
    QList<QList<Doc::Cell>> rows;
    for (const L::DimPadding& d : info.dims) {
        const double e = d.padded > 0 ? static_cast<double>(d.size) / static_cast<double>(d.padded) : 1.0;
        QString hint;
        if (d.tile > 0) {
            const int64_t k = (d.size + d.tile - 1) / d.tile;
            hint = d.size % d.tile == 0 ? QStringLiteral("exact fit") : QStringLiteral("pad to %1").arg(k * d.tile);
            if (k != 1)
                hint += QStringLiteral(": %1 × %2").arg(k).arg(d.tile);
        } else {
            hint = d.padded != d.size ? QStringLiteral("padded by an inner tile") : QStringLiteral("not tiled");
        }
        rows.append(QList<Doc::Cell> {{QString::number(d.logicalDim)},
            {d.semantics == L::DimSemantics::Unknown ? QStringLiteral("–") : qs(L::semanticsName(d.semantics))},
            {QString::number(d.size)}, {QString::number(d.padded)},
            {d.tile > 0 ? QString::number(d.tile) : QStringLiteral("–")},
            {efficiencyText(e), info.valid ? paddingColor(e, pal) : QColor()}, {hint}});
    }
    doc.table({QStringLiteral("Dim"), QStringLiteral("Semantics"), QStringLiteral("Size"), QStringLiteral("Padded"),
                  QStringLiteral("Tile"), QStringLiteral("Used"), QStringLiteral("Layout hint")},
        rows, {true, false, true, true, true, true, false});
    doc.rawHtml(
        QStringLiteral("<p style=\"margin-top:2px;\"><small>Rows in physical order, most-minor first.</small></p>"));
}

} // namespace tpuscope::widgets
