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

/// An op that runs on the MXU (a convolution or dot, or a fusion built around one): more examples per
/// weight raise its FLOPs per byte. Any other op (elementwise, reductions) moves its bytes per example
/// whatever the batch, so only fewer or smaller bytes help it.
bool onMxu(const OpRow& row, const OpPadding& padding)
{
    if (padding.computeCore)
        return true;
    return row.category.find("convolution") != std::string::npos || row.category.find("dot") != std::string::npos;
}

/// The fix that fits the ops' kind: a larger batch only for MXU ops.
std::string fixText(const Context& ctx, const std::vector<const OpRow*>& mxu, const std::vector<const OpRow*>& other)
{
    std::string text;
    if (!other.empty())
        text += format(" %s %s no convolution or dot: %s bytes are %s work, so a larger batch does not raise %s "
                       "arithmetic intensity. Move fewer or smaller bytes: 16-bit (bf16) activations, fusing %s into "
                       "the producer or consumer so the intermediate never goes to HBM, and full tiles (padding is "
                       "bytes moved for nothing).",
            opList(ctx, other, 3).c_str(), other.size() > 1 ? "have" : "has", other.size() > 1 ? "their" : "its",
            other.size() > 1 ? "their" : "its", other.size() > 1 ? "their" : "its", other.size() > 1 ? "them" : "it");
    if (!mxu.empty())
        text += format(" %s %s on the MXU with few FLOPs per byte: 16-bit (bf16) operands halve the bytes, and a "
                       "larger batch per core (or larger feature dimensions) raises the arithmetic intensity "
                       "(xprof MemoryBoundRule advice).",
            opList(ctx, mxu, 3).c_str(), mxu.size() > 1 ? "run" : "runs");
    return text;
}

void run(const Context& ctx, RuleOutput& out)
{
    if (ctx.profile.device.peakHbmGbpsPerCore <= 0 || ctx.profile.device.peakTflopsPerCore <= 0)
        return;
    std::vector<const OpRow*> rows, mxu, other;
    double time = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size(); ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.op == kNone || row.timeFraction < kMinOpShare.value)
            continue;
        if (!row.hbmUtilization || !row.flopsUtilization || !row.rooflineEfficiency)
            continue; // unknown cost or peak, or an op not on the roofline: no evidence of HBM limits
        if (*row.hbmUtilization > kHbmBoundHbmUtilization.value
            && *row.flopsUtilization < kHbmBoundFlopsUtilization.value) {
            rows.push_back(&row);
            (onMxu(row, ctx.paddings[i]) ? mxu : other).push_back(&row);
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
                      "FLOP rate: these ops wait for memory, not for the MXU.%s",
        opList(ctx, rows).c_str(), pct(kHbmBoundHbmUtilization.value).c_str(),
        pct(kHbmBoundFlopsUtilization.value).c_str(), fixText(ctx, mxu, other).c_str());
    a.fix.action = mxu.empty()
        ? "Move fewer or smaller bytes: bf16 activations, fuse the ops into their producer or consumer, fill the tiles."
        : "Move fewer bytes (bf16 operands, fusion) and give the MXU ops more FLOPs per byte (a larger batch per "
          "core).";

    double gainTime = 0;
    for (const OpRow* r : rows) {
        addEvidence(a, ctx, r->op);
        gainTime += addOpGain(a, ctx, *r, r->totalTimePs * 0.5, false);
    }
    a.numbers.set("hbm_utilization", *rows.front()->hbmUtilization)
        .set("flops_utilization", *rows.front()->flopsUtilization)
        .set("evidence_time_fraction", share)
        .set("mxu_ops", static_cast<int64_t>(mxu.size()))
        .set("other_ops", static_cast<int64_t>(other.size()));
    a.threshold = format("HBM BW utilization > %s and FLOPS utilization < %s (xprof MemoryBoundRule) in ops with >= %s "
                         "of op time",
        pct(kHbmBoundHbmUtilization.value).c_str(), pct(kHbmBoundFlopsUtilization.value).c_str(),
        pct(kHbmBoundMinShare.value).c_str());
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s if their bytes halved (f32 -> bf16): bandwidth-bound time scales with bytes. An upper "
                    "bound for that change; ops already in 16-bit gain nothing from it",
        ctx.gainText(gainTime).c_str());
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
