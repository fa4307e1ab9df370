// SPDX-License-Identifier: GPL-3.0-or-later
// Step-aware advice: input-bound (steady-state idle and infeed waits) and capture-coverage.
#include "advicerules.h"

#include "steps.h"

namespace tpuscope::model::advice_detail {

void inputBoundRule(const Context& ctx, std::vector<Advice>& out)
{
    if (!ctx.stepAnalysis)
        return;
    const StepAnalysis& s = *ctx.stepAnalysis;
    // Idle before the first step is warm-up (compilation, the first batch) and after the last one
    // tail: neither says anything about the input pipeline, so only the steps themselves count.
    // A single step has no steady state.
    if (s.steps.size() < 2 || s.steadyPs <= 0)
        return;
    const double idle = s.steadyIdleFraction();
    const double infeed = s.steadyInfeedFraction();
    const double share = idle + infeed;
    if (share < kInputBoundShare)
        return;
    const double perStep = (s.steady.idlePs + s.steady.infeedPs) / static_cast<double>(s.steps.size());
    const std::string steps = s.source == StepSource::ProgramRuns ? "runs of " + s.program
        : s.source == StepSource::StepsLine                       ? "steps of the " + s.sourceLine + " line"
                                                                  : "host steps '" + s.sourceLine + "'";
    Advice a;
    a.rule = "input-bound";
    a.severity = share >= kInputBoundCriticalShare ? Severity::Critical : Severity::Warning;
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
    a.numbers.set("idle_fraction", idle)
        .set("infeed_fraction", infeed)
        .set("steps", static_cast<int64_t>(s.steps.size()))
        .set("step_ps", s.avgStepPs)
        .set("steady_idle_ps", s.steady.idlePs)
        .set("warmup_idle_ps", s.warmup.idlePs)
        .set("source", stepSourceName(s.source));
    a.threshold = format("steady-state idle + infeed >= %s of the steady-state step time (xprof TensorCoreIdleBound); "
                         "critical from %s (xprof HIGHLY input-bound)",
        pct(kInputBoundShare).c_str(), pct(kInputBoundCriticalShare).c_str());
    a.gainPs = perStep;
    a.gain = format("up to %s/step (all of the wait). An upper bound: some gap between launches always remains",
        formatDurationPs(perStep).c_str());
    out.push_back(std::move(a));
}

void captureCoverageRule(const Context& ctx, std::vector<Advice>& out)
{
    if (!ctx.stepAnalysis)
        return;
    const StepAnalysis& s = *ctx.stepAnalysis;
    const ProgramRunStats* dominant = s.dominant();
    const double span = static_cast<double>(ctx.profile.spanEnd - ctx.profile.spanBegin);
    if (span <= 0)
        return; // no timeline (an op_profile): nothing to say about the capture window
    // Busy as the summary counts it (op time over span x cores), so both say the same number.
    const double busy = std::min(1.0, ctx.breakdown.totalTimePs / (span * std::max(1, ctx.cores)));
    const double runs = dominant ? dominant->runsPerCore : 0;
    const bool fewRuns = dominant && runs < kCaptureMinRuns;
    if (busy >= kCaptureMinBusyShare && !fewRuns)
        return;
    Advice a;
    a.rule = "capture-coverage";
    a.severity = Severity::Warning;
    const std::string program = dominant ? dominant->name : std::string("the main program");
    if (fewRuns)
        a.title = format("The capture holds %g run%s of %s and the device is busy %s of it: capture more steps", runs,
            runs == 1 ? "" : "s", program.c_str(), pct(busy).c_str());
    else
        a.title = format("The device is busy only %s of the capture: capture more steps", pct(busy).c_str());
    a.detail = format(
        "The profile spans %s, and the TPU cores run ops for %s of it%s. The capture, not the program, is the issue "
        "here: step times, idle time and the other advice rest on too little of the run to be trusted, and the "
        "idle time around the runs is the host doing other things (waiting for requests, polling its input queue, "
        "compiling) while the profiler was on. Capture while the program is in its steady state and long enough for "
        "at least %g steps: start the trace after warm-up (jax.profiler.start_trace / stop_trace around a loop of "
        "steps, or tf.profiler.experimental.start after the first steps), use the TensorBoard capture button or "
        "`capture_profile` with a longer duration, and for a server, send it steady traffic while capturing.",
        formatDurationPs(span).c_str(), pct(busy).c_str(),
        dominant ? format("; %s, the program with the most device time, ran %g time%s per core (%s on average)",
            program.c_str(), runs, runs == 1 ? "" : "s", formatDurationPs(dominant->avgPs).c_str())
                       .c_str()
                 : "; no program runs were recorded",
        kCaptureMinRuns);
    a.numbers.set("busy_fraction", busy)
        .set("dominant_program_runs", runs)
        .set("dominant_program", program)
        .set("span_ps", span);
    a.threshold = format("device busy < %s of the profile, or the dominant program ran fewer than %g times (ours)",
        pct(kCaptureMinBusyShare).c_str(), kCaptureMinRuns);
    a.gain = "none by itself: a longer capture makes the other numbers trustworthy";
    out.push_back(std::move(a));
}

} // namespace tpuscope::model::advice_detail
