// SPDX-License-Identifier: GPL-3.0-or-later
#include "changetest.h"

#include "../core/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace tpuscope::model {

namespace changetest_detail {

/// The same generator on every platform (std distributions are not).
class SplitMix64
{
public:
    explicit SplitMix64(uint64_t seed)
        : m_state(seed)
    {
    }
    uint64_t next()
    {
        uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    size_t below(size_t n) { return static_cast<size_t>(next() % n); }

private:
    uint64_t m_state;
};

double medianInPlace(std::vector<double>& values)
{
    if (values.empty())
        return 0;
    const size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
    const double upper = values[mid];
    if (values.size() % 2)
        return upper;
    return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

double relative(double before, double after)
{
    return before != 0 ? after / before - 1 : 0;
}

/// The 2.5th and 97.5th percentiles of the relative change of the median over `resamples`
/// bootstrap resamples of each side.
std::pair<double, double> bootstrapInterval(
    const std::vector<double>& a, const std::vector<double>& b, int resamples, uint64_t seed)
{
    SplitMix64 rng(seed);
    std::vector<double> changes, ra(a.size()), rb(b.size());
    changes.reserve(static_cast<size_t>(resamples));
    for (int r = 0; r < resamples; ++r) {
        for (double& v : ra)
            v = a[rng.below(a.size())];
        for (double& v : rb)
            v = b[rng.below(b.size())];
        changes.push_back(relative(medianInPlace(ra), medianInPlace(rb)));
    }
    std::sort(changes.begin(), changes.end());
    const auto at = [&](double q) {
        const double position = q * static_cast<double>(changes.size() - 1);
        const size_t low = static_cast<size_t>(std::floor(position));
        const size_t high = std::min(changes.size() - 1, low + 1);
        return changes[low] + (changes[high] - changes[low]) * (position - static_cast<double>(low));
    };
    return {at(0.025), at(0.975)};
}

} // namespace changetest_detail

using namespace changetest_detail;

std::string ChangeTest::describe() const
{
    if (!tested)
        return "not tested (fewer than " + std::to_string(kChangeTestMinSamples) + " steps on a side)";
    char p[32];
    std::snprintf(p, sizeof p, pValue < 0.0001 ? "p < 0.0001" : "p = %.4f", pValue);
    return formatSignedPercent(relativeChange) + " (95% interval " + formatSignedPercent(intervalLow) + " to "
        + formatSignedPercent(intervalHigh) + ", " + p + ")";
}

double medianOf(std::vector<double> values)
{
    return medianInPlace(values);
}

size_t warmupSteps(const std::vector<double>& stepDurations)
{
    const double typical = medianOf(stepDurations);
    size_t warmup = 0;
    while (warmup < stepDurations.size() / 2 && stepDurations[warmup] > kWarmupStepFactor * typical)
        ++warmup;
    return warmup;
}

double mannWhitneyP(const std::vector<double>& a, const std::vector<double>& b)
{
    const size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
    if (n1 == 0 || n2 == 0)
        return 1;
    std::vector<std::pair<double, bool>> all; // value, from a
    all.reserve(n);
    for (double v : a)
        all.emplace_back(v, true);
    for (double v : b)
        all.emplace_back(v, false);
    std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    // Ranks with ties sharing their average rank; Σ(t³ − t) over the tie groups for the variance.
    double rankSumA = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && all[j].first == all[i].first)
            ++j;
        const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
        for (size_t k = i; k < j; ++k)
            rankSumA += all[k].second ? rank : 0;
        const double t = static_cast<double>(j - i);
        ties += t * t * t - t;
        i = j;
    }
    const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2), dn = static_cast<double>(n);
    const double u = rankSumA - dn1 * (dn1 + 1) / 2;
    const double mean = dn1 * dn2 / 2;
    const double variance = dn1 * dn2 / 12 * ((dn + 1) - ties / (dn * (dn - 1)));
    if (variance <= 0)
        return 1;
    const double z = std::max(0.0, std::fabs(u - mean) - 0.5) / std::sqrt(variance); // continuity correction
    return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

ChangeTest compareSamples(const std::vector<double>& a, const std::vector<double>& b, uint64_t seed)
{
    ChangeTest t;
    t.countA = a.size();
    t.countB = b.size();
    t.medianA = medianOf(a);
    t.medianB = medianOf(b);
    t.relativeChange = relative(t.medianA, t.medianB);
    t.intervalLow = t.intervalHigh = t.relativeChange;
    t.tested = a.size() >= kChangeTestMinSamples && b.size() >= kChangeTestMinSamples && t.medianA > 0;
    if (!t.tested)
        return t;
    t.pValue = mannWhitneyP(a, b);
    const double perResample = static_cast<double>(a.size() + b.size());
    const int resamples = static_cast<int>(std::clamp(
        kBootstrapBudget / perResample, static_cast<double>(kMinBootstrapResamples), double(kBootstrapResamples)));
    std::tie(t.intervalLow, t.intervalHigh) = bootstrapInterval(a, b, resamples, seed);
    return t;
}

} // namespace tpuscope::model
