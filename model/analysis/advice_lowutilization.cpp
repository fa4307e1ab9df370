// SPDX-License-Identifier: GPL-3.0-or-later
// Advice rule `low-utilization-fusion`: a dominating fusion far below its roofline bound.
#include "advicerules.h"

namespace tpuscope::model::advice_detail {

namespace low_utilization_fusion {

constexpr AdviceThreshold kLowUtilDominantShare {"low-utilization-fusion", "dominant_share", 0.10, "share",
    "the largest such fusion takes at least this share of op time", "ours"};
constexpr AdviceThreshold kLowUtilWarningShare {"low-utilization-fusion", "warning_share", 0.25, "share",
    "warning when that fusion takes this share of op time", "ours"};
constexpr AdviceThreshold kLowUtilCriticalShare {"low-utilization-fusion", "critical_share", 0.50, "share",
    "critical when that fusion takes this share of op time", "ours"};
constexpr AdviceThreshold kTargetUtilization {"low-utilization-fusion", "target_efficiency", 0.50, "share",
    "the gain assumes the fusions reach this share of their roofline bound",
    "ours; xprof's latency-bound line (MXU < 50 %, smart_suggestion/constants.h)"};
constexpr AdviceThreshold kLatencyHbmUtilization {"low-utilization-fusion", "latency_hbm_utilization", 0.20, "share",
    "below this HBM utilization (and not padding-bound) the text calls the fusion latency-bound", "ours"};

/// "per-core-batch and padding": the items before this one whose evidence holds `op`.
std::string paddingItems(const RuleOutput& out, OpId op)
{
    std::string names;
    for (AdviceRuleId id : {AdviceRuleId::PerCoreBatch, AdviceRuleId::Padding})
        for (const Advice& item : out.items)
            if (item.id == id && std::find(item.ops.begin(), item.ops.end(), op) != item.ops.end()) {
                names += (names.empty() ? "" : " and ") + std::string(adviceRuleName(id));
                break;
            }
    return names;
}

/// Why the top fusion is low (padding, latency) in a sentence, and the fix that follows from it.
std::string whyAndFix(const RuleOutput& out, const OpRow& top, const OpPadding& topPadding, Advice& a)
{
    const double topHbm = top.hbmUtilization.value_or(0);
    std::string why;
    const std::string see = paddingItems(out, top.op);
    const ArrayPadding* w = topPadding.worst();
    if (w && paddingBound(w->padding.efficiency, top, topPadding))
        why = format(" Its %s uses only %s of its tiles (%s).%s%s", w->role.c_str(), pct(w->padding.efficiency).c_str(),
            w->padding.usedOfTileText().c_str(), paddingBoundText(w->padding.efficiency, top).c_str(),
            see.empty() ? "" : (" See the " + see + " advice.").c_str());
    else if (w && w->padding.efficiency < kPaddingEfficiency.value)
        why = format(" Its %s uses only %s of its tiles (%s), which explains much of the low utilization%s.",
            w->role.c_str(), pct(w->padding.efficiency).c_str(), w->padding.usedOfTileText().c_str(),
            see.empty() ? "" : (": see the " + see + " advice").c_str());
    else if (topHbm < kLatencyHbmUtilization.value)
        why = " It is neither compute- nor bandwidth-bound, which points at latency: small shapes, padding or a "
              "poor fusion.";
    if (w && w->padding.efficiency < kPaddingEfficiency.value)
        a.fix.action = format("Fill %s's tiles (its %s uses %s of them)%s.", top.name.c_str(), w->role.c_str(),
            pct(w->padding.efficiency).c_str(), see.empty() ? "" : (": follow the " + see + " advice").c_str());
    else if (topHbm < kLatencyHbmUtilization.value)
        a.fix.action = format(
            "Give %s more work per launch: larger shapes, or let XLA fuse it with its neighbours.", top.name.c_str());
    else
        a.fix.action = format("Read %s's HLO (tpuscope-cli fusion FILE %s) for what keeps it below its roofline: "
                              "layouts, reductions, padding.",
            top.name.c_str(), top.name.c_str());
    return why;
}

void run(const Context& ctx, RuleOutput& out)
{
    if (ctx.profile.device.peakTflopsPerCore <= 0) {
        out.notes.push_back(
            "low-utilization-fusion and hbm-bound not checked: the device peaks are unknown (use --device)");
        return;
    }
    if (ctx.profile.bytesNotRecorded) {
        // Far from the roofline needs both roofs: a low FLOPS utilization alone may be an op that
        // is bound by HBM bandwidth, which this file cannot show.
        out.notes.push_back("low-utilization-fusion and hbm-bound not checked: the file records no bytes, so no op's "
                            "position under the roofline is known (FLOPS utilizations are the file's)");
        return;
    }
    std::vector<const OpRow*> rows;
    std::vector<size_t> indexes;
    double time = 0, gainTime = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size(); ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.op == kNone || row.timeFraction < kMinOpShare.value || !isFusionCategory(row.category))
            continue;
        // One definition of "low utilization" for every view: far from the roofline at the op's
        // arithmetic intensity. Ops without cost data or peaks are unknown and never evidence.
        if (row.lowUtilization != true)
            continue;
        rows.push_back(&row);
        indexes.push_back(i);
        time += row.totalTimePs;
    }
    if (rows.empty() || rows.front()->timeFraction < kLowUtilDominantShare.value)
        return;
    const OpRow& top = *rows.front();
    const OpPadding& topPadding = ctx.paddings[indexes.front()];
    Advice a;
    a.severity = top.timeFraction >= kLowUtilCriticalShare.value ? Severity::Critical
        : top.timeFraction >= kLowUtilWarningShare.value         ? Severity::Warning
                                                                 : Severity::Info;
    const double topFlops = top.flopsUtilization.value_or(0);
    const double topHbm = top.hbmUtilization.value_or(0);
    const double topEfficiency = top.rooflineEfficiency.value_or(0);
    a.title = format("%s takes %s of op time at %s of its roofline bound (%s FLOPS utilization)", top.name.c_str(),
        pct(top.timeFraction).c_str(), pct(topEfficiency).c_str(), pct(topFlops).c_str());
    const std::string why = whyAndFix(out, top, topPadding, a);
    a.detail = format("%s (%s%s) runs at %s of the peak FLOP rate and %s of the HBM bandwidth: %s of what the "
                      "roofline allows at its arithmetic intensity (%.3g %s).%s Fusions below %s of their roofline "
                      "bound with at least %s of the time: %s (together %s of op time).",
        top.name.c_str(), top.category.c_str(),
        topPadding.computeCore ? (", around " + topPadding.computeCore->name).c_str() : "", pct(topFlops).c_str(),
        pct(topHbm).c_str(), pct(topEfficiency).c_str(), top.arithmeticIntensity.value_or(0), kIntensityUnit,
        why.c_str(), pct(kDefaultLowUtilizationThreshold).c_str(), pct(kMinOpShare.value).c_str(),
        opList(ctx, rows).c_str(), pct(time / ctx.breakdown.totalTimePs).c_str());
    for (const OpRow* r : rows) {
        addEvidence(a, ctx, r->op);
        gainTime += addOpGain(
            a, ctx, *r, r->totalTimePs * std::max(0.0, 1 - *r->rooflineEfficiency / kTargetUtilization.value), false);
    }
    a.numbers.set("flops_utilization", topFlops)
        .set("hbm_utilization", topHbm)
        .set("roofline_efficiency", topEfficiency)
        .set("time_fraction", top.timeFraction)
        .set("evidence_time_fraction", time / ctx.breakdown.totalTimePs)
        .set("fusions", static_cast<int64_t>(rows.size()));
    a.threshold = format("fusion with >= %s of op time below %s of its roofline bound (the low-utilization setting; "
                         "ours, xprof's latency-bound precondition is MXU < 50 %%); warning from %s, critical from %s",
        pct(kLowUtilDominantShare.value).c_str(), pct(kDefaultLowUtilizationThreshold).c_str(),
        pct(kLowUtilWarningShare.value).c_str(), pct(kLowUtilCriticalShare.value).c_str());
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s if these fusions reached %s of their roofline bound (time x (1 - efficiency/%s)). An "
                    "upper bound under that assumption; the profile cannot say which fixes get there",
        ctx.gainText(gainTime).c_str(), pct(kTargetUtilization.value).c_str(), pct(kTargetUtilization.value).c_str());
    out.items.push_back(std::move(a));
}

} // namespace low_utilization_fusion

const AdviceRuleEntry& lowUtilizationFusionRule()
{
    using namespace low_utilization_fusion;
    static const AdviceRuleEntry entry {AdviceRuleId::LowUtilizationFusion,
        {kLowUtilDominantShare, kLowUtilWarningShare, kLowUtilCriticalShare, kTargetUtilization,
            kLatencyHbmUtilization},
        &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
