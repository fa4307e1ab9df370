// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The host link (HBM <-> host memory, S(5)): its traffic per direction over the link-busy time,
// and what the runs of the dominant program wait for it. One computation serves the op table, the
// charts and the host-offload advice, so that one traffic has one rate (FORMATS.md §6.2).

#include "../core/profile.h"
#include "opmodel.h"

namespace tpuscope::model {

/// From the timeline: the start→done pairs of the host transfers on each core's XLA Ops line, and
/// the runs of the dominant program on its XLA Modules line. A file without a timeline returns what
/// it recorded (Profile::recorded), or nothing.
HostLinkStats computeHostLink(const Profile& profile, const OpModel& model);

/// The length of the union of intervals [first, second) (sorted in place).
double unionLength(std::vector<std::pair<TimePs, TimePs>>& intervals);

} // namespace tpuscope::model
