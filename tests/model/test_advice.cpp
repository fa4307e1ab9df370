// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/advice.h"
#include "analysis/layout.h"
#include "analysistestutil.h"
#include "core/jsondom.h"
#include "loader/loader.h"
#include "report/advicereport.h"
#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

constexpr double kPeakTflops = 100;
constexpr double kPeakHbmGbps = 1000;
constexpr double kStepPs = 1e9; // 1 ms of ops per step

struct OpDef
{
    std::string name;
    std::string category;
    double share = 0; // of the ops in one step
    double flopsUtilization = 0;
    double hbmUtilization = 0;
    std::string shapeWithLayout {};
    int64_t convBatch = 0; // > 0: the op is a convolution f32[B,8,8,C]{0,3,2,1:T(8,128)} in an HLO program
    int64_t convFeature = 128;
};

/// A profile with `cores` TPU cores, `steps` module runs each, ops run back to back, and
/// `idleFraction` of each step idle before the next module run.
ProfilePtr buildProfile(const std::vector<OpDef>& ops, int cores = 2, int steps = 10, double idleFraction = 0)
{
    ProfileBuilder builder;
    constexpr uint64_t kProgram = 77;
    auto module = std::make_shared<hlo::Module>();
    module->name = "jit_step";
    hlo::Computation entry;
    entry.id = 1;
    entry.name = "main";
    int64_t nextId = 1;
    for (const OpDef& def : ops) {
        if (def.convBatch <= 0)
            continue;
        hlo::Instruction conv;
        conv.id = nextId++;
        conv.name = def.name;
        conv.opcode = "convolution";
        const std::string shape = "f32[" + std::to_string(def.convBatch) + ",8,8," + std::to_string(def.convFeature)
            + "]{0,3,2,1:T(8,128)}";
        conv.shape = layout::parseShape(shape).shape;
        conv.hasConvolutionDimensions = true;
        conv.convolution.inputBatch = 0;
        conv.convolution.inputFeature = 3;
        conv.convolution.inputSpatial = {1, 2};
        conv.convolution.kernelInputFeature = 2;
        conv.convolution.kernelOutputFeature = 3;
        conv.convolution.kernelSpatial = {0, 1};
        conv.convolution.outputBatch = 0;
        conv.convolution.outputFeature = 3;
        conv.convolution.outputSpatial = {1, 2};
        entry.instructions.push_back(conv);
    }
    const bool withHlo = !entry.instructions.empty();
    if (withHlo) {
        entry.rootId = entry.instructions.back().id;
        module->entryComputationId = 1;
        module->computations.push_back(entry);
        module->buildIndex();
        builder.addProgram(kProgram, "jit_step", module);
    }
    std::vector<OpId> ids;
    for (const OpDef& def : ops) {
        OpInfo info;
        info.name = builder.intern(def.name);
        info.category = builder.intern(def.category);
        info.shapeWithLayout = builder.intern(def.shapeWithLayout);
        info.isXlaOp = true;
        const double seconds = kStepPs * def.share * 1e-12;
        info.flops = def.flopsUtilization * kPeakTflops * 1e12 * seconds;
        info.hbmBytes = def.hbmUtilization * kPeakHbmGbps * 1e9 * seconds;
        info.bytesAccessed = info.hbmBytes;
        if (withHlo && def.convBatch > 0) {
            info.programId = kProgram;
            info.hasProgramId = true;
        }
        ids.push_back(builder.addOp(info));
    }
    OpInfo moduleOp;
    moduleOp.name = builder.intern("jit_step(77)");
    const OpId moduleId = builder.addOp(moduleOp);
    for (int c = 0; c < cores; ++c) {
        const PlaneId plane = builder.addPlane("/device:TPU:" + std::to_string(c));
        builder.profile().planes[plane].peakTflops = kPeakTflops;
        builder.profile().planes[plane].peakHbmGbps = kPeakHbmGbps;
        builder.profile().planes[plane].deviceType = "TPU test";
        const TrackId modules = builder.addTrack(plane, "XLA Modules", TrackKind::XlaModules);
        const TrackId xlaOps = builder.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
        TimePs t = 0;
        for (int s = 0; s < steps; ++s) {
            const TimePs start = t;
            for (size_t i = 0; i < ops.size(); ++i) {
                const TimePs d = static_cast<TimePs>(kStepPs * ops[i].share);
                builder.addEvent(xlaOps, t, d, ids[i]);
                t += d;
            }
            builder.addEvent(modules, start, t - start, moduleId);
            t += static_cast<TimePs>(kStepPs * idleFraction / (1 - idleFraction));
        }
    }
    return builder.finish();
}

