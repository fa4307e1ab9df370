// SPDX-License-Identifier: GPL-3.0-or-later
// Advice rule `capture-coverage`: a capture too short or too idle to trust.
#include "advicerules.h"

#include "steps.h"

namespace tpuscope::model::advice_detail {

namespace capture_coverage {

constexpr AdviceThreshold kCaptureMinBusyShare {"capture-coverage", "busy_share", 0.20, "share",
    "the device is busy less than this share of the profile span", "ours"};
constexpr AdviceThreshold kCaptureMinRuns {
    "capture-coverage", "min_runs", 5, "runs", "the dominant program ran fewer times than this per core", "ours"};

void run(const Context& ctx, RuleOutput& out)
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
    const bool fewRuns = dominant && runs < kCaptureMinRuns.value;
    if (busy >= kCaptureMinBusyShare.value && !fewRuns)
        return;
    Advice a;
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
        kCaptureMinRuns.value);
    a.fix.action = format("Capture while the program is in its steady state and long enough for at least %g steps: "
                          "start the trace after warm-up (jax.profiler.start_trace / stop_trace around a loop of "
                          "steps, or tf.profiler.experimental.start after the first steps), use the TensorBoard "
                          "capture button or `capture_profile` with a longer duration, and for a server, send it "
                          "steady traffic while capturing.",
        kCaptureMinRuns.value);
    a.numbers.set("busy_fraction", busy)
        .set("dominant_program_runs", runs)
        .set("dominant_program", program)
        .set("span_ps", span);
    a.threshold = format("device busy < %s of the profile, or the dominant program ran fewer than %g times (ours)",
        pct(kCaptureMinBusyShare.value).c_str(), kCaptureMinRuns.value);
    a.gain = "none by itself: a longer capture makes the other numbers trustworthy";
    out.items.push_back(std::move(a));
}

} // namespace capture_coverage

const AdviceRuleEntry& captureCoverageRule()
{
    using namespace capture_coverage;
    static const AdviceRuleEntry entry {AdviceRuleId::CaptureCoverage, {kCaptureMinBusyShare, kCaptureMinRuns}, &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
