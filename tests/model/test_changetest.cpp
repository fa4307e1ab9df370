// SPDX-License-Identifier: GPL-3.0-or-later
// The noise test behind diff and gate: Mann–Whitney U, the bootstrap interval of the median change,
// the warm-up rule; then the gate on the origin story against itself, slower, and re-run.
#include "testutil.h"

#include "analysis/changetest.h"
#include "analysis/diff.h"
#include "analysis/gate.h"
#include "loader/loader.h"
#include "synth/synth.h"

#include <cmath>

using namespace tpuscope::model;

TEST(ChangeTest, MannWhitneyMatchesTheTextbookNormalApproximation)
{
    // Two separated samples of 5: U = 0, mean 12.5, variance 5·5·11/12, z = (12.5 − 0.5)/√22.917
    // = 2.5067, two-sided p = erfc(z/√2) = 0.01219 (the asymptotic test with continuity correction).
    EXPECT_NEAR(mannWhitneyP({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 0.01219, 5e-5);
    // Interleaved: rank sum 25, U = 10 against a mean of 12.5; z = (2.5 − 0.5)/√22.917 = 0.4178,
    // p = 0.6761: no evidence.
    EXPECT_NEAR(mannWhitneyP({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}), 0.6761, 5e-4);
    // Ties: {1,1,2} against {2,3,3}: ranks 1.5,1.5,3.5 | 3.5,5.5,5.5; U = 6.5 − 6 = 0.5; tie term
    // Σ(t³ − t) = 18; variance 9/12 · (7 − 18/30) = 4.8; z = (4.5 − 0.5 − 0.5)/√4.8 = 1.5975; p = 0.1102.
    EXPECT_NEAR(mannWhitneyP({1, 1, 2}, {2, 3, 3}), 0.1102, 5e-4);
    // Everything equal: no variance, no evidence.
    EXPECT_DOUBLE_EQ(mannWhitneyP({2, 2, 2}, {2, 2, 2}), 1.0);
    EXPECT_DOUBLE_EQ(mannWhitneyP({}, {1, 2}), 1.0);
}

TEST(ChangeTest, TenPercentSlowerIsSignificantAndJitterIsNot)
{
    std::vector<double> a, slower, jitter;
    for (int i = 0; i < 20; ++i) {
        const double wobble = 1 + 0.01 * std::sin(i * 1.7); // ±1 %
        a.push_back(100 * wobble);
        slower.push_back(110 * (1 + 0.01 * std::sin(i * 2.3)));
        jitter.push_back(100 * (1 + 0.01 * std::sin(i * 2.3)));
    }
    const ChangeTest s = compareSamples(a, slower);
    EXPECT_TRUE(s.tested);
    EXPECT_TRUE(s.significant());
    EXPECT_NEAR(s.relativeChange, 0.10, 0.02);
    EXPECT_LT(s.intervalLow, 0.10);
    EXPECT_GT(s.intervalHigh, 0.10);
    EXPECT_GT(s.intervalLow, 0);
    const ChangeTest j = compareSamples(a, jitter);
    EXPECT_FALSE(j.significant()) << j.describe();
    EXPECT_LE(j.intervalLow, 0);
    EXPECT_GE(j.intervalHigh, 0);
    // The same samples give the same interval: the seed is fixed.
    const ChangeTest again = compareSamples(a, slower);
    EXPECT_EQ(again.intervalLow, s.intervalLow);
    EXPECT_EQ(again.intervalHigh, s.intervalHigh);
    // Too few steps: untested, never significant.
    EXPECT_FALSE(compareSamples({1, 2}, {5, 6}).tested);
    EXPECT_FALSE(compareSamples({1, 2}, {5, 6}).significant());
}

TEST(ChangeTest, LeadingLongStepsAreWarmup)
{
    EXPECT_EQ(warmupSteps({500, 300, 100, 101, 99, 100, 102, 98}), 2u);
    EXPECT_EQ(warmupSteps({100, 101, 99, 100}), 0u);
    // A long step later is not warm-up; at most half the steps are.
    EXPECT_EQ(warmupSteps({100, 500, 100, 100}), 0u);
    EXPECT_EQ(warmupSteps({900, 800, 100, 100, 100, 100}), 2u);
    EXPECT_EQ(warmupSteps({}), 0u);
}

namespace {

ProfilePtr synthProfile(const std::string& scenario)
{
    SynthOptions options;
    std::string error, bytes;
    EXPECT_TRUE(parseSynthScenario(scenario, options, error)) << error;
    EXPECT_TRUE(syntheticXSpaceBytes(options, bytes, error)) << error;
    LoadResult load = loadProfileFromBytes(std::move(bytes), scenario + ".xplane.pb");
    EXPECT_TRUE(load.ok()) << load.error;
    return load.profile;
}

} // namespace

TEST(Gate, IdenticalPassesTenPercentSlowerFailsJitterPasses)
{
    const ProfilePtr base = synthProfile("origin-story");
    const GateBudgets budgets; // 5 % step, 5 % HBM peak, 10 % per op

    const GateVerdict same = evaluateGate(computeDiff(base, base), budgets);
    EXPECT_EQ(same.exitCode(), 0);
    EXPECT_EQ(same.regressions(), 0u);

    const ProfileDiff slowerDiff = computeDiff(base, synthProfile("origin-story:slowdown_pct=10"));
    const GateVerdict slower = evaluateGate(slowerDiff, budgets);
    EXPECT_EQ(slower.exitCode(), 1);
    ASSERT_FALSE(slower.checks.empty());
    const GateCheck& step = slower.checks.front();
    EXPECT_EQ(step.kind, GateCheckKind::StepTime);
    EXPECT_TRUE(step.regression());
    EXPECT_GT(step.change, 0.05);
    EXPECT_NE(step.confidence.find("p <"), std::string::npos) << step.confidence;
    EXPECT_TRUE(slowerDiff.steps.regressed());

    // Another run of the same program: other jitter in every op, the same medians within noise.
    const ProfileDiff rerun = computeDiff(base, synthProfile("origin-story:seed=7"));
    const GateVerdict jitter = evaluateGate(rerun, budgets);
    EXPECT_EQ(jitter.exitCode(), 0) << jitter.checks.front().confidence;
    EXPECT_FALSE(jitter.checks.front().regression());
    EXPECT_LT(std::fabs(rerun.steps.stepTime.relativeChange), 0.01);
    for (const DiffRow& r : rerun.rows)
        EXPECT_TRUE(r.withinNoise() || std::fabs(r.timeDeltaPs()) < 0.02 * r.a.timePs) << r.name;
}

TEST(Gate, ADifferentGenerationIsNotGated)
{
    const ProfilePtr demo = synthProfile("origin-story");
    SynthOptions pod;
    std::string error;
    ASSERT_TRUE(parseSynthScenario("pod:hosts=1,chips=8", pod, error)) << error;
    const std::string dir = tpuscope::test::tempDir("gate_generation");
    ASSERT_TRUE(writeSyntheticLogdir(pod, dir, error)) << error;
    LoadResult other = loadProfile(dir);
    ASSERT_TRUE(other.ok()) << other.error;
    const ProfileDiff d = computeDiff(demo, other.profile);
    EXPECT_TRUE(d.differentGeneration());
    bool generation = false;
    for (const ConfigDifference& c : d.config)
        generation |= c.what == "generation" && c.before == "v3" && c.after == "v5e";
    EXPECT_TRUE(generation);
    GateBudgets budgets;
    EXPECT_EQ(evaluateGate(d, budgets).exitCode(), 2);
    budgets.allowConfigChange = true; // unrelated programs are never gated
    EXPECT_EQ(evaluateGate(d, budgets).exitCode(), 2);
}

TEST(ComparisonLabels, LogDirRunsAreNamedByTheirLogDir)
{
    const auto [a, b] = comparisonLabels(
        "/tmp/x/pod16late/plugins/profile/2024_11_29_00_00_00", "/tmp/x/pod16/plugins/profile/2024_11_29_00_00_00");
    EXPECT_EQ(a, "pod16late \u00b7 2024_11_29_00_00_00");
    EXPECT_EQ(b, "pod16 \u00b7 2024_11_29_00_00_00");
    const auto [c, d] = comparisonLabels("/data/run1/trace.xplane.pb", "/data/run2/trace.xplane.pb");
    EXPECT_EQ(c, "run1/trace.xplane.pb");
    EXPECT_EQ(d, "run2/trace.xplane.pb");
    const auto [e, f] = comparisonLabels("/a/demo.xplane.pb", "/b/tpu_v6e.xplane.pb");
    EXPECT_EQ(e, "demo.xplane.pb");
    EXPECT_EQ(f, "tpu_v6e.xplane.pb");
    const auto [g, h] = comparisonLabels("/a/same.xplane.pb", "/a/same.xplane.pb");
    EXPECT_EQ(g, "same.xplane.pb");
    EXPECT_EQ(h, "same.xplane.pb");
}
