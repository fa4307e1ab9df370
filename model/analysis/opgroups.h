// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Ops repeated per layer, grouped, and what a custom kernel's shapes say about its cost.
//
// A model of 64 layers runs each layer's ops 64 times under 64 names ("convolution_bitcast_fusion.12",
// ".13", ...): each row holds 0.5 % of the time, and the table's top 20 are one layer's op. A group
// is the ops of one program with the same name stem (the name with its ".N" instance numbers
// replaced by ".*") and the same HLO up to operand names, or where the file has no HLO the same
// framework op. The op table (`ops --by group`, the GUI's "By layer group") and the advice evidence
// show a group with its total time.

#include "../core/profile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tpuscope::model {

struct OpBreakdown;
struct OpModel;

/// The name with every ".N" instance number replaced by ".*": "all-reduce.12" -> "all-reduce.*",
/// "fusion.19.in_megacore_fusion.1" -> "fusion.*.in_megacore_fusion.*".
std::string opNameStem(std::string_view name);

/// The grouping key of one op: its name stem with its HLO text up to instruction names (and without
/// metadata), else its framework op; an op with neither is a group of its own (its name).
uint64_t opGroupKey(std::string_view name, std::string_view hloText, std::string_view frameworkOp);

/// The same key from an HLO instruction of a module (files with HloProtos instead of HLO text): its
/// opcode, result and operand shapes, fusion kind and the opcodes of the computations it calls.
uint64_t opGroupKey(std::string_view name, const hlo::Module& module, const hlo::Instruction& instruction);

/// One group of op rows of an op-level breakdown.
struct OpGroup
{
    std::string label; // the stem for a group of several ops, else the op's name
    int64_t ops = 0; // op rows in the group
    double timePs = 0; // their total time, all cores
    double timeFraction = 0; // of the total op time
    OpId top = kNone; // the member with the most time
};

struct OpGroups
{
    std::vector<OpGroup> groups; // by time, descending
    std::unordered_map<OpId, size_t> groupOfOp; // the op of each row -> its group

    /// The group of a row's op, or nullptr.
    const OpGroup* of(OpId op) const;
};

/// The groups of an op-level breakdown's rows (OpRow::groupKey, per program).
OpGroups groupOps(const OpBreakdown& opLevel);

/// The FLOPs and HBM bytes of one run of a custom kernel that is a matmul, from its operand and
/// result shapes in its HLO text: an operand X[..., M, K] and a weight W[K, N] (or W[N, K], or a
/// grouped W[G, K, N]) for a result [..., M, N]: 2·batch·M·N·K FLOPs, and every operand and result
/// outside VMEM read or written once. Only for kernels whose name, framework op or HLO text says
/// matmul (matmul, gemm, gmm, dot_general, linear); empty otherwise.
struct KernelCost
{
    double flops = 0;
    double bytes = 0;
    int64_t m = 0, n = 0, k = 0, batch = 1;
};
std::optional<KernelCost> matmulKernelCost(
    std::string_view hloText, std::string_view name, std::string_view frameworkOp);

} // namespace tpuscope::model
