// SPDX-License-Identifier: GPL-3.0-or-later
// Advice rule `data-formatting`: copies and transposes that only change layouts.
#include "advicerules.h"

namespace tpuscope::model::advice_detail {

namespace data_formatting {

constexpr AdviceThreshold kDataFormattingInfoShare {
    "data-formatting", "info_share", 0.10, "share", "copy/transpose/data formatting share", "ours"};
constexpr AdviceThreshold kDataFormattingWarningShare {"data-formatting", "warning_share", 0.30, "share",
    "copy/transpose/data formatting share", "xprof DataShuffleBound (smart_suggestion)"};
constexpr AdviceThreshold kDataFormattingHostShare {"data-formatting", "host_memory_share", 0.50, "share",
    "copies to or from host memory (S(5)) above this share of that time are host-offload's, not this rule's", "ours"};
constexpr AdviceThreshold kDataFormattingAsyncShare {"data-formatting", "async_share", 0.50, "share",
    "above this share of that time in copy-start/copy-done the item is about asynchronous copies", "ours"};

void run(const Context& ctx, RuleOutput& out)
{
    std::vector<const OpRow*> rows;
    double time = 0, hostTime = 0, asyncTime = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size(); ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.op == kNone || !ctx.traits(row).movesData())
            continue;
        rows.push_back(&row);
        time += row.totalTimePs;
        if (ctx.traits(row).async != AsyncRole::None)
            asyncTime += row.totalTimePs;
        if (ctx.traits(row).isHostTransfer())
            hostTime += row.totalTimePs;
    }
    const double share = ctx.breakdown.totalTimePs > 0 ? time / ctx.breakdown.totalTimePs : 0;
    if (rows.empty() || share < kDataFormattingInfoShare.value)
        return;
    // Copies to and from host memory are host-offload's: "their whole time" overstates what
    // overlapping them can gain (the link stays the bound). Without a timeline that rule cannot run.
    if (hostTime > kDataFormattingHostShare.value * time) {
        out.deferred.push_back({AdviceRuleId::HostOffload,
            "copies to or from host memory (S(5)) take " + pct(share)
                + " of op time; the host-offload diagnosis needs the XLA Modules and XLA Ops timeline, which this "
                  "file does not have"});
        return;
    }
    Advice a;
    a.severity = share >= kDataFormattingWarningShare.value ? Severity::Warning : Severity::Info;
    std::string kind;
    if (asyncTime > kDataFormattingAsyncShare.value * time) {
        a.title = format("Asynchronous copies (copy-start/copy-done) take %s of op time", pct(share).c_str());
        kind = " Most of it is waiting in copy-done for an asynchronous copy, i.e. the copy is not hidden behind "
               "compute.";
        a.fix.action = "Issue the copies earlier or give XLA more independent compute to hide them behind, or copy "
                       "less (keep the arrays where they are used).";
    } else {
        a.title = format("Copies and transposes (data formatting) take %s of op time", pct(share).c_str());
        kind = " These ops only change the layout of arrays. Feeding data in the layout the TPU wants (for "
               "convolutions: NHWC with batch and feature sizes that tile well), or letting XLA fuse the transposes, "
               "removes them.";
        a.fix.action = "Feed data in the layout the TPU wants (for convolutions NHWC, batch and feature sizes that "
                       "tile well) so XLA needs no copies or transposes, or let XLA fuse the transposes.";
    }
    a.detail = format("%s.%s", opList(ctx, rows).c_str(), kind.c_str());
    const double gainTime = addRowsAsEvidenceAndWholeGain(a, ctx, rows);
    a.numbers.set("time_fraction", share)
        .set("host_memory_fraction", time > 0 ? hostTime / time : 0.0)
        .set("ops", static_cast<int64_t>(rows.size()));
    a.threshold = format(">= %s of op time (ours, information); warning from %s (xprof DataShuffleBound)",
        pct(kDataFormattingInfoShare.value).c_str(), pct(kDataFormattingWarningShare.value).c_str());
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s (their whole time) if they disappeared or were fully overlapped. An upper bound",
        ctx.gainText(gainTime).c_str());
    out.items.push_back(std::move(a));
}

} // namespace data_formatting

const AdviceRuleEntry& dataFormattingRule()
{
    using namespace data_formatting;
    static const AdviceRuleEntry entry {AdviceRuleId::DataFormatting,
        {kDataFormattingInfoShare, kDataFormattingWarningShare, kDataFormattingHostShare, kDataFormattingAsyncShare},
        &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
