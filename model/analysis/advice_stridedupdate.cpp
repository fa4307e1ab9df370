// SPDX-License-Identifier: GPL-3.0-or-later
// Rule `strided-update`: an update op (dynamic-update-slice, scatter, or a fusion rooted in one)
// writes slices that are thinner than the tile in a tiled dimension of its target, so every write
// touches a few rows of many tiles. Seen in scanned layer stacks: f32[1,512,7168] written into
// f32[16,512,7168]{2,0,1:T(8,128)} puts the 16-layer axis in the tile's 8-row sublane dimension.
#include "advicerules.h"
#include "layout.h"

#include <algorithm>
#include <string_view>

namespace tpuscope::model::advice_detail {

namespace {

bool isUpdateOpcode(std::string_view opcode)
{
    return opcode == "dynamic-update-slice" || opcode == "scatter";
}

/// Operand index of the update in an update op (dynamic-update-slice: 1; scatter: the first of the
/// updates, after operands and indices, which is 2 for a single-operand scatter).
size_t updateOperandIndex(std::string_view opcode)
{
    return opcode == "scatter" ? 2 : 1;
}

/// The shapes of the operands listed in HLO text after "opcode(": "f32[1,8]{1,0} %a, s32[] %i, ...".
std::vector<hlo::Shape> operandShapesFromText(std::string_view text, std::string_view opcode)
{
    std::vector<hlo::Shape> shapes;
    const std::string open = std::string(opcode) + "(";
    size_t at = text.find(open);
    if (at == std::string_view::npos)
        return shapes;
    at += open.size();
    int depth = 0;
    size_t begin = at;
    for (size_t i = at; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '(' || c == '[' || c == '{')
            ++depth;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0)
            --depth;
        else if ((c == ',' && depth == 0) || (c == ')' && depth == 0)) {
            std::string_view piece = text.substr(begin, i - begin);
            // Drop "/*index=5*/" comments and the operand name after the shape.
            if (size_t comment = piece.find("*/"); comment != std::string_view::npos)
                piece = piece.substr(comment + 2);
            while (!piece.empty() && piece.front() == ' ')
                piece.remove_prefix(1);
            if (size_t name = piece.find(" %"); name != std::string_view::npos)
                piece = piece.substr(0, name);
            layout::ShapeParseResult parsed = layout::parseShape(piece);
            shapes.push_back(parsed.ok() ? parsed.shape : hlo::Shape {});
            begin = i + 1;
            if (c == ')')
                break;
        }
    }
    return shapes;
}

struct StridedWrite
{
    hlo::Shape target; // the array written into, with its tiled layout
    hlo::Shape update; // the slice written per occurrence
    int64_t dim = -1; // logical dim of the target where the slice is thinner than the tile
    int64_t tileExtent = 0;
    bool minorMost = false; // the tile's lane (most-minor) dim; otherwise its sublane (second-minor) dim
    double fill = 1; // share of each touched tile row span the update fills, over the tiled dims
    std::string opcode;
};

/// Whether `update` written into `target` is thinner than the target's first tile in a tiled dim.
bool findStridedWrite(const hlo::Shape& target, const hlo::Shape& update, StridedWrite& out)
{
    if (target.isTuple() || update.isTuple() || !target.hasLayout || target.layout.tiles.empty()
        || target.dimensions.size() != update.dimensions.size())
        return false;
    const auto& m2m = target.layout.minorToMajor;
    const auto& tile = target.layout.tiles.front().dimensions;
    if (m2m.size() != target.dimensions.size())
        return false;
    // The first tile (t_n ... t_1) covers the tile.size() most-minor physical dims.
    bool found = false;
    double fill = 1;
    for (size_t k = 0; k < tile.size() && k < m2m.size(); ++k) {
        const int64_t extent = tile[tile.size() - 1 - k];
        const int64_t dim = m2m[k];
        if (extent <= 1 || dim < 0 || dim >= static_cast<int64_t>(update.dimensions.size()))
            continue;
        const int64_t written = update.dimensions[static_cast<size_t>(dim)];
        const int64_t whole = target.dimensions[static_cast<size_t>(dim)];
        const int64_t padded = (written + extent - 1) / extent * extent;
        if (padded > 0)
            fill *= static_cast<double>(written) / static_cast<double>(padded);
        if (written < extent && written < whole && !found) {
            found = true;
            out.dim = dim;
            out.tileExtent = extent;
            out.minorMost = k == 0;
        }
    }
    if (!found)
        return false;
    out.target = target;
    out.update = update;
    out.fill = fill;
    return true;
}

