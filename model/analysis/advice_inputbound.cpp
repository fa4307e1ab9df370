// SPDX-License-Identifier: GPL-3.0-or-later
// Advice rule `input-bound`: steady-state idle and infeed waits.
#include "advicerules.h"

#include "steps.h"

namespace tpuscope::model::advice_detail {

namespace input_bound {

constexpr AdviceThreshold kInputBoundShare {"input-bound", "idle_share", 0.10, "share",
    "steady-state idle + infeed waits, share of the steady-state step time (warm-up and tail excluded)",
    "xprof TensorCoreIdleBound (smart_suggestion)"};
constexpr AdviceThreshold kInputBoundCriticalShare {"input-bound", "critical_share", 0.20, "share",
    "that share for critical", "xprof input-pipeline analysis (HIGHLY input-bound at 20 %)"};

constexpr const char* kInputFix
    = "Prefetch and parallelize the input pipeline (tf.data prefetch / more reader threads, or a JAX data loader "
      "that stays a few batches ahead), run several steps per call (a host training loop), and move checkpointing "
      "and logging off the critical path.";

/// Without steady-state steps (an op_profile has no timeline; a capture of one step has no steady
/// state): the infeed and outfeed ops' share of op time, which is the cores waiting for the host.
void runOnOpTime(const Context& ctx, RuleOutput& out)
{
    std::vector<const OpRow*> rows;
    double time = 0;
    for (const OpRow& row : ctx.breakdown.rows)
        if (row.op != kNone && ctx.traits(row).isInfeedOrOutfeed()) {
            rows.push_back(&row);
            time += row.totalTimePs;
        }
    const double share = ctx.breakdown.totalTimePs > 0 ? time / ctx.breakdown.totalTimePs : 0;
    if (rows.empty() || share < kInputBoundShare.value)
        return;
    Advice a;
    a.severity = share >= kInputBoundCriticalShare.value ? Severity::Critical : Severity::Warning;
    a.title
        = format("TensorCores wait in infeed/outfeed %s of op time: the program is input-bound", pct(share).c_str());
    a.detail = format("%s: %s of op time is the cores waiting in infeed or outfeed for the host (the next batch, or "
                      "results it has not taken yet). %s, so the idle time between steps, which would add to this, is "
                      "not known. %s",
        opList(ctx, rows).c_str(), pct(share).c_str(),
        ctx.stepAnalysis && ctx.stepAnalysis->steps.size() == 1 ? "The capture holds a single step"
                                                                : "The file has no timeline",
        kInputFix);
    a.fix.action = kInputFix;
    const double gainTime = addRowsAsEvidenceAndWholeGain(a, ctx, rows);
    a.numbers.set("infeed_fraction", share).set("ops", static_cast<int64_t>(rows.size()));
    a.threshold = format("infeed + outfeed >= %s of op time where no steady-state steps are known (xprof "
                         "TensorCoreIdleBound, on op time); critical from %s (xprof HIGHLY input-bound)",
        pct(kInputBoundShare.value).c_str(), pct(kInputBoundCriticalShare.value).c_str());
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s (all of the infeed/outfeed wait). An upper bound: the transfers themselves take some "
                    "time",
        ctx.gainText(gainTime).c_str());
    out.items.push_back(std::move(a));
}

void run(const Context& ctx, RuleOutput& out)
{
    // Idle before the first step is warm-up (compilation, the first batch) and after the last one
    // tail: neither says anything about the input pipeline, so only the steps themselves count.
    // A single step has no steady state: then only the infeed and outfeed ops' time speaks.
    if (!ctx.stepAnalysis || ctx.stepAnalysis->steps.size() < 2 || ctx.stepAnalysis->steadyPs <= 0) {
        runOnOpTime(ctx, out);
        return;
    }
    const StepAnalysis& s = *ctx.stepAnalysis;
    const double idle = s.steadyIdleFraction();
    const double infeed = s.steadyInfeedFraction();
    const double share = idle + infeed;
    if (share < kInputBoundShare.value)
        return;
    const double perStep = (s.steady.idlePs + s.steady.infeedPs) / static_cast<double>(s.steps.size());
    const std::string steps = s.source == StepSource::ProgramRuns ? "runs of " + s.program
        : s.source == StepSource::StepsLine                       ? "steps of the " + s.sourceLine + " line"
                                                                  : "host steps '" + s.sourceLine + "'";
    Advice a;
    a.severity = share >= kInputBoundCriticalShare.value ? Severity::Critical : Severity::Warning;
    a.title = format("TensorCores wait %s of every step (%s per step): the step is input-bound", pct(share).c_str(),
        formatDurationPs(perStep).c_str());
    a.detail = format("Over %lld %s (steady state, from the first step's start to the last one's end, averaged over "
                      "%d cores) the cores are idle %s of the time%s. The device waits for the host: for the next "
                      "batch (data pipeline, infeed), for Python between steps, or for small launches. Prefetch and "
                      "parallelize the input pipeline (tf.data prefetch / more reader threads, or a JAX data loader "
                      "that stays a few batches ahead), run several steps per call (a host training loop), and move "
                      "checkpointing and logging off the critical path. Warm-up idle before the first step (%s) and "
                      "tail idle after the last one (%s) are not counted: they are start-up and shutdown, not input.",
        static_cast<long long>(s.steps.size()), steps.c_str(), s.cores, pct(idle).c_str(),
        infeed > 0 ? format(" and %s in infeed/outfeed", pct(infeed).c_str()).c_str() : "",
        formatDurationPs(s.warmup.idlePs).c_str(), formatDurationPs(s.tail.idlePs).c_str());
    a.fix.action = kInputFix;
    a.numbers.set("idle_fraction", idle)
        .set("infeed_fraction", infeed)
        .set("steps", static_cast<int64_t>(s.steps.size()))
        .set("step_ps", s.avgStepPs)
        .set("steady_idle_ps", s.steady.idlePs)
        .set("warmup_idle_ps", s.warmup.idlePs)
        .set("source", stepSourceName(s.source));
    a.threshold = format("steady-state idle + infeed >= %s of the steady-state step time (xprof TensorCoreIdleBound); "
                         "critical from %s (xprof HIGHLY input-bound)",
        pct(kInputBoundShare.value).c_str(), pct(kInputBoundCriticalShare.value).c_str());
    a.gainPs = perStep;
    a.gain = format("up to %s/step (all of the wait). An upper bound: some gap between launches always remains",
        formatDurationPs(perStep).c_str());
    out.items.push_back(std::move(a));
}

} // namespace input_bound

const AdviceRuleEntry& inputBoundRule()
{
    using namespace input_bound;
    static const AdviceRuleEntry entry {AdviceRuleId::InputBound, {kInputBoundShare, kInputBoundCriticalShare}, &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
