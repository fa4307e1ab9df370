// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Why a matched op changed between two profiles, in phrases a person reads: its shapes (the
// per-core batch), its layout and tiles, the padding of each dimension (tile efficiency, from
// the padding analysis both sides already have), the fusion boundary (instructions gained or
// lost), and its time, utilization and bytes.

#include "../core/profile.h"

#include <optional>
#include <string>
#include <vector>

namespace tpuscope::model {

enum class DiffReasonKind : uint8_t { Shape, Padding, Layout, Fusion, Time, Utilization, Bytes };
/// "shape", "padding", "layout", "fusion", "time", "utilization", "bytes".
const char* diffReasonKindName(DiffReasonKind kind);

struct DiffReason
{
    DiffReasonKind kind = DiffReasonKind::Time;
    std::string text; // "per-core batch 16 → 128: tile efficiency 12.5% → 100%"
};

/// One side of a matched op, its figures per step and core (or per core over the profile).
struct DiffFigures
{
    double timePs = 0;
    std::optional<double> flopsUtilization;
    std::optional<double> hbmUtilization;
    double hbmBytes = 0;
};

/// What changed from op `a` of `before` to op `b` of `after`, most telling first: shape and
/// padding, fusion boundary, layout, then time, utilization and bytes. Empty when nothing did.
/// The per-core batch of an op is its convolution's or dot's (padding.h); an op without one whose
/// output changed in one dimension from the profiles' per-core batch before to the one after
/// (0 = unknown) has that dimension as its batch.
std::vector<DiffReason> explainOpChange(const Profile& before, OpId a, const DiffFigures& figuresA,
    const Profile& after, OpId b, const DiffFigures& figuresB, int64_t perCoreBatchA = 0, int64_t perCoreBatchB = 0);

} // namespace tpuscope::model
