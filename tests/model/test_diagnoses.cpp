// SPDX-License-Identifier: GPL-3.0-or-later
// The diagnoses of issue 13 on the real profiles that motivated them, and where they must stay silent:
// strided-update, collectives counted completely, host-offload critical path.
#include "analysis/advice.h"
#include "loader/loader.h"
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

ProfilePtr demoProfile()
{
    std::string bytes, error;
    EXPECT_TRUE(syntheticXSpaceBytes({}, bytes, error)) << error;
    LoadResult loaded = loadProfileFromBytes(bytes, "demo.xplane.pb");
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.profile;
}

const Advice* find(const AdviceReport& report, std::string_view rule)
{
    for (const Advice& a : report.advice)
        if (a.rule == rule)
            return &a;
    return nullptr;
}

double number(const Advice& a, std::string_view name)
{
    const AdviceValue* v = a.numbers.find(name);
    EXPECT_TRUE(v) << a.rule << ": " << name;
    return v ? v->number : -1;
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
    const Advice* a = find(report, "strided-update");
    ASSERT_TRUE(a);
    std::vector<std::string> names = a->opNames;
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names,
        (std::vector<std::string> {"dynamic-update-slice.31", "dynamic-update-slice.32", "dynamic-update-slice.33"}));
    EXPECT_NEAR(number(*a, "time_fraction"), 0.142, 0.003); // the file's own rawTime shares: 4.52+4.52+5.12 %
    EXPECT_DOUBLE_EQ(number(*a, "update_tile_fill"), 1.0 / 8.0);
    EXPECT_EQ(number(*a, "tile_extent"), 8);
    EXPECT_EQ(number(*a, "stacked_dim"), 0);
    // xprof's own bandwidthUtils for these ops are 2.7-3.1 %.
    EXPECT_GT(number(*a, "hbm_fraction"), 0.027);
    EXPECT_LT(number(*a, "hbm_fraction"), 0.031);
    EXPECT_NE(a->detail.find("sublane"), std::string::npos);
    EXPECT_NE(a->detail.find("major axis"), std::string::npos);
    EXPECT_NE(a->detail.find("axes_scan.py:166"), std::string::npos);
    EXPECT_GT(a->gainPs, 0);
}

TEST(StridedUpdate, SilentOnProfilesWithoutStridedUpdates)
{
    EXPECT_FALSE(find(computeAdvice(*demoProfile()), "strided-update"));
    if (haveSample(kV6e))
        EXPECT_FALSE(find(computeAdvice(*loadSample(kV6e)), "strided-update"));
    if (haveSample(kVllm))
        EXPECT_FALSE(find(computeAdvice(*loadSample(kVllm)), "strided-update"));
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
        const Advice* a = find(r, "strided-update");
        ASSERT_TRUE(a);
        EXPECT_NEAR(number(*a, "attained_gbps"), 20, 1e-6);
        // achievable = 20 / (1/8) = 160 GB/s: gain = time x (1 - 1/8).
        EXPECT_NEAR(a->gainPs, 1e9 * 7 / 8, 1e3);
    }
    // The slice fills whole tiles in the stacked dim: silent.
    EXPECT_FALSE(
        find(computeAdvice(*textProfile({{full, "dynamic-update-slice", 1'000'000'000, 2e7}})), "strided-update"));
    // Strided but at 20 % of the peak: silent.
    EXPECT_FALSE(
        find(computeAdvice(*textProfile({{thin, "dynamic-update-slice", 1'000'000'000, 2e8}})), "strided-update"));
    // Strided and slow but only 2 % of op time: silent.
    EXPECT_FALSE(find(computeAdvice(*textProfile({{thin, "dynamic-update-slice", 20'000'000, 4e5},
                          {"%fusion.1 = f32[8]{0} fusion()", "loop fusion", 980'000'000, 1e8}})),
        "strided-update"));
}