const std::vector<OpDef> kFiller = {{"fusion.filler", "loop fusion", 0.0, 0.6, 0.3}};

std::vector<OpDef> withFiller(std::vector<OpDef> ops)
{
    double used = 0;
    for (const OpDef& o : ops)
        used += o.share;
    OpDef filler = kFiller[0];
    filler.share = 1 - used;
    if (filler.share > 0)
        ops.push_back(filler);
    return ops;
}

} // namespace

TEST(Advice, ThresholdsAreListedWithSources)
{
    const auto& list = adviceThresholds();
    EXPECT_GE(list.size(), 10u);
    std::set<std::string> rules;
    for (const AdviceThreshold& t : list) {
        EXPECT_TRUE(t.source && *t.source) << t.name;
        rules.insert(t.rule);
    }
    for (const char* rule : {"per-core-batch", "padding", "low-utilization-fusion", "hbm-bound", "data-formatting",
             "collectives", "input-bound", "capture-coverage"})
        EXPECT_TRUE(rules.count(rule)) << rule;
}

TEST(Advice, PerCoreBatchFiresForAPaddedBatchOnly)
{
    // 16 per core in the 128-wide tile on 4 cores -> suggest 128 per core = 512 global.
    ProfilePtr small = buildProfile(withFiller({{"conv.1", "convolution", 0.6, 0.4, 0.1, "", 16, 128}}), 4);
    AdviceReport report = computeAdvice(*small);
    const Advice* a = findAdvice(report, "per-core-batch");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->severity, Severity::Critical);
    EXPECT_EQ(adviceNumber(*a, "cores"), 4);
    EXPECT_EQ(adviceNumber(*a, "per_core_batch"), 16);
    EXPECT_EQ(adviceNumber(*a, "global_batch"), 64);
    EXPECT_EQ(adviceNumber(*a, "suggested_global_batch"), 512);
    EXPECT_EQ(a->opNames, std::vector<std::string> {"conv.1"});
    // A batch fix is a throughput estimate (issue 41), never time per step.
    EXPECT_EQ(a->gainPs, 0);
    EXPECT_GT(a->throughputFactor, 1);
    // Feature 128 fills its 8-wide tile: no padding advice for this op.
    EXPECT_FALSE(findAdvice(report, "padding"));

    ProfilePtr exact = buildProfile(withFiller({{"conv.1", "convolution", 0.6, 0.4, 0.1, "", 128, 128}}), 4);
    AdviceReport ok = computeAdvice(*exact);
    EXPECT_TRUE(ok.batch.known);
    EXPECT_EQ(ok.batch.perCoreBatch, 128);
    EXPECT_FALSE(findAdvice(ok, "per-core-batch"));

    // A padded batch in ops with too little time does not fire.
    ProfilePtr minor = buildProfile(withFiller({{"conv.1", "convolution", 0.02, 0.4, 0.1, "", 16, 128}}), 4);
    EXPECT_FALSE(findAdvice(computeAdvice(*minor), "per-core-batch"));
}

