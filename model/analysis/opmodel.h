// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The op model: for every op kind of a profile, decided once, what work it does (its class), which
// program it belongs to, its async partner, which resource its rates are measured against, and
// what its recorded cost can be trusted for. Every view, report, advice rule, colour and the share
// file read this instead of looking at op names or categories themselves (FORMATS.md §2.6, §6.2).

#include "../core/profile.h"

#include <algorithm>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tpuscope::model {

enum class AsyncRole : uint8_t { None, Start, Done };

/// What an op's bytes move over, and so which peak its rate is compared with.
enum class RatedAgainst : uint8_t {
    Roofline, // the FLOP peak and HBM bandwidth (compute ops, fusions, custom kernels, HBM copies)
    HostLink, // the host link (transfers to or from host memory, S(5))
    Ici, // the inter-chip interconnect (collectives)
    OnChip, // on-chip memory (copies into VMEM or another on-chip space): no HBM rate applies
    Nothing, // control flow, infeed/outfeed, unattributed time
};
/// "roofline", "host link", "ICI", "on-chip memory", "nothing".
const char* ratedAgainstName(RatedAgainst against);

/// Where an op's FLOPs and bytes come from: the file's own cost records, an estimate from the
/// operand and result shapes in its HLO text (a custom matmul kernel that records no cost), or
/// nowhere (unknown: no utilization, no roofline position).
enum class CostSource : uint8_t { None, File, Shapes };
/// "file", "shapes", "none" (JSON cost_source).
const char* costSourceName(CostSource source);

struct OpTraits
{
    OpClass opClass = OpClass::Compute;
    CollectiveKind collective = CollectiveKind::None;
    TransferDirection direction = TransferDirection::None; // host transfers
    int memorySpace = -1; // copies: the destination's memory space (0 HBM, 1 VMEM, 5 host); -1 unknown
    AsyncRole async = AsyncRole::None;
    OpId partner = kNone; // the other half of an async pair (same program), when present
    RatedAgainst ratedAgainst = RatedAgainst::Roofline;
    /// The file records the op's cost (FLOPs or bytes). A recorded zero is a known zero; custom
    /// kernels that record all zeros (model_flops = bytes_accessed = 0) are unknown, not zero.
    bool costKnown = false; // flopsKnown || bytesKnown
    bool flopsKnown = false;
    bool bytesKnown = false;
    /// The cost comes from a custom kernel's own estimate (custom-call, Pallas/Mosaic): it may
    /// over-count, and is never evidence about the device.
    bool customKernel = false;
    CostSource costSource = CostSource::None;
    /// With CostSource::Shapes, one run's FLOPs and HBM bytes estimated from the HLO text's shapes
    /// (matmulKernelCost, opgroups.h); what flopsPerOccurrence and hbmBytesPerOccurrence return.
    double shapeFlops = 0;
    double shapeBytes = 0;
    /// Ops repeated per layer share this key (opGroupKey, opgroups.h): name stem and HLO up to
    /// instruction names, else framework op.
    uint64_t groupKey = 0;
    /// Bytes of operands and results in VMEM (S(1)); they are not HBM traffic.
    double vmemBytes = 0;
    /// Largest single array among the op's operands and results (padded bytes), a lower bound of
    /// the per-core memory footprint.
    double largestArrayBytes = 0;
    /// The same at its logical size (no tile padding): the data a collective moves per device.
    double largestArrayLogicalBytes = 0;
    /// The array an async copy or host transfer moves (logical bytes of its destination), per
    /// occurrence; 0 when the HLO does not say.
    double transferBytes = 0;
    /// Program parameters the op reads (HLO entry parameters, in HBM), by instruction name with
    /// their padded bytes: they are all live while the program runs, so their sum over a program
    /// is a lower bound of its per-core footprint.
    std::vector<std::pair<std::string, double>> hbmParameters;

