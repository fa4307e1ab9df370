// SPDX-License-Identifier: GPL-3.0-or-later
#include "padding.h"

#include "../core/format.h"
#include "../core/parallel.h"

#include <algorithm>
#include <map>
#include <thread>

namespace tpuscope::model {

using layout::DimSemantics;

const char* shapeSourceName(ShapeSource source)
{
    switch (source) {
    case ShapeSource::Hlo:
        return "HLO proto";
    case ShapeSource::ShapeWithLayout:
        return "shape_with_layout stat";
    case ShapeSource::HloText:
        return "HLO text of the event";
    case ShapeSource::LayoutHint:
        return "op_profile layout analysis";
    case ShapeSource::None:
        break;
    }
    return "none";
}

int ArrayPadding::batchDim() const
{
    for (size_t i = 0; i < padding.dims.size(); ++i)
        if (padding.dims[i].semantics == DimSemantics::Batch)
            return static_cast<int>(i);
    return -1;
}

std::string arrayShapeText(const ArrayPadding& array)
{
    if (array.shape.elementType != hlo::PrimitiveType::Invalid)
        return hlo::shapeToString(array.shape);
    std::string text = "[";
    for (size_t i = 0; i < array.shape.dimensions.size(); ++i)
        text += (i ? "," : "") + std::to_string(array.shape.dimensions[i]);
    return text + "] (element type not recorded)";
}

std::string paddingEfficiencyText(double efficiency)
{
    const double percent = efficiency * 100;
    if (percent >= 99.995)
        return "100%";
    return formatPercent(efficiency, percent < 10 ? 2 : 1);
}

std::string paddingText(const layout::PaddingInfo& padding)
{
    if (!padding.valid)
        return padding.error.empty() ? "unknown (no layout)" : padding.error;
    const std::string used = padding.usedOfTileText();
    const std::string efficiency = paddingEfficiencyText(padding.efficiency);
    return used.empty() ? "no tiling, " + efficiency + " of the buffer used" : used + " = " + efficiency;
}

const ArrayPadding* OpPadding::worst() const
{
    const ArrayPadding* best = nullptr;
    for (const ArrayPadding& a : arrays)
        if (a.padding.valid && (!best || a.padding.efficiency < best->padding.efficiency))
            best = &a;
    return best;
}

double OpPadding::worstEfficiency() const
{
    const ArrayPadding* w = worst();
    return w ? w->padding.efficiency : 1.0;
}

namespace {

void addArrays(
    OpPadding& out, const hlo::Shape& shape, const std::vector<DimSemantics>& semantics, const std::string& role)
{
    if (shape.isTuple()) {
        for (size_t i = 0; i < shape.tupleShapes.size(); ++i) {
            // Nested tuples are flattened one level; their semantics are unknown.
            if (shape.tupleShapes[i].isTuple())
                continue;
            addArrays(out, shape.tupleShapes[i], {}, role + " {" + std::to_string(i) + "}");
        }
        return;
    }
    if (shape.elementType == hlo::PrimitiveType::Token || shape.elementType == hlo::PrimitiveType::Invalid)
        return;
    ArrayPadding a;
    a.role = role;
    a.shape = shape;
    a.semantics = semantics;
    a.padding = layout::computePadding(shape, semantics);
    out.arrays.push_back(std::move(a));
}

bool looksLikeHloText(std::string_view text)
{
    return text.find(" = ") != std::string_view::npos;
}

DimSemantics semanticsFromHint(std::string_view name)
{
    if (name == "batch")
        return DimSemantics::Batch;
    if (name == "feature")
        return DimSemantics::Feature;
    if (name == "spatial")
        return DimSemantics::Spatial;
    return DimSemantics::Unknown;
}

bool hasTiles(const hlo::Shape& shape)
{
    if (shape.isTuple()) {
        for (const hlo::Shape& element : shape.tupleShapes)
            if (hasTiles(element))
                return true;
        return false;
    }
    return shape.hasLayout && !shape.layout.tiles.empty();
}

/// TPU lays out 32-bit arrays of rank >= 2 as T(8,128) unless told otherwise (FORMATS.md §6.2); a TF1
/// HLO text prints layouts without tiles. Returns the note to show, or empty when nothing was assumed.
std::string assumeDefaultTile(hlo::Shape& shape)
{
    if (shape.isTuple()) {
        std::string note;
        for (hlo::Shape& element : shape.tupleShapes)
            if (std::string n = assumeDefaultTile(element); !n.empty())
                note = n;
        return note;
    }
    if (!shape.hasLayout || !shape.layout.tiles.empty() || shape.dimensions.size() < 2
        || hlo::primitiveTypeBits(shape.elementType) != 32)
        return {};
    shape.layout.tiles.push_back(hlo::Tile {{8, 128}});
    return "T(8,128) assumed: the layout records no tiles, and TPU tiles 32-bit arrays 8x128 by default";
}

} // namespace

layout::PaddingInfo paddingFromLayoutHints(const std::vector<LayoutDimensionHint>& hints)
{
    layout::PaddingInfo info;
    if (hints.empty()) {
        info.error = "no layout analysis";
        return info;
    }
    info.logicalElements = 1;
    info.paddedElements = 1;
    double efficiency = 1;
    for (size_t i = 0; i < hints.size(); ++i) {
        const LayoutDimensionHint& h = hints[i];
        if (h.size < 0 || h.alignment < 0) {
            info.error = "negative size or alignment in the layout analysis";
            return info;
        }
        layout::DimPadding d;
        d.logicalDim = static_cast<int64_t>(i);
        d.size = h.size;
        d.tile = h.alignment;
        d.padded = h.alignment > 0 ? (h.size + h.alignment - 1) / h.alignment * h.alignment : h.size;
        d.semantics = semanticsFromHint(h.semantics);
        if (d.padded > 0)
            efficiency *= static_cast<double>(d.size) / static_cast<double>(d.padded);
        // Element counts saturate rather than overflow; the efficiency is the product of fills.
        info.logicalElements = info.logicalElements > (int64_t(1) << 40)
            ? info.logicalElements
            : info.logicalElements * std::max<int64_t>(d.size, 1);
        info.paddedElements = info.paddedElements > (int64_t(1) << 40)
            ? info.paddedElements
            : info.paddedElements * std::max<int64_t>(d.padded, 1);
        info.dims.push_back(d);
    }
    info.valid = true;
    info.efficiency = efficiency;
    return info;
}

namespace {
OpPadding resolveArrays(const Profile& profile, OpId opId);
} // namespace

OpPadding resolveOpPadding(const Profile& profile, OpId opId)
{
    OpPadding out = resolveArrays(profile, opId);
    if (out.op < profile.ops.size())
        out.update = resolveUpdateWrite(profile, out.op, out.module, out.module ? out.instruction : nullptr);
    return out;
}

namespace {

OpPadding resolveArrays(const Profile& profile, OpId opId)
{
    OpPadding out;
    out.op = opId;
    if (opId >= profile.ops.size()) {
        out.error = "no such op";
        return out;
    }
    const OpInfo& op = profile.ops[opId];
    out.name = profile.str(op.name);
    out.module = profile.hloFor(op);
    out.instruction = profile.instructionFor(op);

    const auto hint = profile.layoutHints.find(opId);
    const bool haveHint = hint != profile.layoutHints.end() && !hint->second.empty();
    if (out.module && out.instruction && out.instruction->shape.hasLayout
        && (!haveHint || hasTiles(out.instruction->shape))) {
        out.source = ShapeSource::Hlo;
        const hlo::Module& module = *out.module;
        const hlo::Instruction& inst = *out.instruction;
        out.computeCore = layout::findComputeCore(module, inst);
        addArrays(out, inst.shape, layout::inferOutputSemantics(module, inst), "output");
        if (const hlo::Instruction* core = out.computeCore) {
            if (core->hasConvolutionDimensions) {
                const auto& dims = core->shape.dimensions;
                const bool filterGradient = layout::isFilterGradient(module, *core);
                if (!filterGradient && core->convolution.outputBatch >= 0
                    && core->convolution.outputBatch < int64_t(dims.size()))
                    out.batchSize = dims[core->convolution.outputBatch];
                // The activation input (operand 0) as laid out for the convolution.
                if (!core->operandIds.empty()) {
                    hlo::Shape activation;
                    bool have = false;
                    if (const hlo::Instruction* a = module.instructionById(core->operandIds[0]);
                        a && a->shape.hasLayout && !a->shape.isTuple()) {
                        activation = a->shape;
                        have = true;
                    } else if (!core->operandShapes.empty() && core->operandShapes[0].hasLayout) {
                        activation = core->operandShapes[0];
                        have = true;
                    }
                    if (have)
                        addArrays(out, activation, layout::inferOperandSemantics(module, *core, 0),
                            "activation (operand 0 of " + core->name + ")");
                    // A filter gradient sums over the model's batch: its input's convolution feature.
                    const int64_t contracted = core->convolution.inputFeature;
                    if (have && filterGradient && contracted >= 0 && contracted < int64_t(activation.dimensions.size()))
                        out.batchSize = activation.dimensions[contracted];
                }
            } else if (core->hasDotDimensions && !core->dot.lhsBatch.empty() && !core->shape.dimensions.empty()) {
                // Dot outputs list the batch dims first.
                out.batchSize = core->shape.dimensions[0];
                out.batchFromDot = true;
            }
        }
        if (!out.arrays.empty())
            return out;
        out.arrays.clear();
    }

    // A TF1 op_profile: the producer's own analysis of the primary input, per dimension.
    if (haveHint) {
        out.source = ShapeSource::LayoutHint;
        ArrayPadding a;
        a.role = "input (op_profile layout analysis)";
        a.padding = paddingFromLayoutHints(hint->second);
        a.assumption = "from the op_profile layout analysis (alignment per dimension)";
        for (const layout::DimPadding& d : a.padding.dims) {
            a.semantics.push_back(d.semantics);
            if (d.semantics == DimSemantics::Batch && out.batchSize < 0)
                out.batchSize = d.size;
        }
        // An hlo::Shape for the wording ("f32[...]"); most-major first, element type unknown.
        a.shape.elementType = hlo::PrimitiveType::Invalid;
        for (size_t i = a.padding.dims.size(); i-- > 0;)
            a.shape.dimensions.push_back(a.padding.dims[i].size);
        if (a.padding.valid) {
            out.arrays.push_back(std::move(a));
            return out;
        }
    }

    // No usable HLO: the shape stat, then the HLO text the event carries.
    const std::string& swl = profile.str(op.shapeWithLayout);
    if (!swl.empty()) {
        layout::ShapeParseResult parsed = layout::parseShape(swl);
        if (parsed.ok() && (parsed.shape.hasLayout || parsed.shape.isTuple())) {
            out.source = ShapeSource::ShapeWithLayout;
            addArrays(out, parsed.shape, {}, "output");
            if (!out.arrays.empty())
                return out;
        } else if (!parsed.ok()) {
            out.error = "shape_with_layout: " + parsed.error;
        }
    }
    const std::string& longName = profile.str(op.longName);
    if (looksLikeHloText(longName)) {
        layout::ShapeParseResult parsed = layout::parseInstructionResultShape(longName);
        if (parsed.ok()) {
            out.source = ShapeSource::HloText;
            const std::string assumed = assumeDefaultTile(parsed.shape);
            addArrays(out, parsed.shape, {}, "output");
            for (ArrayPadding& a : out.arrays)
                if (a.shape.hasLayout && !assumed.empty() && hlo::primitiveTypeBits(a.shape.elementType) == 32
                    && a.shape.dimensions.size() >= 2)
                    a.assumption = assumed;
            if (!out.arrays.empty()) {
                out.error.clear();
                return out;
            }
        } else if (out.error.empty()) {
            out.error = "HLO text: " + parsed.error;
        }
    }
    if (out.error.empty())
        out.error = out.instruction ? "the HLO instruction has no layout and the event carries no shape"
                                    : "the profile records no shape for this op";
    return out;
}

} // namespace

// ---------------------------------------------------------------------------------------------

std::string BatchInference::explanation(const Profile& profile) const
{
    if (!known)
        return reason;
    std::string names;
    for (size_t i = 0; i < ops.size() && i < 3; ++i)
        names += (i ? ", " : "") + profile.str(profile.ops[ops[i]].name);
    if (ops.size() > 3)
        names += " and " + std::to_string(ops.size() - 3) + " more";
    char buffer[512];
    std::snprintf(buffer, sizeof buffer,
        "per-core batch %lld from the batch dimension of the %s in %s (%.0f%% of the time of ops with a "
        "batch dimension, which cover %.0f%% of all op time); global batch %lld = %lld x %d cores, "
        "assuming all cores are data-parallel",
        static_cast<long long>(perCoreBatch), fromDotsOnly ? "dots" : "convolutions", names.c_str(),
        agreeingShare * 100, coveredShare * 100, static_cast<long long>(globalBatch),
        static_cast<long long>(perCoreBatch), cores);
    const CoreCountSource source = profile.device.coresSource;
    if (source != CoreCountSource::Planes && source != CoreCountSource::UserChoice)
        return std::string(buffer) + " (the file does not record the cores: " + std::to_string(cores)
            + " is an assumption; the global batch is " + std::to_string(perCoreBatch) + " x the cores that ran)";
    return buffer;
}

// Confidence bands: the mode must explain most of the batch-carrying time, and those ops must be
// a visible part of the profile, for the number to be trusted.
constexpr double kHighAgreeing = 0.8;
constexpr double kHighCovered = 0.3;
constexpr double kMediumAgreeing = 0.5;
constexpr double kMediumCovered = 0.1;

std::vector<OpPadding> resolveRowPaddings(const Profile& profile, const OpBreakdown& breakdown)
{
    std::vector<OpPadding> paddings(breakdown.rows.size());
    // Layouts are parsed per op (~2 µs each): a profile of thousands of ops spent milliseconds
    // here with one core idle. Rows go to the pool in blocks, each written by one worker.
    constexpr size_t kRowsPerItem = 256;
    const size_t items = (paddings.size() + kRowsPerItem - 1) / kRowsPerItem;
    parallelFor(
        std::vector<size_t>(items, 1), std::max(1u, std::thread::hardware_concurrency()),
        [&](size_t item) {
            for (size_t i = item * kRowsPerItem; i < std::min(paddings.size(), (item + 1) * kRowsPerItem); ++i)
                if (const OpId op = breakdown.rows[i].op; op != kNone)
                    paddings[i] = resolveOpPadding(profile, op);
        },
        [] {});
    return paddings;
}

BatchInference inferPerCoreBatch(const Profile& profile, const OpBreakdown& breakdown)
{
    return inferPerCoreBatch(profile, breakdown, resolveRowPaddings(profile, breakdown));
}

BatchInference inferPerCoreBatch(
    const Profile& profile, const OpBreakdown& breakdown, const std::vector<OpPadding>& rowPaddings)
{
    BatchInference out;
    out.cores = profile.device.cores;
    std::map<int64_t, BatchCandidate> byBatch;
    double knownTime = 0;
    bool anyConv = false;
    for (size_t i = 0; i < breakdown.rows.size() && i < rowPaddings.size(); ++i) {
        const OpRow& row = breakdown.rows[i];
        if (row.op == kNone || row.totalTimePs <= 0)
            continue;
        const OpPadding& p = rowPaddings[i];
        if (p.batchSize <= 0)
            continue;
        anyConv |= !p.batchFromDot;
        BatchCandidate& c = byBatch[p.batchSize];
        c.batch = p.batchSize;
        c.timePs += row.totalTimePs;
        c.ops.push_back(row.op);
        knownTime += row.totalTimePs;
    }
    if (byBatch.empty() || knownTime <= 0) {
        out.reason = "no convolution or batched dot with a known batch dimension (the file carries no HLO, or the "
                     "model has no such ops)";
        return out;
    }
    for (auto& [batch, c] : byBatch)
        out.candidates.push_back(c);
    std::stable_sort(out.candidates.begin(), out.candidates.end(),
        [](const BatchCandidate& a, const BatchCandidate& b) { return a.timePs > b.timePs; });
    const BatchCandidate& mode = out.candidates.front();
    out.known = true;
    out.perCoreBatch = mode.batch;
    out.ops = mode.ops;
    out.globalBatch = mode.batch * std::max(1, out.cores);
    out.agreeingShare = mode.timePs / knownTime;
    out.coveredShare = breakdown.totalTimePs > 0 ? knownTime / breakdown.totalTimePs : 0;
    out.fromDotsOnly = !anyConv;
    char buffer[256];
    std::snprintf(buffer, sizeof buffer,
        "%.0f%% of the batch-carrying time agrees on %lld; those ops are %.0f%% of "
        "all op time",
        out.agreeingShare * 100, static_cast<long long>(mode.batch), out.coveredShare * 100);
    out.reason = buffer;
    if (out.agreeingShare >= kHighAgreeing && out.coveredShare >= kHighCovered && !out.fromDotsOnly) {
        out.confidence = "high";
    } else if (out.agreeingShare >= kMediumAgreeing && out.coveredShare >= kMediumCovered) {
        out.confidence = "medium";
        if (out.fromDotsOnly)
            out.reason += "; from dot batch dimensions only, which may be heads or sequence rather than examples";
    } else {
        out.confidence = "low";
    }
    if (out.cores <= 0)
        out.reason += "; the number of TPU cores is unknown";
    return out;
}

BatchInference inferPerCoreBatch(const Profile& profile)
{
    return inferPerCoreBatch(profile, computeOpBreakdown(profile));
}

// ---------------------------------------------------------------------------------------------

WhatIfResult whatIfBatch(
    const Profile& profile, const OpBreakdown& breakdown, int64_t perCoreBatch, size_t maxOps, int64_t currentBatch)
{
    WhatIfResult out;
    out.perCoreBatch = perCoreBatch;
    out.cores = profile.device.cores;
    out.globalBatch = perCoreBatch * std::max(1, out.cores);
    if (perCoreBatch <= 0 || perCoreBatch > (int64_t(1) << 31)) {
        out.error = "the per-core batch must be between 1 and 2^31";
        return out;
    }
    if (currentBatch <= 0) {
        const BatchInference inferred = inferPerCoreBatch(profile, breakdown);
        if (!inferred.known) {
            out.error = "the per-core batch could not be inferred";
            return out;
        }
        currentBatch = inferred.perCoreBatch;
    }
    double time = 0, current = 0, next = 0;
    for (const OpRow& row : breakdown.rows) {
        if (out.ops.size() >= maxOps)
            break;
        if (row.op == kNone || row.totalTimePs <= 0)
            continue;
        const OpPadding p = resolveOpPadding(profile, row.op);
        if (p.batchSize != currentBatch)
            continue;
        const ArrayPadding* chosen = nullptr;
        for (const ArrayPadding& a : p.arrays)
            if (a.padding.valid && a.batchDim() >= 0 && (!chosen || a.padding.efficiency < chosen->padding.efficiency))
                chosen = &a;
        if (!chosen)
            continue;
        hlo::Shape shape = chosen->shape;
        for (size_t d = 0; d < chosen->semantics.size() && d < shape.dimensions.size(); ++d)
            if (chosen->semantics[d] == DimSemantics::Batch)
                shape.dimensions[d] = perCoreBatch;
        const layout::PaddingInfo np = layout::computePadding(shape, chosen->semantics);
        if (!np.valid)
            continue;
        WhatIfOp w;
        w.op = row.op;
        w.name = row.name;
        w.role = chosen->role;
        w.timeFraction = row.timeFraction;
        w.currentEfficiency = chosen->padding.efficiency;
        w.newEfficiency = np.efficiency;
        w.currentUsed = chosen->padding.usedOfTileText();
        w.newUsed = np.usedOfTileText();
        time += row.totalTimePs;
        current += row.totalTimePs * w.currentEfficiency;
        next += row.totalTimePs * w.newEfficiency;
        out.ops.push_back(std::move(w));
    }
    if (out.ops.empty()) {
        out.error = "no op with a known batch dimension and layout";
        return out;
    }
    out.valid = true;
    out.currentWeightedEfficiency = current / time;
    out.newWeightedEfficiency = next / time;
    return out;
}

WhatIfResult whatIfBatch(const Profile& profile, int64_t perCoreBatch)
{
    return whatIfBatch(profile, computeOpBreakdown(profile), perCoreBatch);
}

// ---------------------------------------------------------------------------------------------

std::string instructionSummary(const hlo::Module& module, const hlo::Instruction& inst)
{
    std::string text = "%" + inst.name + " = " + hlo::shapeToString(inst.shape) + " " + inst.opcode + "(";
    for (size_t i = 0; i < inst.operandIds.size(); ++i) {
        const hlo::Instruction* operand = module.instructionById(inst.operandIds[i]);
        text += i ? ", %" : "%";
        text += operand ? operand->name : "?" + std::to_string(inst.operandIds[i]);
    }
    if (inst.opcode == "parameter")
        text += std::to_string(inst.parameterNumber);
    text += ")";
    if (!inst.fusionKind.empty())
        text += ", kind=" + inst.fusionKind;
    for (int64_t id : inst.calledComputationIds)
        if (const hlo::Computation* c = module.computation(id))
            text += (inst.opcode == "fusion" ? ", calls=%" : ", to_apply=%") + c->name;
    if (!inst.customCallTarget.empty())
        text += ", custom_call_target=\"" + inst.customCallTarget + "\"";
    return text;
}

} // namespace tpuscope::model
