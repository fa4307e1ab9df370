// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/layout.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

using namespace tpuscope::model;
using hlo::PrimitiveType;
using layout::DimSemantics;
using layout::parseInstructionResultShape;
using layout::parseLayout;
using layout::parseShape;

namespace {

hlo::Shape shapeOf(std::string_view text)
{
    auto result = parseShape(text);
    EXPECT_TRUE(result.ok()) << text << ": " << result.error;
    return result.shape;
}

std::vector<int64_t> tileDims(const hlo::Shape& shape, size_t index)
{
    return index < shape.layout.tiles.size() ? shape.layout.tiles[index].dimensions : std::vector<int64_t> {};
}

void expectError(std::string_view text)
{
    auto result = parseShape(text);
    EXPECT_FALSE(result.ok()) << "parsed: " << text;
    EXPECT_NE(result.error.find("offset"), std::string::npos) << result.error;
    EXPECT_TRUE(result.shape.dimensions.empty());
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Parsing

TEST(LayoutParse, TiledWithMemorySpace)
{
    auto shape = shapeOf("f32[5,1024,1024,256]{3,2,1,0:T(8,128)S(5)}");
    EXPECT_EQ(shape.elementType, PrimitiveType::F32);
    EXPECT_EQ(shape.dimensions, (std::vector<int64_t> {5, 1024, 1024, 256}));
    ASSERT_TRUE(shape.hasLayout);
    EXPECT_EQ(shape.layout.minorToMajor, (std::vector<int64_t> {3, 2, 1, 0}));
    ASSERT_EQ(shape.layout.tiles.size(), 1u);
    EXPECT_EQ(tileDims(shape, 0), (std::vector<int64_t> {8, 128}));
    EXPECT_EQ(shape.layout.memorySpace, 5);
    EXPECT_EQ(shape.layout.elementSizeInBits, 0);
}

TEST(LayoutParse, MultipleTiles)
{
    auto shape = shapeOf("bf16[128,256]{1,0:T(8,128)(2,1)}");
    EXPECT_EQ(shape.elementType, PrimitiveType::BF16);
    ASSERT_EQ(shape.layout.tiles.size(), 2u);
    EXPECT_EQ(tileDims(shape, 0), (std::vector<int64_t> {8, 128}));
    EXPECT_EQ(tileDims(shape, 1), (std::vector<int64_t> {2, 1}));
    EXPECT_EQ(shape.layout.memorySpace, 0);
}

TEST(LayoutParse, RankOneScalarAndNoLayout)
{
    auto vector = shapeOf("f32[1024]{0:T(128)}");
    EXPECT_EQ(vector.dimensions, (std::vector<int64_t> {1024}));
    EXPECT_EQ(tileDims(vector, 0), (std::vector<int64_t> {128}));

    auto scalar = shapeOf("bf16[]{:T(256)}");
    EXPECT_TRUE(scalar.dimensions.empty());
    EXPECT_TRUE(scalar.hasLayout);
    EXPECT_TRUE(scalar.layout.minorToMajor.empty());
    EXPECT_EQ(tileDims(scalar, 0), (std::vector<int64_t> {256}));

    auto plain = shapeOf("s32[]");
    EXPECT_EQ(plain.elementType, PrimitiveType::S32);
    EXPECT_FALSE(plain.hasLayout);

    auto token = shapeOf("token[]");
    EXPECT_EQ(token.elementType, PrimitiveType::Token);

    auto pred = shapeOf("  pred[3]{0}  ");
    EXPECT_EQ(pred.elementType, PrimitiveType::Pred);
    EXPECT_TRUE(pred.layout.tiles.empty());
}

TEST(LayoutParse, ColumnMajorOriginStoryShape)
{
    auto shape = shapeOf("f32[16,1]{0,1:T(8,128)}");
    EXPECT_EQ(shape.dimensions, (std::vector<int64_t> {16, 1}));
    EXPECT_EQ(shape.layout.minorToMajor, (std::vector<int64_t> {0, 1}));
    EXPECT_EQ(tileDims(shape, 0), (std::vector<int64_t> {8, 128}));
}

TEST(LayoutParse, Tuples)
{
    auto shape = shapeOf("(f32[2]{0}, (s32[], bf16[4,4]{1,0}))");
    ASSERT_TRUE(shape.isTuple());
    ASSERT_EQ(shape.tupleShapes.size(), 2u);
    EXPECT_EQ(shape.tupleShapes[0].elementType, PrimitiveType::F32);
    EXPECT_EQ(shape.tupleShapes[0].dimensions, (std::vector<int64_t> {2}));
    const auto& inner = shape.tupleShapes[1];
    ASSERT_TRUE(inner.isTuple());
    ASSERT_EQ(inner.tupleShapes.size(), 2u);
    EXPECT_EQ(inner.tupleShapes[0].elementType, PrimitiveType::S32);
    EXPECT_EQ(inner.tupleShapes[1].elementType, PrimitiveType::BF16);
    EXPECT_EQ(inner.tupleShapes[1].layout.minorToMajor, (std::vector<int64_t> {1, 0}));

    auto empty = shapeOf("()");
    EXPECT_TRUE(empty.isTuple());
    EXPECT_TRUE(empty.tupleShapes.empty());

    // XLA inserts index comments into long tuples.
    auto commented = shapeOf("(f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/f32[2]{0:T(128)})");
    ASSERT_EQ(commented.tupleShapes.size(), 6u);
    EXPECT_EQ(tileDims(commented.tupleShapes[5], 0), (std::vector<int64_t> {128}));
}

TEST(LayoutParse, DynamicDimensionsAndElementSize)
{
    auto bounded = shapeOf("f32[<=16,8]");
    EXPECT_EQ(bounded.dimensions, (std::vector<int64_t> {16, 8}));
    auto unbounded = shapeOf("f32[?,8]{1,0}");
    EXPECT_EQ(unbounded.dimensions, (std::vector<int64_t> {-1, 8}));

    auto packed = shapeOf("s4[256]{0:T(1024)E(4)}");
    EXPECT_EQ(packed.layout.elementSizeInBits, 4);
    EXPECT_EQ(tileDims(packed, 0), (std::vector<int64_t> {1024}));
}

TEST(LayoutParse, OtherAnnotationsAreSkipped)
{
    auto shape = shapeOf("f32[8,128]{1,0:D(D,C)T(8,128)L(1024)#(s32)*(s64)E(32)S(1)SC(0:1,2)(1:3)"
                         "P(f32[8,128]{1,0:T(8,128)})M(8)Z(whatever(nested)[x]{y})}");
    EXPECT_EQ(tileDims(shape, 0), (std::vector<int64_t> {8, 128}));
    EXPECT_EQ(shape.layout.tiles.size(), 1u);
    EXPECT_EQ(shape.layout.tailPaddingAlignment, 1024);
    EXPECT_EQ(shape.layout.elementSizeInBits, 32);
    EXPECT_EQ(shape.layout.memorySpace, 1);
}

TEST(LayoutParse, CombineTilesUpperCaseAndOldTileSyntax)
{
    auto combined = shapeOf("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
    EXPECT_EQ(tileDims(combined, 0), (std::vector<int64_t> {-1, -1, 2, -1, 3}));
    auto upper = shapeOf("F32[3,5]{1,0:T(2,2)}");
    EXPECT_EQ(upper.elementType, PrimitiveType::F32);
    auto old = shapeOf("f32[3,5]{1,0:(2,2)}");
    EXPECT_EQ(tileDims(old, 0), (std::vector<int64_t> {2, 2}));
}

TEST(LayoutParse, LayoutAlone)
{
    std::string error;
    auto braced = parseLayout("{3,2,1,0:T(8,128)S(5)}", &error);
    ASSERT_TRUE(braced.has_value()) << error;
    EXPECT_EQ(braced->minorToMajor, (std::vector<int64_t> {3, 2, 1, 0}));
    ASSERT_EQ(braced->tiles.size(), 1u);
    EXPECT_EQ(braced->tiles[0].dimensions, (std::vector<int64_t> {8, 128}));
    EXPECT_EQ(braced->memorySpace, 5);

    auto bare = parseLayout("3,2,1,0:T(8,128)", &error);
    ASSERT_TRUE(bare.has_value()) << error;
    EXPECT_EQ(bare->minorToMajor, (std::vector<int64_t> {3, 2, 1, 0}));
    EXPECT_EQ(bare->tiles.size(), 1u);

    auto scalar = parseLayout(":T(256)", &error);
    ASSERT_TRUE(scalar.has_value()) << error;
    EXPECT_TRUE(scalar->minorToMajor.empty());

    EXPECT_TRUE(parseLayout("{}").has_value());
    EXPECT_FALSE(parseLayout("", &error).has_value());
    EXPECT_FALSE(error.empty());
    for (const char* bad : {"{1,0:T(8,128)", "{1,0:Q}", "1,0}", "{1,0} x", "{1,0:T(8,)}", "{a}", "{1,0:E(}"}) {
        error.clear();
        EXPECT_FALSE(parseLayout(bad, &error).has_value()) << bad;
        EXPECT_FALSE(error.empty()) << bad;
    }
    EXPECT_FALSE(parseLayout("{1,0:T(8,128)").has_value()); // no error pointer
}

TEST(LayoutParse, ErrorMessageNamesOffset)
{
    auto result = parseShape("f32[3,4");
    EXPECT_EQ(result.error, "expected ']' at offset 7 in 'f32[3,4'");
    EXPECT_EQ(parseShape("").error, "expected a shape at offset 0 in ''");
    EXPECT_EQ(parseShape("f33[2]").error, "unknown element type 'f33' at offset 0 in 'f33[2]'");
    EXPECT_EQ(parseShape("f32[3,4]{1,0").error, "expected '}' at offset 12 in 'f32[3,4]{1,0'");
    EXPECT_EQ(parseShape("f32[99999999999999999999]").error,
        "number out of range at offset 4 in 'f32[99999999999999999999]'");
}

TEST(LayoutParse, MalformedInputsFail)
{
    for (const char* bad : {
             "f32[3,4",
             "f32[",
             "f32",
             "[3]",
             "f32[abc]",
             "f32[-1]",
             "f32[1,,2]",
             "f32[2]{0:T(8,128",
             "f32[2]{0:T(0)}",
             "f32[2]{0:T(-3)}",
             "f32[2]{0:T}",
             "f32[2]{0:S(}",
             "f32[2]{0:S(x)}",
             "f32[2]{0:P(f32[2]{0}}",
             "f32[2]{0:P(f32[2]{0)}}",
             "f32[2]{1}",
             "f32[2,3]{0}",
             "f32[2,2]{0,0}",
             "f32[2] trailing",
             "(f32[2]",
             "(f32[2],)",
             "(f32[2] s32[])",
             "garbage!!",
             "   ",
             "{0}",
             "f32[<3]",
             "f32[2]{0:T(8)E(99999999999999999999)}",
             "f32[2]{0:T(9223372036854775808)}",
             "bf16[1]{0:X}",
             "f32[2]{0:T(8)}}",
             "f32[2]{0/*",
             "(/*index=5*/",
             "tuple[]",
         }) {
        SCOPED_TRACE(bad);
        expectError(bad);
    }
}

TEST(LayoutParse, DeepNestingDoesNotOverflowTheStack)
{
    std::string deep(100000, '(');
    expectError(deep);
    std::string annotation = "f32[2]{0:Z" + std::string(100000, '(') + "}";
    expectError(annotation);
}

TEST(LayoutParse, EveryPrefixAndMutationIsSafe)
{
    const std::string valid = "(f32[5,1024]{1,0:T(8,128)(2,1)L(64)E(16)S(5)P(f32[2]{0})}, "
                              "/*index=1*/ (s32[], bf16[<=4,?]{0,1:T(*,128)}))";
    ASSERT_TRUE(parseShape(valid).ok()) << parseShape(valid).error;
    for (size_t n = 0; n < valid.size(); ++n) {
        auto result = parseShape(std::string_view(valid).substr(0, n));
        EXPECT_FALSE(result.ok()) << n; // every proper prefix is incomplete
        EXPECT_FALSE(result.error.empty());
    }
    std::mt19937 random(12345);
    const std::string alphabet = "()[]{},:*<=?/ 0123456789-TSELPfsb";
    for (int i = 0; i < 5000; ++i) {
        std::string mutated = valid;
        for (int k = 0; k < 3; ++k)
            mutated[random() % mutated.size()] = alphabet[random() % alphabet.size()];
        auto result = parseShape(mutated);
        if (!result.ok())
            EXPECT_NE(result.error.find("offset"), std::string::npos);
        else
            (void)layout::computePadding(result.shape); // must not crash either
    }
}

TEST(LayoutParse, InstructionResultShape)
{
    auto fusion = parseInstructionResultShape("%fusion.3 = bf16[16,1]{0,1:T(8,128)(2,1)} fusion(%p0, %p1), "
                                              "kind=kOutput, calls=%fused_computation");
    ASSERT_TRUE(fusion.ok()) << fusion.error;
    EXPECT_EQ(fusion.shape.elementType, PrimitiveType::BF16);
    EXPECT_EQ(fusion.shape.dimensions, (std::vector<int64_t> {16, 1}));
    EXPECT_EQ(fusion.shape.layout.tiles.size(), 2u);

    auto tuple = parseInstructionResultShape("  ROOT %tuple.7 = (f32[2]{0}, s32[]) tuple(%a, %b), metadata={x=1}");
    ASSERT_TRUE(tuple.ok()) << tuple.error;
    EXPECT_TRUE(tuple.shape.isTuple());
    EXPECT_EQ(tuple.shape.tupleShapes.size(), 2u);

    auto constant = parseInstructionResultShape("constant.1 = f32[] constant(0)");
    ASSERT_TRUE(constant.ok()) << constant.error;
    EXPECT_FALSE(constant.shape.hasLayout);

    EXPECT_FALSE(parseInstructionResultShape("no equals sign here").ok());
    auto missing = parseInstructionResultShape("%x = ");
    EXPECT_EQ(missing.error, "expected a shape at offset 5 in '%x = '");
    EXPECT_FALSE(parseInstructionResultShape("%x = f32[2 add(%a)").ok());
    EXPECT_FALSE(parseInstructionResultShape("").ok());
}

// ---------------------------------------------------------------------------------------------
// Padding

TEST(LayoutPadding, OriginStoryBatchInMinorTile)
{
    // Batch 16 lands in the 128-wide minor tile and feature 1 in the 8-row tile: 16 of 1024 used.
    auto info
        = layout::computePadding(shapeOf("f32[16,1]{0,1:T(8,128)}"), {DimSemantics::Batch, DimSemantics::Feature});
    ASSERT_TRUE(info.valid) << info.error;
    EXPECT_EQ(info.logicalElements, 16);
    EXPECT_EQ(info.paddedElements, 1024);
    EXPECT_EQ(info.logicalBytes, 64);
    EXPECT_EQ(info.paddedBytes, 4096);
    EXPECT_DOUBLE_EQ(info.efficiency, 0.015625);
    EXPECT_DOUBLE_EQ(info.paddingFraction(), 1 - 0.015625);
    EXPECT_EQ(info.usedOfTileText(), "16\u00B71 of 128\u00B78 used");
    EXPECT_EQ(info.tileText, "T(8,128)");
    ASSERT_EQ(info.dims.size(), 2u);
    EXPECT_EQ(info.dims[0].logicalDim, 0);
    EXPECT_EQ(info.dims[0].size, 16);
    EXPECT_EQ(info.dims[0].padded, 128);
    EXPECT_EQ(info.dims[0].tile, 128);
    EXPECT_EQ(info.dims[0].semantics, DimSemantics::Batch);
    EXPECT_EQ(info.dims[1].logicalDim, 1);
    EXPECT_EQ(info.dims[1].size, 1);
    EXPECT_EQ(info.dims[1].padded, 8);
    EXPECT_EQ(info.dims[1].tile, 8);
    EXPECT_EQ(info.dims[1].semantics, DimSemantics::Feature);
}

TEST(LayoutPadding, ExactFitAndMemorySpace)
{
    auto info = layout::computePadding(shapeOf("f32[5,1024,1024,256]{3,2,1,0:T(8,128)S(5)}"));
    ASSERT_TRUE(info.valid) << info.error;
    EXPECT_EQ(info.logicalElements, 5LL * 1024 * 1024 * 256);
    EXPECT_EQ(info.paddedElements, info.logicalElements);
    EXPECT_EQ(info.paddedBytes, 4 * info.logicalElements);
    EXPECT_DOUBLE_EQ(info.efficiency, 1.0);
    EXPECT_EQ(info.memorySpace, 5);
    ASSERT_EQ(info.dims.size(), 4u);
    EXPECT_EQ(info.dims[0].logicalDim, 3);
    EXPECT_EQ(info.dims[0].tile, 128);
    EXPECT_EQ(info.dims[1].logicalDim, 2);
    EXPECT_EQ(info.dims[1].tile, 8);
    EXPECT_EQ(info.dims[2].tile, 0);
    EXPECT_EQ(info.dims[3].tile, 0);
    EXPECT_EQ(info.dims[3].semantics, DimSemantics::Unknown);
    EXPECT_EQ(info.usedOfTileText(), "256\u00B71024 of 256\u00B71024 used");
}

TEST(LayoutPadding, Bf16PackingTile)
{
    auto exact = layout::computePadding(shapeOf("bf16[128,256]{1,0:T(8,128)(2,1)}"));
    ASSERT_TRUE(exact.valid) << exact.error;
    EXPECT_EQ(exact.paddedElements, 128 * 256);
    EXPECT_EQ(exact.paddedBytes, 128 * 256 * 2);
    EXPECT_EQ(exact.tileText, "T(8,128)(2,1)");

    auto ragged = layout::computePadding(shapeOf("bf16[3,100]{1,0:T(8,128)(2,1)}"));
    ASSERT_TRUE(ragged.valid) << ragged.error;
    EXPECT_EQ(ragged.paddedElements, 1024);
    EXPECT_EQ(ragged.paddedBytes, 2048);
    EXPECT_EQ(ragged.usedOfTileText(), "100\u00B73 of 128\u00B78 used");

    // The (2,1) tile pads the single row of a (1,128) tile to two rows.
    auto single = layout::computePadding(shapeOf("bf16[1,128]{1,0:T(1,128)(2,1)}"));
    ASSERT_TRUE(single.valid) << single.error;
    EXPECT_EQ(single.paddedElements, 256);
    EXPECT_EQ(single.dims[1].padded, 2);
    EXPECT_EQ(single.dims[1].tile, 1);
}

TEST(LayoutPadding, RankOneAndScalar)
{
    auto vector = layout::computePadding(shapeOf("f32[1000]{0:T(128)}"));
    ASSERT_TRUE(vector.valid) << vector.error;
    EXPECT_EQ(vector.paddedElements, 1024);
    EXPECT_DOUBLE_EQ(vector.efficiency, 1000.0 / 1024.0);
    EXPECT_EQ(vector.usedOfTileText(), "1000 of 1024 used");

    auto scalar = layout::computePadding(shapeOf("bf16[]{:T(256)}"));
    ASSERT_TRUE(scalar.valid) << scalar.error;
    EXPECT_TRUE(scalar.dims.empty());
    EXPECT_EQ(scalar.logicalElements, 1);
    EXPECT_EQ(scalar.paddedElements, 256);
    EXPECT_EQ(scalar.paddedBytes, 512);
    EXPECT_EQ(scalar.implicitTilePadding, 256);
    EXPECT_EQ(scalar.usedOfTileText(), "1 of 256 used");

    // A 2-D tile on a vector adds a leading row dimension of 1 padded to 8.
    auto wide = layout::computePadding(shapeOf("f32[1000]{0:T(8,128)}"));
    ASSERT_TRUE(wide.valid) << wide.error;
    EXPECT_EQ(wide.paddedElements, 8 * 1024);
    EXPECT_EQ(wide.usedOfTileText(), "1000\u00B71 of 1024\u00B78 used");
}

TEST(LayoutPadding, NoLayoutOrNoTiles)
{
    auto none = layout::computePadding(shapeOf("f32[3,4]"), {DimSemantics::Batch});
    EXPECT_FALSE(none.valid);
    EXPECT_FALSE(none.error.empty());
    EXPECT_EQ(none.logicalElements, 12);
    EXPECT_EQ(none.paddedElements, 12);
    ASSERT_EQ(none.dims.size(), 2u);
    EXPECT_EQ(none.dims[0].logicalDim, 1);
    EXPECT_EQ(none.dims[1].semantics, DimSemantics::Batch);

    auto untiled = layout::computePadding(shapeOf("f32[3,4]{0,1}"));
    ASSERT_TRUE(untiled.valid) << untiled.error;
    EXPECT_EQ(untiled.paddedElements, 12);
    EXPECT_DOUBLE_EQ(untiled.efficiency, 1.0);
    EXPECT_EQ(untiled.usedOfTileText(), "");
    EXPECT_EQ(untiled.tileText, "");
    EXPECT_EQ(untiled.dims[0].logicalDim, 0);

    auto tuple = layout::computePadding(shapeOf("(f32[2]{0}, s32[])"));
    EXPECT_FALSE(tuple.valid);
    EXPECT_FALSE(tuple.error.empty());
    EXPECT_FALSE(layout::computePadding(shapeOf("token[]")).valid);
    EXPECT_FALSE(layout::computePadding(shapeOf("f32[?,8]{1,0:T(8,128)}")).valid);

    auto empty = layout::computePadding(shapeOf("f32[0,5]{1,0:T(8,128)}"));
    ASSERT_TRUE(empty.valid) << empty.error;
    EXPECT_EQ(empty.paddedElements, 0);
    EXPECT_DOUBLE_EQ(empty.efficiency, 1.0);
}

TEST(LayoutPadding, TailAlignmentAndElementSize)
{
    auto aligned = layout::computePadding(shapeOf("f32[1000]{0:T(128)L(2048)}"));
    ASSERT_TRUE(aligned.valid) << aligned.error;
    EXPECT_EQ(aligned.paddedElements, 2048);
    EXPECT_EQ(aligned.paddedBytes, 8192);

    hlo::Shape manual;
    manual.elementType = PrimitiveType::F32;
    manual.dimensions = {5};
    manual.hasLayout = true;
    manual.layout.minorToMajor = {0};
    manual.layout.tailPaddingAlignment = 4;
    EXPECT_EQ(layout::computePadding(manual).paddedElements, 8);
    manual.layout.tailPaddingAlignment = 0; // proto default: no alignment
    EXPECT_EQ(layout::computePadding(manual).paddedElements, 5);

    auto packed = layout::computePadding(shapeOf("s4[1000]{0:T(1024)E(4)}"));
    ASSERT_TRUE(packed.valid) << packed.error;
    EXPECT_EQ(packed.paddedElements, 1024);
    EXPECT_EQ(packed.paddedBytes, 512);
    EXPECT_EQ(packed.logicalBytes, 500);
}

TEST(LayoutPadding, CombiningTileAndBadLayouts)
{
    // FORMATS.md/XLA example: [2,7,8,11,10] combined to [112,110], then tiled by (2,3).
    auto combined = layout::computePadding(shapeOf("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"));
    ASSERT_TRUE(combined.valid) << combined.error;
    EXPECT_EQ(combined.logicalElements, 12320);
    EXPECT_EQ(combined.paddedElements, 112 * 111);
    EXPECT_EQ(combined.tileText, "T(*,*,2,*,3)");
    ASSERT_EQ(combined.dims.size(), 5u);
    EXPECT_EQ(combined.dims[0].padded, 11); // 10 carries the 110 -> 111 padding, rounded up
    EXPECT_EQ(combined.dims[1].padded, 11);
    EXPECT_EQ(combined.dims[2].padded, 8);

    EXPECT_TRUE(layout::computePadding(shapeOf("f32[4,4]{1,0:T(8,*)}")).valid); // trailing '*' must not crash

    hlo::Shape bad = shapeOf("f32[4,4]{1,0}");
    bad.layout.tiles.push_back({{0, 128}});
    EXPECT_FALSE(layout::computePadding(bad).valid);
    bad.layout.tiles = {};
    bad.layout.minorToMajor = {1, 1};
    EXPECT_FALSE(layout::computePadding(bad).valid);
    bad.layout.minorToMajor = {0};
    EXPECT_FALSE(layout::computePadding(bad).valid);

    hlo::Shape huge = shapeOf("f32[9223372036854775807,2]{1,0:T(8,128)}");
    auto overflow = layout::computePadding(huge);
    EXPECT_FALSE(overflow.valid);
    EXPECT_FALSE(overflow.error.empty());
}

// ---------------------------------------------------------------------------------------------
// Semantics

namespace {

hlo::Instruction makeInstruction(
    int64_t id, std::string name, std::string opcode, std::string_view shape, std::vector<int64_t> operands = {})
{
    hlo::Instruction instruction;
    instruction.id = id;
    instruction.name = std::move(name);
    instruction.opcode = std::move(opcode);
    instruction.shape = shapeOf(shape);
    instruction.operandIds = std::move(operands);
    return instruction;
}

hlo::Instruction makeParameter(int64_t id, int64_t number, std::string_view shape)
{
    auto parameter = makeInstruction(id, "p" + std::to_string(number) + "." + std::to_string(id), "parameter", shape);
    parameter.parameterNumber = number;
    return parameter;
}

// 1x1 convolution written without spatial dims: [batch, in] x [in, out] -> [batch, out].
hlo::Instruction makeMatmulConvolution(int64_t id, int64_t input, int64_t kernel, std::string_view shape)
{
    auto conv = makeInstruction(id, "convolution." + std::to_string(id), "convolution", shape, {input, kernel});
    conv.hasConvolutionDimensions = true;
    conv.convolution.inputBatch = 0;
    conv.convolution.inputFeature = 1;
    conv.convolution.kernelInputFeature = 0;
    conv.convolution.kernelOutputFeature = 1;
    conv.convolution.outputBatch = 0;
    conv.convolution.outputFeature = 1;
    return conv;
}

hlo::Computation makeComputation(int64_t id, std::string name, std::vector<hlo::Instruction> instructions, bool fusion)
{
    hlo::Computation computation;
    computation.id = id;
    computation.name = std::move(name);
    computation.isFusion = fusion;
    computation.rootId = instructions.back().id;
    computation.instructions = std::move(instructions);
    return computation;
}

// Entry: fusion(p0, p1) -> f32[16,1]{0,1:T(8,128)}; the fused root is convert(add(conv, broadcast)).
hlo::Module makeFusedConvolutionModule(bool rootIsConvolution)
{
    hlo::Module module;
    module.name = "jit_step";
    std::vector<hlo::Instruction> fused;
    fused.push_back(makeParameter(100, 0, "f32[16,4]{1,0}"));
    fused.push_back(makeParameter(101, 1, "bf16[4,1]{1,0}"));
    fused.push_back(makeInstruction(102, "convert.1", "convert", "f32[4,1]{1,0}", {101}));
    fused.push_back(makeMatmulConvolution(103, 100, 102, "f32[16,1]{0,1}"));
    if (!rootIsConvolution) {
        fused.push_back(makeParameter(104, 2, "f32[1]{0}"));
        fused.push_back(makeInstruction(105, "broadcast.1", "broadcast", "f32[16,1]{0,1}", {104}));
        fused.push_back(makeInstruction(106, "add.1", "add", "f32[16,1]{0,1}", {105, 103}));
        fused.push_back(makeInstruction(107, "convert.2", "convert", "f32[16,1]{0,1}", {106}));
    }
    module.computations.push_back(makeComputation(10, "fused_computation", std::move(fused), true));

    std::vector<hlo::Instruction> entry;
    entry.push_back(makeParameter(1, 0, "f32[16,4]{1,0}"));
    entry.push_back(makeParameter(2, 1, "bf16[4,1]{1,0}"));
    entry.push_back(makeParameter(3, 2, "f32[1]{0}"));
    auto fusion = makeInstruction(4, "fusion.3", "fusion", "f32[16,1]{0,1:T(8,128)}", {1, 2, 3});
    fusion.fusionKind = "kOutput";
    fusion.calledComputationIds = {10};
    entry.push_back(std::move(fusion));
    module.computations.push_back(makeComputation(20, "main", std::move(entry), false));
    module.entryComputationId = 20;
    module.buildIndex();
    return module;
}

} // namespace

TEST(LayoutSemantics, Names)
{
    EXPECT_STREQ(layout::semanticsName(DimSemantics::Batch), "batch");
    EXPECT_STREQ(layout::semanticsName(DimSemantics::Feature), "feature");
    EXPECT_STREQ(layout::semanticsName(DimSemantics::Spatial), "spatial");
    EXPECT_STREQ(layout::semanticsName(DimSemantics::Contracting), "contracting");
    EXPECT_STREQ(layout::semanticsName(DimSemantics::NonContracting), "non-contracting");
    EXPECT_STREQ(layout::semanticsName(DimSemantics::Unknown), "unknown");
    EXPECT_STREQ(layout::semanticsName(static_cast<DimSemantics>(200)), "unknown");
}

TEST(LayoutSemantics, PlainConvolution)
{
    hlo::Module module;
    std::vector<hlo::Instruction> entry;
    entry.push_back(makeParameter(1, 0, "f32[8,16,16,32]{3,2,1,0}"));
    entry.push_back(makeParameter(2, 1, "f32[3,3,32,64]{3,2,1,0}"));
    auto conv = makeInstruction(3, "convolution.114", "convolution", "f32[8,14,14,64]{3,2,1,0:T(8,128)}", {1, 2});
    conv.hasConvolutionDimensions = true;
    conv.convolution = {0, 3, {1, 2}, 2, 3, {0, 1}, 0, 3, {1, 2}};
    entry.push_back(std::move(conv));
    module.computations.push_back(makeComputation(1, "main", std::move(entry), false));
    module.buildIndex();
    const auto* instruction = module.instruction("convolution.114");
    ASSERT_NE(instruction, nullptr);

    using enum DimSemantics;
    EXPECT_EQ(layout::inferOutputSemantics(module, *instruction),
        (std::vector<DimSemantics> {Batch, Spatial, Spatial, Feature}));
    EXPECT_EQ(layout::findComputeCore(module, *instruction), instruction);
    EXPECT_EQ(layout::inferOperandSemantics(module, *instruction, 0),
        (std::vector<DimSemantics> {Batch, Spatial, Spatial, Feature}));
    EXPECT_EQ(layout::inferOperandSemantics(module, *instruction, 1),
        (std::vector<DimSemantics> {Spatial, Spatial, Contracting, Feature}));
    EXPECT_TRUE(layout::inferOperandSemantics(module, *instruction, 2).empty());

    // Feature 64 in the 128 lanes, the 14 spatial in the 8 rows.
    auto padding = layout::computePadding(instruction->shape, layout::inferOutputSemantics(module, *instruction));
    ASSERT_EQ(padding.dims.size(), 4u);
    EXPECT_EQ(padding.dims[0].semantics, Feature);
    EXPECT_EQ(padding.dims[0].padded, 128);
    EXPECT_EQ(padding.dims[1].semantics, Spatial);
    EXPECT_EQ(padding.dims[1].padded, 16);
    EXPECT_EQ(padding.dims[3].semantics, Batch);

    // Dimension numbers out of range are ignored, not trusted.
    hlo::Instruction broken = *instruction;
    broken.convolution.outputFeature = 42;
    broken.convolution.outputBatch = -5;
    EXPECT_EQ(
        layout::inferOutputSemantics(module, broken), (std::vector<DimSemantics> {Unknown, Spatial, Spatial, Unknown}));
    broken.hasConvolutionDimensions = false;
    EXPECT_TRUE(layout::inferOutputSemantics(module, broken).empty());
}

TEST(LayoutSemantics, FusionRootIsConvolution)
{
    auto module = makeFusedConvolutionModule(true);
    const auto* fusion = module.instruction("fusion.3");
    ASSERT_NE(fusion, nullptr);
    const auto* core = layout::findComputeCore(module, *fusion);
    ASSERT_NE(core, nullptr);
    EXPECT_EQ(core->name, "convolution.103");
    using enum DimSemantics;
    EXPECT_EQ(layout::inferOutputSemantics(module, *fusion), (std::vector<DimSemantics> {Batch, Feature}));
}

TEST(LayoutSemantics, FusionThroughConvertAndBiasAdd)
{
    auto module = makeFusedConvolutionModule(false);
    const auto* fusion = module.instruction("fusion.3");
    ASSERT_NE(fusion, nullptr);
    const auto* core = layout::findComputeCore(module, *fusion);
    ASSERT_NE(core, nullptr);
    EXPECT_EQ(core->opcode, "convolution");
    using enum DimSemantics;
    EXPECT_EQ(layout::inferOutputSemantics(module, *fusion), (std::vector<DimSemantics> {Batch, Feature}));
    // Fusion operands map to fused parameters; the kernel passes a convert on the way.
    EXPECT_EQ(layout::inferOperandSemantics(module, *fusion, 0), (std::vector<DimSemantics> {Batch, Feature}));
    EXPECT_EQ(layout::inferOperandSemantics(module, *fusion, 1), (std::vector<DimSemantics> {Contracting, Feature}));
    EXPECT_TRUE(layout::inferOperandSemantics(module, *fusion, 2).empty()); // the bias is not a core operand
}

TEST(LayoutSemantics, FusedConvolutionPaddingCombined)
{
    // The origin story end to end: batch 16 in the 128-wide minor tile, feature 1 in the 8-row tile.
    auto module = makeFusedConvolutionModule(false);
    const auto* fusion = module.instruction("fusion.3");
    ASSERT_NE(fusion, nullptr);
    auto info = layout::computePadding(fusion->shape, layout::inferOutputSemantics(module, *fusion));
    ASSERT_TRUE(info.valid) << info.error;
    ASSERT_EQ(info.dims.size(), 2u);
    EXPECT_EQ(info.dims[0].semantics, DimSemantics::Batch);
    EXPECT_EQ(info.dims[0].size, 16);
    EXPECT_EQ(info.dims[0].padded, 128);
    EXPECT_EQ(info.dims[0].tile, 128);
    EXPECT_EQ(info.dims[1].semantics, DimSemantics::Feature);
    EXPECT_EQ(info.dims[1].size, 1);
    EXPECT_EQ(info.dims[1].padded, 8);
    EXPECT_EQ(info.dims[1].tile, 8);
    EXPECT_DOUBLE_EQ(info.efficiency, 0.015625);
    EXPECT_EQ(info.usedOfTileText(), "16\u00B71 of 128\u00B78 used");
}

TEST(LayoutSemantics, DotWithBatchDims)
{
    hlo::Module module;
    std::vector<hlo::Instruction> entry;
    entry.push_back(makeParameter(1, 0, "bf16[4,16,32]{2,1,0}"));
    entry.push_back(makeParameter(2, 1, "bf16[4,32,8]{2,1,0}"));
    auto dot = makeInstruction(3, "dot.1", "dot", "f32[4,16,8]{2,1,0}", {1, 2});
    dot.hasDotDimensions = true;
    dot.dot.lhsBatch = {0};
    dot.dot.rhsBatch = {0};
    dot.dot.lhsContracting = {2};
    dot.dot.rhsContracting = {1};
    entry.push_back(std::move(dot));
    module.computations.push_back(makeComputation(1, "main", std::move(entry), false));
    module.buildIndex();
    const auto* instruction = module.instruction("dot.1");
    ASSERT_NE(instruction, nullptr);
    using enum DimSemantics;
    EXPECT_EQ(layout::inferOutputSemantics(module, *instruction),
        (std::vector<DimSemantics> {Batch, NonContracting, NonContracting}));
    EXPECT_EQ(layout::findComputeCore(module, *instruction), instruction);
    EXPECT_EQ(layout::inferOperandSemantics(module, *instruction, 0),
        (std::vector<DimSemantics> {Batch, NonContracting, Contracting}));
    EXPECT_EQ(layout::inferOperandSemantics(module, *instruction, 1),
        (std::vector<DimSemantics> {Batch, Contracting, NonContracting}));
}

TEST(LayoutSemantics, ReshapesAndNonComputeFusions)
{
    hlo::Module module;
    std::vector<hlo::Instruction> fused;
    fused.push_back(makeParameter(100, 0, "f32[16,4]{1,0}"));
    fused.push_back(makeParameter(101, 1, "f32[4,8]{1,0}"));
    fused.push_back(makeMatmulConvolution(102, 100, 101, "f32[16,8]{1,0}"));
    fused.push_back(makeInstruction(103, "bitcast.1", "bitcast", "f32[16,2,4]{2,1,0}", {102}));
    module.computations.push_back(makeComputation(10, "fused_rank_change", std::move(fused), true));

    fused.clear();
    fused.push_back(makeParameter(200, 0, "f32[16,4]{1,0}"));
    fused.push_back(makeParameter(201, 1, "f32[4,8]{1,0}"));
    fused.push_back(makeMatmulConvolution(202, 200, 201, "f32[16,8]{1,0}"));
    fused.push_back(makeInstruction(203, "reshape.1", "reshape", "f32[16,8]{1,0}", {202}));
    fused.push_back(makeInstruction(204, "bitcast.2", "bitcast", "f32[32,4]{1,0}", {203}));
    module.computations.push_back(makeComputation(11, "fused_same_rank", std::move(fused), true));

    fused.clear();
    fused.push_back(makeParameter(300, 0, "f32[16,8]{1,0}"));
    fused.push_back(makeInstruction(301, "exp.1", "exponential", "f32[16,8]{1,0}", {300}));
    module.computations.push_back(makeComputation(12, "fused_loop", std::move(fused), true));

    // Malformed: an add that is its own operand must not loop forever.
    fused.clear();
    fused.push_back(makeInstruction(400, "add.9", "add", "f32[2]{0}", {400, 400}));
    module.computations.push_back(makeComputation(13, "fused_cycle", std::move(fused), true));

    std::vector<hlo::Instruction> entry;
    entry.push_back(makeParameter(1, 0, "f32[16,4]{1,0}"));
    entry.push_back(makeParameter(2, 1, "f32[4,8]{1,0}"));
    auto rankChange = makeInstruction(3, "fusion.rank", "fusion", "f32[16,2,4]{2,1,0}", {1, 2});
    rankChange.calledComputationIds = {10};
    auto sameRank = makeInstruction(4, "fusion.same", "fusion", "f32[32,4]{1,0}", {1, 2});
    sameRank.calledComputationIds = {11};
    auto loop = makeInstruction(5, "fusion.loop", "fusion", "f32[16,8]{1,0}", {1});
    loop.calledComputationIds = {12};
    auto cycle = makeInstruction(6, "fusion.cycle", "fusion", "f32[2]{0}", {1});
    cycle.calledComputationIds = {13};
    auto dangling = makeInstruction(7, "fusion.dangling", "fusion", "f32[2]{0}", {1});
    dangling.calledComputationIds = {999};
    entry.push_back(std::move(rankChange));
    entry.push_back(std::move(sameRank));
    entry.push_back(std::move(loop));
    entry.push_back(std::move(cycle));
    entry.push_back(std::move(dangling));
    module.computations.push_back(makeComputation(20, "main", std::move(entry), false));
    module.buildIndex();

    using enum DimSemantics;
    const auto* rank = module.instruction("fusion.rank");
    ASSERT_NE(rank, nullptr);
    ASSERT_NE(layout::findComputeCore(module, *rank), nullptr); // the core is found through the bitcast
    EXPECT_TRUE(layout::inferOutputSemantics(module, *rank).empty()); // but its dims cannot be mapped

    // Same rank, different sizes: only unchanged dims keep their label.
    const auto* same = module.instruction("fusion.same");
    ASSERT_NE(same, nullptr);
    EXPECT_EQ(layout::inferOutputSemantics(module, *same), (std::vector<DimSemantics> {Unknown, Unknown}));

    for (const char* name : {"fusion.loop", "fusion.cycle", "fusion.dangling", "p0.1"}) {
        SCOPED_TRACE(name);
        const auto* instruction = module.instruction(name);
        ASSERT_NE(instruction, nullptr);
        EXPECT_EQ(layout::findComputeCore(module, *instruction), nullptr);
        EXPECT_TRUE(layout::inferOutputSemantics(module, *instruction).empty());
        EXPECT_TRUE(layout::inferOperandSemantics(module, *instruction, 0).empty());
    }
}

TEST(LayoutSemantics, MultiOutputAndNestedFusions)
{
    hlo::Module module;
    std::vector<hlo::Instruction> inner;
    inner.push_back(makeParameter(100, 0, "f32[16,4]{1,0}"));
    inner.push_back(makeParameter(101, 1, "f32[4,8]{1,0}"));
    inner.push_back(makeMatmulConvolution(102, 100, 101, "f32[16,8]{1,0}"));
    module.computations.push_back(makeComputation(10, "inner", std::move(inner), true));

    std::vector<hlo::Instruction> outer;
    outer.push_back(makeParameter(200, 0, "f32[16,4]{1,0}"));
    outer.push_back(makeParameter(201, 1, "f32[4,8]{1,0}"));
    auto nested = makeInstruction(202, "fusion.inner", "fusion", "f32[16,8]{1,0}", {200, 201});
    nested.calledComputationIds = {10};
    outer.push_back(std::move(nested));
    outer.push_back(makeInstruction(203, "negate.1", "negate", "f32[16,8]{1,0}", {202}));
    outer.push_back(makeInstruction(204, "tuple.1", "tuple", "(f32[16,8]{1,0}, f32[16,8]{1,0})", {202, 203}));
    module.computations.push_back(makeComputation(11, "outer", std::move(outer), true));

    std::vector<hlo::Instruction> entry;
    entry.push_back(makeParameter(1, 0, "f32[16,4]{1,0}"));
    entry.push_back(makeParameter(2, 1, "f32[4,8]{1,0}"));
    auto multi = makeInstruction(3, "fusion.multi", "fusion", "(f32[16,8]{1,0}, f32[16,8]{1,0})", {1, 2});
    multi.calledComputationIds = {11};
    entry.push_back(std::move(multi));
    module.computations.push_back(makeComputation(20, "main", std::move(entry), false));
    module.buildIndex();

    const auto* multiOutput = module.instruction("fusion.multi");
    ASSERT_NE(multiOutput, nullptr);
    const auto* core = layout::findComputeCore(module, *multiOutput);
    ASSERT_NE(core, nullptr);
    EXPECT_EQ(core->id, 102);
    EXPECT_TRUE(layout::inferOutputSemantics(module, *multiOutput).empty()); // tuple output

    const auto* negate = module.instruction("negate.1");
    ASSERT_NE(negate, nullptr);
    const auto* nestedFusion = module.instruction("fusion.inner");
    ASSERT_NE(nestedFusion, nullptr);
    using enum DimSemantics;
    EXPECT_EQ(layout::inferOutputSemantics(module, *nestedFusion), (std::vector<DimSemantics> {Batch, Feature}));
    EXPECT_EQ(
        layout::inferOperandSemantics(module, *nestedFusion, 1), (std::vector<DimSemantics> {Contracting, Feature}));
}