// Issue 22, point 10: when a fusion's tiles are mostly padding, the padding advice fires even where
// the per-core-batch rule fires for the same op, and names the non-batch dimension and its fix.
TEST(Advice, PaddingFiresNextToPerCoreBatchForPaddedChannels)
{
    // Batch 16 in the 128-wide minor tile and 5 channels in the 8-wide tile: 16·5 of 128·8 used.
    ProfilePtr profile = buildProfile(withFiller({{"conv.1", "convolution fusion", 0.6, 0.1, 0.05, "", 16, 5}}), 4);
    const AdviceReport report = computeAdvice(*profile);
    const Advice* batch = findAdvice(report, "per-core-batch");
    const Advice* padding = findAdvice(report, "padding");
    ASSERT_TRUE(batch);
    ASSERT_TRUE(padding);
    EXPECT_EQ(padding->opNames, std::vector<std::string> {"conv.1"});
    EXPECT_NEAR(adviceNumber(*padding, "non_batch_efficiency"), 5.0 / 8, 1e-12);
    EXPECT_NE(padding->detail.find("feature dimension 5 is padded to 8 (tile 8)"), std::string::npos)
        << padding->detail;
    EXPECT_NE(padding->detail.find("The batch dimension is padded too (see per-core-batch)"), std::string::npos);
    // Its gain is what the channels waste, at most the op's time beyond its useful work; the batch
    // fix is a throughput estimate, not time, so the two gains do not overlap.
    EXPECT_GT(padding->gainPs, 0);
    EXPECT_EQ(std::find(padding->overlapsWith.begin(), padding->overlapsWith.end(), "per-core-batch"),
        padding->overlapsWith.end());
    // Channels that fill their tile leave the per-core-batch item alone.
    ProfilePtr filled = buildProfile(withFiller({{"conv.1", "convolution fusion", 0.6, 0.1, 0.05, "", 16, 8}}), 4);
    const AdviceReport only = computeAdvice(*filled);
    EXPECT_TRUE(findAdvice(only, "per-core-batch"));
    EXPECT_FALSE(findAdvice(only, "padding"));
}

TEST(Advice, PaddingFiresForPaddedFeatureDims)
{
    // 2.6 M rows of 3 features, padded to 8: 84 MB of tiles, 84 µs at the 1000 GB/s peak of a 300 µs op.
    ProfilePtr padded
        = buildProfile(withFiller({{"fusion.1", "loop fusion", 0.3, 0.4, 0.3, "f32[2621440,3]{0,1:T(8,128)}"}}));
    const AdviceReport report = computeAdvice(*padded);
    const Advice* a = findAdvice(report, "padding");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->severity, Severity::Warning);
    EXPECT_DOUBLE_EQ(adviceNumber(*a, "padding_efficiency"), 3.0 / 8);
    const AdviceValue* dims = a->numbers.find("dimensions");
    ASSERT_TRUE(dims);
    ASSERT_EQ(dims->items.size(), 2u);
    EXPECT_EQ(dims->items[0].find("size")->number, 2621440);
    EXPECT_EQ(dims->items[1].find("size")->number, 3);
    EXPECT_EQ(dims->items[1].find("padded")->number, 8);
    EXPECT_EQ(dims->items[1].find("tile")->number, 8);
    EXPECT_FALSE(a->fix.action.empty());
    // The padded feature dim wastes 5/8 of the tiles, but the op's useful work at the peak (its
    // FLOPS utilization, 40 %) still takes its time: the gain is the smaller of the two.
    EXPECT_NEAR(adviceNumber(*a, "non_batch_efficiency"), 3.0 / 8, 1e-12);
    double utilization = -1;
    for (const OpRow& row : computeOpBreakdown(*padded).rows)
        if (row.name == "fusion.1")
            utilization = row.flopsUtilization.value();
    EXPECT_NEAR(a->gainPs, 0.3 * kStepPs * std::min(1 - 3.0 / 8, 1 - utilization), 1e3);
    // A dimension of size 1 (a 1-channel output) cannot be made a multiple of its tile: no item.
    ProfilePtr oneChannel
        = buildProfile(withFiller({{"fusion.1", "loop fusion", 0.3, 0.4, 0.3, "f32[2621440,1]{0,1:T(8,128)}"}}));
    EXPECT_FALSE(findAdvice(computeAdvice(*oneChannel), "padding"));
    // A small array: moving all its tiles at the peak takes 16 ns of a 300 µs op, so padding is not
    // what the op's time goes to.
    ProfilePtr small
        = buildProfile(withFiller({{"fusion.1", "loop fusion", 0.3, 0.4, 0.3, "f32[512,3]{0,1:T(8,128)}"}}));
    EXPECT_FALSE(findAdvice(computeAdvice(*small), "padding"));
    EXPECT_LE(a->gainPs, 0.3 * kStepPs * (1 - utilization) + 1e3);

    ProfilePtr fine
        = buildProfile(withFiller({{"fusion.1", "loop fusion", 0.3, 0.4, 0.3, "f32[512,1024]{1,0:T(8,128)}"}}));
    EXPECT_FALSE(findAdvice(computeAdvice(*fine), "padding"));
    // Padded, but the op is below 1 % of the time.
    ProfilePtr tiny
        = buildProfile(withFiller({{"fusion.1", "loop fusion", 0.005, 0.4, 0.3, "f32[2621440,3]{0,1:T(8,128)}"}}));
    EXPECT_FALSE(findAdvice(computeAdvice(*tiny), "padding"));
}

