// SPDX-License-Identifier: GPL-3.0-or-later
#include "advice.h"

#include "advicerules.h"
#include "deviceconsistency.h"
#include "hostlink.h"
#include "hosts.h"

#include "../core/format.h"
#include "summary.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace tpuscope::model {

const char* severityName(Severity severity)
{
    switch (severity) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Critical:
        return "critical";
    }
    return "info";
}

const AdviceValue* AdviceValue::find(std::string_view name) const
{
    for (const auto& [k, v] : fields)
        if (k == name)
            return &v;
    return nullptr;
}

using namespace advice_detail;

namespace advice_detail {

const std::vector<const AdviceRuleEntry*>& adviceRules()
{
    // The order the rules run in: memory-padding bounds per-core-batch's and collectives' items,
    // so it runs after them.
    static const std::vector<const AdviceRuleEntry*> rules
        = {&perCoreBatchRule(), &paddingRule(), &lowUtilizationFusionRule(), &hbmBoundRule(), &dataFormattingRule(),
            &collectivesRule(), &inputBoundRule(), &captureCoverageRule(), &deviceConsistencyRule(),
            &stridedUpdateRule(), &hostOffloadRule(), &memoryPaddingRule(), &stragglerRule(), &uncostedKernelsRule()};
    return rules;
}

const std::vector<AdviceThreshold>& sharedAdviceThresholds()
{
    static const std::vector<AdviceThreshold> shared = {kMinOpShare,
        {"all", "low_utilization", kDefaultLowUtilizationThreshold, "share",
            "an op is low-utilization when its roofline efficiency (attained FLOP/s over the roofline bound at its "
            "arithmetic intensity) is below this; ops without cost data or peaks are unknown, never low "
            "(op table, timeline, advice, share card; the GUI's \"Low utilization below\" box)",
            "ours; xprof smart suggestions use MXU < 50 % as the latency-bound precondition"},
        kPaddingBoundPoints};
    return shared;
}

} // namespace advice_detail

const char* adviceRuleName(AdviceRuleId id)
{
    switch (id) {
    case AdviceRuleId::PerCoreBatch:
        return "per-core-batch";
    case AdviceRuleId::Padding:
        return "padding";
    case AdviceRuleId::LowUtilizationFusion:
        return "low-utilization-fusion";
    case AdviceRuleId::HbmBound:
        return "hbm-bound";
    case AdviceRuleId::DataFormatting:
        return "data-formatting";
    case AdviceRuleId::Collectives:
        return "collectives";
    case AdviceRuleId::InputBound:
        return "input-bound";
    case AdviceRuleId::CaptureCoverage:
        return "capture-coverage";
    case AdviceRuleId::DeviceConsistency:
        return "device-consistency";
    case AdviceRuleId::StridedUpdate:
        return "strided-update";
    case AdviceRuleId::HostOffload:
        return "host-offload";
    case AdviceRuleId::MemoryPadding:
        return "memory-padding";
    case AdviceRuleId::Straggler:
        return "straggler";
    case AdviceRuleId::UncostedKernels:
        return "uncosted-kernels";
    case AdviceRuleId::Count:
        break;
    }
    return nullptr;
}

const std::vector<AdviceThreshold>& adviceThresholds()
{
    static const std::vector<AdviceThreshold> list = [] {
        std::vector<AdviceThreshold> all = sharedAdviceThresholds();
        for (const AdviceRuleEntry* rule : adviceRules())
            all.insert(all.end(), rule->thresholds.begin(), rule->thresholds.end());
        return all;
    }();
    return list;
}

const Advice* AdviceReport::find(AdviceRuleId id) const
{
    for (const Advice& a : advice)
        if (a.id == id)
            return &a;
    return nullptr;
}

AdviceReport computeAdvice(const Profile& profile)
{
    return computeAdvice(profile, computeOpBreakdown(profile));
}

AdviceReport computeAdvice(const Profile& profile, const OpBreakdown& breakdown)
{
    return computeAdvice(profile, breakdown, computeSteps(profile));
}

