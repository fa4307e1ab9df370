// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The regression gate (`tpuscope-cli gate BASE CAND`): a diff judged against budgets. A figure
// fails only when it is worse by more than its budget and the change is beyond the noise (the step
// and op tests of changetest.h; the HBM peak is the compiler's buffer assignment, exact). Two
// profiles whose configurations differ (diff.h: generation, cores, hosts, programs, global batch)
// are not gated unless the caller allows it, and unrelated profiles never are.

#include "diff.h"

#include <optional>
#include <string>
#include <vector>

namespace tpuscope::model {

/// A matched op is gated when it takes at least this share of either side's op time.
constexpr double kGateOpMinShare = 0.01;

struct GateBudgets
{
    double maxStepRegression = 0.05; // a longer step (or fewer examples per second), as a fraction
    double maxHbmPeakRegression = 0.05; // a larger HBM peak per core
    double maxOpRegression = 0.10; // one op's time per step (per example when the global batch differs)
    bool allowConfigChange = false;
};

enum class GateCheckKind : uint8_t { StepTime, Throughput, HbmPeak, Op };
/// "step-time", "throughput", "hbm-peak", "op".
const char* gateCheckKindName(GateCheckKind kind);

struct GateCheck
{
    GateCheckKind kind = GateCheckKind::StepTime;
    std::string what; // "step time", "examples per second", "HBM peak", the op's name
    double change = 0; // the figure's relative change (examples per second: +0.3 is 30 % more)
    double worseBy = 0; // the same, positive when worse (a longer step, fewer examples/s, a larger peak)
    double budget = 0;
    bool significant = false; // beyond the noise
    std::string confidence; // how sure: the test, "exact", or why untested
    std::optional<ChangeTest> test; // the test behind it, when there is one

    bool overBudget() const { return worseBy > budget; }
    bool regression() const { return significant && overBudget(); }
};

enum class GateOutcome : uint8_t { Pass, Regression, ConfigMismatch };
/// "pass", "regression", "config-mismatch".
const char* gateOutcomeName(GateOutcome outcome);

struct GateVerdict
{
    GateOutcome outcome = GateOutcome::Pass;
    GateBudgets budgets;
    /// The step (or throughput) and HBM checks always; ops only when over their budget.
    std::vector<GateCheck> checks;
    std::vector<std::string> notes; // what could not be checked, and why
    std::vector<std::string> mismatch; // why the profiles are not gated (config mismatch)

    /// 0 pass, 1 a significant regression beyond its budget, 2 a configuration mismatch.
    int exitCode() const;
    size_t regressions() const;
};

GateVerdict evaluateGate(const ProfileDiff& diff, const GateBudgets& budgets);

} // namespace tpuscope::model
