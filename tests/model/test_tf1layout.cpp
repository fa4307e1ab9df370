// SPDX-License-Identifier: GPL-3.0-or-later
// TF1 op_profile layout analysis (FORMATS.md §4.2–4.3): padding and per-core batch from
// `layout.dimensions`, padding-bound wording, and the T(8,128) assumption for untiled layouts.
#include "analysis/advice.h"
#include "analysis/padding.h"
#include "analysistestutil.h"
#include "loader/loader.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

OpId opNamed(const Profile& p, std::string_view name)
{
    for (OpId id = 0; id < p.ops.size(); ++id)
        if (p.str(p.ops[id].name) == name)
            return id;
    return kNone;
}

// The shape of the task's origin story in a TF1 op_profile: batch 16 in a 128-aligned dim,
// 3 channels in an 8-aligned dim (a channel count that can change, unlike the demo's 1), FLOPS
// utilization 4.69 % (= 0.0375 / 0.8), and a loop fusion whose TF1 HLO text prints an f32 layout
// without tiles.
constexpr const char* kTf1OpProfile = R"({"byCategory": {"name": "byCategory", "metrics": {"time": 1, "flops": 0.0455},
 "children": [{"name": "convolution fusion", "metrics": {"time": 0.8, "flops": 0.0375}, "category": {},
   "children": [{"name": "%fusion.3", "metrics": {"time": 0.8, "flops": 0.0375, "rawTime": 8e11},
     "xla": {"op": "fusion:kOutput",
       "expression": "%fusion.3 = f32[16,128,128,3]{0,3,2,1} fusion(f32[16,128,128,32]{0,3,2,1} %a), kind=kOutput",
       "provenance": "unet/conv2d_18/Conv2D", "category": "convolution fusion",
       "layout": {"dimensions": [{"size": 16, "alignment": 128, "semantics": "batch"},
                                 {"size": 3, "alignment": 8, "semantics": "feature"},
                                 {"size": 128, "alignment": 0, "semantics": "spatial"},
                                 {"size": 128, "alignment": 0, "semantics": "spatial"}]}}, "children": []}]},
  {"name": "loop fusion", "metrics": {"time": 0.2, "flops": 0.008}, "category": {},
   "children": [{"name": "%fusion.9", "metrics": {"time": 0.2, "flops": 0.008, "rawTime": 2e11},
     "xla": {"op": "fusion:kLoop", "expression": "%fusion.9 = f32[16,1000]{1,0} fusion(f32[16,1000]{1,0} %b), kind=kLoop",
       "provenance": "unet/dense/add", "category": "loop fusion"}, "children": []}]}]}})";

ProfilePtr loadTf1()
{
    const std::string path = tempDir("tf1layout") + "/tf1.op_profile.json";
    writeFile(path, kTf1OpProfile);
    LoadResult loaded = loadProfile(path);
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.profile;
}

} // namespace

TEST(Tf1Layout, FillPerDimensionAndEfficiencyIsTheirProduct)
{
    const layout::PaddingInfo p = paddingFromLayoutHints({{200, 128, "feature"}, {8, 8, "batch"}, {256, 0, "spatial"}});
    ASSERT_TRUE(p.valid);
    ASSERT_EQ(p.dims.size(), 3u);
    EXPECT_EQ(p.dims[0].padded, 256);
    EXPECT_EQ(p.dims[1].padded, 8);
    EXPECT_EQ(p.dims[2].padded, 256);
    EXPECT_DOUBLE_EQ(p.efficiency, 200.0 / 256.0);
    EXPECT_EQ(p.usedOfTileText(), "200\u00B78 of 256\u00B78 used");
    EXPECT_FALSE(paddingFromLayoutHints({{4, -1, "batch"}}).valid);
}

TEST(Tf1Layout, DemoSyntheticOpProfileUsesItsLayoutBlock)
{
    TPUSCOPE_REQUIRE_SAMPLE("demo_synthetic.op_profile.json");
    LoadResult loaded = loadProfile(samplePath("demo_synthetic.op_profile.json"));
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const Profile& p = *loaded.profile;
    const OpPadding conv = resolveOpPadding(p, opNamed(p, "convolution"));
    EXPECT_EQ(conv.source, ShapeSource::LayoutHint);
    ASSERT_EQ(conv.arrays.size(), 1u);
    EXPECT_DOUBLE_EQ(conv.arrays[0].padding.efficiency, 200.0 / 256.0); // feature 200 in 2 x 128
    EXPECT_EQ(conv.batchSize, 8);
    const BatchInference batch = inferPerCoreBatch(p);
    ASSERT_TRUE(batch.known) << batch.reason;
    EXPECT_EQ(batch.perCoreBatch, 8);
    // Batch 8 fills its 8-alignment and 78 % of the tiles hold data: no padding advice.
    const AdviceReport report = computeAdvice(p);
    EXPECT_FALSE(findAdvice(report, "per-core-batch"));
    EXPECT_FALSE(findAdvice(report, "padding"));
}

