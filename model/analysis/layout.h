// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// HLO shape/layout text parsing, TPU tiling padding math (FORMATS.md §6.2) and the dimension
// semantics (batch/feature/...) that the padding view labels its rows with (FORMATS.md §4.2, §4.3).

#include "../core/hlo.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpuscope::model::layout {

struct ShapeParseResult
{
    hlo::Shape shape;
    std::string error;
    bool ok() const { return error.empty(); }
};

/// Parses an HLO text shape with optional layout: "f32[5,1024]{1,0:T(8,128)S(5)}", "bf16[]{:T(256)}",
/// "s32[]", tuples "(f32[2]{0}, (s32[], bf16[4,4]{1,0}))", dynamic dims "f32[<=16,8]" (stored as the
/// bound; an unbounded "?" dim is stored as -1). Layout annotations: T(..)(..) tiles ("*" = combine),
/// L(n) tail padding alignment, E(n) element bits, S(n) memory space; others (D, #, *, SC, P, M, ...)
/// are skipped. Leading/trailing whitespace is allowed, anything else after the shape is an error.
/// Errors name the character offset: "expected ']' at offset 7 in 'f32[3,4'".
ShapeParseResult parseShape(std::string_view text);

/// Parses just a layout, with or without braces: "{3,2,1,0:T(8,128)S(5)}" or "3,2,1,0:T(8,128)".
std::optional<hlo::Layout> parseLayout(std::string_view text, std::string* error = nullptr);

/// The result shape of one line of HLO text: the shape right after the first '=', e.g.
/// "%fusion.3 = bf16[16,1]{0,1:T(8,128)(2,1)} fusion(...), kind=kOutput" -> bf16[16,1]{0,1:...}.
/// Text after the shape is ignored; error offsets count from the start of the line.
ShapeParseResult parseInstructionResultShape(std::string_view hloTextLine);

enum class DimSemantics : uint8_t { Unknown, Batch, Feature, Spatial, Contracting, NonContracting };

/// "batch", "feature", "spatial", "contracting", "non-contracting", "unknown".
const char* semanticsName(DimSemantics semantics);

struct DimPadding
{
    int64_t logicalDim = 0; // index into shape.dimensions
    int64_t size = 0; // logical size
    int64_t padded = 0; // size after all tiles (see computePadding for combined dims)
    int64_t tile = 0; // extent of the first tile on this dim; 0 when the first tile does not cover it
    DimSemantics semantics = DimSemantics::Unknown;
};

struct PaddingInfo
{
    bool valid = false; // false for tuples/tokens/missing layout/invalid layouts (see error)
    std::string error;
    std::vector<DimPadding> dims; // physical order, most-MINOR first (like op_profile LayoutAnalysis)
    int64_t logicalElements = 0, paddedElements = 0;
    int64_t logicalBytes = 0, paddedBytes = 0;
    int64_t memorySpace = 0;
    // Padding from tile dims beyond the array's rank (a scalar in T(256) is one element of 256); it is
    // part of paddedElements but belongs to no logical dim.
    int64_t implicitTilePadding = 1;
    double efficiency = 1; // logicalElements / paddedElements (1 for empty arrays)
    std::string tileText; // e.g. "T(8,128)(2,1)"; empty when the layout has no tiles

    double paddingFraction() const { return 1.0 - efficiency; }
    /// The dims covered by the first tile, minor-most first: f32[16,1]{0,1:T(8,128)} gives
    /// "16·1 of 128·8 used", a scalar in T(256) "1 of 256 used". Empty when there are no tiles.
    std::string usedOfTileText() const;
};

/// Padding of one array shape (not a tuple). `semantics` is indexed by LOGICAL dimension and may be
/// shorter than the rank (missing entries are Unknown). Without a layout the result is not valid but
/// still carries the logical sizes (padded = logical) in the default {n-1,...,0} order.
/// Dims merged by a combining tile entry ("*") report padded = size; the combined padding is charged to
/// the next minor dim (rounded up), so only paddedElements is exact in that rare case.
PaddingInfo computePadding(const hlo::Shape& arrayShape, const std::vector<DimSemantics>& semantics = {});

/// Semantics of the OUTPUT dimensions of an instruction, indexed by logical dim; empty when unknown.
/// * convolution: output batch/feature/spatial dimension numbers.
/// * dot: batch dims -> Batch, lhs and rhs non-contracting dims -> NonContracting (which side holds
///   "features" depends on the model, so no guess is made).
/// * fusion (or anything else): the compute core found by findComputeCore, mapped to the root through
///   shape-preserving ops (convert, copy, elementwise, same-shape bitcast/reshape). Where a bitcast or
///   reshape keeps the rank but changes sizes, only dims whose size did not change keep their label.
std::vector<DimSemantics> inferOutputSemantics(const hlo::Module& module, const hlo::Instruction& instruction);

/// Semantics of operand `operandIndex` of a convolution/dot (input: batch/feature/spatial, kernel:
/// contracting input feature, feature output feature, spatial; dot: batch/contracting/non-contracting),
/// or of a fusion whose parameter reaches its core unchanged. Empty when unknown.
std::vector<DimSemantics> inferOperandSemantics(
    const hlo::Module& module, const hlo::Instruction& instruction, size_t operandIndex);

/// A filter (weight) gradient: a convolution whose kernel operand is spatially larger than its output
/// in every spatial dimension (the output gradient slid over the activations; XLA's own test for a
/// backward-filter convolution). Its output is a kernel (input feature, output feature, spatial),
/// never a batch; its input's "feature" dimension, which it contracts, is the model's batch.
bool isFilterGradient(const hlo::Module& module, const hlo::Instruction& convolution);

/// The convolution or dot instruction that a fusion (or the instruction itself) is built around, or
/// nullptr. Follows the fused root back through shape-preserving ops, tuples and nested fusions.
const hlo::Instruction* findComputeCore(const hlo::Module& module, const hlo::Instruction& instruction);

} // namespace tpuscope::model::layout
