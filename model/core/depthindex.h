// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The events of each track sorted by depth row, with what a level-of-detail renderer needs to
// know of each row before it draws: built in the load job (one pass over the events), so the GUI
// thread never walks the events to open a profile.

#include "profile.h"

#include <array>
#include <cstdint>
#include <stop_token>
#include <vector>

namespace tpuscope::model {

/// The events of one depth row of a track, in start order.
struct DepthEvents
{
    std::vector<uint32_t> events; // empty with `identity` = every event of the track
    bool identity = false;
    size_t count = 0; // events on the row
    bool monotoneEnds = true; // ends ascend with start: a binary search on end is exact
    std::vector<TimePs> prefixMaxEnd; // running maximum end, only when ends are not monotone
    /// startBitWidths[w]: consecutive starts a <= b of the row with bit_width(a ^ b) == w. Two
    /// such starts share a bucket of 2^l ps exactly when l >= w, so this one histogram gives the
    /// bucket count of every power-of-two grid.
    std::array<uint64_t, 65> startBitWidths {};

    uint32_t event(size_t k) const { return identity ? uint32_t(k) : events[k]; }
};

/// Per track (indexed by TrackId), its depth rows 0..maxDepth.
struct DepthIndex
{
    std::vector<std::vector<DepthEvents>> tracks;
    size_t bytes() const;
};

/// Indexes every track of `profile`; empty when `stop` was requested on the way.
DepthIndex buildDepthIndex(const Profile& profile, std::stop_token stop = {});

} // namespace tpuscope::model
