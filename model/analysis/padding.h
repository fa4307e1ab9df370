// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Per-op tile padding (which arrays an op writes/reads, how much of their TPU tiles is padding)
// and the per-core batch inferred from the convolutions/dots that dominate time. The padding
// math itself lives in layout.h; this file decides which shapes to look at and labels them.

#include "../core/profile.h"
#include "layout.h"
#include "opbreakdown.h"
#include "updatewrite.h"

#include <string>
#include <string_view>
#include <vector>

namespace tpuscope::model {

/// Where an op's shape came from, best first.
enum class ShapeSource : uint8_t { None, Hlo, ShapeWithLayout, HloText, LayoutHint };
const char* shapeSourceName(ShapeSource source);

struct ArrayPadding
{
    std::string role; // "output", "output {1}", "activation (operand 0 of convolution.114)"
    hlo::Shape shape; // an array shape (tuples are split into elements)
    std::vector<layout::DimSemantics> semantics; // by logical dim; may be empty
    layout::PaddingInfo padding;
    /// How the tiling was known when the shape itself does not record it: "from the op_profile layout
    /// analysis", "T(8,128) assumed for an untiled 32-bit layout"; empty for a recorded tiled layout.
    std::string assumption;

    /// Index into padding.dims of the first dim labelled Batch, or -1.
    int batchDim() const;
};

/// The array's shape as HLO text, or "[16,1] (element type not recorded)" for a layout analysis.
std::string arrayShapeText(const ArrayPadding& array);

/// A padding efficiency as the views print it: two decimals below 10 % ("1.56%"), one above
/// ("45.3%"), "100%" when full to two decimals.
std::string paddingEfficiencyText(double efficiency);
/// An array's padding in one phrase, so that the Details panel and `tpuscope-cli fusion` say the same:
/// "16·1 of 128·8 used = 1.56%", "no tiling, 100% of the buffer used" for a layout without tiles, or
/// why the padding is unknown.
std::string paddingText(const layout::PaddingInfo& padding);

struct OpPadding
{
    OpId op = kNone;
    std::string_view name; // the profile's string, as module and instruction (a copy per breakdown row
                           // was one more copy of a big op name in the advice, issue 18)
    ShapeSource source = ShapeSource::None;
    std::string error; // why no shape could be resolved (empty when arrays are present)
    const hlo::Module* module = nullptr; // owned by the Profile
    const hlo::Instruction* instruction = nullptr; // the op's HLO instruction, when the file has HLO
    const hlo::Instruction* computeCore = nullptr; // the convolution/dot the op is built around
    std::vector<ArrayPadding> arrays; // outputs first, then the core's activation input
    int64_t batchSize = -1; // batch dimension of the compute core's output; -1 = unknown
    bool batchFromDot = false; // the batch came from dot batch dims (weaker evidence than a conv)
    /// An update op (dynamic-update-slice, scatter, a fusion rooted in one): the update operand it
    /// writes, the strided-update advice's evidence. Not among `arrays`: it is not the op's output.
    std::optional<UpdateWrite> update;

