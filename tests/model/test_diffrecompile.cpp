// SPDX-License-Identifier: GPL-3.0-or-later
// The origin story before and after its fix (global batch 128, then the same model recompiled at
// 1024: renumbered instructions, new shapes, new tiles, a moved fusion boundary), compared as
// diff and gate compare them. The properties hold whatever the generator's durations are.
#include "testutil.h"

#include "analysis/diff.h"
#include "analysis/gate.h"
#include "analysis/profileanalysis.h"
#include "loader/loader.h"
#include "synth/synth.h"

#include <set>

using namespace tpuscope::model;

namespace {

ProfilePtr originStory(const std::string& scenario)
{
    SynthOptions options;
    std::string error, bytes;
    EXPECT_TRUE(parseSynthScenario(scenario, options, error)) << error;
    EXPECT_TRUE(syntheticXSpaceBytes(options, bytes, error)) << error;
    LoadResult load = loadProfileFromBytes(std::move(bytes), scenario + ".xplane.pb");
    EXPECT_TRUE(load.ok()) << load.error;
    return load.profile;
}

const ProfileDiff& recompiledDiff()
{
    static const ProfileDiff diff
        = computeDiff(originStory("origin-story"), originStory("origin-story:global_batch=1024"));
    return diff;
}

const DiffRow* rowBefore(const ProfileDiff& d, const std::string& beforeName)
{
    for (const DiffRow& r : d.rows)
        if (r.status != DiffStatus::New && r.a.name == beforeName)
            return &r;
    return nullptr;
}

bool hasReason(const DiffRow& row, DiffReasonKind kind, const std::string& part)
{
    for (const DiffReason& r : row.reasons)
        if (r.kind == kind && r.text.find(part) != std::string::npos)
            return true;
    return false;
}

} // namespace

TEST(DiffRecompile, RenumberedOpsAreMatchedNeverRemovedAndAdded)
{
    const ProfileDiff& d = recompiledDiff();
    ASSERT_GT(d.rows.size(), 5u);
    EXPECT_EQ(d.added, 0u);
    EXPECT_EQ(d.removed, 0u);
    EXPECT_EQ(d.matched, d.rows.size());
    EXPECT_TRUE(d.related());
    std::set<std::string> namesBefore;
    for (const DiffRow& r : d.rows)
        namesBefore.insert(r.a.name);
    size_t renamed = 0, reused = 0;
    for (const DiffRow& r : d.rows) {
        EXPECT_NE(r.matchedBy, MatchedBy::None) << r.name;
        renamed += r.a.name != r.b.name ? 1 : 0;
        // A new name that an op had before belongs to another op now: never a match by name.
        if (namesBefore.count(r.b.name) && r.a.name != r.b.name) {
            ++reused;
            EXPECT_NE(r.matchedBy, MatchedBy::Name) << r.b.name;
        }
    }
    EXPECT_EQ(renamed, d.rows.size()); // every instruction was renumbered
    EXPECT_GT(reused, 0u) << "the renumbering no longer reuses an old name: this test lost its point";
    EXPECT_EQ(d.matchedByName, 0u);
    EXPECT_GT(d.matchedByFingerprint, 0u);
    EXPECT_GT(d.matchedByFrameworkOp, 0u);
}

TEST(DiffRecompile, ThePaddedConvolutionIsMatchedByFingerprintAndExplained)
{
    const ProfileDiff& d = recompiledDiff();
    const DiffRow* conv = rowBefore(d, "fusion.3");
    ASSERT_TRUE(conv);
    EXPECT_EQ(conv->status, DiffStatus::Both);
    EXPECT_EQ(conv->matchedBy, MatchedBy::Fingerprint); // same structure, new sizes and a new name
    EXPECT_NE(conv->b.name, "fusion.3");
    EXPECT_EQ(conv->explanation(), "per-core batch 16 \u2192 128: tile efficiency 12.5% \u2192 100%");
    EXPECT_EQ(conv->reasons.front().kind, DiffReasonKind::Shape);
    EXPECT_TRUE(hasReason(*conv, DiffReasonKind::Utilization, "FLOPS utilization")) << conv->explanation();
    ASSERT_TRUE(conv->a.flopsUtilization && conv->b.flopsUtilization);
    EXPECT_GT(*conv->b.flopsUtilization, 4 * *conv->a.flopsUtilization); // the tiles now hold data
}

TEST(DiffRecompile, AMovedFusionBoundaryAndNewTilesAreSaid)
{
    const ProfileDiff& d = recompiledDiff();
    // The ReLU left the first convolution's fusion for the batch-norm fusion: new fingerprints,
    // so the framework op and source line match them.
    const DiffRow* conv = rowBefore(d, "fusion.7");
    const DiffRow* norm = rowBefore(d, "fusion.12");
    ASSERT_TRUE(conv && norm);
    EXPECT_EQ(conv->matchedBy, MatchedBy::FrameworkOp);
    EXPECT_EQ(norm->matchedBy, MatchedBy::FrameworkOp);
    EXPECT_TRUE(hasReason(*conv, DiffReasonKind::Fusion, "-maximum")) << conv->explanation();
    EXPECT_TRUE(hasReason(*norm, DiffReasonKind::Fusion, "+maximum")) << norm->explanation();
    // The 3-channel input's tile went from 4 to 8 rows.
    const DiffRow* copy = rowBefore(d, "copy.5");
    ASSERT_TRUE(copy);
    EXPECT_TRUE(hasReason(*copy, DiffReasonKind::Layout, "T(4,128)")) << copy->explanation();
    EXPECT_TRUE(hasReason(*copy, DiffReasonKind::Layout, "T(8,128)"));
}

