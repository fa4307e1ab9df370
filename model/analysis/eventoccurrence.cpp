// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventoccurrence.h"

#include "../core/format.h"
#include "opbreakdown.h"
#include "profileanalysis.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tpuscope::model {

namespace {

/// How far back from the last module run that starts before `t` a containing run is looked for
/// (runs nest rarely; a nested run is found within a few events).
constexpr size_t kModuleLookBack = 64;

void findStep(EventOccurrence& e, const ProfileAnalysis& analysis, TimePs t)
{
    const StepAnalysis& steps = analysis.steps;
    e.stepCount = static_cast<int64_t>(steps.steps.size());
    // The all-cores analysis counts every TPU core, by ordinal.
    if (e.coreOrdinal < 0 || steps.core >= 0 || static_cast<size_t>(e.coreOrdinal) >= steps.coreSteps.size())
        return;
    const std::vector<CoreStep>& windows = steps.coreSteps[static_cast<size_t>(e.coreOrdinal)];
    auto it = std::upper_bound(
        windows.begin(), windows.end(), t, [](TimePs value, const CoreStep& w) { return value < w.begin; });
    if (it == windows.begin())
        return;
    --it;
    if (t >= it->end)
        return;
    const auto i = static_cast<size_t>(it - windows.begin());
    e.stepIndex = static_cast<int64_t>(i);
    if (i < steps.steps.size())
        e.stepNumber = steps.steps[i].stepNumber;
}

void findModuleRun(EventOccurrence& e, const Profile& p, PlaneId plane, TimePs t)
{
    for (TrackId id : p.planes[plane].tracks) {
        const Track& modules = p.tracks[id];
        if (modules.kind != TrackKind::XlaModules || modules.size() == 0)
            continue;
        const auto after = static_cast<size_t>(
            std::upper_bound(modules.start.begin(), modules.start.end(), t) - modules.start.begin());
        for (size_t k = 0; k < std::min(after, kModuleLookBack); ++k) {
            const size_t i = after - 1 - k;
            if (modules.end(i) <= t)
                continue;
            const OpInfo& op = p.ops[modules.op[i]];
            e.moduleRun
                = op.program != kNone && op.program < p.programs.size() ? p.programs[op.program].name : p.str(op.name);
            // An unlinked run of the event's own program is named "program(id)": named as the program.
            const std::string& program = e.program;
            if (!program.empty() && e.moduleRun.size() > program.size() + 1
                && e.moduleRun.compare(0, program.size(), program) == 0 && e.moduleRun[program.size()] == '('
                && e.moduleRun.back() == ')')
                e.moduleRun = program;
            e.moduleRunStartPs = modules.start[i] - p.spanBegin;
            e.moduleRunDurationPs = modules.duration[i];
            return;
        }
    }
}

void rate(EventOccurrence& e, const ProfileAnalysis& analysis)
{
    const Profile& p = *analysis.profile;
    const OpInfo& op = p.ops[e.op];
    const std::vector<size_t> rows = rowOfEachOp(p, analysis.breakdown);
    if (e.op >= rows.size() || rows[e.op] >= analysis.breakdown.rows.size() || e.op >= analysis.opModel.size())
        return;
    const OpRow& row = analysis.breakdown.rows[rows[e.op]];
    e.flops = flopsPerOccurrence(op, analysis.opModel[e.op]);
    e.hbmBytes = hbmBytesPerOccurrence(op, analysis.opModel[e.op]);
    const double time = static_cast<double>(e.durationPs);
    // Known where the op's own rate is known: the same cost data, peaks and rate basis.
    if (row.flopsUtilizationUncapped) {
        e.flopsUtilization = flopsUtilization(e.flops, time, p.device.peakTflopsPerCore);
        if (time > 0)
            e.attainedTflops = e.flops / time;
    }
    if (row.hbmUtilizationUncapped) {
        e.hbmUtilization = hbmUtilization(e.hbmBytes, time, p.device.peakHbmGbpsPerCore);
        if (time > 0)
            e.attainedHbmGbps = e.hbmBytes * 1000.0 / time;
    }
}

} // namespace

