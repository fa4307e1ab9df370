// SPDX-License-Identifier: GPL-3.0-or-later
#include "detailsdocument.h"

#include "analysis/advice.h"
#include "analysis/padding.h"
#include "analysis/utilization.h"
#include "qt/colors.h"
#include "qt/qstrings.h"
#include "report/report.h"

#include <QCoreApplication>

#include <algorithm>
#include <optional>

namespace tpuscope::widgets {

using namespace tpuscope::model;
namespace L = tpuscope::model::layout;
using tpuscope::qt::qs;
using Doc = DetailsDocument;

namespace {
constexpr int kMaxTupleElements = 8;
// An op's arrays beyond this many get a row each in one table instead of a section each.
constexpr size_t kMaxArraySections = 8;
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
// FLOPS and HBM utilization on the one scale, as the op table's bars show them (the HBM chip
// was once inverted: 0 % read green).
QColor flopsUtilColor(double u, const QPalette& pal)
{
    return qt::colors::utilizationTint(u, pal);
}
QColor hbmUtilColor(double u, const QPalette& pal)
{
    return qt::colors::utilizationTint(u, pal);
}

QString efficiencyText(double e)
{
    return qs(paddingEfficiencyText(e));
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

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("tpuscope::widgets::DetailsPanel", text);
}

/// The padding sentence (the model's paddingText, as the CLI prints it) and the memory the array
/// takes. An op_profile layout analysis gives an alignment per dimension instead of a laid-out
/// shape: its memory is not known.
void addPaddingSummary(Doc& doc, const QPalette& pal, const L::PaddingInfo& info, bool fromLayoutAnalysis)
{
    const QString sentence = qs(paddingText(info));
    if (!info.valid) {
        doc.para(tr("Padding: %1").arg(sentence));
    } else {
        doc.para(tr("Padding efficiency: ") + sentence,
            tr("Padding efficiency: ") + chip(sentence, paddingColor(info.efficiency, pal)));
        if (!fromLayoutAnalysis) {
            QString memory = tr("Memory: %1 used of %2 padded")
                                 .arg(qs(formatBytes(static_cast<double>(info.logicalBytes))),
                                     qs(formatBytes(static_cast<double>(info.paddedBytes))));
            if (!info.tileText.empty())
                memory += tr(", tile %1").arg(qs(info.tileText));
            memory += tr(", memory space S(%1)%2")
                          .arg(info.memorySpace)
                          .arg(info.memorySpace == 0      ? QStringLiteral(" HBM")
                                  : info.memorySpace == 1 ? QStringLiteral(" VMEM")
                                  : info.memorySpace == 5 ? QStringLiteral(" host")
                                                          : QString());
            doc.para(memory);
        }
    }
}

/// The per-dimension table in physical order; a layout analysis's dims have no logical number.
void addPaddingTable(Doc& doc, const QPalette& pal, const L::PaddingInfo& info, bool fromLayoutAnalysis)
{
    if (info.dims.empty())
        return; // a scalar, or no layout to lay the dims out by
    QList<QList<Doc::Cell>> rows;
    for (const L::DimPadding& d : info.dims) {
        const double e = d.padded > 0 ? static_cast<double>(d.size) / static_cast<double>(d.padded) : 1.0;
        QString hint;
        if (d.tile > 0) {
            const int64_t k = (d.size + d.tile - 1) / d.tile;
            hint = d.size % d.tile == 0 ? tr("exact fit") : tr("pad to %1").arg(k * d.tile);
            if (k != 1)
                hint += QStringLiteral(": %1 × %2").arg(k).arg(d.tile);
        } else if (fromLayoutAnalysis) {
            hint = tr("no alignment");
        } else {
            hint = d.padded != d.size ? tr("padded by an inner tile") : tr("not tiled");
        }
        QList<Doc::Cell> row;
        if (!fromLayoutAnalysis)
            row << Doc::Cell(QString::number(d.logicalDim));
        row << Doc::Cell(
            d.semantics == L::DimSemantics::Unknown ? QStringLiteral("–") : qs(L::semanticsName(d.semantics)))
            << Doc::Cell(QString::number(d.size)) << Doc::Cell(QString::number(d.padded))
            << Doc::Cell(d.tile > 0 ? QString::number(d.tile) : QStringLiteral("–"))
            << Doc::Cell(efficiencyText(e), info.valid ? paddingColor(e, pal) : QColor()) << Doc::Cell(hint);
        rows.append(row);
    }
    QStringList header {tr("Semantics"), tr("Size"), tr("Padded"), fromLayoutAnalysis ? tr("Alignment") : tr("Tile"),
        tr("Used"), tr("Layout hint")};
    QList<bool> rightAligned {false, true, true, true, true, false};
    if (!fromLayoutAnalysis) {
        header.prepend(tr("Dim"));
        rightAligned.prepend(true);
    }
    doc.table(header, rows, rightAligned);
    doc.rawHtml(QStringLiteral("<p style=\"margin-top:2px;\"><small>%1</small></p>")
                    .arg(tr("Rows in physical order, most-minor first.")));
}

} // namespace

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
    addPaddingSummary(doc, pal, info, false);
    addPaddingTable(doc, pal, info, false);
}

// --- sections of an op's document --------------------------------------------------------------

