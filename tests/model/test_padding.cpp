// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/padding.h"
#include "analysistestutil.h"
#include "loader/loader.h"
#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace tpuscope::model;
using layout::DimSemantics;
using tpuscope::test::demoProfile;

namespace {

OpId findOp(const Profile& profile, std::string_view name)
{
    for (OpId i = 0; i < profile.ops.size(); ++i)
        if (profile.str(profile.ops[i].name) == name)
            return i;
    return kNone;
}

} // namespace

TEST(Padding, OriginStoryFusionIsTheWorkedExample)
{
    ProfilePtr profile = demoProfile();
    ASSERT_TRUE(profile);
    const OpId op = findOp(*profile, "fusion.3");
    ASSERT_NE(op, kNone);
    const OpPadding p = resolveOpPadding(*profile, op);
    EXPECT_EQ(p.source, ShapeSource::Hlo);
    ASSERT_TRUE(p.computeCore);
    EXPECT_EQ(p.computeCore->name, "convolution.114");
    EXPECT_EQ(p.batchSize, 16);
    ASSERT_EQ(p.arrays.size(), 2u);

    // Output f32[16,128,128,1]{0,3,2,1:T(8,128)}: batch 16 in the 128-wide minor tile, feature 1
    // in the 8-wide tile -> 16·1 of 128·8 = 1.5625 %.
    const ArrayPadding& out = p.arrays[0];
    EXPECT_EQ(out.role, "output");
    ASSERT_TRUE(out.padding.valid);
    EXPECT_DOUBLE_EQ(out.padding.efficiency, 16.0 / 1024.0);
    EXPECT_EQ(out.padding.usedOfTileText(), "16\u00B71 of 128\u00B78 used");
    ASSERT_EQ(out.padding.dims.size(), 4u);
    EXPECT_EQ(out.padding.dims[0].semantics, DimSemantics::Batch);
    EXPECT_EQ(out.padding.dims[0].size, 16);
    EXPECT_EQ(out.padding.dims[0].padded, 128);
    EXPECT_EQ(out.padding.dims[0].tile, 128);
    EXPECT_EQ(out.padding.dims[1].semantics, DimSemantics::Feature);
    EXPECT_EQ(out.padding.dims[1].size, 1);
    EXPECT_EQ(out.padding.dims[1].padded, 8);
    EXPECT_EQ(out.padding.dims[1].tile, 8);
    EXPECT_EQ(out.padding.dims[2].semantics, DimSemantics::Spatial);
    EXPECT_EQ(out.padding.logicalBytes, 16 * 128 * 128 * 4);
    EXPECT_EQ(out.padding.paddedBytes, 128 * 128 * 128 * 8 * 4);
    EXPECT_EQ(out.batchDim(), 0);

    // Activation input (operand 0 of the convolution): 16·32 of 128·32 = 12.5 %.
    const ArrayPadding& act = p.arrays[1];
    EXPECT_NE(act.role.find("activation"), std::string::npos);
    EXPECT_DOUBLE_EQ(act.padding.efficiency, 0.125);
    EXPECT_EQ(act.padding.dims[0].semantics, DimSemantics::Batch);
    EXPECT_EQ(act.padding.dims[1].semantics, DimSemantics::Feature);
    EXPECT_EQ(p.worst(), &p.arrays[0]);
}

// The phrase the Details panel and `tpuscope-cli fusion` both print for an array.
TEST(Padding, PaddingTextIsOnePhraseForEveryView)
{
    ProfilePtr profile = demoProfile();
    const OpPadding p = resolveOpPadding(*profile, findOp(*profile, "fusion.3"));
    ASSERT_EQ(p.arrays.size(), 2u);
    EXPECT_EQ(paddingText(p.arrays[0].padding), "16\u00B71 of 128\u00B78 used = 1.56%");
    EXPECT_EQ(paddingText(p.arrays[1].padding), "16\u00B732 of 128\u00B732 used = 12.5%");

    hlo::Shape scalar;
    scalar.elementType = hlo::PrimitiveType::U32;
    scalar.hasLayout = true;
    EXPECT_EQ(paddingText(layout::computePadding(scalar)), "no tiling, 100% of the buffer used");
    layout::PaddingInfo unknown;
    EXPECT_EQ(paddingText(unknown), "unknown (no layout)");
    unknown.error = "tuple shapes have no single padding";
    EXPECT_EQ(paddingText(unknown), unknown.error);

    EXPECT_EQ(paddingEfficiencyText(1.0 / 64), "1.56%");
    EXPECT_EQ(paddingEfficiencyText(0.4531), "45.3%");
    EXPECT_EQ(paddingEfficiencyText(0.99996), "100%");
    EXPECT_EQ(paddingEfficiencyText(0.9996), "100.0%"); // 99.96 % is not full: never "100%"
}

