// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/opbreakdown.h"
#include "analysis/summary.h"
#include "loader/loader.h"
#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

ProfilePtr loadSynth(const SynthOptions& options)
{
    std::string bytes, error;
    EXPECT_TRUE(syntheticXSpaceBytes(options, bytes, error)) << error;
    LoadResult result = loadProfileFromBytes(bytes, "synth.xplane.pb");
    EXPECT_TRUE(result.ok()) << result.error;
    return result.profile;
}

} // namespace

TEST(Synth, OriginStoryIsDeterministicAndMatchesTheBundledDemo)
{
    SynthOptions options;
    std::string a, b, error;
    ASSERT_TRUE(syntheticXSpaceBytes(options, a, error)) << error;
    ASSERT_TRUE(syntheticXSpaceBytes(options, b, error)) << error;
    EXPECT_EQ(a, b);
    EXPECT_LT(a.size(), 400u * 1024);
    // The bundled file must be what the generator writes today (rebuild: resources/demo_scenario.md).
    const std::string bundled = readFile(std::string(TPUSCOPE_TEST_DATA_DIR) + "/../../resources/demo.xplane.pb");
    EXPECT_TRUE(bundled == a) << "resources/demo.xplane.pb is stale: run tpuscope-cli synth origin-story -o "
                                 "resources/demo.xplane.pb";
    // A different seed changes the jitter, not the structure.
    SynthOptions other = options;
    other.seed = 7;
    std::string c;
    ASSERT_TRUE(syntheticXSpaceBytes(other, c, error));
    EXPECT_NE(a, c);
}

TEST(Synth, OriginStoryLoadsAsTheStoryTellsIt)
{
    ProfilePtr profile = loadSynth({});
    ASSERT_TRUE(profile);
    EXPECT_EQ(profile->device.cores, 8);
    EXPECT_EQ(profile->device.type, "TPU v3");
    EXPECT_DOUBLE_EQ(profile->device.peakTflopsPerCore, 61.5);
    EXPECT_DOUBLE_EQ(profile->device.peakHbmGbpsPerCore, 450);
    EXPECT_EQ(profile->stats.hloDecodeFailures, 0);
    EXPECT_EQ(profile->stats.partialOverlaps, 0);
    ASSERT_EQ(profile->programs.size(), 1u);
    ASSERT_TRUE(profile->programs[0].hlo);
    EXPECT_EQ(profile->programs[0].id, 9512765332485726481ull);

    const StepStats steps = computeStepStats(*profile);
    EXPECT_EQ(steps.count, 20);
    EXPECT_NEAR(steps.averagePs, 1.13e9, 0.02e9);

    const OpBreakdown breakdown = computeOpBreakdown(*profile);
    ASSERT_FALSE(breakdown.rows.empty());
    const OpRow& top = breakdown.rows.front();
    EXPECT_EQ(top.name, "fusion.3");
    EXPECT_EQ(top.category, "output fusion");
    EXPECT_EQ(top.occurrences, 160);
    EXPECT_NEAR(top.timeFraction, 0.58, 0.005);
    // fusion.3 does 140 FLOP per HBM byte, at v3's ridge point (its costs follow from its shapes:
    // test_democosts), so at 58 % of the op time it reaches about 12 % of the peak FLOP rate (the
    // origin story's figure) and 12 % of the HBM bandwidth.
    EXPECT_NEAR(top.flopsUtilization.value_or(-1), 0.123, 0.005);
    EXPECT_NEAR(top.hbmUtilization.value_or(-1), 0.12, 0.005);
    EXPECT_NEAR(top.rooflineEfficiency.value_or(-1), 0.123, 0.005);
    for (const OpRow& row : breakdown.rows) {
        // Every XLA op links to its HLO instruction, and none runs above the device's peaks.
        EXPECT_NE(profile->instructionFor(profile->ops[row.op]), nullptr) << row.name;
        EXPECT_LE(row.flopsUtilizationUncapped.value_or(2), 0.75) << row.name;
        EXPECT_LE(row.hbmUtilizationUncapped.value_or(2), 0.85) << row.name;
    }
}

TEST(Synth, BenchScenarioWritesTheRequestedEventCount)
{
    SynthOptions options;
    std::string error;
    ASSERT_TRUE(parseSynthScenario("bench:1001", options, error)) << error;
    EXPECT_EQ(options.benchEvents, 1001);
    const std::string path = tempDir("synth") + "/bench.xplane.pb";
    ASSERT_TRUE(writeSyntheticXSpace(options, path, error)) << error;
    LoadResult result = loadProfile(path);
    ASSERT_TRUE(result.ok()) << result.error;
    size_t xlaOps = 0;
    for (const Track& t : result.profile->tracks)
        if (t.kind == TrackKind::XlaOps)
            xlaOps += t.size();
    EXPECT_EQ(xlaOps, 1001u);
    EXPECT_EQ(result.profile->device.cores, 8);
}

TEST(Synth, BadScenariosGiveClearErrors)
{
    SynthOptions options;
    std::string error;
    EXPECT_FALSE(parseSynthScenario("bench:", options, error));
    EXPECT_NE(error.find("bench:N"), std::string::npos);
    EXPECT_FALSE(parseSynthScenario("bench:-5", options, error));
    EXPECT_FALSE(parseSynthScenario("bench:9999999999999", options, error));
    EXPECT_FALSE(parseSynthScenario("unet", options, error));
    EXPECT_NE(error.find("origin-story"), std::string::npos);
    ASSERT_TRUE(parseSynthScenario("bench:10M", options, error));
    EXPECT_EQ(options.benchEvents, 10000000);
    SynthOptions ok;
    EXPECT_FALSE(writeSyntheticXSpace(ok, "/nonexistent-dir/x.pb", error));
    EXPECT_NE(error.find("cannot write"), std::string::npos);
}
