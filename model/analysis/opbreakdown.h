// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../core/profile.h"

#include <optional>
#include <string>
#include <vector>

namespace tpuscope::model {

/// FrameworkOp groups by the TF/JAX op an HLO op came from (":Type" dropped), Source by its file:line
/// (attribution.h); ops whose file records neither land in one "(not recorded)" row.
enum class GroupBy { Op, Category, Program, FrameworkOp, Source };

struct OpFilter
{
    int core = -1; // TPU core index (Plane::coreIndex); -1 = all cores
    TimePs rangeBegin = 0; // events overlapping [begin, end); end <= begin means everything
    TimePs rangeEnd = 0;
};

/// What limits an op at its arithmetic intensity: the FLOP peak, HBM bandwidth, or the host link
/// (transfers to or from host memory, S(5)); Unknown when its cost or the device peaks are unknown.
enum class BoundBy : uint8_t { Unknown, Compute, Hbm, Host };
/// "compute", "hbm", "host"; nullptr for Unknown (JSON null).
const char* boundByName(BoundBy bound);

/// An op is low-utilization when its roofline efficiency is below this (one setting for the op
/// table, the timeline marks, the advice and the share card; `tpuscope-cli thresholds`).
constexpr double kDefaultLowUtilizationThreshold = 0.25;

/// One row of the op breakdown. Times and costs are totals over the occurrences counted;
/// utilizations follow xprof (FORMATS.md §7, README "What the numbers mean"). A utilization that
/// cannot be known (no cost data, no device peak, or a host transfer rated against HBM) is empty,
/// never zero.
struct OpRow
{
    OpId op = kNone; // representative op (kNone for category/program rows)
    std::string name;
    std::string program;
    std::string category;
    std::string frameworkOp; // op rows: the framework op (attribution.h); empty when not recorded
    std::string source; // op rows: "file.py:87"; empty when not recorded
    int64_t occurrences = 0;
    double totalTimePs = 0;
    double selfTimePs = 0;
    double timeFraction = 0; // totalTimePs / OpBreakdown::totalTimePs
    double flops = 0; // device-normalized FLOPs (flops_v2)
    double modelFlops = 0;
    double bytesAccessed = 0;
    double hbmBytes = 0; // from memory_access_breakdown, else bytes_accessed less VMEM (S(1)) arrays
    bool hbmFromBreakdown = false;
    double hostBytes = 0; // bytes moved over the host link (S(5) transfers)

    /// Share of the row's time whose ops have cost data (1 or 0 for an op row).
    double costCoverage = 0;
    bool customKernelCost = false; // the cost is a custom kernel's own estimate
    /// The time the rates are computed over: the op's own time, or for an async pair the
    /// start→done spans of its occurrences.
    double rateTimePs = 0;
    /// For an async start/done half: the other half; both show the pair's rates and its bytes
    /// are counted once, on the done half.
    std::string asyncPartner;

    std::optional<double> flopsUtilization; // capped at 1
    std::optional<double> flopsUtilizationUncapped;
    std::optional<double> hbmUtilization; // capped at 1
    std::optional<double> hbmUtilizationUncapped;
    bool capped = false; // an uncapped utilization is above 1 (over peak)
    std::optional<double> hostGbps; // attained host-link rate of a host transfer
    std::optional<double> attainedTflops; // per core, over the rate time; known with cost data
    std::optional<double> attainedHbmGbps; // per core; empty for host transfers
    double largestArrayBytes = 0; // largest operand or result array: a lower bound of the footprint
    std::optional<double> arithmeticIntensity; // FLOPs per HBM byte
    /// Attained FLOP/s over the roofline bound at the row's arithmetic intensity, capped at 1
    /// (= the larger of the two utilizations: FORMATS.md §7 bound-by).
    std::optional<double> rooflineEfficiency;
    BoundBy boundBy = BoundBy::Unknown;
    std::optional<double> wastedFraction; // timeFraction × (1 − roofline efficiency)
    std::optional<bool> lowUtilization; // roofline efficiency below kDefaultLowUtilizationThreshold
};

/// Whether a row is low-utilization at `threshold` (empty when its roofline position is unknown).
std::optional<bool> isLowUtilization(const OpRow& row, double threshold = kDefaultLowUtilizationThreshold);

/// Headline utilization over the ops whose utilization is known, weighted by their time, with
/// each op capped at its peak; what the over-peak ops contribute is kept apart so a report can say
/// how much of the headline rests on impossible values.
struct HeadlineUtilization
{
    std::optional<double> capped; // empty when no op has a known utilization
    std::optional<double> uncapped;
    double overPeakPoints = 0; // share of `capped` that comes from over-peak ops
    int overPeakOps = 0;
    double coveredTimePs = 0; // op time the figure is computed over
    double coveredFraction = 0; // of the total op time (host transfers and unknown ops are left out)
};

// regroupOpBreakdown copies each field but `rows` by name: a new field goes there too.
struct OpBreakdown
{
    GroupBy groupBy = GroupBy::Op;
    int core = -1;
    int coresCounted = 0;
    double totalTimePs = 0; // sum of self time of every counted op (= busy time of the XLA Ops lines)
    double totalFlops = 0;
    double totalHbmBytes = 0;
    /// Share of op time whose ops carry cost data (FLOPs or bytes); below kLowCostCoverage the
    /// utilizations describe only part of the program, and reports warn.
    double costCoverage = 0;
    HeadlineUtilization flops;
    HeadlineUtilization hbm;
    std::vector<OpRow> rows; // sorted by totalTimePs, descending
};

/// Reports warn when cost data cover less than this share of op time.
constexpr double kLowCostCoverage = 0.8;

/// Aggregates the `XLA Ops` lines of the TPU core planes (one row per (program, op)).
OpBreakdown computeOpBreakdown(const Profile& profile, const OpFilter& filter = {}, GroupBy groupBy = GroupBy::Op);

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

/// One row standing for several op rows (a category, program or any other group): sums add up,
/// rates are the time-weighted means over the members that know them.
OpRow combineOpRows(const std::vector<const OpRow*>& members, double totalTimePs);

/// Whether an HLO category is a fusion (xprof IsFusion: ends in " fusion").
bool isFusionCategory(std::string_view category);

} // namespace tpuscope::model
