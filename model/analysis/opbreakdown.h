// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../core/profile.h"
#include "opmodel.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tpuscope::model {

/// FrameworkOp groups by the TF/JAX op an HLO op came from (":Type" dropped), Source by its file:line
/// (attribution.h); ops whose file records neither land in one "(not recorded)" row.
/// LayerGroup groups ops repeated per layer (opgroups.h: name stem and HLO up to operand names,
/// else framework op), one row per group with its total.
enum class GroupBy { Op, Category, Program, FrameworkOp, Source, LayerGroup };

struct OpFilter
{
    int core = -1; // TPU core index (Plane::coreIndex); -1 = all cores
    TimePs rangeBegin = 0; // events overlapping [begin, end); end <= begin means everything
    TimePs rangeEnd = 0;
};

/// What limits an op (xprof's bound-by, FORMATS.md §7): the FLOP peak or HBM bandwidth for ops
/// on the roofline, the host link for transfers to or from host memory (S(5)), the inter-chip
/// interconnect for collectives; Unknown when the cost or the peaks are unknown, when the op
/// records neither FLOPs nor bytes, or for copies into on-chip memory (xprof: "Unknown").
enum class BoundBy : uint8_t { Unknown, Compute, Hbm, Host, Ici };
/// "compute", "hbm", "host", "ici"; nullptr for Unknown (JSON null).
const char* boundByName(BoundBy bound);

/// An op is low-utilization when its roofline efficiency is below this (one setting for the op
/// table, the timeline marks, the advice and the share card; `tpuscope-cli thresholds`).
constexpr double kDefaultLowUtilizationThreshold = 0.25;
/// A low-utilization op must also take at least this share of the op time to be listed or counted:
/// below it fixing the op would not pay (the advice's evidence threshold, `all/min_op_share`).
constexpr double kLowUtilizationMinShare = 0.01;

/// One row of the op breakdown. Times and costs are totals over the occurrences counted.
///
/// Two kinds of rates. xprof's columns keep xprof's definitions so that a user can compare them
/// with TensorBoard's (FORMATS.md §7): flopsUtilization and hbmUtilization are the op's FLOPs and
/// HBM bytes over its own time (time_ps, which on XLA Ops lines is its self time) against the
/// per-core peaks, capped at 1 as xprof's op profile caps them, and boundBy names the larger one.
/// Our own measures live in fields of their own: the uncapped values, the rate of an async pair
/// over its start→done span, host-link and ICI rates, the roofline efficiency and the waste. A rate
/// that cannot be known (no cost data, no device peak) is empty, never zero.
struct OpRow
{
    OpId op = kNone; // representative op (kNone for category/program rows)
    std::string name;
    std::string program;
    std::string category;
    std::string frameworkOp; // op rows: the framework op (attribution.h); empty when not recorded
    std::string source; // op rows: "file.py:87"; empty when not recorded
    /// What the op does and what its rates are measured against (opmodel.h); for a group row, those
    /// of the members holding most of its time.
    OpClass opClass = OpClass::Compute;
    RatedAgainst ratedAgainst = RatedAgainst::Roofline;
    int64_t occurrences = 0;
    double totalTimePs = 0;
    double selfTimePs = 0;
    double timeFraction = 0; // totalTimePs / OpBreakdown::totalTimePs
    double flops = 0; // device-normalized FLOPs (flops_v2)
    double modelFlops = 0;
    double bytesAccessed = 0;
    double hbmBytes = 0; // from memory_access_breakdown, else bytes_accessed less VMEM (S(1)) arrays
    bool hbmFromBreakdown = false;
    double hostBytes = 0; // bytes moved over the host link (S(5) transfers), the pair's once on its done half
    /// What aggregates (group rows, headlines) sum: an async pair's FLOPs and HBM bytes once, on its
    /// done half (one record where both halves record the same transfer, both where they record
    /// different parts of it), and nothing on its start half.
    double countedFlops = 0;
    double countedHbmBytes = 0;
    double countedBytesAccessed = 0;

