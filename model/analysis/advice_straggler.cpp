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

void run(const Context& ctx, RuleOutput& out)
{
    if (!ctx.hosts || ctx.hosts->hosts.size() < 2 || ctx.hosts->steps < 2 || ctx.hosts->avgStepPs <= 0)
        return;
    const HostAnalysis& h = *ctx.hosts;
    const double steps = static_cast<double>(h.steps);
    std::vector<size_t> named;
    for (size_t i = 0; i < h.hosts.size(); ++i) {
        const HostRow& r = h.hosts[i];
        if (r.lateSteps && r.lateVsOthersPs && static_cast<double>(*r.lateSteps) >= kStragglerLateShare.value * steps
            && *r.lateVsOthersPs >= kStragglerMinLate.value * h.avgStepPs)
            named.push_back(i);
    }
    if (named.empty())
        return;
    std::stable_sort(
        named.begin(), named.end(), [&](size_t a, size_t b) { return *h.hosts[a].lateSteps > *h.hosts[b].lateSteps; });
    const HostRow& late = h.hosts[named.front()];
    const double lateFraction = static_cast<double>(*late.lateSteps) / steps;
    const double latePs = *late.lateVsOthersPs;

    // The other hosts: what their cores wait, and the medians the late host is compared with.
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
    // Unknown (no collective ran on two cores) stays out of the numbers, never a made-up zero.
    const bool othersWaitKnown = waitCores > 0;
    const double othersWait = othersWaitKnown ? waitSum / waitCores : 0;
    const double excessIdle = late.idlePs - medianOf(idle);
    const double excessCompute = late.slowestCoreComputePs - medianOf(slowest);
    const double excessTransfer = late.hostTransferPs - medianOf(transfer);
    std::string cause = "unknown";
    double explained = 0;
    for (const auto& [name, excess] : {std::pair<const char*, double> {"input", excessIdle},
             {"slowchip", excessCompute}, {"hosttransfer", excessTransfer}})
        if (excess > explained && excess >= kStragglerCauseShare.value * latePs)
            cause = name, explained = excess;

    // If the named hosts kept up, each step would end when the latest other host arrives.
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
    const double gainPs = gainSteps > 0 ? gainSum / gainSteps : 0;

    std::string names;
    for (size_t i = 0; i < named.size(); ++i)
        names += (i ? ", " : "") + h.hosts[named[i]].name;
    const std::string collective = h.syncCollective.empty() ? "the step's last collective" : h.syncCollective;
    std::string why;
    if (cause == "input")
        why = format("Its own data point to the host side: its cores are idle %s/step more than the other hosts' "
                     "median (they start the step late, after the host's input pipeline or other host work).",
            formatDurationPs(excessIdle).c_str());
    else if (cause == "slowchip")
        why = format("Its own data point to a slow chip: %s computes %s/step more than the other hosts' slowest core "
                     "(the same ops take longer there).",
            late.slowestCore.c_str(), formatDurationPs(excessCompute).c_str());
    else if (cause == "hosttransfer")
        why = format("Its own data point to host transfers: its cores spend %s/step more than the other hosts' median "
                     "moving data to or from host memory (or in infeed/outfeed) before the collective.",
            formatDurationPs(excessTransfer).c_str());
    else
        why = "Its idle time, compute and host transfers do not explain the lateness alone: look at its timeline "
              "before the collective.";

    Advice a;
    a.severity = gainPs >= kStragglerCriticalGain.value * h.avgStepPs ? Severity::Critical : Severity::Warning;
    a.title = format("Host %s holds the step back: it reaches %s last in %s of the steps, %s late", names.c_str(),
        collective.c_str(), pct(lateFraction).c_str(), formatDurationPs(latePs).c_str());
    a.detail = format("Over %lld steps of %zu hosts, %s reaches the step's synchronizing collective (%s) last and at "
                      "least %s of the step late in %lld steps (%s); on average it arrives %s/step after the other "
                      "hosts' median (clocks aligned on the collective's end, which every host leaves together). "
                      "Every other core waits inside the collective for it: %s/step per core. %s",
        static_cast<long long>(h.steps), h.hosts.size(), late.name.c_str(), collective.c_str(),
        pct(kStragglerMinLate.value).c_str(), static_cast<long long>(*late.lateSteps), pct(lateFraction).c_str(),
        formatDurationPs(latePs).c_str(), othersWaitKnown ? formatDurationPs(othersWait).c_str() : kUnknownText,
        why.c_str());
    if (cause == "input")
        a.fix.action = "Speed up host " + late.name
            + "'s input pipeline (prefetch further ahead, more reader threads, check its CPU, disk and network load) "
              "so its chips start each step with the others.";
    else if (cause == "slowchip")
        a.fix.action = "Check " + late.slowestCore + " on host " + late.name
            + " (thermal throttling, a degraded chip or ICI link): move the job off it or have it replaced.";
    else if (cause == "hosttransfer")
        a.fix.action = "Take host " + late.name
            + "'s host transfers off the path to the collective (overlap them with compute, offload less) or find why "
              "its host link is slower than the others'.";
    else
        a.fix.action = "Compare host " + late.name + "'s timeline before " + collective + " with another host's.";
    a.numbers.set("host", late.name)
        .set("late_fraction", lateFraction)
        .set("late_ps_per_step", latePs)
        .set("cause", cause)
        .set("late_steps", *late.lateSteps)
        .set("steps", h.steps)
        .set("step_ps", h.avgStepPs);
    if (othersWaitKnown)
        a.numbers.set("others_wait_ps_per_step", othersWait);
    if (named.size() > 1) {
        AdviceValue list = AdviceValue::list();
        for (size_t i : named)
            list.append(h.hosts[i].name);
        a.numbers.set("hosts", std::move(list));
    }
    a.threshold
        = format("a host reaches the step's synchronizing collective last and >= %s of the step after the other "
                 "hosts' median in >= %s of the steps; critical when keeping up gains >= %s of the step (ours)",
            pct(kStragglerMinLate.value).c_str(), pct(kStragglerLateShare.value).c_str(),
            pct(kStragglerCriticalGain.value).c_str());
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
        {kStragglerLateShare, kStragglerMinLate, kStragglerCriticalGain, kStragglerCauseShare}, &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
