// SPDX-License-Identifier: GPL-3.0-or-later
// Advice rule `hbm-bound`: ops limited by HBM bandwidth.
#include "advicerules.h"

namespace tpuscope::model::advice_detail {

namespace hbm_bound {

constexpr AdviceThreshold kHbmBoundHbmUtilization {"hbm-bound", "hbm_utilization", 0.70, "share",
    "HBM bandwidth utilization above this", "xprof MemoryBoundRule (smart_suggestion/constants.h)"};
constexpr AdviceThreshold kHbmBoundFlopsUtilization {"hbm-bound", "flops_utilization", 0.50, "share",
    "FLOPS utilization below this", "xprof MemoryBoundRule (smart_suggestion/constants.h)"};
constexpr AdviceThreshold kHbmBoundMinShare {
    "hbm-bound", "min_share", 0.05, "share", "such ops take at least this share of op time", "ours"};
constexpr AdviceThreshold kHbmBoundWarningShare {
    "hbm-bound", "warning_share", 0.30, "share", "warning when such ops take this share of op time", "ours"};

void run(const Context& ctx, RuleOutput& out)
{
    if (ctx.profile.device.peakHbmGbpsPerCore <= 0 || ctx.profile.device.peakTflopsPerCore <= 0)
        return;
    std::vector<const OpRow*> rows;
    double time = 0;
    for (const OpRow& row : ctx.breakdown.rows) {
        if (row.op == kNone || row.timeFraction < kMinOpShare.value)
            continue;
        if (!row.hbmUtilization || !row.flopsUtilization || !row.rooflineEfficiency)
            continue; // unknown cost or peak, or an op not on the roofline: no evidence of HBM limits
        if (*row.hbmUtilization > kHbmBoundHbmUtilization.value
            && *row.flopsUtilization < kHbmBoundFlopsUtilization.value) {
            rows.push_back(&row);
            time += row.totalTimePs;
        }
    }
    const double share = ctx.breakdown.totalTimePs > 0 ? time / ctx.breakdown.totalTimePs : 0;
    if (rows.empty() || share < kHbmBoundMinShare.value)
        return;
    Advice a;
    a.severity = share >= kHbmBoundWarningShare.value ? Severity::Warning : Severity::Info;
    a.title = format("%zu op%s (%s of op time) limited by HBM bandwidth", rows.size(), rows.size() > 1 ? "s" : "",
        pct(share).c_str());
    a.detail = format("%s: more than %s of the peak HBM bandwidth used, less than %s of the peak "
                      "FLOP rate: these ops wait for memory, not for the MXU. Moving fewer bytes helps: 16-bit (bf16) "
                      "activations, fusing them into their producer or consumer, or a larger batch per core to raise "
                      "arithmetic intensity (xprof MemoryBoundRule advice).",
        opList(ctx, rows).c_str(), pct(kHbmBoundHbmUtilization.value).c_str(),
        pct(kHbmBoundFlopsUtilization.value).c_str());
    double gainTime = 0;
    for (const OpRow* r : rows) {
        addEvidence(a, ctx, r->op);
        gainTime += addOpGain(a, ctx, *r, r->totalTimePs * 0.5, false);
    }
    a.numbers.set("hbm_utilization", *rows.front()->hbmUtilization)
        .set("flops_utilization", *rows.front()->flopsUtilization)
        .set("evidence_time_fraction", share);
    a.threshold = format("HBM BW utilization > %s and FLOPS utilization < %s (xprof MemoryBoundRule) in ops with >= %s "
                         "of op time",
        pct(kHbmBoundHbmUtilization.value).c_str(), pct(kHbmBoundFlopsUtilization.value).c_str(),
        pct(kHbmBoundMinShare.value).c_str());
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s if their bytes halved (f32 -> bf16): bandwidth-bound time scales with bytes. An upper "
                    "bound for that change; ops already in 16-bit gain nothing from it",
        ctx.perStepText(gainTime).c_str());
    out.items.push_back(std::move(a));
}

} // namespace hbm_bound

const AdviceRuleEntry& hbmBoundRule()
{
    using namespace hbm_bound;
    static const AdviceRuleEntry entry {AdviceRuleId::HbmBound,
        {kHbmBoundHbmUtilization, kHbmBoundFlopsUtilization, kHbmBoundMinShare, kHbmBoundWarningShare}, &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
