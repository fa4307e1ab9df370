// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace tpuscope::model {

class Profile;

/// True when some track has events with a start: something a timeline can draw. An op_profile
/// or a share file records per-op totals only (aggregated rows) and has none, so the views that
/// draw time (timeline, utilization over time, step bars) have nothing honest to show.
bool hasTimeline(const Profile& profile);

/// For a profile without a timeline, one sentence saying so and why (by the file's format);
/// empty when it has one.
std::string noTimelineReason(const Profile& profile);

} // namespace tpuscope::model
