// SPDX-License-Identifier: GPL-3.0-or-later
// The diagnoses of issue 13 on the real profiles that motivated them, and where they must stay silent:
// strided-update, collectives counted completely, host-offload critical path.
#include "analysis/advice.h"
#include "analysistestutil.h"
#include "loader/loader.h"
#include "report/advicereport.h"
#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

constexpr const char* kV5 = "tpu_v5_training.op_profile.json.gz";
constexpr const char* kV6e = "tpu_v6e_inference.xplane.pb";
constexpr const char* kVllm = "tpu_vllm_serving.trace.json.gz";

ProfilePtr loadSample(const char* name)
{
    LoadResult loaded = loadProfile(samplePath(name));
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.profile;
}

/// One TPU core with peaks 100 TFLOP/s and 1000 GB/s running the given (HLO text, time, HBM bytes)
/// ops back to back once.
struct TextOp
{
    std::string hlo;
    std::string category;
    TimePs time;
    double hbmBytes;
};

ProfilePtr textProfile(const std::vector<TextOp>& ops)
{
    ProfileBuilder b;
    const PlaneId plane = b.addPlane("/device:TPU:0");
    b.profile().planes[plane].peakTflops = 100;
    b.profile().planes[plane].peakHbmGbps = 1000;
    const TrackId track = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    TimePs t = 0;
    for (const TextOp& o : ops) {
        OpInfo info;
        info.name = b.intern(o.hlo.substr(1, o.hlo.find(' ') - 1));
        info.longName = b.intern(o.hlo);
        info.category = b.intern(o.category);
        info.hbmBytes = o.hbmBytes;
        info.bytesAccessed = o.hbmBytes;
        info.isXlaOp = true;
        const OpId id = b.addOp(info);
        b.addEvent(track, t, o.time, id);
        t += o.time;
    }
    return b.finish();
}

} // namespace

// ---------------------------------------------------------------------------------------------
// strided-update

TEST(StridedUpdate, V5StackedLayerUpdatesAreFound)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV5);
    const AdviceReport report = computeAdvice(*loadSample(kV5));
    const Advice* a = findAdvice(report, "strided-update");
    ASSERT_TRUE(a);
    std::vector<std::string> names = a->opNames;
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names,
        (std::vector<std::string> {"dynamic-update-slice.31", "dynamic-update-slice.32", "dynamic-update-slice.33"}));
    EXPECT_NEAR(adviceNumber(*a, "time_fraction"), 0.142, 0.003); // the file's own rawTime shares: 4.52+4.52+5.12 %
    EXPECT_DOUBLE_EQ(adviceNumber(*a, "update_tile_fill"), 1.0 / 8.0);
    EXPECT_EQ(adviceNumber(*a, "tile_extent"), 8);
    EXPECT_EQ(adviceNumber(*a, "stacked_dim"), 0);
    // xprof's own bandwidthUtils for these ops are 2.7-3.1 %.
    EXPECT_GT(adviceNumber(*a, "hbm_fraction"), 0.027);
    EXPECT_LT(adviceNumber(*a, "hbm_fraction"), 0.031);
    EXPECT_NE(a->detail.find("sublane"), std::string::npos);
    EXPECT_NE(a->detail.find("major axis"), std::string::npos);
    EXPECT_NE(a->detail.find("axes_scan.py:166"), std::string::npos);
    EXPECT_GT(a->gainPs, 0);
}

TEST(StridedUpdate, SilentOnProfilesWithoutStridedUpdates)
{
    EXPECT_FALSE(findAdvice(computeAdvice(*demoProfile()), "strided-update"));
    if (haveSample(kV6e)) {
        EXPECT_FALSE(findAdvice(computeAdvice(*loadSample(kV6e)), "strided-update"));
    }
    if (haveSample(kVllm)) {
        EXPECT_FALSE(findAdvice(computeAdvice(*loadSample(kVllm)), "strided-update"));
    }
}