    bool isCollective() const
    {
        return opClass == OpClass::SyncCollective || opClass == OpClass::AsyncCollectiveStart
            || opClass == OpClass::AsyncCollectiveDone;
    }
    bool isHostTransfer() const
    {
        return opClass == OpClass::HostTransferStart || opClass == OpClass::HostTransferDone
            || opClass == OpClass::HostTransfer;
    }
    bool isAsyncCopy() const { return opClass == OpClass::CopyStart || opClass == OpClass::CopyDone; }
    /// Copies, transposes and host transfers: ops that only move or re-lay data.
    bool movesData() const { return opClass == OpClass::DataFormatting || isAsyncCopy() || isHostTransfer(); }
    bool isFusion() const { return opClass == OpClass::ComputeFusion; }
    bool isInfeedOrOutfeed() const { return opClass == OpClass::Infeed || opClass == OpClass::Outfeed; }
    /// The half of an async pair whose partner is in the profile.
    bool isPairHalf() const { return async != AsyncRole::None && partner != kNone; }
};

/// The traits of every op of one profile, indexed by OpId.
struct OpModel
{
    std::vector<OpTraits> ops;

    const OpTraits& operator[](OpId id) const { return ops[id]; }
    size_t size() const { return ops.size(); }
};

OpModel buildOpModel(const Profile& profile);

/// The HBM bytes one occurrence of an op moves: the breakdown's HBM entries where the file records
/// them, else bytes accessed less the arrays in VMEM. The op table, the utilization series and the
/// share file's chunks all count HBM bytes through this one function.
double hbmBytesPerOccurrence(const OpInfo& op, const OpTraits& traits);
/// The FLOPs one occurrence of an op does: the file's, or the shapes' estimate (CostSource::Shapes).
double flopsPerOccurrence(const OpInfo& op, const OpTraits& traits);

/// Matches the async pairs of one track, oldest open start first: calls `matched(doneIndex,
/// startIndex)` for every done event whose start half is on the track before it. Events that start
/// at the same instant are sorted longest first, so a start issued at its done half's instant comes
/// after it: it is looked for there too. Every reader of pair spans (the breakdown, the host link)
/// matches pairs this one way.
template <typename Matched> void forEachAsyncPair(const Track& track, const OpModel& model, Matched&& matched)
{
    std::unordered_map<OpId, std::deque<size_t>> open;
    std::vector<size_t> taken; // starts matched ahead of their turn (same instant as their done half)
    const size_t n = track.size();
    for (size_t i = 0; i < n; ++i) {
        const OpTraits& t = model[track.op[i]];
        if (t.async == AsyncRole::Start) {
            if (auto it = std::find(taken.begin(), taken.end(), i); it != taken.end())
                taken.erase(it);
            else
                open[track.op[i]].push_back(i);
        } else if (t.async == AsyncRole::Done) {
            auto it = open.find(t.partner);
            if (it != open.end() && !it->second.empty()) {
                matched(i, it->second.front());
                it->second.pop_front();
                continue;
            }
            for (size_t j = i + 1; j < n && track.start[j] == track.start[i]; ++j)
                if (track.op[j] == t.partner && std::find(taken.begin(), taken.end(), j) == taken.end()) {
                    taken.push_back(j);
                    matched(i, j);
                    break;
                }
        }
    }
}

/// The program column of an op's row: the program's name, "program N" for an id without a module,
/// empty when the file names none. Op rows are keyed by (this, the op's name).
std::string opProgramLabel(const Profile& profile, const OpInfo& op);

/// The HLO text the traits are read from: the producer's long name, else the instruction text of
/// the op's program; empty when neither exists.
std::string opHloText(const Profile& profile, OpId op);

/// Whether an HLO category is a fusion (xprof IsFusion: ends in " fusion").
bool isFusionCategory(std::string_view category);

/// The opcode of a line of HLO text ("%x = bf16[8]{0} all-gather-start(...)" -> "all-gather-start");
/// empty when the line is not an instruction.
std::string_view hloTextOpcode(std::string_view text);

} // namespace tpuscope::model
