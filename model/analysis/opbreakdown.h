// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../core/profile.h"

#include <string>
#include <vector>

namespace tpuscope::model {

/// FrameworkOp groups by the TF/JAX op an HLO op came from (":Type" dropped), Source by its file:line
/// (attribution.h); ops whose file records neither land in one "(not recorded)" row.
enum class GroupBy { Op, Category, Program, FrameworkOp, Source };

struct OpFilter
{
    int core = -1;         // TPU core index (Plane::coreIndex); -1 = all cores
    TimePs rangeBegin = 0; // events overlapping [begin, end); end <= begin means everything
    TimePs rangeEnd = 0;
};

/// One row of the op breakdown. Times and costs are totals over the occurrences counted;
/// utilizations follow xprof (FORMATS.md §7, README "Formulas").
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
    double flops = 0;        // device-normalized FLOPs (flops_v2)
    double modelFlops = 0;
    double bytesAccessed = 0;
    double hbmBytes = 0;     // from memory_access_breakdown, else bytes_accessed
    bool hbmFromBreakdown = false;
    double flopsUtilization = 0; // capped at 1
    double hbmUtilization = 0;   // capped at 1
    double wastedFraction = 0;   // timeFraction × (1 − max(flopsUtilization, hbmUtilization))
    double arithmeticIntensity = 0; // flops / bytesAccessed
};

struct OpBreakdown
{
    GroupBy groupBy = GroupBy::Op;
    int core = -1;
    int coresCounted = 0;
    double totalTimePs = 0; // sum of self time of every counted op (= busy time of the XLA Ops lines)
    double totalFlops = 0;
    double totalHbmBytes = 0;
    double flopsUtilization = 0; // overall, over totalTimePs
    double hbmUtilization = 0;
    std::vector<OpRow> rows; // sorted by totalTimePs, descending
};

/// Aggregates the `XLA Ops` lines of the TPU core planes (one row per (program, op)).
OpBreakdown computeOpBreakdown(const Profile& profile, const OpFilter& filter = {}, GroupBy groupBy = GroupBy::Op);

/// Fills utilization and wasted fields of a row from its totals.
void finishRow(OpRow& row, double totalTimePs, const DeviceInfo& device);

/// FLOPS utilization = flops / time / peak (capped at 1); 0 when peak or time is unknown.
double flopsUtilization(double flops, double timePs, double peakTflops);
double hbmUtilization(double bytes, double timePs, double peakGbps);

/// Whether an HLO category is a fusion (xprof IsFusion: ends in " fusion").
bool isFusionCategory(std::string_view category);

} // namespace tpuscope::model
