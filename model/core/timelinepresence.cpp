// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinepresence.h"

#include "profile.h"

#include <algorithm>

namespace tpuscope::model {

bool hasTimeline(const Profile& profile)
{
    return std::any_of(profile.tracks.begin(), profile.tracks.end(), [](const Track& t) { return t.size() > 0; });
}

std::string noTimelineReason(const Profile& profile)
{
    if (hasTimeline(profile))
        return {};
    // load.format is the decoder's label (decoder.cpp fileFormatName, ".gz" when compressed).
    if (profile.load.format.starts_with("op-profile-json"))
        return "This file has no timeline: op_profile.json records per-op totals, not events.";
    if (profile.load.format.starts_with("tpuscope-share"))
        return "This file has no timeline: a share file records the top ops' totals, not events.";
    return "This file has no timeline: it records no events with a start time.";
}

} // namespace tpuscope::model