TEST(Padding, PerCoreBatchIsTheTimeWeightedModeOfConvolutionBatches)
{
    ProfilePtr profile = demoProfile();
    const BatchInference b = inferPerCoreBatch(*profile);
    ASSERT_TRUE(b.known) << b.reason;
    EXPECT_EQ(b.perCoreBatch, 16);
    EXPECT_EQ(b.cores, 8);
    EXPECT_EQ(b.globalBatch, 128);
    EXPECT_EQ(b.confidence, "high");
    // fusion.3 (58 %) and fusion.7 (9.5 %) say 16, and so does the filter gradient (9.7 %), which
    // sums over that batch: its own output is a kernel, whose convolution "batch" (32) is the
    // kernel's input feature (issue 41).
    ASSERT_EQ(b.candidates.size(), 1u);
    EXPECT_EQ(b.candidates[0].batch, 16);
    EXPECT_NEAR(b.agreeingShare, 1.0, 1e-9);
    EXPECT_NEAR(b.coveredShare, 0.772, 0.01);
    ASSERT_GE(b.ops.size(), 2u);
    EXPECT_EQ(profile->str(profile->ops[b.ops[0]].name), "fusion.3");
    EXPECT_NE(b.explanation(*profile).find("data-parallel"), std::string::npos);
}

TEST(Padding, WhatIfBatchRecomputesWithTheSameLayout)
{
    ProfilePtr profile = demoProfile();
    const WhatIfResult same = whatIfBatch(*profile, 16);
    ASSERT_TRUE(same.valid) << same.error;
    for (const WhatIfOp& op : same.ops)
        EXPECT_DOUBLE_EQ(op.currentEfficiency, op.newEfficiency) << op.name;

    const WhatIfResult big = whatIfBatch(*profile, 128);
    ASSERT_TRUE(big.valid);
    EXPECT_EQ(big.globalBatch, 1024);
    ASSERT_FALSE(big.ops.empty());
    EXPECT_EQ(big.ops[0].name, "fusion.3");
    EXPECT_DOUBLE_EQ(big.ops[0].currentEfficiency, 1.0 / 64);
    EXPECT_DOUBLE_EQ(big.ops[0].newEfficiency, 1.0 / 8); // 128·1 of 128·8: the feature tile remains
    EXPECT_EQ(big.ops[0].newUsed, "128\u00B71 of 128\u00B78 used");
    // fusion.7's worst array is its activation f32[16,128,128,3]{0,3,2,1:T(4,128)}: 16·3 of 128·4.
    const auto it
        = std::find_if(big.ops.begin(), big.ops.end(), [](const WhatIfOp& o) { return o.name == "fusion.7"; });
    ASSERT_NE(it, big.ops.end());
    EXPECT_DOUBLE_EQ(it->currentEfficiency, 3.0 / 32);
    EXPECT_DOUBLE_EQ(it->newEfficiency, 0.75);
    EXPECT_GT(big.newWeightedEfficiency, 5 * big.currentWeightedEfficiency);

    EXPECT_FALSE(whatIfBatch(*profile, 0).valid);
    EXPECT_FALSE(whatIfBatch(*profile, -3).valid);
}

