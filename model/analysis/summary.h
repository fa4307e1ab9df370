// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "opbreakdown.h"
#include "steps.h"

#include <string>
#include <vector>

namespace tpuscope::model {

/// The step figures of computeSteps in short (what summary, advice and diff divide by).
struct StepStats
{
    int64_t count = 0; // steps per core (StepAnalysis::stepsPerCore)
    double averagePs = 0;
    double minPs = 0;
    double maxPs = 0;
    std::string source; // the line the steps come from: "Steps", "XLA Modules" or a host marker's name
    std::string program; // the program whose runs are the steps, when they come from XLA Modules
};

struct ProfileSummary
{
    bool hasTpuOps = false;
    std::string message; // plain statement when there is nothing TPU to report
    TimePs spanPs = 0;
    double totalOpTimePs = 0; // busy time summed over TPU cores
    HeadlineUtilization flops; // capped per op, over the ops with cost data
    HeadlineUtilization hbm;
    double costCoverage = 0; // share of op time whose ops have cost data
    std::vector<std::string> warnings; // coverage, over-peak ops, unknown device
    double busyFraction = 0; // totalOpTimePs / (span × cores)
    size_t events = 0;
    size_t tracks = 0;
    size_t planes = 0;
    size_t ops = 0;
    size_t programs = 0;
    size_t programsWithHlo = 0;
    StepStats steps;
    StepAnalysis stepBreakdown; // the steps themselves and where their time goes
    std::vector<OpRow> topCategories; // by time, all of them
    /// Ops below the low-utilization threshold of their roofline with enough time to matter
    /// (countLowUtilizationOps at the default threshold); empty when unknown.
    std::optional<int> lowUtilizationOps;
};

ProfileSummary computeSummary(const Profile& profile);

/// What a profile without TPU op data holds instead, one sentence: "This profile has no TPU op data
/// (no /device:TPU:N plane with an "XLA Ops" line); it holds 8 GPU device planes." The summary and
/// the advice say it in the same words.
std::string noTpuOpDataStatement(const Profile& profile);

/// Warnings a breakdown's headline needs: low cost coverage, over-peak ops, unknown device.
std::vector<std::string> breakdownWarnings(const Profile& profile, const OpBreakdown& breakdown);
/// Everything a reader must know before trusting the numbers of a whole profile, one sentence
/// each: what went wrong reading it (damage, limits hit; Profile::load.warnings), a device choice
/// the file refused, then breakdownWarnings. The window's message bar shows these, as
/// `tpuscope-cli summary` prints them.
std::vector<std::string> profileWarnings(const Profile& profile, const OpBreakdown& breakdown);
/// The same from an op-level breakdown (computeOpBreakdown, no filter) and computeSteps(profile)
/// already at hand, without another pass over the events.
ProfileSummary computeSummary(const Profile& profile, const OpBreakdown& opBreakdown, const StepAnalysis& steps);
/// The steps of computeSteps (the same step definition everywhere) in short.
StepStats computeStepStats(const Profile& profile);
StepStats stepStats(const StepAnalysis& steps);

} // namespace tpuscope::model