TEST(Tf1Layout, HandMadeTf1ProfileGetsPaddingPerCoreBatchAndPaddingBound)
{
    ProfilePtr profile = loadTf1();
    ASSERT_TRUE(profile);
    const OpPadding top = resolveOpPadding(*profile, opNamed(*profile, "fusion.3"));
    EXPECT_EQ(top.source, ShapeSource::LayoutHint);
    ASSERT_EQ(top.arrays.size(), 1u);
    EXPECT_DOUBLE_EQ(top.arrays[0].padding.efficiency, 16.0 / 128.0 * 3.0 / 8.0);
    EXPECT_EQ(top.arrays[0].padding.usedOfTileText(), "16\u00B73 of 128\u00B78 used");
    EXPECT_EQ(top.batchSize, 16);

    const AdviceReport report = computeAdvice(*profile);
    ASSERT_TRUE(report.batch.known);
    EXPECT_EQ(report.batch.perCoreBatch, 16);
    const Advice* batch = findAdvice(report, "per-core-batch");
    ASSERT_TRUE(batch);
    EXPECT_EQ(batch->numbers.find("suggested_per_core_batch")->number, 128);
    EXPECT_DOUBLE_EQ(batch->numbers.find("batch_tile_occupancy")->number, 0.125);
    // An op_profile without collectives records no core count: only per-core figures are stated.
    EXPECT_NE(batch->title.find("use 128 per core"), std::string::npos) << batch->title;
    EXPECT_NE(batch->detail.find("does not record how many cores"), std::string::npos);
    const Advice* padding = findAdvice(report, "padding");
    ASSERT_TRUE(padding);
    EXPECT_DOUBLE_EQ(padding->numbers.find("padding_efficiency")->number, 0.046875);
    EXPECT_EQ(padding->numbers.find("padding_bound")->number, 1);
    EXPECT_NE(padding->detail.find("padding-bound"), std::string::npos);
    // A view of the op (the Details panel) gets the same finding in the same words.
    const OpBreakdown breakdown = computeOpBreakdown(*profile);
    const auto row = std::find_if(
        breakdown.rows.begin(), breakdown.rows.end(), [](const OpRow& r) { return r.name == "fusion.3"; });
    ASSERT_NE(row, breakdown.rows.end());
    const std::string finding = paddingBoundFinding(*row, top);
    EXPECT_TRUE(finding.starts_with("fusion.3 is padding-bound: ")) << finding;
    EXPECT_NE(padding->detail.find(finding), std::string::npos) << padding->detail;
    const auto loop = std::find_if(
        breakdown.rows.begin(), breakdown.rows.end(), [](const OpRow& r) { return r.name == "fusion.9"; });
    ASSERT_NE(loop, breakdown.rows.end());
    EXPECT_EQ(paddingBoundFinding(*loop, resolveOpPadding(*profile, loop->op)), "");
    // The TF1 file records FLOPs but no bytes: no op's place under the roofline is known, so the
    // low-utilization rule stays silent and says why, instead of calling an op far from a roof it
    // cannot see.
    EXPECT_TRUE(profile->bytesNotRecorded);
    EXPECT_FALSE(findAdvice(report, "low-utilization-fusion"));
    EXPECT_TRUE(std::any_of(report.notes.begin(), report.notes.end(),
        [](const std::string& n) { return n.find("records no bytes") != std::string::npos; }));
}

TEST(Tf1Layout, UntiledF32LayoutIsAssumedT8x128AndSaysSo)
{
    ProfilePtr profile = loadTf1();
    ASSERT_TRUE(profile);
    const OpPadding loop = resolveOpPadding(*profile, opNamed(*profile, "fusion.9"));
    EXPECT_EQ(loop.source, ShapeSource::HloText);
    ASSERT_EQ(loop.arrays.size(), 1u);
    EXPECT_NE(loop.arrays[0].assumption.find("T(8,128) assumed"), std::string::npos);
    EXPECT_EQ(loop.arrays[0].padding.tileText, "T(8,128)");
    EXPECT_DOUBLE_EQ(loop.arrays[0].padding.efficiency, 1000.0 / 1024.0);
}

TEST(Tf1Layout, RecordedTilesAreNeverReplaced)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v5_training.op_profile.json.gz");
    LoadResult loaded = loadProfile(samplePath("tpu_v5_training.op_profile.json.gz"));
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const OpPadding dus = resolveOpPadding(*loaded.profile, opNamed(*loaded.profile, "dynamic-update-slice.31"));
    ASSERT_FALSE(dus.arrays.empty());
    EXPECT_TRUE(dus.arrays[0].assumption.empty());
    EXPECT_EQ(dus.arrays[0].padding.tileText, "T(8,128)");
}
