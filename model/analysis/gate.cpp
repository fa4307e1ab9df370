// SPDX-License-Identifier: GPL-3.0-or-later
#include "gate.h"

#include "../core/format.h"

#include <algorithm>

namespace tpuscope::model {

const char* gateCheckKindName(GateCheckKind kind)
{
    switch (kind) {
    case GateCheckKind::StepTime:
        return "step-time";
    case GateCheckKind::Throughput:
        return "throughput";
    case GateCheckKind::HbmPeak:
        return "hbm-peak";
    case GateCheckKind::Op:
        return "op";
    }
    return "step-time";
}

const char* gateOutcomeName(GateOutcome outcome)
{
    switch (outcome) {
    case GateOutcome::Pass:
        return "pass";
    case GateOutcome::Regression:
        return "regression";
    case GateOutcome::ConfigMismatch:
        return "config-mismatch";
    }
    return "pass";
}

int GateVerdict::exitCode() const
{
    switch (outcome) {
    case GateOutcome::Pass:
        return 0;
    case GateOutcome::Regression:
        return 1;
    case GateOutcome::ConfigMismatch:
        return 2;
    }
    return 2;
}

size_t GateVerdict::regressions() const
{
    return static_cast<size_t>(
        std::count_if(checks.begin(), checks.end(), [](const GateCheck& c) { return c.regression(); }));
}

namespace gate_detail {

void stepCheck(const ProfileDiff& diff, GateVerdict& v)
{
    const StepComparison& s = diff.steps;
    if (!s.known) {
        v.notes.push_back("Step time not checked: a profile has no steps.");
        return;
    }
    GateCheck c;
    const bool throughput = s.batchDiffers && s.throughput;
    c.kind = throughput ? GateCheckKind::Throughput : GateCheckKind::StepTime;
    c.what = throughput ? "examples per second" : "step time";
    c.test = throughput ? *s.throughput : s.stepTime;
    c.change = c.test->relativeChange;
    c.worseBy = throughput ? -c.change : c.change; // fewer examples per second is worse
    c.budget = v.budgets.maxStepRegression;
    c.significant = c.test->significant();
    c.confidence = c.test->significant() ? "beyond the noise, " + c.test->describe()
        : c.test->tested                 ? "within the noise, " + c.test->describe()
                                         : c.test->describe();
    v.checks.push_back(std::move(c));
}

void hbmCheck(const ProfileDiff& diff, GateVerdict& v)
{
    if (!diff.a.hbmPeakBytes || !diff.b.hbmPeakBytes || *diff.a.hbmPeakBytes <= 0) {
        v.notes.push_back("HBM peak not checked: a profile records no buffer assignment.");
        return;
    }
    GateCheck c;
    c.kind = GateCheckKind::HbmPeak;
    c.what = "HBM peak";
    c.change = static_cast<double>(*diff.b.hbmPeakBytes) / static_cast<double>(*diff.a.hbmPeakBytes) - 1;
    c.worseBy = c.change;
    c.budget = v.budgets.maxHbmPeakRegression;
    c.significant = *diff.b.hbmPeakBytes != *diff.a.hbmPeakBytes; // the compiler's plan: no noise
    c.confidence = "exact (the compiler's buffer assignment: " + formatBytes(double(*diff.a.hbmPeakBytes)) + " \u2192 "
        + formatBytes(double(*diff.b.hbmPeakBytes)) + " per core)";
    v.checks.push_back(std::move(c));
}

/// Each gated op over its budget. When the global batch differs, per example: after × batch
/// before / batch after, judged by the scaled bootstrap interval.
void opChecks(const ProfileDiff& diff, GateVerdict& v)
{
    double scale = 1;
    if (diff.steps.batchDiffers && diff.a.globalBatch && diff.b.globalBatch)
        scale = static_cast<double>(*diff.a.globalBatch) / static_cast<double>(*diff.b.globalBatch);
    for (const DiffRow& r : diff.rows) {
        if (r.status != DiffStatus::Both || std::max(r.a.timeFraction, r.b.timeFraction) < kGateOpMinShare
            || r.a.timePs <= 0)
            continue;
        GateCheck c;
        c.kind = GateCheckKind::Op;
        c.what = r.name == r.a.name ? r.name : r.name + " (was " + r.a.name + ")";
        c.change = r.b.timePs * scale / r.a.timePs - 1;
        c.worseBy = c.change;
        c.budget = v.budgets.maxOpRegression;
        if (!c.overBudget())
            continue;
        if (r.test.tested) {
            ChangeTest t = r.test;
            t.relativeChange = (1 + t.relativeChange) * scale - 1;
            t.intervalLow = (1 + t.intervalLow) * scale - 1;
            t.intervalHigh = (1 + t.intervalHigh) * scale - 1;
            c.significant = scale == 1 ? t.significant() : t.intervalLow > 0;
            c.confidence = (c.significant ? "beyond the noise, " : "within the noise, ") + t.describe();
            c.test = t;
        } else {
            c.significant = true;
            c.confidence = "not tested (no per-step op times, e.g. a share file): one figure per profile";
        }
        v.checks.push_back(std::move(c));
    }
}

} // namespace gate_detail

using namespace gate_detail;

GateVerdict evaluateGate(const ProfileDiff& diff, const GateBudgets& budgets)
{
    GateVerdict v;
    v.budgets = budgets;
    if (!diff.related())
        v.mismatch.push_back("the profiles look unrelated (" + formatPercent(diff.matchedTimeFractionA)
            + " of the before op time and " + formatPercent(diff.matchedTimeFractionB)
            + " of the after op time matched)");
    if (!budgets.allowConfigChange)
        for (const ConfigDifference& d : diff.config)
            v.mismatch.push_back(d.what + " differs (before " + d.before + ", after " + d.after + ")");
    stepCheck(diff, v);
    hbmCheck(diff, v);
    opChecks(diff, v);
    if (!v.mismatch.empty())
        v.outcome = GateOutcome::ConfigMismatch;
    else if (v.regressions() > 0)
        v.outcome = GateOutcome::Regression;
    return v;
}

} // namespace tpuscope::model