TEST(Advice, LowUtilizationFusion)
{
    ProfilePtr low = buildProfile(withFiller({{"fusion.5", "output fusion", 0.6, 0.1, 0.1}}));
    const AdviceReport report = computeAdvice(*low);
    const Advice* a = findAdvice(report, "low-utilization-fusion");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->severity, Severity::Critical);
    EXPECT_EQ(a->opNames.front(), "fusion.5");
    EXPECT_NEAR(adviceNumber(*a, "flops_utilization"), 0.1, 1e-6);
    // Reaching 50 % would save 0.6 ms × (1 − 0.1/0.5) per step.
    EXPECT_NEAR(a->gainPs, 0.6 * kStepPs * 0.8, 1e4);

    EXPECT_FALSE(findAdvice(computeAdvice(*buildProfile(withFiller({{"fusion.5", "output fusion", 0.6, 0.4, 0.1}}))),
        "low-utilization-fusion"));
    // Not a fusion.
    EXPECT_FALSE(findAdvice(computeAdvice(*buildProfile(withFiller({{"convolution.5", "convolution", 0.6, 0.1, 0.1}}))),
        "low-utilization-fusion"));
    // Bandwidth-bound fusions belong to hbm-bound.
    EXPECT_FALSE(findAdvice(computeAdvice(*buildProfile(withFiller({{"fusion.5", "loop fusion", 0.6, 0.1, 0.9}}))),
        "low-utilization-fusion"));
}

TEST(Advice, HbmBound)
{
    const Advice* a = nullptr;
    AdviceReport r = computeAdvice(*buildProfile(withFiller({{"fusion.8", "loop fusion", 0.2, 0.05, 0.9}})));
    a = findAdvice(r, "hbm-bound");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->opNames.front(), "fusion.8");
    EXPECT_FALSE(findAdvice(
        computeAdvice(*buildProfile(withFiller({{"fusion.8", "loop fusion", 0.2, 0.05, 0.6}}))), "hbm-bound"));
    EXPECT_FALSE(findAdvice(
        computeAdvice(*buildProfile(withFiller({{"fusion.8", "loop fusion", 0.2, 0.6, 0.9}}))), "hbm-bound"));
}

TEST(Advice, DataFormatting)
{
    AdviceReport r = computeAdvice(*buildProfile(withFiller({{"copy.1", "data formatting", 0.35, 0, 0.4}})));
    const Advice* a = findAdvice(r, "data-formatting");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->severity, Severity::Warning);
    EXPECT_NEAR(adviceNumber(*a, "time_fraction"), 0.35, 1e-3);
    AdviceReport info = computeAdvice(*buildProfile(withFiller({{"transpose.1", "transpose", 0.12, 0, 0.4}})));
    ASSERT_TRUE(findAdvice(info, "data-formatting"));
    EXPECT_EQ(findAdvice(info, "data-formatting")->severity, Severity::Info);
    EXPECT_FALSE(findAdvice(
        computeAdvice(*buildProfile(withFiller({{"copy.1", "data formatting", 0.05, 0, 0.4}}))), "data-formatting"));
}

TEST(Advice, HostOffloadCopiesAreNamed)
{
    AdviceReport r = computeAdvice(
        *buildProfile(withFiller({{"copy-done.1", "copy-done", 0.5, 0, 0.01, "f32[1024,1024]{1,0:T(8,128)S(5)}"}})));
    // Host copies are host-offload's; without copy-start/copy-done pairs on a timeline that rule cannot
    // run, and data-formatting no longer claims their whole time: a note names them instead.
    EXPECT_FALSE(findAdvice(r, "data-formatting"));
    EXPECT_FALSE(findAdvice(r, "host-offload"));
    bool noted = false;
    for (const std::string& n : r.notes)
        noted |= n.find("host memory (S(5))") != std::string::npos && n.find("50.0%") != std::string::npos;
    EXPECT_TRUE(noted);
}

