// SPDX-License-Identifier: GPL-3.0-or-later
#include "sharehosttiming.h"

#include <algorithm>
#include <cmath>

namespace tpuscope::model {

namespace {

/// A time as the schema allowed it (-1 unknown, else 0..kMaxShareTimePs); anything else unknown.
TimePs timeOrUnknown(const json::Value& v)
{
    const double x = v.number(-1);
    if (!std::isfinite(x) || x < 0)
        return -1;
    return static_cast<TimePs>(std::min(x, static_cast<double>(kMaxShareTimePs)));
}

} // namespace

void readHostTiming(const json::Value& doc, size_t planes, RecordedTimeline& recorded)
{
    const json::Value& timing = doc["host_timing"];
    const json::Value& windows = doc["step_windows"]["cores"];
    if (!timing.isObject() || !windows.isArray())
        return;
    // The step windows' starts per core: the host timing is measured from them.
    std::vector<const json::Value*> startsOf(planes, nullptr);
    for (const json::Value& core : windows.array())
        if (const double p = core["plane"].number(-1); p >= 0 && p < static_cast<double>(planes))
            startsOf[static_cast<size_t>(p)] = &core["start_ps"];
    recorded.coreSync.assign(planes, {});
    for (const json::Value& core : timing["cores"].array()) {
        const double p = core["plane"].number(-1);
        if (!(p >= 0 && p < static_cast<double>(planes)) || !startsOf[static_cast<size_t>(p)])
            continue; // the schema refused such a file; a damaged one read anyway loses the core
        const size_t c = static_cast<size_t>(p);
        const json::Value& starts = *startsOf[c];
        const size_t n = std::min({core["sync_start_ps"].size(), core["sync_ps"].size(), core["last_op_end_ps"].size(),
            core["other_wait_ps"].size(), starts.size()});
        std::vector<CoreSyncStep>& steps = recorded.coreSync[c];
        steps.resize(n);
        for (size_t s = 0; s < n; ++s) {
            const TimePs begin = std::max<TimePs>(0, timeOrUnknown(starts.at(s)));
            const TimePs syncStart = timeOrUnknown(core["sync_start_ps"].at(s));
            const TimePs syncDuration = timeOrUnknown(core["sync_ps"].at(s));
            const TimePs lastOpEnd = timeOrUnknown(core["last_op_end_ps"].at(s));
            CoreSyncStep& e = steps[s];
            if (syncStart >= 0 && syncDuration >= 0) {
                e.syncStartPs = begin + syncStart;
                e.syncEndPs = e.syncStartPs + syncDuration;
            }
            if (lastOpEnd >= 0)
                e.lastOpEndPs = begin + lastOpEnd;
            e.otherWaitPs = static_cast<double>(std::max<TimePs>(0, timeOrUnknown(core["other_wait_ps"].at(s))));
        }
    }
    recorded.syncCollective = timing["sync_collective"].string();
    recorded.otherWaitMeasured = timing["other_wait_measured"].boolean();
    recorded.otherWaitScope = timing["other_wait_scope"].string();
}

} // namespace tpuscope::model
