// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Which op of one profile is which op of another, across a recompile. XLA numbers its instructions
// anew at each compilation (fusion.3 may come back as fusion.41, and fusion.3 may then be another
// op), so the name alone proves nothing once the HLO is known. The ops are matched in tiers, each
// among what the tiers before it left, a key counting only when it is unique on both sides:
//  1. name: the same name, program and HLO (the HLO is not compared when a side has none);
//  2. fingerprint: the same HLO fingerprint, what the op computes with every name left out (the
//     fused computation's opcodes, element types and structure), first with the dimension sizes,
//     then without them (a new batch changes every size);
//  3. framework-op: the same framework op and source line ("unet/conv2d_18/Conv2D" at unet.py:87).
// Each tier first tries its key within one program name, then across programs.

#include "../core/hlo.h"
#include "../core/profile.h"
#include "opbreakdown.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpuscope::model {

enum class MatchedBy : uint8_t { None, Name, Fingerprint, FrameworkOp };
/// "name", "fingerprint", "framework-op"; nullptr for None.
const char* matchedByName(MatchedBy how);

/// What an instruction computes, names left out: a hash of its opcode, fusion kind, result and
/// operand types, and of every computation it calls (each instruction's opcode, element type,
/// operands by position, parameter number), walked from the root. Layouts are left out too (a
/// recompile may choose others); `exact` has the dimension sizes, `shapeless` only the ranks.
struct HloFingerprint
{
    bool known = false; // the op has an HLO instruction
    uint64_t exact = 0;
    uint64_t shapeless = 0;
    size_t instructions = 0; // in the computations it calls (0 for an op that calls none)
};
HloFingerprint hloFingerprint(const hlo::Module& module, const hlo::Instruction& instruction);

/// What the tiers compare of one op row.
struct OpMatchKey
{
    std::string name;
    std::string program;
    std::string frameworkOp; // empty when not recorded
    std::string source; // "file.py:87"; empty when not recorded
    HloFingerprint fingerprint;
};
/// The keys of an op-level breakdown's rows, in row order.
std::vector<OpMatchKey> opMatchKeys(const Profile& profile, const OpBreakdown& breakdown);

struct OpMatching
{
    std::vector<int> matchOfA; // per row of a: the row of b it matches, -1 none
    std::vector<MatchedBy> how; // per row of a
    std::vector<bool> usedB; // per row of b: matched
};
OpMatching matchOps(const std::vector<OpMatchKey>& a, const std::vector<OpMatchKey>& b);

} // namespace tpuscope::model