    /// Share of the row's time whose ops have cost data (1 or 0 for an op row).
    double costCoverage = 0;
    bool customKernelCost = false; // the cost is a custom kernel's own estimate
    /// Where the row's cost comes from (opmodel.h): the file, the shapes in its HLO text (an
    /// estimate), or nowhere; for a group row, what most of its time's cost comes from.
    CostSource costSource = CostSource::None;
    uint64_t groupKey = 0; // op rows: OpTraits::groupKey (GroupBy::LayerGroup)
    int64_t memberOps = 1; // op rows combined into this row (1 for an op row)
    /// The time our pair rates are computed over: for an async pair the start→done spans of its
    /// occurrences (they include queueing behind other transfers), else the op's own time.
    double rateTimePs = 0;
    /// For an async start/done half: the other half.
    std::string asyncPartner;

    // xprof's columns (own time, capped as xprof caps them).
    std::optional<double> flopsUtilization;
    std::optional<double> hbmUtilization;
    BoundBy boundBy = BoundBy::Unknown;
    // The same without the cap: above 1 the op's cost estimate or the chosen device is wrong.
    std::optional<double> flopsUtilizationUncapped;
    std::optional<double> hbmUtilizationUncapped;
    bool capped = false; // an uncapped xprof utilization of a roofline-rated op is above 1 (over peak)
    std::optional<double> attainedTflops; // per core, over the op's own time; known with cost data
    std::optional<double> attainedHbmGbps; // per core, over the op's own time
    std::optional<double> arithmeticIntensity; // FLOPs per HBM byte

    // Our measures.
    std::optional<double> pairGbps; // async pair: its bytes over the start→done span (includes queueing)
    std::optional<double> pairHbmUtilization; // an HBM-to-HBM async copy: pairGbps over the HBM peak
    std::optional<double> hostGbps; // host transfer: its bytes over its start→done spans (includes queueing)
    /// Host transfers: the host link's rate in the row's direction(s) over the whole profile, bytes
    /// over the link-busy time (the union of the transfers' intervals); the advice uses the same.
    std::optional<double> hostLinkToDeviceGbps;
    std::optional<double> hostLinkToHostGbps;
    std::optional<double> iciGbps; // collectives: the data each device moves, over the op's (pair's) time
    std::optional<double> iciUtilization; // iciGbps over the generation's ICI bandwidth per core and direction
    double largestArrayBytes = 0; // largest operand or result array: a lower bound of the footprint
    /// Attained FLOP/s over the roofline bound at the row's arithmetic intensity (the larger of the
    /// two uncapped utilizations, capped at 1); empty for ops not on the roofline, for async halves
    /// (they wait on their partner), and for custom kernels above peak (their estimate is wrong).
    std::optional<double> rooflineEfficiency;
    std::string efficiencyNote; // why the efficiency is unknown when it is ("cost estimate above peak")
    std::optional<double> wastedFraction; // timeFraction × (1 − roofline efficiency)
    std::optional<bool> lowUtilization; // roofline efficiency below kDefaultLowUtilizationThreshold
};

/// Whether a row is low-utilization at `threshold` (empty when its roofline position is unknown).
std::optional<bool> isLowUtilization(const OpRow& row, double threshold = kDefaultLowUtilizationThreshold);
/// The one definition of a "low-utilization op", of any kind (fusion, convolution, dot,
/// dynamic-update-slice, copy…): an op row (not a group row) below `threshold` of its roofline bound
/// (isLowUtilization: the bound that applies, FLOPS for compute-bound, HBM for memory-bound) with at
/// least kLowUtilizationMinShare of the op time. Ops off the roofline (collectives, host transfers,
/// async halves) and ops without cost data or peaks are never low. The overview's count, the op
/// table's flag and filter, the timeline's marks and `tpuscope-cli ops`/`summary` all ask this.
bool isLowUtilizationOp(const OpRow& row, double threshold = kDefaultLowUtilizationThreshold);

/// Headline utilization of the whole program, as xprof's overview and op profile root compute it:
/// the counted FLOPs (or HBM bytes) of all ops over all op time against the per-core peak, so it
/// equals an op_profile's own root metrics. Ops without cost data add time but no work: the cost
/// coverage says how much of the time the figure can speak for, and over-peak ops how much of it
/// rests on impossible values.
struct HeadlineUtilization
{
    std::optional<double> capped; // min(1, uncapped), xprof's figure; empty without peaks or cost data
    std::optional<double> uncapped;
    double overPeakPoints = 0; // share of `uncapped` that comes from over-peak ops
    int overPeakOps = 0;
    double coveredTimePs = 0; // op time of the ops whose utilization is known
    double coveredFraction = 0; // of the total op time
    bool fromFile = false; // the file's own root metric (op_profile), which the figure reproduces
};

