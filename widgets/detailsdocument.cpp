// SPDX-License-Identifier: GPL-3.0-or-later
#include "detailsdocument.h"

#include "analysis/padding.h"
#include "analysis/utilization.h"
#include "qt/colors.h"
#include "qt/qstrings.h"
#include "report/report.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <optional>

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

// --- sections of an op's document --------------------------------------------------------------

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("tpuscope::widgets::DetailsPanel", text);
}

} // namespace

void addPerformanceSection(Doc& doc, const QPalette& pal, const OpDetails& d)
{
    const Profile& p = *d.profile;
    const OpInfo& op = p.ops[d.op];
    doc.heading(tr("Performance"));
    if (const OpRow* row = d.row) {
        const double avg = row->occurrences ? row->totalTimePs / static_cast<double>(row->occurrences) : 0;
        doc.kv(tr("Occurrences"), QString::number(row->occurrences));
        doc.kv(tr("Total time"),
            QStringLiteral("%1 (%2 of op time)").arg(qs(formatDurationPs(row->totalTimePs)), pct(row->timeFraction)));
        doc.kv(tr("Average time"), qs(formatDurationPs(avg)));
        if (row->selfTimePs + 0.5 < row->totalTimePs)
            doc.kv(tr("Self time"), qs(formatDurationPs(row->selfTimePs)));
        doc.kv(tr("FLOPs"),
            QStringLiteral("%1 total, %2 per occurrence").arg(qs(formatCount(row->flops)), qs(formatCount(op.flops))));
        doc.kv(tr("Bytes accessed"),
            QStringLiteral("%1 total, %2 per occurrence")
                .arg(qs(formatBytes(row->bytesAccessed)), qs(formatBytes(op.bytesAccessed))));
        if (row->hbmFromBreakdown)
            doc.kv(tr("HBM bytes"), qs(formatBytes(row->hbmBytes)));
        if (row->hostBytes > 0)
            doc.kv(tr("Host-link bytes"), qs(formatBytes(row->hostBytes)));
        if (!row->asyncPartner.empty())
            doc.kv(tr("Async pair"),
                tr("with %1: bytes counted once, rated over the start→done span (%2)")
                    .arg(qs(row->asyncPartner), qs(formatDurationPs(row->rateTimePs))));
        // Unknown is shown as unknown, with the reason; over-peak values are shown uncapped.
        auto utilization = [&](const std::optional<double>& uncapped, const std::optional<double>& capped,
                               QColor (*color)(double, const QPalette&)) {
            const QString text = qs(formatUtilization(uncapped));
            return std::make_pair(text, capped ? chip(text, color(*capped, pal)) : QString());
        };
        const auto [fu, fuChip] = utilization(row->flopsUtilizationUncapped, row->flopsUtilization, flopsUtilColor);
        doc.kv(tr("FLOPS utilization"), fu, fuChip);
        if (row->ratedAgainst == RatedAgainst::Roofline) {
            const auto [hu, huChip] = utilization(row->hbmUtilizationUncapped, row->hbmUtilization, hbmUtilColor);
            doc.kv(tr("HBM bandwidth utilization"), hu, huChip);
        } else {
            doc.kv(tr("HBM bandwidth utilization"), qs(hbmUtilizationText(*row)));
        }
        if (const std::string rate = transferRateText(*row); rate != kUnknownText)
            doc.kv(tr("Transfer rate"), qs(rate));
        doc.kv(tr("Roofline efficiency"), qs(rooflineEfficiencyText(*row)));
        doc.kv(tr("Bound by"), qs(boundByText(row->boundBy)));
        doc.kv(tr("Wasted time"),
            row->wastedFraction ? pct(*row->wastedFraction) + tr(" of op time") : QString::fromUtf8(kUnknownText));
        if (const std::string why = utilizationCaveat(*row, p.device); !why.empty())
            doc.kv(tr("Note"), qs(why));
        if (row->arithmeticIntensity) {
            QString ai = QStringLiteral("%1 %2").arg(*row->arithmeticIntensity, 0, 'g', 3).arg(qs(kIntensityUnit));
            const double ridge = ridgePoint(p.device.peakTflopsPerCore, p.device.peakHbmGbpsPerCore);
            if (ridge > 0)
                ai += tr(" (ridge point %1: %2)")
                          .arg(ridge, 0, 'f', 0)
                          .arg(*row->arithmeticIntensity < ridge ? tr("memory side") : tr("compute side"));
            doc.kv(tr("Arithmetic intensity"), ai);
        }
    } else {
        doc.kv(tr("Occurrences"), tr("none on the TPU XLA Ops lines"));
        doc.kv(tr("FLOPs per occurrence"), qs(formatCount(op.flops)));
        doc.kv(tr("Bytes per occurrence"), qs(formatBytes(op.bytesAccessed)));
    }
}

