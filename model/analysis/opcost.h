// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What an op's recorded cost can be trusted for: whether the producer recorded any cost at all,
// whether it is a custom kernel's own estimate, whether the op is one half of an async pair, and
// which of its bytes live in host memory (S(5)) or VMEM (S(1)) rather than HBM (FORMATS.md §6.2).

#include "../core/profile.h"

#include <string>
#include <vector>

namespace tpuscope::model {

enum class AsyncRole : uint8_t { None, Start, Done };

struct OpCostTraits
{
    /// The producer recorded FLOPs or bytes for the op. Custom kernels often record neither
    /// (model_flops = bytes_accessed = 0): their utilization is unknown, not zero.
    bool costKnown = false;
    /// The cost comes from a custom kernel's own estimate (custom-call, Pallas/Mosaic): it may
    /// over-count, and is never evidence about the device.
    bool customKernel = false;
    /// Moves data to or from host memory (an operand or result in memory space S(5)).
    bool hostTransfer = false;
    /// A collective (all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute, async
    /// collective fusions): its limit is the interconnect, so the HBM/compute roofline says nothing
    /// about whether it is slow.
    bool collective = false;
    AsyncRole async = AsyncRole::None;
    OpId partner = kNone; // the other half of an async pair (same program), when present
    /// Bytes of operands and results in VMEM (S(1)); they are not HBM traffic.
    double vmemBytes = 0;
    /// Largest single array among the op's operands and results (padded bytes), a lower bound of
    /// the per-core memory footprint.
    double largestArrayBytes = 0;
    /// Program parameters the op reads (HLO entry parameters, in HBM), by instruction name with
    /// their padded bytes: they are all live while the program runs, so their sum over a program
    /// is a lower bound of its per-core footprint.
    std::vector<std::pair<std::string, double>> hbmParameters;
};

/// Classifies every op of the profile (indexed by OpId).
std::vector<OpCostTraits> classifyOpCosts(const Profile& profile);

/// The HLO text the traits are read from: the producer's long name, else the instruction text of
/// the op's program; empty when neither exists.
std::string opHloText(const Profile& profile, OpId op);

} // namespace tpuscope::model
