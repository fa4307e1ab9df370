// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../core/profile.h"

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace tpuscope::model {

/// One op row of a time range: the ops of one (program, name) as in the op breakdown, with the
/// time they ran inside the range.
struct RangeOpRow
{
    OpId op = kNone; // representative op
    std::string name;
    std::string category;
    std::string program;
    int64_t occurrences = 0; // events overlapping the range
    /// Self time inside [begin, end): each event clipped to the range, less its direct children
    /// clipped the same way, so the rows add up to the busy time.
    double timeInRangePs = 0;
    double rangeShare = 0; // timeInRangePs / (range length × cores)
    /// The rates of the overlapping occurrences (the breakdown's, over their whole durations);
    /// empty when unknown (no cost data, no device peak, a host transfer against HBM).
    std::optional<double> flopsUtilization;
    std::optional<double> hbmUtilization;
};

/// What ran on the TPU cores' `XLA Ops` lines in a time range (the timeline's Shift+drag).
struct RangeSummary
{
    TimePs begin = 0;
    TimePs end = 0;
    int cores = 0; // TPU cores counted (each with an XLA Ops line); at least 1 in the share
    int64_t occurrences = 0; // op events overlapping the range
    double busyPs = 0; // top-level op time clipped to the range, summed over the cores
    double busyShare = 0; // busyPs / (range length × cores)
    std::vector<RangeOpRow> rows; // by time in the range, descending (then by name)
};

/// Summarizes [begin, end) (swapped when reversed; empty when begin == end). `core` is a TPU core
/// ordinal as in OpFilter (-1 = all cores).
/// Returns early with a partial summary (which the caller discards) once `stop` is requested.
RangeSummary summarizeRange(
    const Profile& profile, TimePs begin, TimePs end, int core = -1, std::stop_token stop = {});

/// How many times summarizeRange has run in this process (a debug counter for tests that check a
/// range change is summarized once; it changes no behaviour).
uint64_t rangeSummaryComputations();

} // namespace tpuscope::model