/// The strided write an op does, from its HLO (the op or the root of its fused computation), else
/// from its HLO text.
bool stridedWriteOf(const Context& ctx, const OpRow& row, const OpPadding& padding, StridedWrite& out)
{
    if (padding.module && padding.instruction) {
        const hlo::Module& module = *padding.module;
        const hlo::Instruction* update = padding.instruction;
        if (update->opcode == "fusion" && !update->calledComputationIds.empty())
            if (const hlo::Computation* fused = module.computation(update->calledComputationIds.front()))
                update = fused->root();
        if (update && isUpdateOpcode(update->opcode)) {
            const size_t k = updateOperandIndex(update->opcode);
            if (k < update->operandIds.size())
                if (const hlo::Instruction* slice = module.instructionById(update->operandIds[k])) {
                    out.opcode = update->opcode;
                    return findStridedWrite(update->shape, slice->shape, out);
                }
        }
        return false;
    }
    const std::string& text = ctx.profile.str(ctx.profile.ops[row.op].longName);
    for (std::string_view opcode : {"dynamic-update-slice", "scatter"}) {
        if (text.find(std::string(" ") + std::string(opcode) + "(") == std::string::npos)
            continue;
        const layout::ShapeParseResult target = layout::parseInstructionResultShape(text);
        const std::vector<hlo::Shape> operands = operandShapesFromText(text, opcode);
        const size_t k = updateOperandIndex(opcode);
        if (!target.ok() || k >= operands.size())
            return false;
        out.opcode = opcode;
        return findStridedWrite(target.shape, operands[k], out);
    }
    return false;
}

} // namespace