TEST(StridedUpdate, EdgesFullTileSlicesFastWritesAndSmallOps)
{
    const std::string thin = "%dynamic-update-slice.1 = f32[16,512,1024]{2,0,1:T(8,128)} dynamic-update-slice("
                             "f32[16,512,1024]{2,0,1:T(8,128)} %p, f32[1,512,1024]{2,0,1:T(1,128)} %u, s32[] %i, "
                             "s32[] %z, s32[] %z)";
    const std::string full = "%dynamic-update-slice.2 = f32[16,512,1024]{2,0,1:T(8,128)} dynamic-update-slice("
                             "f32[16,512,1024]{2,0,1:T(8,128)} %p, f32[8,512,1024]{2,0,1:T(8,128)} %u, s32[] %i, "
                             "s32[] %z, s32[] %z)";
    // 1 ms at 20 GB/s (2 % of the 1000 GB/s peak) and 60 % of op time: fires.
    {
        const AdviceReport r = computeAdvice(*textProfile({{thin, "dynamic-update-slice", 1'000'000'000, 2e7},
            {"%fusion.1 = f32[8]{0} fusion()", "loop fusion", 666'666'667, 1e8}}));
        const Advice* a = findAdvice(r, "strided-update");
        ASSERT_TRUE(a);
        EXPECT_NEAR(adviceNumber(*a, "attained_gbps"), 20, 1e-6);
        // achievable = 20 / (1/8) = 160 GB/s: gain = time x (1 - 1/8).
        EXPECT_NEAR(a->gainPs, 1e9 * 7 / 8, 1e3);
    }
    // The slice fills whole tiles in the stacked dim: silent.
    EXPECT_FALSE(findAdvice(
        computeAdvice(*textProfile({{full, "dynamic-update-slice", 1'000'000'000, 2e7}})), "strided-update"));
    // Strided but at 20 % of the peak: silent.
    EXPECT_FALSE(findAdvice(
        computeAdvice(*textProfile({{thin, "dynamic-update-slice", 1'000'000'000, 2e8}})), "strided-update"));
    // Strided and slow but only 2 % of op time: silent.
    EXPECT_FALSE(findAdvice(computeAdvice(*textProfile({{thin, "dynamic-update-slice", 20'000'000, 4e5},
                                {"%fusion.1 = f32[8]{0} fusion()", "loop fusion", 980'000'000, 1e8}})),
        "strided-update"));
}

// ---------------------------------------------------------------------------------------------
// collectives

TEST(Collectives, V5CountsAsyncCollectiveFusionsAndReduceScatters)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV5);
    const AdviceReport report = computeAdvice(*loadSample(kV5));
    const Advice* a = findAdvice(report, "collectives");
    ASSERT_TRUE(a);
    // xprof's own category totals: custom fusion (async-collective-*) 14.5 %, all-reduce-scatter fusion
    // 9.1 %, all-gather 2.7 %, all-to-all 0.1 %, all-reduce 0.1 %.
    EXPECT_GE(adviceNumber(*a, "time_fraction"), 0.24);
    EXPECT_LT(adviceNumber(*a, "time_fraction"), 0.28);
    const AdviceValue* kinds = a->numbers.find("by_kind");
    ASSERT_TRUE(kinds);
    ASSERT_TRUE(kinds->find("async collective"));
    EXPECT_NEAR(kinds->find("async collective")->number, 0.145, 0.005);
    EXPECT_NEAR(kinds->find("reduce-scatter")->number, 0.091, 0.005);
    EXPECT_EQ(adviceNumber(*a, "backward_pass"), 1);
    // Per core: op_profile sums over the 4 devices its replica groups span; no steps are recorded.
    EXPECT_EQ(adviceNumber(*a, "cores"), 4);
    EXPECT_NEAR(a->gainPs, 0.2654 * 3.9076e12 / 4, 0.01 * 3.9076e12 / 4);
    EXPECT_NE(a->gain.find("no steps"), std::string::npos);
    // The reduce-scatters run in bf16: bf16 advice names only the f32 ones (the f32 logits gradient).
    EXPECT_LT(adviceNumber(*a, "f32_time_fraction"), 0.03);
    EXPECT_NE(a->detail.find("fusion.24"), std::string::npos);
}

// One core count for a file everywhere: the op_profile has one plane holding the 4 devices' sum,
// the file records no count, and every report says so and divides by the same 4.
TEST(Collectives, V5HeaderCountsTheCoresThePerCoreNumbersUse)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV5);
    const ProfilePtr profile = loadSample(kV5);
    const AdviceReport report = computeAdvice(*profile);
    EXPECT_EQ(profile->device.cores, 4);
    EXPECT_EQ(profile->device.coresSource, CoreCountSource::ReplicaGroups);
    EXPECT_EQ(report.cores, 4);
    EXPECT_EQ(computeOpBreakdown(*profile).coresRepresented, 4);
    const std::string text = adviceReport(*profile, report, AdviceFormat::Text);
    EXPECT_EQ(text.rfind("Advice: TPU, 4 TPU cores (not recorded; at least 4 from the replica groups)\n", 0), 0u)
        << text;
    EXPECT_NE(text.find("cores not recorded; at least 4 from the replica groups"), std::string::npos) << text;

    // Without replica groups the count is an assumption, and says so.
    const ProfilePtr one = loadSample("demo_synthetic.op_profile.json");
    const std::string oneText = adviceReport(*one, computeAdvice(*one), AdviceFormat::Text);
    EXPECT_EQ(oneText.rfind("Advice: unknown TPU, 1 TPU core (not recorded; assumed)\n", 0), 0u) << oneText;
    // A profile whose planes are its cores keeps its own count, in the singular for one.
    const ProfilePtr demo = loadSample(kV6e);
    EXPECT_EQ(demo->device.coresSource, CoreCountSource::Planes);
    const std::string demoText = adviceReport(*demo, computeAdvice(*demo), AdviceFormat::Text);
    EXPECT_EQ(demoText.rfind("Advice: TPU v6 Lite, 4 TPU cores,", 0), 0u) << demoText;
}

TEST(Collectives, InferenceGetsNoGradientAdvice)
{
    // 20 % all-reduce in f32 and bf16 with no backward pass: no gradient wording.
    const std::string f32 = "%all-reduce.1 = f32[1024,1024]{1,0:T(8,128)} all-reduce(f32[1024,1024]{1,0:T(8,128)} %x), "
                            "replica_groups={{0,1}}, to_apply=%add";
    const std::string bf16 = "%all-reduce.2 = bf16[1024,1024]{1,0:T(8,128)(2,1)} all-reduce(bf16[1024,1024]{1,0:"
                             "T(8,128)(2,1)} %x), replica_groups={{0,1}}, to_apply=%add";
    const std::string compute = "%fusion.1 = bf16[8]{0} fusion()";
    {
        const AdviceReport r
            = computeAdvice(*textProfile({{bf16, "all-reduce", 200, 0}, {compute, "convolution fusion", 800, 0}}));
        const Advice* a = findAdvice(r, "collectives");
        ASSERT_TRUE(a);
        EXPECT_EQ(adviceNumber(*a, "backward_pass"), 0);
        EXPECT_EQ(a->detail.find("gradient"), std::string::npos) << a->detail;
        EXPECT_EQ(a->detail.find("bf16"), std::string::npos) << a->detail;
    }
    {
        const AdviceReport r
            = computeAdvice(*textProfile({{f32, "all-reduce", 200, 0}, {compute, "convolution fusion", 800, 0}}));
        const Advice* a = findAdvice(r, "collectives");
        ASSERT_TRUE(a);
        EXPECT_EQ(a->detail.find("gradient"), std::string::npos) << a->detail;
        EXPECT_NE(a->detail.find("all-reduce.1"), std::string::npos);
        EXPECT_NE(a->detail.find("bf16 would halve"), std::string::npos);
    }
    if (haveSample(kVllm))
        for (const Advice& a : computeAdvice(*loadSample(kVllm)).advice) {
            EXPECT_EQ(a.detail.find("gradient"), std::string::npos) << a.rule;
        }
    if (haveSample(kV6e))
        for (const Advice& a : computeAdvice(*loadSample(kV6e)).advice) {
            EXPECT_EQ(a.detail.find("gradient"), std::string::npos) << a.rule;
        }
}

// ---------------------------------------------------------------------------------------------
// host-offload

TEST(HostOffload, V6eGainIsBoundedByComputeAndTheNumbersAreTheLinks)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    const AdviceReport report = computeAdvice(*loadSample(kV6e));
    const Advice* a = findAdvice(report, "host-offload");
    ASSERT_TRUE(a);
    const double step = adviceNumber(*a, "step_ps"), compute = adviceNumber(*a, "compute_ps_per_step");
    EXPECT_NEAR(step, 784e9, 5e9); // the jit_f runs
    EXPECT_NEAR(compute, 24e9, 2e9); // three broadcast_add_fusion of ~8 ms
    // The core waits ~758 ms per step in copy-done; both directions run at once, so the busier
    // one (~594 ms of link time per step) is the step's lower limit, not the wait.
    const double wait = adviceNumber(*a, "copy_wait_ps_per_step");
    const double limit = adviceNumber(*a, "transfer_bound_step_ps");
    EXPECT_NEAR(wait, 758e9, 5e9);
    EXPECT_NEAR(limit, 594e9, 5e9);
    EXPECT_DOUBLE_EQ(
        limit, std::max(adviceNumber(*a, "to_device_busy_ps_per_step"), adviceNumber(*a, "to_host_busy_ps_per_step")));
    EXPECT_GT(adviceNumber(*a, "both_directions_busy_ps_per_step"), 0.4 * limit);
    // Slicing removes the wait beyond that limit; overlap hides at most the compute; together they
    // never go below the limit.
    EXPECT_NEAR(adviceNumber(*a, "slicing_gain_ps"), wait - limit, 1e6);
    EXPECT_LE(adviceNumber(*a, "overlap_gain_ps"), compute);
    EXPECT_GT(a->gainPs, adviceNumber(*a, "slicing_gain_ps"));
    EXPECT_LE(a->gainPs, step - limit);
    EXPECT_NE(a->detail.find("slices"), std::string::npos);
    // Three 5 GiB arrays each way per step over a ~27 GB/s link: one rate per direction, the link's
    // bytes over its busy time, the same the op table shows.
    EXPECT_NEAR(adviceNumber(*a, "to_device_gbps"), 27.5, 1.5);
    EXPECT_NEAR(adviceNumber(*a, "to_host_gbps"), 27.5, 1.5);
    const OpBreakdown categories = regroupOpBreakdown(computeOpBreakdown(*loadSample(kV6e)), GroupBy::Category);
    for (const OpRow& row : categories.rows)
        if (row.category == "copy-done") {
            EXPECT_NEAR(*row.hostLinkToDeviceGbps, adviceNumber(*a, "to_device_gbps"), 1e-9);
            EXPECT_NEAR(*row.hostLinkToHostGbps, adviceNumber(*a, "to_host_gbps"), 1e-9);
            EXPECT_EQ(row.boundBy, BoundBy::Host);
        }
    EXPECT_NEAR(adviceNumber(*a, "offloaded_bytes_per_step"), 15 * 1024.0 * 1024 * 1024, 0.05 * 1024.0 * 1024 * 1024);
    EXPECT_EQ(adviceText(*a, "fits_in_hbm"), "yes");
    EXPECT_DOUBLE_EQ(adviceNumber(*a, "hbm_capacity_bytes"), 32e9);
    // The same copies are no longer claimed whole by data-formatting.
    EXPECT_FALSE(findAdvice(report, "data-formatting"));
    for (const Advice& item : report.advice) {
        EXPECT_LE(item.gainPs, step) << item.rule;
    }
}

TEST(HostOffload, SilentWithoutHostCopies)
{
    EXPECT_FALSE(findAdvice(computeAdvice(*demoProfile()), "host-offload"));
    if (haveSample(kVllm)) {
        EXPECT_FALSE(findAdvice(computeAdvice(*loadSample(kVllm)), "host-offload"));
    }
    if (haveSample(kV5)) { // S(1) VMEM copies only, and no timeline
        EXPECT_FALSE(findAdvice(computeAdvice(*loadSample(kV5)), "host-offload"));
    }
}
