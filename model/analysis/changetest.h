// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Whether two sets of per-step figures (step times, one op's time per step, examples per second)
// differ beyond their noise: the Mann–Whitney U test (two-sided, normal approximation with the tie
// correction) and a bootstrap interval of the relative change of the median, from a fixed seed so
// the same inputs always give the same verdict. A change is significant only when both agree:
// p below kChangeTestAlpha and an interval that excludes no change.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tpuscope::model {

/// Each side needs at least this many samples to be tested at all.
constexpr size_t kChangeTestMinSamples = 3;
/// Two-sided significance level of the U test; the bootstrap interval is the matching 95 %.
constexpr double kChangeTestAlpha = 0.05;
/// Bootstrap resamples, fewer for long runs so that one test costs at most about
/// kBootstrapBudget values drawn (never fewer than kMinBootstrapResamples).
constexpr int kBootstrapResamples = 1000;
constexpr int kMinBootstrapResamples = 200;
constexpr double kBootstrapBudget = 4e6;
constexpr uint64_t kBootstrapSeed = 0x7470757363u; // fixed: the same samples give the same interval
/// A leading step longer than this × the median step is warm-up (compilation, first input).
constexpr double kWarmupStepFactor = 1.25;

struct ChangeTest
{
    bool tested = false; // both sides have kChangeTestMinSamples samples
    size_t countA = 0, countB = 0;
    double medianA = 0, medianB = 0;
    /// medianB / medianA − 1 (0 when medianA is 0).
    double relativeChange = 0;
    /// The bootstrap 95 % interval of relativeChange.
    double intervalLow = 0, intervalHigh = 0;
    double pValue = 1; // Mann–Whitney U, two-sided; 1 when untested

    /// Beyond the noise: tested, p < kChangeTestAlpha and the interval excludes 0.
    bool significant() const { return tested && pValue < kChangeTestAlpha && (intervalLow > 0 || intervalHigh < 0); }
    /// "+10.2 % (95 % interval +9.1 % to +11.0 %, p = 0.0001)", or why there is no test.
    std::string describe() const;
};

/// The median of `values` (0 when empty).
double medianOf(std::vector<double> values);

/// How many leading steps are warm-up: those longer than kWarmupStepFactor × the median step,
/// at most half of them.
size_t warmupSteps(const std::vector<double>& stepDurations);

/// The two-sided p-value of the Mann–Whitney U test of a against b (1 when either is empty or
/// every value is the same).
double mannWhitneyP(const std::vector<double>& a, const std::vector<double>& b);

/// Compares b (after) with a (before): medians, U test and the bootstrap interval of the median change.
ChangeTest compareSamples(const std::vector<double>& a, const std::vector<double>& b, uint64_t seed = kBootstrapSeed);

} // namespace tpuscope::model