namespace {

constexpr AdviceThreshold kStridedMaxHbmShare {"strided-update", "max_hbm_share", 0.10, "share",
    "an update op writing slices thinner than its tile runs below this share of the HBM peak",
    "ours; tiling from the XLA tiled-layout docs (FORMATS.md §6.2)"};
constexpr AdviceThreshold kStridedMinTimeShare {
    "strided-update", "min_time_share", 0.03, "share", "such ops take at least this share of op time", "ours"};
constexpr AdviceThreshold kStridedWarningShare {
    "strided-update", "warning_share", 0.10, "share", "warning from this share of op time", "ours"};

void run(const Context& ctx, RuleOutput& out)
{
    const double peakGbps = ctx.profile.device.peakHbmGbpsPerCore;
    if (peakGbps <= 0)
        return;
    struct Hit
    {
        const OpRow* row;
        StridedWrite write;
        double attainedGbps;
        double gainTime;
    };
    std::vector<Hit> hits;
    double time = 0, bytes = 0, gainTime = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size(); ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.op == kNone || row.totalTimePs <= 0 || row.timeFraction < kStridedMinTimeShare.value)
            continue;
        StridedWrite write;
        if (!stridedWriteOf(ctx, row, ctx.paddings[i], write))
            continue;
        // Attained HBM rate per core: bytes and time are both summed over the cores counted.
        const double attained = row.hbmBytes * 1000.0 / row.totalTimePs;
        if (attained >= kStridedMaxHbmShare.value * peakGbps)
            continue;
        hits.push_back({&row, write, attained, 0});
        time += row.totalTimePs;
        bytes += row.hbmBytes;
        // Achievable: the rate the same writes would reach with full tile rows, capped at the peak.
        const double achievable = std::min(peakGbps, attained / std::max(write.fill, 1e-6));
        hits.back().gainTime = row.totalTimePs * (1 - attained / achievable);
    }
    const double share = ctx.breakdown.totalTimePs > 0 ? time / ctx.breakdown.totalTimePs : 0;
    if (hits.empty() || share < kStridedMinTimeShare.value)
        return;
    const Hit& top = hits.front();
    const StridedWrite& w = top.write;
    const double attained = bytes * 1000.0 / time;
    std::vector<const OpRow*> rows;
    for (const Hit& h : hits)
        rows.push_back(h.row);
    const char* where = w.minorMost ? "most-minor (lane) dimension" : "second-minor (sublane) dimension";
    const char* unit = w.minorMost ? "lanes" : "rows";

    Advice a;
    a.severity = share >= kStridedWarningShare.value ? Severity::Warning : Severity::Info;
    a.title = format("%zu %s op%s (%s of op time) write slices thinner than their tile: stack on a major axis",
        hits.size(), w.opcode.c_str(), hits.size() > 1 ? "s" : "", pct(share).c_str());
    a.detail = format(
        "%s. %s writes %s into %s: dimension %lld (size %lld, the stacked axis) sits in the tile's %s, and each "
        "update fills %lld of the %lld %s of every tile it writes (%s of the tile), so the writes are strided. They "
        "run at %.1f GB/s, %s of the %.0f GB/s HBM peak per core. Stack on a major axis: scan over the leading axis "
        "with it major in the layout (e.g. param_scan_axis=0), or do not scan the layers.",
        opList(ctx, rows).c_str(), top.row->name.c_str(), hlo::shapeToString(w.update).c_str(),
        hlo::shapeToString(w.target).c_str(), static_cast<long long>(w.dim),
        static_cast<long long>(w.target.dimensions[static_cast<size_t>(w.dim)]), where,
        static_cast<long long>(w.update.dimensions[static_cast<size_t>(w.dim)]), static_cast<long long>(w.tileExtent),
        unit, pct(w.fill).c_str(), attained, pct(attained / peakGbps).c_str(), peakGbps);
    for (const Hit& h : hits) {
        addEvidence(a, ctx, h.row->op);
        gainTime += addOpGain(a, ctx, *h.row, h.gainTime, false);
    }
    a.numbers.set("time_fraction", share)
        .set("attained_gbps", attained)
        .set("hbm_peak_gbps", peakGbps)
        .set("hbm_fraction", attained / peakGbps)
        .set("update_tile_fill", w.fill)
        .set("tile_extent", w.tileExtent)
        .set("stacked_dim", w.dim)
        .set("target", hlo::shapeToString(w.target))
        .set("update", hlo::shapeToString(w.update))
        .set("ops", static_cast<int64_t>(hits.size()));
    a.threshold = format("an update op writing a slice thinner than the tile in a tiled dimension, below %s of the "
                         "HBM peak, each with >= %s of op time (ours; FORMATS.md §6.2 tiling)",
        pct(kStridedMaxHbmShare.value).c_str(), pct(kStridedMinTimeShare.value).c_str());
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s: the ops' time x (1 - attained / achievable), where achievable is the rate with full "
                    "tile rows (attained / %s fill), capped at the HBM peak. An upper bound: it assumes the writes "
                    "stay bandwidth-bound and the layout change adds no copies elsewhere",
        ctx.perStepText(gainTime).c_str(), pct(w.fill).c_str());
    out.items.push_back(std::move(a));
}

} // namespace

const AdviceRuleEntry& stridedUpdateRule()
{
    static const AdviceRuleEntry entry {
        AdviceRuleId::StridedUpdate, {kStridedMaxHbmShare, kStridedMinTimeShare, kStridedWarningShare}, &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