void addProvenanceSection(Doc& doc, const OpDetails& d)
{
    const Profile& p = *d.profile;
    const OpInfo& op = p.ops[d.op];
    const hlo::Instruction* in = d.instruction;
    const QString tfOp = qs(p.str(op.tfOp));
    QString source = qs(p.str(op.source));
    if (source.isEmpty() && in && !in->sourceFile.empty())
        source = qs(in->sourceFile) + (in->sourceLine ? QStringLiteral(":%1").arg(in->sourceLine) : QString());
    const QString frameworkOp = !tfOp.isEmpty() ? tfOp : (in ? qs(in->opName) : QString());
    doc.heading(tr("Provenance"));
    doc.kv(tr("Category"), d.category.isEmpty() ? tr("unknown") : d.category);
    doc.kv(tr("Program"), d.program.isEmpty() ? tr("unknown") : d.program);
    doc.kv(tr("Framework op"), frameworkOp.isEmpty() ? tr("not recorded") : frameworkOp);
    doc.kv(tr("Source"), source.isEmpty() ? tr("not recorded") : source);
    if (op.deduplicatedName && !p.str(op.deduplicatedName).empty())
        doc.kv(tr("Deduplicated as"), qs(p.str(op.deduplicatedName)));
}

void addHloSection(Doc& doc, const OpDetails& d)
{
    const Profile& p = *d.profile;
    const OpInfo& op = p.ops[d.op];
    const hlo::Module* module = d.module;
    const hlo::Instruction* in = d.instruction;
    const QString longName = qs(p.str(op.longName));
    const QString hloText = !longName.isEmpty() ? longName : (in ? instructionText(module, *in) : QString());
    doc.heading(tr("HLO"));
    if (!hloText.isEmpty())
        doc.code(hloText);
    else
        doc.para(tr("This file carries no HLO text for this op."));
}

