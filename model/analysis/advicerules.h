// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What every advice rule shares: the context it reads and the helpers that word its numbers.
// Internal to the advice engine: rules live in advice*.cpp files and are called from computeAdvice;
// a new rule goes into a file of its own and one line in computeAdvice (ARCHITECTURE.md).

#include "../report/report.h"
#include "advice.h"
#include "steps.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tpuscope::model::advice_detail {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/// A share as text, with two decimals below 10 %.
std::string pct(double fraction);

struct Context
{
    const Profile& profile;
    const OpBreakdown& breakdown;
    int64_t steps = 0;
    int cores = 1;
    std::vector<OpPadding> paddings; // by breakdown row
    BatchInference batch;
    const StepAnalysis* stepAnalysis = nullptr; // the steps `steps` counts (computeSteps)

    /// Time per step per core of a total over all cores.
    double perStep(double totalPs) const { return totalPs / std::max(1, cores) / std::max<int64_t>(1, steps); }
    std::string perStepText(double totalPs) const
    {
        return formatDurationPs(perStep(totalPs)) + (steps > 0 ? "/step" : " per core over the profile");
    }
    std::string layer(OpId op) const
    {
        const OpInfo& info = profile.ops[op];
        std::string text = profile.str(info.tfOp);
        if (!text.empty() && text.back() == ':')
            text.pop_back();
        const std::string& source = profile.str(info.source);
        if (!source.empty())
            text += (text.empty() ? "" : ", ") + source;
        return text;
    }
};

/// Adds an op to an item's evidence once.
void addEvidence(Advice& a, const Context& ctx, OpId op);
/// "fusion.3 (58.0 %), fusion.12 (9.1 %) and 3 more".
std::string opList(const Context& ctx, const std::vector<const OpRow*>& rows, size_t max = 4);

// Step-aware rules (advice_steps.cpp) and their thresholds, listed in adviceThresholds().
// input-bound: xprof TensorCoreIdleBound fires at > 10 % idle; "HIGHLY input-bound" at 20 %.
constexpr double kInputBoundShare = 0.10;
constexpr double kInputBoundCriticalShare = 0.20;
// capture-coverage (ours): a device busy < 20 % of the capture, or fewer than 5 runs of the main program.
constexpr double kCaptureMinBusyShare = 0.20;
constexpr double kCaptureMinRuns = 5;
void inputBoundRule(const Context& ctx, std::vector<Advice>& out);
void captureCoverageRule(const Context& ctx, std::vector<Advice>& out);

} // namespace tpuscope::model::advice_detail
