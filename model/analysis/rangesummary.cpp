// SPDX-License-Identifier: GPL-3.0-or-later
#include "rangesummary.h"

#include "core/stopcheck.h"
#include "opbreakdown.h"

#include <algorithm>
#include <atomic>

namespace tpuscope::model {

namespace {

TimePs clippedLength(TimePs start, TimePs end, TimePs begin, TimePs rangeEnd)
{
    return std::max<TimePs>(0, std::min(end, rangeEnd) - std::max(start, begin));
}

std::atomic<uint64_t> g_rangeSummaryComputations {0};

} // namespace

uint64_t rangeSummaryComputations()
{
    return g_rangeSummaryComputations.load(std::memory_order_relaxed);
}

RangeSummary summarizeRange(const Profile& profile, TimePs begin, TimePs end, int core, std::stop_token stop)
{
    g_rangeSummaryComputations.fetch_add(1, std::memory_order_relaxed);
    if (end < begin)
        std::swap(begin, end);
    RangeSummary summary;
    summary.begin = begin;
    summary.end = end;
    if (end <= begin)
        return summary;

    // The breakdown of the overlapping occurrences gives the rows (keyed as the op table keys
    // them) and their rates; the time inside the range is clipped here, event by event.
    OpFilter filter;
    filter.core = core;
    filter.rangeBegin = begin;
    filter.rangeEnd = end;
    const OpBreakdown breakdown = computeOpBreakdown(profile, filter);
    StopCheck stopCheck(std::move(stop));
    const std::vector<size_t> rowOf = rowOfEachOp(profile, breakdown);
    std::vector<double> rowTime(breakdown.rows.size(), 0);

    const std::vector<PlaneId> cores = profile.tpuCorePlanes();
    for (size_t ordinal = 0; ordinal < cores.size(); ++ordinal) {
        if (core >= 0 && int(ordinal) != core)
            continue;
        bool hasOpsLine = false;
        for (TrackId trackId : profile.planes[cores[ordinal]].tracks) {
            const Track& track = profile.tracks[trackId];
            if (track.kind != TrackKind::XlaOps)
                continue;
            hasOpsLine = true;
            // Self time in the range = the event's clipped length less its direct children's
            // clipped lengths; the parent of an event at depth d is the latest earlier one at d − 1.
            const size_t n = track.size();
            std::vector<double> self(n, 0);
            std::vector<uint32_t> lastAtDepth(size_t(track.maxDepth) + 1, 0);
            for (size_t i = 0; i < n; ++i) {
                if (stopCheck.stopped())
                    return summary; // superseded: partial, discarded by the caller
                const uint16_t depth = track.depth[i];
                const TimePs clipped = clippedLength(track.start[i], track.end(i), begin, end);
                self[i] += double(clipped);
                if (depth > 0) {
                    const uint32_t parent = lastAtDepth[depth - 1];
                    // Children are clipped to their parent too (as the breakdown's self time).
                    self[parent]
                        -= double(clippedLength(track.start[i], std::min(track.end(i), track.end(parent)), begin, end));
                } else {
                    summary.busyPs += double(clipped);
                }
                lastAtDepth[depth] = uint32_t(i);
            }
            for (size_t i = 0; i < n; ++i) {
                const OpId op = track.op[i];
                if (self[i] > 0 && op < rowOf.size() && rowOf[op] != SIZE_MAX)
                    rowTime[rowOf[op]] += self[i];
            }
        }
        summary.cores += hasOpsLine ? 1 : 0;
    }

    const double capacity = double(end - begin) * std::max(1, summary.cores);
    summary.busyShare = summary.busyPs / capacity;
    summary.rows.reserve(breakdown.rows.size());
    for (size_t r = 0; r < breakdown.rows.size(); ++r) {
        const OpRow& row = breakdown.rows[r];
        RangeOpRow out;
        out.op = row.op;
        out.name = row.name;
        out.category = row.category;
        out.program = row.program;
        out.occurrences = row.occurrences;
        out.timeInRangePs = rowTime[r];
        out.rangeShare = rowTime[r] / capacity;
        out.flopsUtilization = row.flopsUtilization;
        out.hbmUtilization = row.hbmUtilization;
        summary.occurrences += row.occurrences;
        summary.rows.push_back(std::move(out));
    }
    std::stable_sort(summary.rows.begin(), summary.rows.end(), [](const RangeOpRow& a, const RangeOpRow& b) {
        if (a.timeInRangePs != b.timeInRangePs)
            return a.timeInRangePs > b.timeInRangePs;
        return a.name < b.name;
    });
    return summary;
}

} // namespace tpuscope::model