void addOutputShapeSection(Doc& doc, const QPalette& pal, const OpDetails& d)
{
    const Profile& p = *d.profile;
    const OpInfo& op = p.ops[d.op];
    const hlo::Module* module = d.module;
    const hlo::Instruction* in = d.instruction;
    const QString longName = qs(p.str(op.longName));
    // The HLO instruction, else the recorded shape, else the HLO text's result shape.
    doc.heading(tr("Output shape and padding"));
    std::optional<hlo::Shape> shape;
    std::vector<L::DimSemantics> semantics;
    if (in && (in->shape.hasLayout || in->shape.isTuple())) {
        shape = in->shape;
        semantics = L::inferOutputSemantics(*module, *in);
    }
    if (!shape && op.shapeWithLayout) {
        auto parsed = L::parseShape(p.str(op.shapeWithLayout));
        if (parsed.ok())
            shape = parsed.shape;
    }
    if (!shape && !longName.isEmpty()) {
        auto parsed = L::parseInstructionResultShape(p.str(op.longName));
        if (parsed.ok())
            shape = parsed.shape;
    }
    if (!shape && in) {
        shape = in->shape;
        semantics = L::inferOutputSemantics(*module, *in);
    }
    if (shape && semantics.empty() && !shape->isTuple() && shape->hasLayout) {
        // op_profile.json layout hints are most-minor first: label the dims whose sizes agree.
        if (auto hint = p.layoutHints.find(d.op); hint != p.layoutHints.end()) {
            const std::vector<L::DimPadding> hinted = paddingFromLayoutHints(hint->second).dims;
            const auto& m2m = shape->layout.minorToMajor;
            semantics.assign(shape->dimensions.size(), L::DimSemantics::Unknown);
            for (size_t i = 0; i < std::min(m2m.size(), hinted.size()); ++i) {
                const int64_t dim = m2m[i];
                if (dim < 0 || static_cast<size_t>(dim) >= semantics.size() || shape->dimensions[dim] != hinted[i].size)
                    continue;
                semantics[dim] = hinted[i].semantics;
            }
        }
    }
    // A layout without tiles (TF1 HLO text) says nothing about padding: the op_profile layout analysis
    // does, and without one TPU's default T(8,128) for 32-bit arrays is assumed and said so.
    const auto layoutHint = p.layoutHints.find(d.op);
    const bool untiled = shape && !shape->isTuple() && shape->hasLayout && shape->layout.tiles.empty();
    const bool hintWins = untiled && layoutHint != p.layoutHints.end() && !layoutHint->second.empty();
    if (shape && !hintWins) {
        if (untiled && shape->dimensions.size() >= 2 && hlo::primitiveTypeBits(shape->elementType) == 32) {
            shape->layout.tiles.push_back(hlo::Tile {{8, 128}});
            doc.para(tr("The layout records no tiles: T(8,128), TPU's default for 32-bit arrays, is assumed."));
        }
        addShapeSection(doc, pal, *shape, semantics, tr("Shape"));
    } else if (auto hint = layoutHint; hint != p.layoutHints.end() && !hint->second.empty()) {
        // op_profile.json records per-dimension alignments instead of a layout: the padding is the
        // model's reading of it (paddingFromLayoutHints); the semantics column keeps the file's words.
        const L::PaddingInfo info = paddingFromLayoutHints(hint->second);
        if (!info.valid) {
            doc.para(tr("Padding: %1").arg(qs(info.error)));
        } else {
            QList<QList<Doc::Cell>> rows;
            for (size_t i = 0; i < info.dims.size(); ++i) {
                const L::DimPadding& dim = info.dims[i];
                const double e = dim.padded > 0 ? static_cast<double>(dim.size) / static_cast<double>(dim.padded) : 1.0;
                rows.append(QList<Doc::Cell> {{qs(hint->second[i].semantics)}, {QString::number(dim.size)},
                    {QString::number(dim.padded)}, {dim.tile > 0 ? QString::number(dim.tile) : QStringLiteral("–")},
                    {efficiencyText(e), paddingColor(e, pal)}});
            }
            const double e = info.efficiency;
            const QString used = qs(info.usedOfTileText());
            const QString sentence
                = used.isEmpty() ? efficiencyText(e) : QStringLiteral("%1 = %2").arg(used, efficiencyText(e));
            doc.para(tr("Padding efficiency (from the profile's layout analysis): ") + sentence,
                tr("Padding efficiency (from the profile's layout analysis): ") + chip(sentence, paddingColor(e, pal)));
            doc.table({tr("Semantics"), tr("Size"), tr("Padded"), tr("Alignment"), tr("Used")}, rows,
                {false, true, true, true, true});
            for (const L::DimPadding& dim : info.dims)
                if (dim.semantics == L::DimSemantics::Batch && dim.size > 0) {
                    doc.para(dim.padded == dim.size
                            ? tr("Per-core batch %1 (the batch dimension) fills its alignment.").arg(dim.size)
                            : tr("Per-core batch %1 (the batch dimension); a per-core batch of %2 fills its %3-wide "
                                 "alignment.")
                                  .arg(dim.size)
                                  .arg(dim.padded)
                                  .arg(dim.tile));
                    break;
                }
            const OpRow* row = d.row;
            if (row && row->flopsUtilization.value_or(0) > 0 && e < 1 && std::fabs(*row->flopsUtilization - e) <= 0.05)
                doc.para(tr("Padding-bound: the FLOPS utilization (%1) is within 5 points of the padding efficiency, "
                            "so the MXU runs at full speed on tiles that are mostly padding.")
                             .arg(pct(*row->flopsUtilization)));
        }
    } else {
        doc.para(tr("The file records no shape or layout for this op."));
    }
}