    /// The array with the lowest valid efficiency (nullptr when none is valid).
    const ArrayPadding* worst() const;
    double worstEfficiency() const;
};

/// Padding of the array an op_profile LayoutAnalysis describes (FORMATS.md §4.2–4.3): per dimension
/// fill = size / (ceil(size / alignment) · alignment) (alignment 0 = no constraint, fill 1), padding
/// efficiency = product of the fills. Dims keep the hint's order (most-minor first), `tile` is the
/// alignment; element sizes are unknown, so bytes stay 0.
layout::PaddingInfo paddingFromLayoutHints(const std::vector<LayoutDimensionHint>& hints);

/// Resolves an op's output shape(s) and layout from its HLO instruction (through fusions to the
/// convolution/dot for semantics), else from the shape_with_layout stat, else from the HLO text in
/// the long name. An op_profile layout analysis (Profile::layoutHints) is used when the HLO records
/// no tiles (TF1 files); an untiled 32-bit layout of rank >= 2 is otherwise taken as T(8,128), the
/// TPU default, and says so in ArrayPadding::assumption. For a convolution (or a fusion around one) the activation
/// input (operand 0) is added too: on TPU the batch/feature padding of the activation is where small batches hurt.
OpPadding resolveOpPadding(const Profile& profile, OpId op);

struct BatchCandidate
{
    int64_t batch = 0;
    double timePs = 0; // time of the ops that use this batch size
    std::vector<OpId> ops;
};

struct BatchInference
{
    bool known = false;
    int64_t perCoreBatch = 0;
    int cores = 0;
    int64_t globalBatch = 0; // perCoreBatch × cores (all cores assumed data-parallel)
    double agreeingShare = 0; // of the time of ops with a known batch, the share using perCoreBatch
    double coveredShare = 0; // of all op time, the share of ops with a known batch dimension
    bool fromDotsOnly = false;
    std::string confidence = "none"; // high, medium, low, none
    std::string reason; // why that confidence, in words
    std::vector<OpId> ops; // the agreeing ops, by time
    std::vector<BatchCandidate> candidates; // all batch sizes seen, by time
    /// One sentence: "per-core batch 16 from the batch dimension of convolution ...".
    std::string explanation(const Profile& profile) const;
};

/// Per-core batch = time-weighted mode of the batch dimension of the convolutions/dots (found
/// through fusions) over the ops of `breakdown` (an op-level breakdown).
BatchInference inferPerCoreBatch(const Profile& profile, const OpBreakdown& breakdown);
BatchInference inferPerCoreBatch(const Profile& profile);
/// The same from the rows' paddings resolved already (resolveRowPaddings of `breakdown`).
BatchInference inferPerCoreBatch(
    const Profile& profile, const OpBreakdown& breakdown, const std::vector<OpPadding>& rowPaddings);

/// resolveOpPadding of each row's op, in row order (an empty OpPadding for a row of no op), the
/// rows side by side on the shared pool.
std::vector<OpPadding> resolveRowPaddings(const Profile& profile, const OpBreakdown& breakdown);

struct WhatIfOp
{
    OpId op = kNone;
    std::string name;
    std::string role; // which array (output / activation)
    double timeFraction = 0;
    double currentEfficiency = 1;
    double newEfficiency = 1;
    std::string currentUsed; // "16·1 of 128·8 used"
    std::string newUsed;
};

struct WhatIfResult
{
    bool valid = false;
    std::string error;
    int64_t perCoreBatch = 0;
    int cores = 0;
    int64_t globalBatch = 0;
    double currentWeightedEfficiency = 1; // time-weighted over ops
    double newWeightedEfficiency = 1;
    std::vector<WhatIfOp> ops; // the dominant ops with a batch dimension, by time
};

/// The padding efficiency the dominant ops (those with a batch dimension) would get with another
/// per-core batch: the batch dims are replaced and the padding recomputed with the same layout.
/// For each op the array with the lowest current efficiency is reported. Only ops whose batch is
/// `currentBatch` take part (0 = the inferred per-core batch), so that a kernel-gradient convolution,
/// whose "batch" dimension is really input features, is not scaled with the batch.
WhatIfResult whatIfBatch(const Profile& profile, const OpBreakdown& breakdown, int64_t perCoreBatch, size_t maxOps = 8,
    int64_t currentBatch = 0);
WhatIfResult whatIfBatch(const Profile& profile, int64_t perCoreBatch);

/// HLO text of one instruction, e.g. "%fusion.3 = f32[16,1]{0,1:T(8,128)} fusion(%a, %b), kind=kOutput".
std::string instructionSummary(const hlo::Module& module, const hlo::Instruction& instruction);

} // namespace tpuscope::model
