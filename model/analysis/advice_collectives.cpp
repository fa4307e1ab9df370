// SPDX-License-Identifier: GPL-3.0-or-later
// Advice rule `collectives`: time in collectives.
#include "advicerules.h"

namespace tpuscope::model::advice_detail {

namespace collectives {

constexpr AdviceThreshold kCollectivesInfoShare {"collectives", "info_share", 0.06, "share",
    "collective share of op time", "xprof overview all-reduce bound (op_stats_to_input_pipeline_analysis.cc)"};
constexpr AdviceThreshold kCollectivesWarningShare {"collectives", "warning_share", 0.30, "share",
    "collective share of op time", "xprof CollectiveBound (smart_suggestion)"};

std::string collectiveKindText(const OpTraits& t)
{
    if (t.collective == CollectiveKind::Fused)
        return "async collective";
    std::string kind = collectiveKindName(t.collective);
    if (kind.empty())
        kind = "collective";
    return t.opClass == OpClass::SyncCollective ? kind : kind + " (async)";
}

// Whether the program has a backward pass: JAX names its ops transpose(jvp(...)), TF1 puts them under
// gradients/; a program called train_step is a training step too.
bool hasBackwardPass(const Context& ctx)
{
    for (const OpRow& row : ctx.breakdown.rows) {
        if (row.op == kNone)
            continue;
        const std::string& f = row.frameworkOp;
        if (f.find("transpose(jvp(") != std::string::npos || f.rfind("gradients/", 0) == 0
            || f.find("/gradients/") != std::string::npos)
            return true;
        if (row.program.find("train") != std::string::npos)
            return true;
    }
    return false;
}

// The element type of the largest array an op moves (its outputs), "" when unknown.
std::string largestArrayType(const OpPadding& padding)
{
    int64_t best = -1;
    std::string type;
    for (const ArrayPadding& a : padding.arrays)
        if (a.padding.logicalBytes > best) {
            best = a.padding.logicalBytes;
            type = hlo::primitiveTypeName(a.shape.elementType);
        }
    return type;
}

// On a profile of several hosts with a measured collective wait: the share of the collectives'
// time per core and step that is that wait (cores weigh each host), else empty.
std::optional<double> podWaitShare(const Context& ctx)
{
    if (!ctx.hosts || ctx.hosts->hosts.size() < 2)
        return std::nullopt;
    double wait = 0, collective = 0;
    for (const HostRow& h : ctx.hosts->hosts) {
        if (!h.collectiveWaitPs)
            return std::nullopt;
        wait += *h.collectiveWaitPs * h.cores;
        collective += h.collectivePs * h.cores;
    }
    if (collective <= 0)
        return std::nullopt;
    return std::clamp(wait / collective, 0.0, 1.0);
}

void run(const Context& ctx, RuleOutput& out)
{
    std::vector<const OpRow*> rows;
    std::vector<std::pair<std::string, double>> byKind; // in order of first appearance (by time)
    std::vector<const OpRow*> f32Rows;
    double time = 0, f32Time = 0;
    double syncTime = 0, asyncTime = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size(); ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.op == kNone || !ctx.traits(row).isCollective())
            continue;
        const std::string kind = collectiveKindText(ctx.traits(row));
        rows.push_back(&row);
        time += row.totalTimePs;
        (ctx.traits(row).opClass == OpClass::SyncCollective ? syncTime : asyncTime) += row.totalTimePs;
        auto it = std::find_if(byKind.begin(), byKind.end(), [&](const auto& k) { return k.first == kind; });
        if (it == byKind.end())
            byKind.emplace_back(kind, row.totalTimePs);
        else
            it->second += row.totalTimePs;
        // bf16 advice is worth a sentence for collectives that are evidence (>= 1 % of op time) only.
        if (row.timeFraction >= kMinOpShare.value && largestArrayType(ctx.paddings[i]) == "f32") {
            f32Rows.push_back(&row);
            f32Time += row.totalTimePs;
        }
    }
    const double total = ctx.breakdown.totalTimePs;
    const double share = total > 0 ? time / total : 0;
    if (rows.empty() || share < kCollectivesInfoShare.value)
        return;
    const bool training = hasBackwardPass(ctx);
    std::stable_sort(byKind.begin(), byKind.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    std::string kinds;
    AdviceValue kindNumbers = AdviceValue::object();
    for (const auto& [kind, t] : byKind) {
        kinds += (kinds.empty() ? "" : ", ") + kind + " " + pct(t / total);
        kindNumbers.set(kind, t / total);
    }
    Advice a;
    a.severity = share >= kCollectivesWarningShare.value ? Severity::Warning : Severity::Info;
    a.title = format("Collectives take %s of op time", pct(share).c_str());
    std::string what;
    if (training)
        what = " The program has a backward pass (framework ops under transpose(jvp(...)) or gradients/, or a "
               "training step): these are weight all-gathers (FSDP) and gradient reductions.";
    else
        what = " The program has no backward pass (no transpose(jvp(...)) ops and no training step): these "
               "collectives move weights or activations between devices.";
    // Only synchronous collectives can be made asynchronous; the time of async ones is what the
    // latency-hiding scheduler could not hide.
    if (syncTime > 0)
        what += format(" The synchronous ones (%s of op time) block the core: make them asynchronous so XLA's "
                       "latency-hiding scheduler can overlap them with compute.",
            pct(syncTime / total).c_str());
    if (asyncTime > 0)
        what += format(" The asynchronous ones (%s of op time) are already async: this is the part the scheduler could "
                       "not hide behind compute, so give it more independent compute to overlap (a larger per-device "
                       "batch, microbatching) or move fewer bytes.",
            pct(asyncTime / total).c_str());
    what += training ? " Communicating less often (gradient accumulation, less sharding) also helps."
                     : " Sharding less (replicating small weights, fewer devices per model copy) also helps.";
    if (f32Time > 0 && training)
        what += format(" %s %s f32 arrays (%s of op time): reducing gradients in bf16 halves their bytes.",
            opList(ctx, f32Rows, 3).c_str(), f32Rows.size() > 1 ? "move" : "moves", pct(f32Time / total).c_str());
    else if (f32Time > 0)
        what += format(" %s %s f32 arrays (%s of op time): bf16 would halve their bytes if the precision allows.",
            opList(ctx, f32Rows, 3).c_str(), f32Rows.size() > 1 ? "move" : "moves", pct(f32Time / total).c_str());
    // On several hosts, part of the collectives' time is waiting for the last participant: no
    // overlap hides a host that arrives late, so that part is the straggler's, not this item's.
    const std::optional<double> waitShare = podWaitShare(ctx);
    std::string waiting = " A single slow core (straggler) also shows up as collective time.";
    if (waitShare && *waitShare > 0)
        waiting = format(" On these %zu hosts, %s of the collectives' time is waiting for the last participant "
                         "(collective wait in the hosts table): overlapping cannot hide a host that arrives late, "
                         "keeping the hosts in step can, so the gain below counts only the rest.",
            ctx.hosts->hosts.size(), pct(*waitShare).c_str());
    a.detail = format("%s. By kind: %s.%s%s", opList(ctx, rows).c_str(), kinds.c_str(), what.c_str(), waiting.c_str());
    if (syncTime > asyncTime)
        a.fix.action = "Make the synchronous collectives asynchronous so XLA's latency-hiding scheduler overlaps them "
                       "with compute, and move fewer bytes (bf16, less sharding).";
    else
        a.fix.action = "Give the scheduler more independent compute to hide the asynchronous collectives behind (a "
                       "larger per-device batch, microbatching), or move fewer bytes (bf16, less sharding).";
    const double gainTime = addRowsAsEvidenceAndWholeGain(a, ctx, rows, waitShare ? 1 - *waitShare : 1.0);
    if (waitShare)
        a.numbers.set("wait_fraction", *waitShare);
    a.numbers.set("time_fraction", share)
        .set("sync_time_fraction", total > 0 ? syncTime / total : 0.0)
        .set("async_time_fraction", total > 0 ? asyncTime / total : 0.0)
        .set("by_kind", kindNumbers)
        .set("f32_time_fraction", total > 0 ? f32Time / total : 0.0)
        .set("backward_pass", training ? 1 : 0)
        .set("cores", ctx.cores)
        .set("steps", ctx.steps)
        .set("ops", static_cast<int64_t>(rows.size()));
    a.threshold = format(">= %s of op time (xprof all-reduce bound); warning from %s (xprof CollectiveBound)",
        pct(kCollectivesInfoShare.value).c_str(), pct(kCollectivesWarningShare.value).c_str());
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s if fully overlapped with compute (their time%s / %d cores%s). An upper bound",
        ctx.gainText(gainTime).c_str(), waitShare ? " less the wait for the last participant" : "", ctx.cores,
        ctx.steps > 0 ? format(" / %lld steps", static_cast<long long>(ctx.steps)).c_str()
                      : "; the profile records no steps, so the time is over the whole capture, not per step");
    out.items.push_back(std::move(a));
}

} // namespace collectives

const AdviceRuleEntry& collectivesRule()
{
    using namespace collectives;
    static const AdviceRuleEntry entry {
        AdviceRuleId::Collectives, {kCollectivesInfoShare, kCollectivesWarningShare}, &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
