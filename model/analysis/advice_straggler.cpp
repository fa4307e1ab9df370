// SPDX-License-Identifier: GPL-3.0-or-later
// Advice rule `straggler`: the host that reaches the step's synchronizing collective last in most
// steps, what its lateness costs every other chip, and what its own data say about why.
#include "advicerules.h"

#include "hosts.h"

#include <cmath>

namespace tpuscope::model::advice_detail {

namespace straggler {

constexpr AdviceThreshold kStragglerLateShare {"straggler", "late_share", 0.5, "share",
    "share of the steps in which a host reaches the step's synchronizing collective last and late (by the minimum "
    "lateness below) for it to be named",
    "ours: \"last in most steps\" (issue 23)"};
constexpr AdviceThreshold kStragglerMinLate {"straggler", "min_late_share_of_step", kLateMarginShareOfStep, "share",
    "how far after the other hosts' median arrival a host must reach the collective, share of the average step "
    "(per step to count it late; on average to name it)",
    "ours: the hosts analysis's late margin (kLateMarginShareOfStep)"};
constexpr AdviceThreshold kStragglerCriticalGain {"straggler", "critical_gain_share", 0.10, "share",
    "gain per step if the straggler kept up, share of the average step, for critical",
    "ours (the input-bound rule's warning level)"};
constexpr AdviceThreshold kStragglerIntermittentCost {"straggler", "intermittent_cost_share", 0.01, "share",
    "a host late in fewer steps than late_share is named (an intermittent straggler) when keeping up would gain at "
    "least this share of the average step, averaged over all steps",
    "ours: \"measurable time per step on average\" (issue 41)"};
constexpr AdviceThreshold kStragglerCauseShare {"straggler", "cause_share", 0.5, "share",
    "share of the lateness that the late host's excess idle, slowest-core compute or host-transfer time over the "
    "other hosts' median must explain to be named the cause",
    "ours"};

double medianOf(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// What keeping up would gain per step: each step ends when the latest of the other hosts arrives
/// instead of the latest of `named`; averaged over the steps where both arrived.
double keepUpGainPs(const HostAnalysis& h, const std::vector<size_t>& named)
{
    double gainSum = 0, gainSteps = 0;
    for (size_t s = 0; s < static_cast<size_t>(h.steps); ++s) {
        double namedLatest = -1, otherLatest = -1;
        for (size_t i = 0; i < h.hosts.size(); ++i) {
            const double v = h.latenessPs[i][s];
            if (std::isnan(v))
                continue;
            double& slot = std::find(named.begin(), named.end(), i) != named.end() ? namedLatest : otherLatest;
            slot = std::max(slot, v);
        }
        if (namedLatest >= 0 && otherLatest >= 0) {
            gainSum += std::max(0.0, namedLatest - otherLatest);
            ++gainSteps;
        }
    }
    return gainSteps > 0 ? gainSum / gainSteps : 0;
}

/// The hosts to name: those late in most steps; else, an intermittent straggler, those late in some
/// steps whose lateness costs the pod at least kStragglerIntermittentCost of the step on average.
std::vector<size_t> namedHosts(const HostAnalysis& h, bool& intermittent)
{
    const double steps = static_cast<double>(h.steps);
    std::vector<size_t> named, occasional;
    for (size_t i = 0; i < h.hosts.size(); ++i) {
        const HostRow& r = h.hosts[i];
        if (!r.lateSteps || *r.lateSteps <= 0)
            continue;
        if (r.lateVsOthersPs && static_cast<double>(*r.lateSteps) >= kStragglerLateShare.value * steps
            && *r.lateVsOthersPs >= kStragglerMinLate.value * h.avgStepPs)
            named.push_back(i);
        else if (keepUpGainPs(h, {i}) >= kStragglerIntermittentCost.value * h.avgStepPs)
            occasional.push_back(i);
    }
    intermittent = named.empty() && !occasional.empty();
    std::vector<size_t>& chosen = intermittent ? occasional : named;
    std::stable_sort(chosen.begin(), chosen.end(),
        [&](size_t a, size_t b) { return *h.hosts[a].lateSteps > *h.hosts[b].lateSteps; });
    return chosen;
}

/// The steps (0-based) host row `host` was late in, and its mean lateness after the other hosts'
/// median in those steps.
std::vector<int64_t> lateStepsOf(const HostAnalysis& h, size_t host, double& meanLatePs)
{
    std::vector<int64_t> steps;
    double sum = 0;
    for (size_t s = 0; s < h.lateHostsByStep.size(); ++s) {
        const std::vector<int>& late = h.lateHostsByStep[s];
        if (std::find(late.begin(), late.end(), static_cast<int>(host)) == late.end())
            continue;
        steps.push_back(static_cast<int64_t>(s));
        std::vector<double> others;
        for (size_t o = 0; o < h.hosts.size(); ++o)
            if (o != host && !std::isnan(h.latenessPs[o][s]))
                others.push_back(h.latenessPs[o][s]);
        if (!std::isnan(h.latenessPs[host][s]))
            sum += h.latenessPs[host][s] - medianOf(others);
    }
    meanLatePs = steps.empty() ? 0 : sum / static_cast<double>(steps.size());
    return steps;
}

/// Why the late host is late, from its own figures over the other hosts' medians ("input",
/// "slowchip", "hosttransfer", else "unknown"), and the other hosts' wait in the collective.
struct Cause
{
    std::string name = "unknown";
    double excessIdle = 0, excessCompute = 0, excessTransfer = 0;
    bool othersWaitKnown = false;
    double othersWait = 0;
};

Cause causeOf(const HostAnalysis& h, const std::vector<size_t>& named, const HostRow& late, double latePs)
{
    std::vector<double> idle, slowest, transfer;
    double waitSum = 0, waitCores = 0;
    for (size_t i = 0; i < h.hosts.size(); ++i) {
        if (std::find(named.begin(), named.end(), i) != named.end())
            continue;
        const HostRow& r = h.hosts[i];
        idle.push_back(r.idlePs);
        slowest.push_back(r.slowestCoreComputePs);
        transfer.push_back(r.hostTransferPs);
        if (r.collectiveWaitPs) {
            waitSum += *r.collectiveWaitPs * r.cores;
            waitCores += r.cores;
        }
    }
    Cause c;
    // Unknown (no collective ran on two cores) stays out of the numbers, never a made-up zero.
    c.othersWaitKnown = waitCores > 0;
    c.othersWait = c.othersWaitKnown ? waitSum / waitCores : 0;
    c.excessIdle = late.idlePs - medianOf(idle);
    c.excessCompute = late.slowestCoreComputePs - medianOf(slowest);
    c.excessTransfer = late.hostTransferPs - medianOf(transfer);
    double explained = 0;
    for (const auto& [name, excess] : {std::pair<const char*, double> {"input", c.excessIdle},
             {"slowchip", c.excessCompute}, {"hosttransfer", c.excessTransfer}})
        if (excess > explained && excess >= kStragglerCauseShare.value * latePs)
            c.name = name, explained = excess;
    return c;
}

/// The sentence on the cause and the fix it calls for.
void explainCause(const Cause& c, const HostRow& late, const std::string& collective, Advice& a, std::string& why)
{
    if (c.name == "input") {
        why = format("Its own data point to the host side: its cores are idle %s/step more than the other hosts' "
                     "median (they start the step late, after the host's input pipeline or other host work).",
            formatDurationPs(c.excessIdle).c_str());
        a.fix.action = "Speed up host " + late.name
            + "'s input pipeline (prefetch further ahead, more reader threads, check its CPU, disk and network load) "
              "so its chips start each step with the others.";
    } else if (c.name == "slowchip") {
        why = format("Its own data point to a slow chip: %s computes %s/step more than the other hosts' slowest core "
                     "(the same ops take longer there).",
            late.slowestCore.c_str(), formatDurationPs(c.excessCompute).c_str());
        a.fix.action = "Check " + late.slowestCore + " on host " + late.name
            + " (thermal throttling, a degraded chip or ICI link): move the job off it or have it replaced.";
    } else if (c.name == "hosttransfer") {
        why = format("Its own data point to host transfers: its cores spend %s/step more than the other hosts' median "
                     "moving data to or from host memory (or in infeed/outfeed) before the collective.",
            formatDurationPs(c.excessTransfer).c_str());
        a.fix.action = "Take host " + late.name
            + "'s host transfers off the path to the collective (overlap them with compute, offload less) or find why "
              "its host link is slower than the others'.";
    } else {
        why = "Its idle time, compute and host transfers do not explain the lateness alone: look at its timeline "
              "before the collective.";
        a.fix.action = "Compare host " + late.name + "'s timeline before " + collective + " with another host's.";
    }
}

/// "3, 7, 11 and 2 more" (1-based step numbers, as the hosts table shows them).
std::string stepListText(const std::vector<int64_t>& steps, size_t max = 8)
{
    std::string out;
    for (size_t i = 0; i < steps.size() && i < max; ++i)
        out += (i ? ", " : "") + std::to_string(steps[i] + 1);
    if (steps.size() > max)
        out += format(" and %zu more", steps.size() - max);
    return out;
}

void setNumbers(const HostAnalysis& h, const std::vector<size_t>& named, const HostRow& late,
    const std::vector<int64_t>& lateSteps, double latePsWhenLate, bool intermittent, const Cause& cause, Advice& a)
{
    const double lateFraction = static_cast<double>(*late.lateSteps) / static_cast<double>(h.steps);
    const double latePs = *late.lateVsOthersPs;
    AdviceValue stepList = AdviceValue::list();
    for (int64_t s : lateSteps)
        stepList.append(s + 1);
    a.numbers.set("host", late.name)
        .set("late_fraction", lateFraction)
        .set("late_ps_per_step", latePs)
        .set("late_ps_when_late", latePsWhenLate)
        .set("intermittent", intermittent ? 1 : 0)
        .set("cause", cause.name)
        .set("late_steps", *late.lateSteps)
        .set("late_step_numbers", std::move(stepList))
        .set("steps", h.steps)
        .set("step_ps", h.avgStepPs);
    if (cause.othersWaitKnown)
        a.numbers.set("others_wait_ps_per_step", cause.othersWait);
    if (named.size() > 1) {
        AdviceValue list = AdviceValue::list();
        for (size_t i : named)
            list.append(h.hosts[i].name);
        a.numbers.set("hosts", std::move(list));
    }
}

void run(const Context& ctx, RuleOutput& out)
{
    if (!ctx.hosts || ctx.hosts->hosts.size() < 2 || ctx.hosts->steps < 2 || ctx.hosts->avgStepPs <= 0)
        return;
    const HostAnalysis& h = *ctx.hosts;
    bool intermittent = false;
    const std::vector<size_t> named = namedHosts(h, intermittent);
    if (named.empty())
        return;
    const HostRow& late = h.hosts[named.front()];
    const double lateFraction = static_cast<double>(*late.lateSteps) / static_cast<double>(h.steps);
    const double latePs = *late.lateVsOthersPs;
    double latePsWhenLate = 0;
    const std::vector<int64_t> lateSteps = lateStepsOf(h, named.front(), latePsWhenLate);
    const Cause cause = causeOf(h, named, late, latePs);
    const double gainPs = keepUpGainPs(h, named);

    std::string names;
    for (size_t i = 0; i < named.size(); ++i)
        names += (i ? ", " : "") + h.hosts[named[i]].name;
    const std::string collective = h.syncCollective.empty() ? "the step's last collective" : h.syncCollective;
    Advice a;
    std::string why;
    explainCause(cause, late, collective, a, why);
    a.severity = gainPs >= kStragglerCriticalGain.value * h.avgStepPs ? Severity::Critical : Severity::Warning;
    a.title = intermittent
        ? format("Host %s holds the step back now and then: late at %s in %lld of %lld steps, by %s when late",
            names.c_str(), collective.c_str(), static_cast<long long>(*late.lateSteps), static_cast<long long>(h.steps),
            formatDurationPs(latePsWhenLate).c_str())
        : format("Host %s holds the step back: it reaches %s last in %s of the steps, %s late", names.c_str(),
            collective.c_str(), pct(lateFraction).c_str(), formatDurationPs(latePs).c_str());
    a.detail = format("Over %lld steps of %zu hosts, %s reaches the step's synchronizing collective (%s) last and at "
                      "least %s of the step late in %lld steps (%s: steps %s), by %s on average when late; over all "
                      "steps it arrives %s/step after the other hosts' median (clocks aligned on the collective's "
                      "end, which every host leaves together). %sEvery other core waits inside the collective for it: "
                      "%s/step per core. %s",
        static_cast<long long>(h.steps), h.hosts.size(), late.name.c_str(), collective.c_str(),
        pct(kStragglerMinLate.value).c_str(), static_cast<long long>(*late.lateSteps), pct(lateFraction).c_str(),
        stepListText(lateSteps).c_str(), formatDurationPs(latePsWhenLate).c_str(), formatDurationPs(latePs).c_str(),
        intermittent ? format("Late in fewer than half of the steps, it still costs the pod %s/step on average: an "
                              "intermittent straggler. ",
            formatDurationPs(gainPs).c_str())
                           .c_str()
                     : "",
        cause.othersWaitKnown ? formatDurationPs(cause.othersWait).c_str() : kUnknownText, why.c_str());
    setNumbers(h, named, late, lateSteps, latePsWhenLate, intermittent, cause, a);
    a.threshold = format("a host reaches the step's synchronizing collective last and >= %s of the step after the "
                         "other hosts' median in >= %s of the steps, or in fewer steps at a cost of >= %s of the step "
                         "on average (intermittent); critical when keeping up gains >= %s of the step (ours)",
        pct(kStragglerMinLate.value).c_str(), pct(kStragglerLateShare.value).c_str(),
        pct(kStragglerIntermittentCost.value).c_str(), pct(kStragglerCriticalGain.value).c_str());
    a.gainPs = gainPs;
    // The others' wait is time inside the synchronizing collective: claimed on that op, the report
    // counts it once with the collectives item (which claims the same op's whole time), and the
    // two items name each other instead of adding up past the step.
    for (const OpRow& row : ctx.breakdown.rows)
        if (row.op != kNone && row.name == h.syncCollective) {
            addEvidence(a, ctx, row.op);
            a.gainByOp.emplace_back(row.op, std::min(gainPs, ctx.perStep(saveableTimePs(row, false))));
            break; // rows come by time: the largest of the collective's programs
        }
    a.gain = format("%s/step if %s kept up: each step would end when the next-latest host arrives. An upper bound "
                    "per step; the other hosts' jitter remains",
        formatDurationPs(gainPs).c_str(), names.c_str());
    out.items.push_back(std::move(a));
}

} // namespace straggler

const AdviceRuleEntry& stragglerRule()
{
    using namespace straggler;
    static const AdviceRuleEntry entry {AdviceRuleId::Straggler,
        {kStragglerLateShare, kStragglerMinLate, kStragglerIntermittentCost, kStragglerCriticalGain,
            kStragglerCauseShare},
        &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