void addOperandsSection(Doc& doc, const OpDetails& d, const std::function<OpId(const std::string&)>& opForInstruction)
{
    const hlo::Module* module = d.module;
    const hlo::Instruction* in = d.instruction;
    // Operands of the op in its program: the producers, links when they are profiled ops.
    if (in && module && !in->operandIds.empty()) {
        doc.heading(tr("Operands"));
        QList<QList<Doc::Cell>> rows;
        for (size_t i = 0; i < in->operandIds.size(); ++i) {
            const hlo::Instruction* operand = module->instructionById(in->operandIds[i]);
            if (!operand)
                continue;
            const OpId target = opForInstruction(operand->name);
            const QString operandName = qs(operand->name);
            rows.append(QList<Doc::Cell> {{QString::number(i)},
                {operandName, {},
                    target != kNone && target != d.op
                        ? QStringLiteral("<a href=\"op:%1\">%2</a>").arg(target).arg(esc(operandName))
                        : QString()},
                {qs(operand->opcode)}, {qs(hlo::shapeToString(operand->shape))}});
        }
        doc.table({tr("#"), tr("Operand"), tr("Opcode"), tr("Shape")}, rows, {true, false, false, false});
    }
}

const hlo::Computation* addFusedComputationSection(Doc& doc, const QPalette& pal, const OpDetails& d)
{
    const hlo::Module* module = d.module;
    const hlo::Instruction* in = d.instruction;
    // Fusion: the fused computation summary (the instructions are in the tree below).
    const hlo::Computation* fused = nullptr;
    if (in && module && in->opcode == "fusion" && !in->calledComputationIds.empty())
        fused = module->computation(in->calledComputationIds.front());
    if (fused) {
        doc.heading(tr("Fused computation"));
        doc.kv(tr("Computation"), qs(fused->name));
        doc.kv(tr("Fusion kind"), in->fusionKind.empty() ? tr("unknown") : qs(in->fusionKind));
        doc.kv(tr("Instructions"), QString::number(fused->instructions.size()));
        if (const hlo::Instruction* root = fused->root())
            doc.kv(tr("Root"), QStringLiteral("%1 (%2)").arg(qs(root->name), qs(root->opcode)));
        if (const hlo::Instruction* core = L::findComputeCore(*module, *in))
            doc.kv(tr("Compute core"), QStringLiteral("%1 (%2)").arg(qs(core->name), qs(core->opcode)));
        QList<QList<Doc::Cell>> rows;
        for (const hlo::Instruction& fi : fused->instructions) {
            QString eff = QStringLiteral("–");
            if (!fi.shape.isTuple()) {
                const auto info = L::computePadding(fi.shape, L::inferOutputSemantics(*module, fi));
                if (info.valid)
                    eff = efficiencyText(info.efficiency);
            }
            rows.append(
                QList<Doc::Cell> {{qs(fi.name) + (fi.id == fused->rootId ? QStringLiteral(" (ROOT)") : QString())},
                    {qs(fi.opcode)}, {qs(hlo::shapeToString(fi.shape))}, {eff}});
        }
        // The tree shows these interactively; the Markdown copy gets them as a table.
        Doc md(pal);
        md.table({tr("Instruction"), tr("Opcode"), tr("Shape"), tr("Padding")}, rows, {false, false, false, true});
        doc.rawMarkdown(QStringLiteral("### Fused instructions\n\n") + md.markdown());
    }

    return fused;
}

} // namespace tpuscope::widgets