/// Per op kind (indexed by OpId): the totals an op-level breakdown sums into its rows, so the share
/// file and other per-kind readers take them from the one pass over the events.
struct OpTotals
{
    int64_t occurrences = 0;
    double time = 0;
    double self = 0;
    double pairSpan = 0; // done halves: start→done spans of the pairs matched on the timeline
    int64_t pairsTimed = 0; // how many occurrences those spans cover
};

// regroupOpBreakdown copies each field but `rows` by name: a new field goes there too.
struct OpBreakdown
{
    GroupBy groupBy = GroupBy::Op;
    int core = -1;
    int coresCounted = 0; // TPU core planes counted
    /// The cores the op time is summed over, what per-core figures divide by: the planes counted, or
    /// the device's count where one plane sums every core (op_profile.json; DeviceInfo::cores says
    /// how it was chosen).
    int coresRepresented = 0;
    DeviceInfo device; // the peaks the rates were computed against
    double totalTimePs = 0; // sum of self time of every counted op (= busy time of the XLA Ops lines)
    double totalFlops = 0;
    double totalHbmBytes = 0;
    /// Share of op time whose ops carry cost data (FLOPs or bytes); below kLowCostCoverage the
    /// utilizations describe only part of the program, and reports warn.
    double costCoverage = 0;
    HeadlineUtilization flops;
    HeadlineUtilization hbm;
    std::vector<OpRow> rows; // sorted by totalTimePs, descending
    std::vector<OpTotals> perOp; // by OpId, for the ops counted
};

/// How many op rows of an op-level breakdown are low-utilization ops (isLowUtilizationOp); empty
/// when no op's roofline position is known (no cost data, no peaks), so the count is unknown, not 0.
std::optional<int> countLowUtilizationOps(
    const OpBreakdown& breakdown, double threshold = kDefaultLowUtilizationThreshold);

/// A headline within this of the file's own root figure reproduces it (the file rounds its utilizations).
constexpr double kRootAgreement = 0.002;

/// Reports warn when cost data cover less than this share of op time.
constexpr double kLowCostCoverage = 0.8;

/// Aggregates the `XLA Ops` lines of the TPU core planes (one row per (program, op)).
OpBreakdown computeOpBreakdown(const Profile& profile, const OpFilter& filter = {}, GroupBy groupBy = GroupBy::Op);
/// The same with the profile's op model and host-link figures already at hand (ProfileAnalysis);
/// `hostLink` may be null (no host-link rates on the rows).
OpBreakdown computeOpBreakdown(const Profile& profile, const OpModel& model, const HostLinkStats* hostLink,
    const OpFilter& filter = {}, GroupBy groupBy = GroupBy::Op);

/// The same breakdown grouped otherwise (Category, Program, ...) from its op rows, without another
/// pass over the events: equal to computeOpBreakdown(profile, filter, groupBy). `opLevel` must be
/// a GroupBy::Op breakdown; any other is returned as it is.
OpBreakdown regroupOpBreakdown(const OpBreakdown& opLevel, GroupBy groupBy);

/// How many times computeOpBreakdown has run in this process (a debug counter for tests that
/// check a load computes the breakdown once; it changes no behaviour).
uint64_t opBreakdownComputations();

/// Uncapped FLOPS utilization = flops / time / peak; empty when the peak or the time is unknown.
std::optional<double> flopsUtilization(double flops, double timePs, double peakTflops);
/// Uncapped HBM utilization = bytes / time / peak; empty when the peak or the time is unknown.
std::optional<double> hbmUtilization(double bytes, double timePs, double peakGbps);

/// For every op of the profile, the index of its row in an op-level breakdown (ops that share a
/// (program, name) share a row); SIZE_MAX when the op has no row.
std::vector<size_t> rowOfEachOp(const Profile& profile, const OpBreakdown& breakdown);

/// For every category of a breakdown's rows, the op class holding most of its time: what the views
/// colour the category by (one colour per category in the timeline, the table and the roofline).
std::unordered_map<std::string, OpClass> categoryClasses(const OpBreakdown& breakdown);

/// One row standing for several op rows (a category, program or any other group): sums add up,
/// rates are the time-weighted means over the members that know them.
OpRow combineOpRows(const std::vector<const OpRow*>& members, double totalTimePs, const DeviceInfo& device);

} // namespace tpuscope::model
