// SPDX-License-Identifier: GPL-3.0-or-later
#include "diffreasons.h"

#include "../core/format.h"
#include "padding.h"

#include <cmath>
#include <map>

namespace tpuscope::model {

const char* diffReasonKindName(DiffReasonKind kind)
{
    switch (kind) {
    case DiffReasonKind::Shape:
        return "shape";
    case DiffReasonKind::Padding:
        return "padding";
    case DiffReasonKind::Layout:
        return "layout";
    case DiffReasonKind::Fusion:
        return "fusion";
    case DiffReasonKind::Time:
        return "time";
    case DiffReasonKind::Utilization:
        return "utilization";
    case DiffReasonKind::Bytes:
        return "bytes";
    }
    return "time";
}

namespace diffreasons_detail {

constexpr const char* kArrow = " \u2192 ";

/// "output", "activation": the role without the instruction it names (renumbered on the other side).
std::string roleOf(const ArrayPadding& array)
{
    return array.role.substr(0, array.role.find(" ("));
}

double fillOf(const layout::DimPadding& dim)
{
    return dim.padded > 0 ? static_cast<double>(dim.size) / static_cast<double>(dim.padded) : 1.0;
}

const layout::DimPadding* dimAt(const layout::PaddingInfo& padding, int64_t logical)
{
    for (const layout::DimPadding& d : padding.dims)
        if (d.logicalDim == logical)
            return &d;
    return nullptr;
}

/// "{0,3,2,1:T(8,128)}" of "f32[16,128,128,1]{0,3,2,1:T(8,128)}"; empty without a layout.
std::string layoutText(const hlo::Shape& shape)
{
    const std::string text = hlo::shapeToString(shape);
    const size_t brace = text.find('{');
    return brace == std::string::npos ? std::string() : text.substr(brace);
}

std::string dimensionsText(const hlo::Shape& shape)
{
    std::string text = "[";
    for (size_t i = 0; i < shape.dimensions.size(); ++i)
        text += (i ? "," : "") + std::to_string(shape.dimensions[i]);
    return text + "]";
}

bool bothValid(const ArrayPadding& a, const ArrayPadding& b)
{
    return a.padding.valid && b.padding.valid;
}

/// The batch dimension of array `i` in padding.dims: the one labelled batch, else (`logical` >= 0,
/// an op with no convolution or dot to label it) the output's dimension at that logical index.
int batchDimOf(const OpPadding& p, size_t i, int64_t logical)
{
    if (logical < 0)
        return p.arrays[i].batchDim();
    if (i != 0)
        return -1;
    const auto& dims = p.arrays[i].padding.dims;
    for (size_t d = 0; d < dims.size(); ++d)
        if (dims[d].logicalDim == logical)
            return static_cast<int>(d);
    return -1;
}

/// "per-core batch 16 → 128: tile efficiency 12.5% → 100%": the batch dimension's fill of its tile
/// in the array where it was lowest before. Returns the array index used (-1 none).
int batchReason(const OpPadding& a, const OpPadding& b, int64_t batchA, int64_t batchB, int64_t logical,
    std::vector<DiffReason>& out)
{
    std::string text = "per-core batch " + std::to_string(batchA) + kArrow + std::to_string(batchB);
    int chosen = -1;
    double lowest = 2, fillA = 1, fillB = 1;
    for (size_t i = 0; i < a.arrays.size() && i < b.arrays.size(); ++i) {
        const int da = batchDimOf(a, i, logical), db = batchDimOf(b, i, logical);
        if (!bothValid(a.arrays[i], b.arrays[i]) || da < 0 || db < 0)
            continue;
        const double fill = fillOf(a.arrays[i].padding.dims[static_cast<size_t>(da)]);
        if (fill < lowest) {
            lowest = fillA = fill;
            fillB = fillOf(b.arrays[i].padding.dims[static_cast<size_t>(db)]);
            chosen = static_cast<int>(i);
        }
    }
    if (chosen >= 0)
        text += ": tile efficiency " + paddingEfficiencyText(fillA) + kArrow + paddingEfficiencyText(fillB);
    out.push_back({DiffReasonKind::Shape, text});
    return chosen;
}

/// The logical dimension of the output that went from the profile's per-core batch before to the
/// one after, every other dimension unchanged; -1 when there is no such one dimension.
int64_t batchDimensionByShape(const OpPadding& a, const OpPadding& b, int64_t batchA, int64_t batchB)
{
    if (a.arrays.empty() || b.arrays.empty() || batchA <= 0 || batchB <= 0 || batchA == batchB)
        return -1;
    const auto& x = a.arrays.front().shape.dimensions;
    const auto& y = b.arrays.front().shape.dimensions;
    if (x.size() != y.size())
        return -1;
    int64_t found = -1;
    for (size_t d = 0; d < x.size(); ++d) {
        if (x[d] == y[d])
            continue;
        if (x[d] != batchA || y[d] != batchB || found >= 0)
            return -1;
        found = static_cast<int64_t>(d);
    }
    return found;
}

/// Per array both sides have: each tiled dimension whose fill changed, the array's share of its
/// tiles that holds data, and its layout.
void arrayReasons(
    const OpPadding& a, const OpPadding& b, int batchArray, int64_t batchLogical, std::vector<DiffReason>& out)
{
    for (size_t i = 0; i < a.arrays.size() && i < b.arrays.size(); ++i) {
        const ArrayPadding &x = a.arrays[i], &y = b.arrays[i];
        if (!bothValid(x, y))
            continue;
        const std::string role = roleOf(x);
        for (const layout::DimPadding& dx : x.padding.dims) {
            const layout::DimPadding* dy = dimAt(y.padding, dx.logicalDim);
            const bool headline = static_cast<int>(i) == batchArray
                && (dx.semantics == layout::DimSemantics::Batch || dx.logicalDim == batchLogical);
            if (!dy || headline || (dx.tile <= 1 && dy->tile <= 1))
                continue;
            const std::string before = paddingEfficiencyText(fillOf(dx)), after = paddingEfficiencyText(fillOf(*dy));
            if (before == after)
                continue;
            std::string what = dx.semantics == layout::DimSemantics::Unknown
                ? std::string()
                : std::string(layout::semanticsName(dx.semantics)) + ", ";
            what += "size " + std::to_string(dx.size) + (dx.size == dy->size ? "" : kArrow + std::to_string(dy->size));
            out.push_back({DiffReasonKind::Padding,
                role + " dim " + std::to_string(dx.logicalDim) + " (" + what + "): tile efficiency " + before + kArrow
                    + after});
        }
        const std::string before = paddingEfficiencyText(x.padding.efficiency);
        const std::string after = paddingEfficiencyText(y.padding.efficiency);
        if (before != after)
            out.push_back({DiffReasonKind::Padding, role + ": " + before + kArrow + after + " of its tiles hold data"});
        const std::string layoutA = layoutText(x.shape), layoutB = layoutText(y.shape);
        if (layoutA != layoutB)
            out.push_back({DiffReasonKind::Layout, role + " layout " + layoutA + kArrow + layoutB});
    }
}

/// The opcodes a fusion's called computation holds, parameters left out.
std::map<std::string, int> fusedOpcodes(const Profile& profile, OpId op)
{
    std::map<std::string, int> out;
    const hlo::Module* module = op < profile.ops.size() ? profile.hloFor(profile.ops[op]) : nullptr;
    const hlo::Instruction* instruction = module ? module->instruction(profile.str(profile.ops[op].name)) : nullptr;
    if (!instruction || instruction->opcode != "fusion")
        return out;
    for (int64_t id : instruction->calledComputationIds)
        if (const hlo::Computation* called = module->computation(id))
            for (const hlo::Instruction& in : called->instructions)
                if (in.opcode != "parameter")
                    ++out[in.opcode];
    return out;
}

void fusionReason(const Profile& before, OpId a, const Profile& after, OpId b, std::vector<DiffReason>& out)
{
    const std::map<std::string, int> x = fusedOpcodes(before, a), y = fusedOpcodes(after, b);
    if (x.empty() || y.empty() || x == y)
        return;
    int countA = 0, countB = 0;
    std::string changes;
    std::map<std::string, int> all = x;
    for (const auto& [opcode, n] : y)
        all.emplace(opcode, 0);
    for (const auto& [opcode, unused] : all) {
        const int na = x.count(opcode) ? x.at(opcode) : 0, nb = y.count(opcode) ? y.at(opcode) : 0;
        countA += na;
        countB += nb;
        for (int k = 0; k < std::abs(nb - na); ++k)
            changes += std::string(changes.empty() ? "" : ", ") + (nb > na ? "+" : "-") + opcode;
    }
    out.push_back({DiffReasonKind::Fusion,
        "fusion boundary: " + std::to_string(countA) + kArrow + std::to_string(countB)
            + (countB == 1 ? " instruction (" : " instructions (") + changes + ")"});
}

void figureReasons(const DiffFigures& a, const DiffFigures& b, std::vector<DiffReason>& out)
{
    if (formatDurationPs(a.timePs) != formatDurationPs(b.timePs))
        out.push_back({DiffReasonKind::Time,
            "time " + formatDurationPs(a.timePs) + kArrow + formatDurationPs(b.timePs)
                + (a.timePs > 0 ? " (" + formatSignedPercent(b.timePs / a.timePs - 1) + ")" : std::string())});
    const auto utilization = [&](const char* what, const std::optional<double>& x, const std::optional<double>& y) {
        if (x && y && formatPercent(*x) != formatPercent(*y))
            out.push_back({DiffReasonKind::Utilization,
                std::string(what) + " utilization " + formatPercent(*x) + kArrow + formatPercent(*y)});
    };
    utilization("FLOPS", a.flopsUtilization, b.flopsUtilization);
    utilization("HBM", a.hbmUtilization, b.hbmUtilization);
    if (formatBytes(a.hbmBytes) != formatBytes(b.hbmBytes))
        out.push_back(
            {DiffReasonKind::Bytes, "HBM bytes " + formatBytes(a.hbmBytes) + kArrow + formatBytes(b.hbmBytes)});
}

} // namespace diffreasons_detail

using namespace diffreasons_detail;

std::vector<DiffReason> explainOpChange(const Profile& before, OpId a, const DiffFigures& figuresA,
    const Profile& after, OpId b, const DiffFigures& figuresB, int64_t perCoreBatchA, int64_t perCoreBatchB)
{
    std::vector<DiffReason> out;
    const OpPadding pa = resolveOpPadding(before, a), pb = resolveOpPadding(after, b);
    int batchArray = -1;
    const int64_t byShape = batchDimensionByShape(pa, pb, perCoreBatchA, perCoreBatchB);
    if (pa.batchSize > 0 && pb.batchSize > 0 && pa.batchSize != pb.batchSize)
        batchArray = batchReason(pa, pb, pa.batchSize, pb.batchSize, -1, out);
    else if (byShape >= 0)
        batchArray = batchReason(pa, pb, perCoreBatchA, perCoreBatchB, byShape, out);
    else if (!pa.arrays.empty() && !pb.arrays.empty()
        && dimensionsText(pa.arrays.front().shape) != dimensionsText(pb.arrays.front().shape))
        out.push_back({DiffReasonKind::Shape,
            roleOf(pa.arrays.front()) + " shape " + dimensionsText(pa.arrays.front().shape) + kArrow
                + dimensionsText(pb.arrays.front().shape)});
    std::vector<DiffReason> arrays;
    arrayReasons(pa, pb, batchArray, byShape, arrays);
    fusionReason(before, a, after, b, out);
    out.insert(out.end(), arrays.begin(), arrays.end());
    figureReasons(figuresA, figuresB, out);
    return out;
}

} // namespace tpuscope::model
