// SPDX-License-Identifier: GPL-3.0-or-later
// Rule `strided-update`: an update op (dynamic-update-slice, scatter, or a fusion rooted in one)
// writes slices that are thinner than the tile in a tiled dimension of its target, so every write
// touches a few rows of many tiles. Seen in scanned layer stacks: f32[1,512,7168] written into
// f32[16,512,7168]{2,0,1:T(8,128)} puts the 16-layer axis in the tile's 8-row sublane dimension.
#include "advicerules.h"
#include "updatewrite.h"

#include <algorithm>
#include <string_view>

namespace tpuscope::model::advice_detail {

namespace strided_update {

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
        UpdateWrite write;
        double attainedGbps;
        double gainTime;
    };
    std::vector<Hit> hits;
    double time = 0, bytes = 0, gainTime = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size(); ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.op == kNone || row.totalTimePs <= 0 || row.timeFraction < kStridedMinTimeShare.value)
            continue;
        // The write the drill-down shows too (resolveOpPadding, updatewrite.h), so both cite the same phrase.
        const std::optional<UpdateWrite>& found = ctx.paddings[i].update;
        if (!found || !found->strided)
            continue;
        const UpdateWrite& write = *found;
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
    const UpdateWrite& w = top.write;
    const double attained = bytes * 1000.0 / time;
    std::vector<const OpRow*> rows;
    for (const Hit& h : hits)
        rows.push_back(h.row);

    Advice a;
    a.severity = share >= kStridedWarningShare.value ? Severity::Warning : Severity::Info;
    a.title = format("%zu %s op%s (%s of op time) write slices thinner than their tile: stack on a major axis",
        hits.size(), w.opcode.c_str(), hits.size() > 1 ? "s" : "", pct(share).c_str());
    a.detail = format("%s. %s %s. They run at %.1f GB/s, %s of the %.0f GB/s HBM peak per core. Stack on a major "
                      "axis: scan over the leading axis with it major in the layout (e.g. param_scan_axis=0), or do "
                      "not scan the layers.",
        opList(ctx, rows).c_str(), top.row->name.c_str(), updateWriteText(w).c_str(), attained,
        pct(attained / peakGbps).c_str(), peakGbps);
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
    a.fix.action = "Stack on a major axis: scan over the leading axis with it major in the layout (e.g. "
                   "param_scan_axis=0), or do not scan the layers.";
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s: the ops' time x (1 - attained / achievable), where achievable is the rate with full "
                    "tile rows (attained / %s fill), capped at the HBM peak. An upper bound: it assumes the writes "
                    "stay bandwidth-bound and the layout change adds no copies elsewhere",
        ctx.gainText(gainTime).c_str(), pct(w.fill).c_str());
    out.items.push_back(std::move(a));
}

} // namespace strided_update

const AdviceRuleEntry& stridedUpdateRule()
{
    using namespace strided_update;
    static const AdviceRuleEntry entry {
        AdviceRuleId::StridedUpdate, {kStridedMaxHbmShare, kStridedMinTimeShare, kStridedWarningShare}, &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
