// SPDX-License-Identifier: GPL-3.0-or-later
#include "sharehosts.h"

#include "../loader/shareschema.h"

#include <algorithm>
#include <cmath>

namespace tpuscope::model {

size_t shareStepWindowsPerCore(size_t cores)
{
    // The schema allows fewer core planes than windows, so every core keeps at least one.
    return std::max<size_t>(1, static_cast<size_t>(kMaxShareStepWindows) / std::max<size_t>(1, cores));
}

namespace share_detail {

void writeHostTiming(JsonWriter& w, const ProfileAnalysis& analysis, const std::vector<size_t>& windowsPerCore,
    const std::string& syncName)
{
    const HostAnalysis& hosts = analysis.hosts;
    const StepAnalysis& steps = analysis.steps;
    if (hosts.coreSync.empty() || hosts.coreSync.size() != steps.coreSteps.size())
        return;
    const Profile& profile = *analysis.profile;
    w.key("host_timing").beginObject();
    w.field("sync_collective", syncName).field("other_wait_measured", hosts.otherWaitMeasured);
    // A share file written from a share file keeps the scope its data were measured in.
    const bool fromHosts = profile.recorded && profile.recorded->otherWaitScope == "host";
    w.field("other_wait_scope", fromHosts ? "host" : "profile");
    w.field("origin_ns", profile.originNs).field("span_begin_ps", static_cast<int64_t>(profile.spanBegin));
    w.key("cores").beginArray();
    for (size_t c = 0; c < hosts.coreSync.size(); ++c) {
        const std::vector<CoreSyncStep>& sync = hosts.coreSync[c];
        const size_t n
            = std::min({sync.size(), c < windowsPerCore.size() ? windowsPerCore[c] : 0, steps.coreSteps[c].size()});
        w.beginObject().field("plane", static_cast<uint64_t>(c));
        // Times after the step window's start: small numbers that compress to a few bytes.
        auto series = [&](const char* key, auto valueOf) {
            w.key(key).beginArray();
            for (size_t s = 0; s < n; ++s)
                w.value(valueOf(sync[s], steps.coreSteps[c][s].begin));
            w.endArray();
        };
        series("sync_start_ps", [](const CoreSyncStep& e, TimePs begin) {
            return static_cast<int64_t>(e.syncStartPs >= 0 ? e.syncStartPs - begin : -1);
        });
        series("sync_ps", [](const CoreSyncStep& e, TimePs) {
            return static_cast<int64_t>(e.syncStartPs >= 0 ? e.syncEndPs - e.syncStartPs : -1);
        });
        series("last_op_end_ps", [](const CoreSyncStep& e, TimePs begin) {
            return static_cast<int64_t>(e.lastOpEndPs >= 0 ? e.lastOpEndPs - begin : -1);
        });
        series("other_wait_ps",
            [](const CoreSyncStep& e, TimePs) { return static_cast<int64_t>(std::llround(e.otherWaitPs)); });
        w.endObject();
    }
    w.endArray();
    w.endObject();
}

} // namespace share_detail

} // namespace tpuscope::model
