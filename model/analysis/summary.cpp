// SPDX-License-Identifier: GPL-3.0-or-later
#include "summary.h"

#include "../report/report.h"

#include <algorithm>

namespace tpuscope::model {

StepStats computeStepStats(const Profile& profile)
{
    StepStats stats;
    const auto cores = profile.tpuCorePlanes();
    if (cores.empty())
        return stats;
    for (TrackKind kind : {TrackKind::Steps, TrackKind::XlaModules}) {
        for (TrackId id : profile.planes[cores.front()].tracks) {
            const Track& track = profile.tracks[id];
            if (track.kind != kind || track.size() == 0)
                continue;
            double sum = 0, lo = 0, hi = 0;
            int64_t n = 0;
            for (size_t i = 0; i < track.size(); ++i) {
                if (track.depth[i] != 0)
                    continue;
                const double d = static_cast<double>(track.duration[i]);
                lo = n ? std::min(lo, d) : d;
                hi = n ? std::max(hi, d) : d;
                sum += d;
                ++n;
            }
            stats.count = n;
            stats.averagePs = n ? sum / n : 0;
            stats.minPs = lo;
            stats.maxPs = hi;
            stats.source = profile.str(track.name);
            return stats;
        }
    }
    return stats;
}

ProfileSummary computeSummary(const Profile& profile)
{
    ProfileSummary summary;
    summary.spanPs = profile.spanEnd - profile.spanBegin;
    summary.events = profile.eventCount();
    summary.tracks = profile.tracks.size();
    summary.planes = profile.planes.size();
    summary.ops = profile.ops.size();
    summary.programs = profile.programs.size();
    for (const auto& program : profile.programs)
        summary.programsWithHlo += program.hlo ? 1 : 0;
    summary.hasTpuOps = profile.hasTpuOps();
    if (!summary.hasTpuOps) {
        int gpus = 0;
        for (const auto& plane : profile.planes)
            gpus += plane.kind == PlaneKind::Gpu;
        summary.message = "This profile has no TPU op data (no /device:TPU:N plane with an \"XLA Ops\" line)";
        if (gpus)
            summary.message += "; it holds " + std::to_string(gpus) + " GPU device plane" + (gpus == 1 ? "" : "s");
        summary.message += ". The timeline still shows every plane and line.";
        return summary;
    }
    const OpBreakdown categories = computeOpBreakdown(profile, {}, GroupBy::Category);
    summary.totalOpTimePs = categories.totalTimePs;
    summary.flops = categories.flops;
    summary.hbm = categories.hbm;
    summary.costCoverage = categories.costCoverage;
    summary.warnings = breakdownWarnings(profile, categories);
    const double capacity = static_cast<double>(summary.spanPs) * std::max(1, categories.coresCounted);
    summary.busyFraction = capacity > 0 ? std::min(1.0, categories.totalTimePs / capacity) : 0;
    summary.topCategories = categories.rows;
    summary.steps = computeStepStats(profile);
    return summary;
}

} // namespace tpuscope::model
