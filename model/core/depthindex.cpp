// SPDX-License-Identifier: GPL-3.0-or-later
#include "depthindex.h"

#include "stopcheck.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace tpuscope::model {

namespace {

void describeRow(const Track& t, DepthEvents& row, StopCheck& check)
{
    TimePs maxEnd = std::numeric_limits<TimePs>::min();
    TimePs previousStart = 0;
    for (size_t k = 0; k < row.count; ++k) {
        if (check.stopped())
            return;
        const uint32_t e = row.event(k);
        const TimePs start = t.start[e];
        const TimePs end = start + t.duration[e];
        if (end < maxEnd)
            row.monotoneEnds = false;
        maxEnd = std::max(maxEnd, end);
        if (k > 0)
            ++row.startBitWidths[std::bit_width(static_cast<uint64_t>(start ^ previousStart))];
        previousStart = start;
    }
    if (row.monotoneEnds)
        return;
    // Overlapping events on one row (partial overlaps in the source): a running maximum keeps the
    // "first event ending after t" search a binary search.
    row.prefixMaxEnd.resize(row.count);
    maxEnd = std::numeric_limits<TimePs>::min();
    for (size_t k = 0; k < row.count; ++k) {
        maxEnd = std::max(maxEnd, t.end(row.event(k)));
        row.prefixMaxEnd[k] = maxEnd;
    }
}

} // namespace

size_t DepthIndex::bytes() const
{
    size_t bytes = 0;
    for (const auto& rows : tracks)
        for (const DepthEvents& row : rows)
            bytes += sizeof(row) + row.events.capacity() * sizeof(uint32_t)
                + row.prefixMaxEnd.capacity() * sizeof(TimePs);
    return bytes;
}

DepthIndex buildDepthIndex(const Profile& profile, std::stop_token stop)
{
    StopCheck check(std::move(stop));
    DepthIndex index;
    index.tracks.resize(profile.tracks.size());
    for (size_t ti = 0; ti < profile.tracks.size(); ++ti) {
        const Track& t = profile.tracks[ti];
        std::vector<DepthEvents>& rows = index.tracks[ti];
        const size_t depths = size_t(t.maxDepth) + 1;
        rows.resize(depths);
        if (depths == 1) {
            // The common case (flat lines): no event list at all.
            rows[0].identity = true;
            rows[0].count = t.size();
        } else {
            for (uint16_t d : t.depth)
                ++rows[std::min<size_t>(d, depths - 1)].count;
            for (DepthEvents& row : rows)
                row.events.reserve(row.count);
            for (size_t i = 0; i < t.size(); ++i)
                rows[std::min<size_t>(t.depth[i], depths - 1)].events.push_back(static_cast<uint32_t>(i));
        }
        for (DepthEvents& row : rows)
            describeRow(t, row, check);
        if (check.stopped())
            return {};
    }
    return index;
}

} // namespace tpuscope::model