namespace {

/// A gain per core over the capture as a share of the op time (what a gain is without steps).
double opTimeShare(const Context& ctx, double perCorePs)
{
    return ctx.breakdown.totalTimePs > 0 ? perCorePs * std::max(1, ctx.cores) / ctx.breakdown.totalTimePs : 0;
}

/// What an item is worth per step and core, to rank it: its time gain, or for a throughput gain the
/// time per step that the same examples would no longer take (step x (1 - 1 / factor)).
double rankingPs(const Advice& a, double stepPs)
{
    return a.throughputFactor > 1 ? stepPs * (1 - 1 / a.throughputFactor) : a.gainPs;
}

/// Marks the items whose gains come from the same ops and bounds what all of them save together:
/// per op at most its time, all together at most the step.
void combineGains(const Context& ctx, AdviceReport& report)
{
    std::map<OpId, double> byOp, largestByOp;
    double elsewhere = 0;
    for (const Advice& a : report.advice) {
        if (a.gainByOp.empty())
            elsewhere += a.gainPs;
        for (const auto& [op, g] : a.gainByOp) {
            byOp[op] += g;
            largestByOp[op] = std::max(largestByOp[op], g);
        }
    }
    // Two items overlap when an op gains in both. Each op lists the items it gains in, so this is
    // linear in the ops (the items each claim thousands on a large profile).
    const size_t items = report.advice.size();
    std::map<OpId, std::vector<size_t>> itemsByOp;
    for (size_t i = 0; i < items; ++i)
        if (report.advice[i].gainPs > 0)
            for (const auto& [op, g] : report.advice[i].gainByOp) {
                if (g <= 0)
                    continue;
                std::vector<size_t>& claimants = itemsByOp[op];
                if (claimants.empty() || claimants.back() != i)
                    claimants.push_back(i);
            }
    std::vector<uint8_t> shared(items * items, 0);
    for (const auto& [op, claimants] : itemsByOp)
        for (size_t a : claimants)
            for (size_t b : claimants)
                shared[a * items + b] = a != b;
    for (size_t a = 0; a < items; ++a)
        for (size_t b = 0; b < items; ++b) {
            std::vector<std::string>& overlaps = report.advice[a].overlapsWith;
            const std::string& rule = report.advice[b].rule;
            if (shared[a * items + b] && std::find(overlaps.begin(), overlaps.end(), rule) == overlaps.end())
                overlaps.push_back(rule);
        }
    // Each op's first row, looked up once rather than searched for each op.
    std::unordered_map<OpId, const OpRow*> rowOfOp;
    for (const OpRow& row : ctx.breakdown.rows)
        if (byOp.count(row.op))
            rowOfOp.emplace(row.op, &row);
    double combined = elsewhere;
    for (const auto& [op, g] : byOp) {
        // However many fixes claim an op, its useful work at the roof still takes its time, unless
        // one fix removes the op as a whole (a copy that goes away): then its time is the bound.
        double opTime = g;
        if (const auto row = rowOfOp.find(op); row != rowOfOp.end())
            opTime = std::max(ctx.perStep(saveableTimePs(*row->second, true)), largestByOp[op]);
        combined += std::min(g, opTime);
    }
    const double limit = ctx.steps > 0 && report.stepPs > 0 ? report.stepPs : ctx.perStep(ctx.breakdown.totalTimePs);
    const bool capped = combined > limit;
    combined = std::min(combined, limit);
    report.combinedGainPs = combined;
    if (ctx.steps <= 0)
        report.combinedGainOpTimeFraction = opTimeShare(ctx, combined);
    double sum = 0;
    for (const Advice& a : report.advice)
        sum += a.gainPs;
    if (combined <= 0)
        return;
    report.combinedGain
        = format("all the fixes together save at most %s (the items' gains add up to %s; where they "
                 "share ops, an op counts once, at most its time beyond its useful work at the roofline bound%s)",
            ctx.gainText(combined * std::max(1, ctx.cores) * std::max<int64_t>(1, ctx.steps)).c_str(),
            ctx.gainText(sum * std::max(1, ctx.cores) * std::max<int64_t>(1, ctx.steps)).c_str(),
            capped ? (ctx.steps > 0 ? ", and never more than the step" : ", and never more than the op time") : "");
    for (Advice& a : report.advice) {
        if (a.overlapsWith.empty())
            continue;
        std::string names;
        for (size_t i = 0; i < a.overlapsWith.size(); ++i)
            names += (i == 0 ? "" : i + 1 == a.overlapsWith.size() ? " and " : ", ") + a.overlapsWith[i];
        a.gain += ". It overlaps with " + names + " (the same ops' time): do not add these gains up; "
            + report.combinedGain;
    }
}

AdviceReport runAdviceRules(const Profile& profile, const OpBreakdown& breakdown, const StepAnalysis& steps,
    const MemoryReport* memory, const OpModel& model, const HostLinkStats& hostLink,
    const DeviceConsistency* deviceCheck, const HostAnalysis* hosts)
{
    AdviceReport report;
    if (!profile.hasTpuOps()) {
        report.notes.push_back("no advice: the profile has no XLA ops on TPU cores");
        report.batch.reason = "the profile has no XLA ops on TPU cores";
        return report;
    }
    Context ctx {profile, breakdown, model, hostLink};
    ctx.stepAnalysis = &steps;
    ctx.memory = memory;
    ctx.deviceCheck = deviceCheck;
    // A profile of several hosts needs its hosts analysed (the straggler rule) when the caller has
    // not done it; one host has no straggler to find.
    std::optional<HostAnalysis> ownHosts;
    if (!hosts && profile.device.hosts > 1)
        hosts = &ownHosts.emplace(analyzeHosts(profile, model, steps));
    ctx.hosts = hosts;
    ctx.steps = steps.stepsPerCore;
    // One core count for every figure: the one the breakdown's per-core numbers divide by.
    ctx.cores = std::max(1, breakdown.coresRepresented);
    ctx.coresKnown = profile.device.coresSource == CoreCountSource::Planes
        || profile.device.coresSource == CoreCountSource::UserChoice;
    if (!profile.device.coresNote.empty())
        report.notes.push_back(profile.device.coresNote);
    report.cores = ctx.cores;
    report.steps = steps.stepsPerCore;
    report.stepPs = steps.avgStepPs;
    ctx.paddings = resolveRowPaddings(profile, breakdown);
    ctx.groups = groupOps(breakdown);
    ctx.batch = inferPerCoreBatch(profile, breakdown, ctx.paddings);
    report.batch = ctx.batch;
    if (!ctx.batch.known)
        report.notes.push_back("per-core batch not inferred: " + ctx.batch.reason);

    std::vector<RuleOutput::Deferral> deferred;
    RuleOutput out {report.advice, report.notes, deferred};
    for (const AdviceRuleEntry* rule : adviceRules()) {
        const size_t first = report.advice.size();
        rule->run(ctx, out);
        for (size_t i = first; i < report.advice.size(); ++i) {
            report.advice[i].id = rule->id;
            report.advice[i].rule = adviceRuleName(rule->id);
        }
    }
    // What a rule left to another is said as a note only when that one did not fire.
    for (const RuleOutput::Deferral& d : deferred)
        if (!report.find(d.owner))
            report.notes.push_back(d.note);
    for (Advice& a : report.advice)
        nameTopEvidence(a);
    // One step's time to rank throughput gains against time gains: the step, else the op time per core.
    const double rankStep = ctx.steps > 0 && report.stepPs > 0 ? report.stepPs : ctx.perStep(breakdown.totalTimePs);
    std::stable_sort(report.advice.begin(), report.advice.end(), [rankStep](const Advice& a, const Advice& b) {
        if (a.severity != b.severity)
            return a.severity > b.severity;
        return rankingPs(a, rankStep) > rankingPs(b, rankStep);
    });
    if (ctx.steps <= 0)
        for (Advice& a : report.advice)
            a.gainOpTimeFraction = opTimeShare(ctx, a.gainPs);
    combineGains(ctx, report);
    return report;
}

} // namespace

AdviceReport computeAdvice(const Profile& profile, const OpBreakdown& breakdown, const StepAnalysis& steps)
{
    const OpModel model = buildOpModel(profile);
    return runAdviceRules(profile, breakdown, steps, nullptr, model, computeHostLink(profile, model), nullptr, nullptr);
}

AdviceReport computeAdvice(
    const Profile& profile, const OpBreakdown& breakdown, const StepAnalysis& steps, const MemoryReport& memory)
{
    const OpModel model = buildOpModel(profile);
    return runAdviceRules(profile, breakdown, steps, &memory, model, computeHostLink(profile, model), nullptr, nullptr);
}

AdviceReport computeAdvice(const Profile& profile, const OpBreakdown& breakdown, const StepAnalysis& steps,
    const MemoryReport& memory, const OpModel& model, const HostLinkStats& hostLink,
    const DeviceConsistency* deviceCheck, const HostAnalysis* hosts)
{
    return runAdviceRules(profile, breakdown, steps, &memory, model, hostLink, deviceCheck, hosts);
}

} // namespace tpuscope::model
