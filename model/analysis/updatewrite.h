// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What an update op writes: the update operand of a dynamic-update-slice or scatter (or of the
// root of a fusion built around one), the array it is written into, and whether the slice is
// thinner than that array's tile in a tiled dimension, so that every write touches a few rows of
// many tiles. The strided-update advice and the drill-down (`tpuscope-cli fusion`, the Details
// panel) both read it, so the drill-down shows the advice's evidence in the advice's words.

#include "../core/profile.h"
#include "layout.h"

#include <optional>
#include <string>

namespace tpuscope::model {

struct UpdateWrite
{
    std::string opcode; // "dynamic-update-slice" or "scatter"
    size_t operandIndex = 0; // of the update among the update op's operands
    std::string updateOp; // the update instruction's name (a fusion's root, or the op itself)
    hlo::Shape target; // the array written into, with its (tiled) layout
    hlo::Shape update; // the slice written per occurrence, with its own layout
    layout::PaddingInfo updatePadding; // the update's own tiles (paddingText says how full)
    bool strided = false; // thinner than the target's tile in a tiled dimension
    int64_t dim = -1; // when strided: the target's logical dim where the slice is thinner than the tile
    int64_t tileExtent = 0; // the tile's extent in that dim
    bool minorMost = false; // that dim is the tile's lane (most-minor) dim, else its sublane dim
    double fill = 1; // share of each touched tile span the update fills, over the tiled dims

    /// "update (operand 1 of dynamic-update-slice.33)".
    std::string role() const;
};

/// The write of an update op, from its HLO instruction (through a fusion to its root) when the
/// file has HLO, else from the HLO text of the event; empty for any other op, or when the shapes
/// are not recorded.
std::optional<UpdateWrite> resolveUpdateWrite(
    const Profile& profile, OpId op, const hlo::Module* module, const hlo::Instruction* instruction);

/// The advice's phrase: "writes f32[1,7168,512]{2,0,1:T(1,128)} into f32[16,7168,512]{2,0,1:T(8,128)}:
/// dimension 0 (size 16, the stacked axis) sits in the tile's second-minor (sublane) dimension, and
/// each update fills 1 of the 8 rows of every tile it writes (12.5% of the tile), so the writes are
/// strided"; for a write that is not strided, "writes X into Y, whole tile rows at a time".
std::string updateWriteText(const UpdateWrite& write);

} // namespace tpuscope::model