EventOccurrence describeEvent(const ProfileAnalysis& analysis, TrackId trackId, uint32_t index)
{
    EventOccurrence e;
    e.track = trackId;
    e.index = index;
    if (!analysis.profile)
        return e;
    const Profile& p = *analysis.profile;
    if (trackId >= p.tracks.size() || index >= p.tracks[trackId].size())
        return e;
    const Track& track = p.tracks[trackId];
    if (track.op[index] >= p.ops.size() || track.plane >= p.planes.size())
        return e;
    e.found = true;
    e.op = track.op[index];
    e.startPs = track.start[index] - p.spanBegin;
    e.durationPs = track.duration[index];
    e.endPs = e.startPs + e.durationPs;
    e.depth = track.depth[index];
    const Plane& plane = p.planes[track.plane];
    e.plane = p.str(plane.name);
    e.line = p.str(track.name);
    if (p.hosts.size() > 1 && plane.host < p.hosts.size())
        e.host = p.hosts[plane.host];
    const std::vector<PlaneId> cores = p.tpuCorePlanes();
    if (const auto it = std::find(cores.begin(), cores.end(), track.plane); it != cores.end())
        e.coreOrdinal = static_cast<int>(it - cores.begin());
    e.xlaOp = e.coreOrdinal >= 0 && track.kind == TrackKind::XlaOps;
    e.program = opProgramLabel(p, p.ops[e.op]);

    findStep(e, analysis, track.start[index]);
    findModuleRun(e, p, track.plane, track.start[index]);
    rate(e, analysis);
    return e;
}

void compareWithOccurrences(EventOccurrence& e, const Profile& p, const OpOccurrences& occurrences)
{
    if (!e.found || e.track >= p.tracks.size() || occurrences.size() != p.tracks.size())
        return;
    const PlaneId plane = p.tracks[e.track].plane;
    const TimePs start = p.tracks[e.track].start[e.index];
    const double duration = static_cast<double>(e.durationPs);
    std::vector<double> durations;
    int64_t onCore = 0, before = 0, shorter = 0;
    for (TrackId t = 0; t < occurrences.size(); ++t) {
        const Track& track = p.tracks[t];
        for (uint32_t i : occurrences[t]) {
            if (i >= track.size())
                continue;
            const double d = static_cast<double>(track.duration[i]);
            durations.push_back(d);
            shorter += d < duration ? 1 : 0;
            if (track.plane == plane) {
                ++onCore;
                // By start; among equal starts by line and index, so every event has its own rank.
                const bool earlier = track.start[i] < start
                    || (track.start[i] == start && (t < e.track || (t == e.track && i < e.index)));
                before += earlier ? 1 : 0;
            }
        }
    }
    if (durations.empty() || onCore == 0)
        return; // the event itself is an occurrence: a search that does not find it was stopped
    e.occurrences = static_cast<int64_t>(durations.size());
    e.occurrencesOnCore = onCore;
    e.occurrenceOnCore = before + 1;
    e.shorterFraction = static_cast<double>(shorter) / static_cast<double>(durations.size());
    const size_t n = durations.size();
    const auto mid = durations.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(durations.begin(), mid, durations.end());
    e.medianPs = *mid;
    if (n % 2 == 0)
        e.medianPs = (e.medianPs + *std::max_element(durations.begin(), mid)) / 2;
    const auto [lo, hi] = std::minmax_element(durations.begin(), durations.end());
    e.minPs = *lo;
    e.maxPs = *hi;
}

EventOccurrence describeEventOccurrence(
    const ProfileAnalysis& analysis, TrackId track, uint32_t index, std::stop_token stop)
{
    EventOccurrence e = describeEvent(analysis, track, index);
    if (!e.found)
        return e;
    const OpOccurrences found = findOccurrences(*analysis.profile, e.op, std::move(stop));
    compareWithOccurrences(e, *analysis.profile, found);
    return e;
}

std::pair<TrackId, uint32_t> longestOccurrence(const Profile& p, const OpOccurrences& occurrences)
{
    std::pair<TrackId, uint32_t> best {kNone, 0};
    TimePs longest = -1, bestStart = 0;
    for (TrackId t = 0; t < occurrences.size() && t < p.tracks.size(); ++t) {
        const Track& track = p.tracks[t];
        for (uint32_t i : occurrences[t]) {
            if (i >= track.size())
                continue;
            if (track.duration[i] > longest || (track.duration[i] == longest && track.start[i] < bestStart)) {
                longest = track.duration[i];
                bestStart = track.start[i];
                best = {t, i};
            }
        }
    }
    return best;
}

std::string formatEventTime(TimePs fromStartPs, TimePs durationPs)
{
    const double t = static_cast<double>(fromStartPs);
    const TimeUnit unit = timeUnitFor(t);
    // Digits down to about a tenth of the duration (at least a picosecond, at most six decimals).
    const double resolution = std::max(1.0, static_cast<double>(durationPs) / 10.0);
    int decimals = 0;
    while (decimals < 6 && timeUnitPs(unit) / std::pow(10.0, decimals) > resolution)
        ++decimals;
    return (fromStartPs >= 0 ? "+" : "") + formatTimeLabel(t, unit, decimals);
}

} // namespace tpuscope::model