TEST(DiffRecompile, ExamplesPerSecondDecideWhenTheGlobalBatchDiffers)
{
    const ProfileDiff& d = recompiledDiff();
    ASSERT_TRUE(d.a.globalBatch && d.b.globalBatch);
    EXPECT_EQ(*d.a.globalBatch, 128);
    EXPECT_EQ(*d.b.globalBatch, 1024);
    EXPECT_EQ(d.a.perCoreBatch.value_or(0), 16);
    EXPECT_EQ(d.b.perCoreBatch.value_or(0), 128);
    ASSERT_TRUE(d.steps.known);
    EXPECT_TRUE(d.steps.batchDiffers);
    ASSERT_TRUE(d.steps.throughput);
    EXPECT_EQ(&d.steps.deciding(), &*d.steps.throughput);
    EXPECT_TRUE(d.steps.throughput->significant());
    EXPECT_GT(d.steps.throughput->relativeChange, 0); // more examples per second
    EXPECT_FALSE(d.steps.regressed()); // although each step is longer
    EXPECT_GT(d.steps.stepTime.relativeChange, 0);
    // The configurations differ in the global batch only.
    ASSERT_EQ(d.config.size(), 1u);
    EXPECT_EQ(d.config.front().what, "global batch");
    // Figures per step and core: an op's time fits in its step.
    EXPECT_TRUE(d.perStep);
    for (const DiffRow& r : d.rows)
        EXPECT_LT(r.b.timePs, d.b.stepPs) << r.name;
}

TEST(DiffRecompile, TheGateRefusesAConfigChangeUnlessAllowed)
{
    const ProfileDiff& d = recompiledDiff();
    GateBudgets budgets;
    EXPECT_EQ(evaluateGate(d, budgets).exitCode(), 2);
    budgets.allowConfigChange = true;
    budgets.maxHbmPeakRegression = 10; // the larger batch needs more memory: allowed here
    budgets.maxOpRegression = 10;
    const GateVerdict verdict = evaluateGate(d, budgets);
    EXPECT_EQ(verdict.exitCode(), 0);
    ASSERT_FALSE(verdict.checks.empty());
    EXPECT_EQ(verdict.checks.front().kind, GateCheckKind::Throughput);
    EXPECT_LT(verdict.checks.front().worseBy, 0); // better
}

// `tpuscope --compare pod16late pod16` labelled both sides by their run's timestamp and read the
// all-reduce as 23.6 ms "per step" (summed over 64 cores) against a 1.36 ms step.
TEST(DiffPod, FiguresArePerStepAndCoreAndASameChangeIsNoise)
{
    const std::string root = tpuscope::test::tempDir("diff_pod");
    ProfilePtr sides[2];
    for (int i = 0; i < 2; ++i) {
        SynthOptions options;
        std::string error;
        ASSERT_TRUE(
            parseSynthScenario(i == 0 ? "pod:hosts=16,chips=4,late=3:input" : "pod:hosts=16,chips=4", options, error))
            << error;
        const std::string dir = root + (i == 0 ? "/pod16late" : "/pod16");
        ASSERT_TRUE(writeSyntheticLogdir(options, dir, error)) << error;
        LoadResult load = loadProfile(dir);
        ASSERT_TRUE(load.ok()) << load.error;
        sides[i] = load.profile;
    }
    const ProfileDiff d = computeDiff(sides[0], sides[1]);
    ASSERT_TRUE(d.perStep);
    EXPECT_EQ(d.a.cores, 64);
    EXPECT_TRUE(d.config.empty());
    const DiffRow* allReduce = nullptr;
    for (const DiffRow& r : d.rows) {
        EXPECT_LT(r.a.timePs, d.a.stepPs) << r.name; // per step and core: within its step
        EXPECT_LT(r.b.timePs, d.b.stepPs) << r.name;
        if (r.category == "all-reduce")
            allReduce = &r;
    }
    ASSERT_TRUE(allReduce);
    EXPECT_FALSE(allReduce->withinNoise()); // the late host's wait is gone
    // The compute fusions did not change: their tiny differences are noise, and uncoloured.
    size_t noise = 0;
    for (const DiffRow& r : d.rows)
        noise += r.category == "loop fusion" && r.withinNoise() ? 1 : 0;
    EXPECT_GT(noise, 0u);
    const auto [before, after] = comparisonLabels(sides[0]->load.path, sides[1]->load.path);
    EXPECT_NE(before, after);
    EXPECT_EQ(before.rfind("pod16late", 0), 0u) << before;
    EXPECT_EQ(after.rfind("pod16 ", 0), 0u) << after;
}
