// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reads a share file's "host_timing" (written by share/sharehosts.h, checked by shareschema.h)
// into the recorded timeline: each core's timing at the step's synchronizing collective.

#include "../core/jsondom.h"
#include "../core/timefacts.h"

#include <cstddef>

namespace tpuscope::model {

/// The most a share file's times may be (2^60 ps, ~13 days): damaged times cannot overflow.
constexpr TimePs kMaxShareTimePs = TimePs(1) << 60;

/// Fills recorded.coreSync (per core ordinal, in the times the step windows were rebuilt at) and
/// what goes with it from doc["host_timing"]; nothing when the file has none.
void readHostTiming(const json::Value& doc, size_t planes, RecordedTimeline& recorded);

} // namespace tpuscope::model