TEST(Advice, Collectives)
{
    const Advice* a = nullptr;
    AdviceReport r = computeAdvice(*buildProfile(withFiller({{"all-reduce.1", "all-reduce", 0.1, 0, 0.2}})));
    a = findAdvice(r, "collectives");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->severity, Severity::Info);
    AdviceReport w = computeAdvice(*buildProfile(withFiller({{"all-gather.1", "all-gather", 0.4, 0, 0.2}})));
    ASSERT_TRUE(findAdvice(w, "collectives"));
    EXPECT_EQ(findAdvice(w, "collectives")->severity, Severity::Warning);
    EXPECT_FALSE(findAdvice(
        computeAdvice(*buildProfile(withFiller({{"all-reduce.1", "all-reduce", 0.03, 0, 0.2}}))), "collectives"));
}

TEST(Advice, InputBound)
{
    AdviceReport r = computeAdvice(*buildProfile(withFiller({}), 2, 10, 0.25));
    const Advice* a = findAdvice(r, "input-bound");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->severity, Severity::Critical);
    // 9 waits of 1/3 ms in 10 steps (start to next start; the last one is its 1 ms run): 3/(10+3).
    EXPECT_NEAR(adviceNumber(*a, "idle_fraction"), 3.0 / 13.0, 1e-9);
    EXPECT_NEAR(a->gainPs, 3e9 / 10, 1);
    EXPECT_FALSE(findAdvice(computeAdvice(*buildProfile(withFiller({}), 2, 10, 0.05)), "input-bound"));
}

TEST(Advice, NoTpuOpsGivesANoteNotACrash)
{
    ProfileBuilder builder;
    builder.addPlane("/host:CPU");
    ProfilePtr empty = builder.finish();
    const AdviceReport r = computeAdvice(*empty);
    EXPECT_TRUE(r.advice.empty());
    ASSERT_FALSE(r.notes.empty());
    EXPECT_NE(adviceReport(*empty, r, AdviceFormat::Json).find("\"advice\": []"), std::string::npos);
}

TEST(Advice, DemoNamesTheFix)
{
    std::string bytes, error;
    ASSERT_TRUE(syntheticXSpaceBytes({}, bytes, error)) << error;
    LoadResult loaded = loadProfileFromBytes(bytes, "demo.xplane.pb");
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const AdviceReport report = computeAdvice(*loaded.profile);
    ASSERT_FALSE(report.advice.empty());
    const Advice& first = report.advice.front();
    EXPECT_EQ(first.rule, "per-core-batch");
    EXPECT_EQ(adviceNumber(first, "cores"), 8);
    EXPECT_EQ(adviceNumber(first, "per_core_batch"), 16);
    EXPECT_EQ(adviceNumber(first, "global_batch"), 128);
    EXPECT_EQ(adviceNumber(first, "suggested_global_batch"), 1024);
    EXPECT_NE(first.title.find("1024"), std::string::npos);
    // fusion.3's output is padded in its batch (per-core-batch's) and in its 1 channel, which no fix
    // changes (issue 41): no padding item for it.
    if (const Advice* padding = findAdvice(report, "padding")) {
        EXPECT_NE(padding->opNames.front(), "fusion.3");
    }
    const Advice* fusion = findAdvice(report, "low-utilization-fusion");
    ASSERT_TRUE(fusion);
    EXPECT_EQ(fusion->opNames.front(), "fusion.3");
    EXPECT_FALSE(findAdvice(report, "input-bound"));
    EXPECT_FALSE(findAdvice(report, "capture-coverage"));
    EXPECT_FALSE(findAdvice(report, "collectives"));
    EXPECT_FALSE(findAdvice(report, "data-formatting"));

    EXPECT_TRUE(matchesSnapshot("demo_advice.json", adviceReport(*loaded.profile, report, AdviceFormat::Json)));
}