TEST(Padding, RealV6eSampleShapes)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v6e_inference.xplane.pb");
    LoadResult result = loadProfile(tpuscope::test::samplePath("tpu_v6e_inference.xplane.pb"));
    ASSERT_TRUE(result.ok()) << result.error;
    const Profile& profile = *result.profile;

    // f32[5,1024,1024,256]{3,2,1,0:T(8,128)}: 256 is a multiple of 128 and 1024 of 8 -> no padding.
    const OpPadding fusion = resolveOpPadding(profile, findOp(profile, "broadcast_add_fusion.1"));
    EXPECT_EQ(fusion.source, ShapeSource::Hlo);
    ASSERT_EQ(fusion.arrays.size(), 1u);
    const layout::PaddingInfo& f = fusion.arrays[0].padding;
    ASSERT_TRUE(f.valid) << f.error;
    EXPECT_DOUBLE_EQ(f.efficiency, 1.0);
    EXPECT_EQ(f.logicalBytes, int64_t(5) * 1024 * 1024 * 256 * 4);
    EXPECT_EQ(f.paddedBytes, f.logicalBytes);
    ASSERT_EQ(f.dims.size(), 4u);
    EXPECT_EQ(f.dims[0].size, 256); // most minor first
    EXPECT_EQ(f.dims[0].tile, 128);
    EXPECT_EQ(f.dims[1].size, 1024);
    EXPECT_EQ(f.dims[1].tile, 8);
    EXPECT_EQ(fusion.batchSize, -1); // no convolution/dot in this program

    // copy-start.1 = (f32[...]{...S(5)}, f32[...]{...}, u32[]{:S(2)}): a tuple, split into arrays.
    const OpPadding copy = resolveOpPadding(profile, findOp(profile, "copy-start.1"));
    ASSERT_EQ(copy.arrays.size(), 3u);
    EXPECT_EQ(copy.arrays[0].role, "output {0}");
    EXPECT_EQ(copy.arrays[0].padding.memorySpace, 5);
    EXPECT_EQ(copy.arrays[1].padding.memorySpace, 0);
    EXPECT_EQ(copy.arrays[2].padding.memorySpace, 2);
    EXPECT_EQ(copy.arrays[2].padding.logicalElements, 1);

    EXPECT_FALSE(inferPerCoreBatch(profile).known);
}

TEST(Padding, FallsBackToShapeWithLayoutAndHloText)
{
    ProfileBuilder builder;
    const PlaneId plane = builder.addPlane("/device:TPU:0");
    const TrackId track = builder.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    OpInfo a;
    a.name = builder.intern("fusion.9");
    a.isXlaOp = true;
    a.category = builder.intern("loop fusion");
    a.shapeWithLayout = builder.intern("f32[16,1]{0,1:T(8,128)}");
    const OpId opA = builder.addOp(a);
    OpInfo b;
    b.name = builder.intern("copy.2");
    b.isXlaOp = true;
    b.category = builder.intern("copy");
    b.longName = builder.intern("%copy.2 = bf16[8,128]{1,0:T(8,128)(2,1)} copy(bf16[8,128]{0,1} %p)");
    const OpId opB = builder.addOp(b);
    OpInfo c;
    c.name = builder.intern("mystery");
    c.isXlaOp = true;
    c.shapeWithLayout = builder.intern("f32[3,");
    const OpId opC = builder.addOp(c);
    builder.addEvent(track, 0, 100, opA);
    builder.addEvent(track, 100, 100, opB);
    builder.addEvent(track, 200, 100, opC);
    ProfilePtr profile = builder.finish();

    const OpPadding pa = resolveOpPadding(*profile, opA);
    EXPECT_EQ(pa.source, ShapeSource::ShapeWithLayout);
    ASSERT_EQ(pa.arrays.size(), 1u);
    EXPECT_DOUBLE_EQ(pa.arrays[0].padding.efficiency, 1.0 / 64);
    EXPECT_EQ(pa.arrays[0].padding.dims[0].semantics, DimSemantics::Unknown);

    const OpPadding pb = resolveOpPadding(*profile, opB);
    EXPECT_EQ(pb.source, ShapeSource::HloText);
    ASSERT_EQ(pb.arrays.size(), 1u);
    // bf16 [8,128] in (8,128)(2,1): the 8 rows pack into 4 words of a 16-row tile... the layout module
    // owns that math; here only that it parsed and is a valid bf16 array.
    EXPECT_TRUE(pb.arrays[0].padding.valid);
    EXPECT_EQ(pb.arrays[0].padding.logicalBytes, 8 * 128 * 2);

    const OpPadding pc = resolveOpPadding(*profile, opC);
    EXPECT_TRUE(pc.arrays.empty());
    EXPECT_NE(pc.error.find("shape_with_layout"), std::string::npos) << pc.error;
    EXPECT_EQ(resolveOpPadding(*profile, 999).error, "no such op");
}