void addPerformanceSection(Doc& doc, const QPalette& pal, const OpDetails& d, const QString& heading)
{
    const Profile& p = *d.profile;
    const OpInfo& op = p.ops[d.op];
    doc.heading(heading.isEmpty() ? tr("Performance") : heading);
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

namespace {

/// A paragraph that starts a block of the section (an array, the table of the rest of them): more
/// room above it than between the lines of one block.
void blockStart(Doc& doc, const QString& text, const QString& html)
{
    doc.rawHtml(QStringLiteral("<p style=\"margin-top:10px; margin-bottom:3px;\">%1</p>").arg(html));
    doc.rawMarkdown(text + QStringLiteral("\n\n"));
}

/// One array of the op's padding: its role and shape, how its tiling is known when the shape does
/// not record it, the padding, what its batch dimension needs, and the table.
void addArrayPadding(Doc& doc, const QPalette& pal, const OpPadding& padding, const ArrayPadding& array)
{
    const QString role = qs(array.role);
    const QString shape = qs(arrayShapeText(array));
    blockStart(doc, QStringLiteral("%1: %2").arg(role, shape),
        QStringLiteral("<b>%1</b>: <code>%2</code>").arg(esc(role), esc(wrappableShapeText(shape))));
    if (!array.assumption.empty())
        doc.para(tr("Tiling: %1").arg(qs(array.assumption)));
    const bool fromLayoutAnalysis = padding.source == ShapeSource::LayoutHint;
    addPaddingSummary(doc, pal, array.padding, fromLayoutAnalysis);
    // A dot's "batch" dims may be heads or sequence rather than examples: only a convolution's (or
    // the layout analysis's, which xprof writes for convolutions) is called the per-core batch.
    const int batchDim = array.batchDim();
    if (batchDim >= 0 && !padding.batchFromDot && array.padding.valid && array.padding.dims[batchDim].size > 0) {
        const L::DimPadding& dim = array.padding.dims[batchDim];
        const QString unit = fromLayoutAnalysis ? tr("alignment") : tr("tile");
        if (dim.padded == dim.size)
            doc.para(tr("Per-core batch %1 (the batch dimension) fills its %2.").arg(dim.size).arg(unit));
        else if (dim.tile > 0)
            doc.para(tr("Per-core batch %1 (the batch dimension); a per-core batch of %2 fills its %3-wide %4.")
                         .arg(dim.size)
                         .arg(dim.padded)
                         .arg(dim.tile)
                         .arg(unit));
        else
            doc.para(tr("Per-core batch %1 (the batch dimension), padded to %2.").arg(dim.size).arg(dim.padded));
    }
    addPaddingTable(doc, pal, array.padding, fromLayoutAnalysis);
}

} // namespace

void addOutputShapeSection(Doc& doc, const QPalette& pal, const OpDetails& d)
{
    // The model decides which shapes to show and how their tiling is known (resolveOpPadding), as
    // for the advice, the share card and `tpuscope-cli fusion`: the panel only lays them out.
    const OpPadding padding = resolveOpPadding(*d.profile, d.op);
    // "Shapes", not "Output shape": a convolution's activation input and a layout analysis's
    // input are here too.
    doc.heading(tr("Shapes and padding"));
    if (padding.arrays.empty()) {
        doc.para(tr("No shape to pad: %1.").arg(qs(padding.error))); // the model always says why
        return;
    }
    QString from = qs(shapeSourceName(padding.source));
    if (padding.computeCore)
        from += tr("; built around %1 (%2)").arg(qs(padding.computeCore->name), qs(padding.computeCore->opcode));
    doc.kv(tr("Shape from"), from);
    if (padding.arrays.size() > 1) {
        const ArrayPadding* worst = padding.worst();
        const QString count = QString::number(padding.arrays.size());
        const QString worstEfficiency = worst ? efficiencyText(worst->padding.efficiency) : QString();
        if (!worst)
            doc.kv(tr("Arrays"), count);
        else if (worstEfficiency == efficiencyText(1)) // "the least filled (100%)" would read oddly
            doc.kv(tr("Arrays"), tr("%1, each tiled on its own; none is padded").arg(count));
        else
            doc.kv(tr("Arrays"),
                tr("%1, each tiled on its own; the least filled is the %2 (%3)")
                    .arg(count, qs(worst->role), worstEfficiency));
    }
    // A big tuple (a while loop's state, a multi-output fusion) would be a page of tables: the
    // first arrays get theirs, the rest a row each.
    const size_t inFull = std::min(padding.arrays.size(), kMaxArraySections);
    for (size_t i = 0; i < inFull; ++i)
        addArrayPadding(doc, pal, padding, padding.arrays[i]);
    if (inFull < padding.arrays.size()) {
        QList<QList<Doc::Cell>> rows;
        for (size_t i = inFull; i < padding.arrays.size(); ++i) {
            const ArrayPadding& array = padding.arrays[i];
            rows.append(QList<Doc::Cell> {Doc::Cell(qs(array.role)), Doc::Cell(qs(arrayShapeText(array))),
                Doc::Cell(qs(paddingText(array.padding)),
                    array.padding.valid ? paddingColor(array.padding.efficiency, pal) : QColor())});
        }
        const QString more = tr("%1 more arrays:").arg(padding.arrays.size() - inFull);
        blockStart(doc, more, esc(more));
        doc.table({tr("Array"), tr("Shape"), tr("Padding")}, rows, {false, false, false});
    }
    // An update op's update operand: the strided-update advice's evidence, in its words, as
    // `tpuscope-cli fusion` prints it.
    if (const std::optional<UpdateWrite>& u = padding.update) {
        const QString role = qs(u->role());
        const QString shape = qs(hlo::shapeToString(u->update));
        blockStart(doc, QStringLiteral("%1: %2").arg(role, shape),
            QStringLiteral("<b>%1</b>: <code>%2</code>").arg(esc(role), esc(wrappableShapeText(shape))));
        doc.para(qs(std::string(padding.name) + " " + updateWriteText(*u)));
        addPaddingSummary(doc, pal, u->updatePadding, false);
    }
    if (const std::string bound = d.row ? paddingBoundFinding(*d.row, padding) : std::string(); !bound.empty())
        doc.para(qs(bound));
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
