// SPDX-License-Identifier: GPL-3.0-or-later
#include "opbreakdown.h"

#include "attribution.h"

#include <algorithm>
#include <unordered_map>

namespace tpuscope::model {

double flopsUtilization(double flops, double timePs, double peakTflops)
{
    if (timePs <= 0 || peakTflops <= 0)
        return 0;
    // flops / (time_ps · 1e-12 s) / (peak · 1e12 FLOP/s) = flops / (time_ps · peak)
    return std::min(1.0, flops / (timePs * peakTflops));
}

double hbmUtilization(double bytes, double timePs, double peakGbps)
{
    if (timePs <= 0 || peakGbps <= 0)
        return 0;
    // bytes / (time_ps · 1e-12 s) / (peak · 1e9 B/s) = bytes · 1000 / (time_ps · peak)
    return std::min(1.0, bytes * 1000.0 / (timePs * peakGbps));
}

bool isFusionCategory(std::string_view category)
{
    return category.ends_with(" fusion") || category == "fusion";
}

void finishRow(OpRow& row, double totalTimePs, const DeviceInfo& device)
{
    row.timeFraction = totalTimePs > 0 ? row.totalTimePs / totalTimePs : 0;
    row.flopsUtilization = flopsUtilization(row.flops, row.totalTimePs, device.peakTflopsPerCore);
    row.hbmUtilization = hbmUtilization(row.hbmBytes, row.totalTimePs, device.peakHbmGbpsPerCore);
    row.wastedFraction = row.timeFraction * (1.0 - std::max(row.flopsUtilization, row.hbmUtilization));
    row.arithmeticIntensity = row.bytesAccessed > 0 ? row.flops / row.bytesAccessed : 0;
}

namespace {

struct OpTotals
{
    int64_t occurrences = 0;
    double time = 0;
    double self = 0;
};

/// Sums time and self time per op over one track. Self time = duration − time of the
/// direct children on the same line (children clipped to their parent).
void accumulateTrack(const Track& track, const OpFilter& filter, std::vector<OpTotals>& totals)
{
    const bool ranged = filter.rangeEnd > filter.rangeBegin;
    const size_t n = track.size();
    std::vector<TimePs> childTime(n, 0);
    // The parent of an event at depth d is the latest earlier event at depth d − 1: nesting was
    // decided once, when the profile was built (ProfileBuilder::finish).
    std::vector<uint32_t> lastAtDepth(static_cast<size_t>(track.maxDepth) + 1, 0);
    for (size_t i = 0; i < n; ++i) {
        const uint16_t depth = track.depth[i];
        if (depth > 0) {
            const uint32_t parent = lastAtDepth[depth - 1];
            const TimePs begin = track.start[i];
            childTime[parent] += std::max<TimePs>(0, std::min(track.end(i), track.end(parent)) - begin);
        }
        lastAtDepth[depth] = static_cast<uint32_t>(i);
    }
    for (size_t i = 0; i < n; ++i) {
        if (ranged && (track.start[i] >= filter.rangeEnd || track.end(i) <= filter.rangeBegin))
            continue;
        OpTotals& t = totals[track.op[i]];
        t.occurrences += 1;
        t.time += static_cast<double>(track.duration[i]);
        t.self += static_cast<double>(std::max<TimePs>(0, track.duration[i] - childTime[i]));
    }
    if (!ranged) {
        for (const auto& a : track.aggregated) {
            OpTotals& t = totals[a.op];
            t.occurrences += a.occurrences;
            t.time += static_cast<double>(a.duration);
            t.self += static_cast<double>(a.duration);
        }
    }
}

std::string programName(const Profile& profile, const OpInfo& op)
{
    if (op.program != kNone)
        return profile.programs[op.program].name;
    if (op.hasProgramId)
        return "program " + std::to_string(op.programId);
    return {};
}

} // namespace

OpBreakdown computeOpBreakdown(const Profile& profile, const OpFilter& filter, GroupBy groupBy)
{
    OpBreakdown result;
    result.groupBy = groupBy;
    result.core = filter.core;

    std::vector<OpTotals> totals(profile.ops.size());
    const std::vector<PlaneId> cores = profile.tpuCorePlanes();
    for (size_t ordinal = 0; ordinal < cores.size(); ++ordinal) {
        if (filter.core >= 0 && static_cast<int>(ordinal) != filter.core)
            continue;
        ++result.coresCounted;
        for (TrackId trackId : profile.planes[cores[ordinal]].tracks) {
            const Track& track = profile.tracks[trackId];
            if (track.kind == TrackKind::XlaOps)
                accumulateTrack(track, filter, totals);
        }
    }

    // Rows keyed by (program, op name), or by category / program when grouping further.
    std::unordered_map<std::string, size_t> rowIndex;
    for (OpId id = 0; id < profile.ops.size(); ++id) {
        const OpTotals& t = totals[id];
        if (t.occurrences == 0)
            continue;
        const OpInfo& op = profile.ops[id];
        const std::string program = programName(profile, op);
        const std::string& category = profile.str(op.category);
        const OpAttribution attribution = opAttribution(profile, id);
        std::string key;
        switch (groupBy) {
        case GroupBy::Op:
            key = program + '\x1f' + profile.str(op.name);
            break;
        case GroupBy::Category:
            key = category;
            break;
        case GroupBy::Program:
            key = program;
            break;
        case GroupBy::FrameworkOp:
            key = attribution.frameworkOp;
            break;
        case GroupBy::Source:
            key = attribution.source;
            break;
        }
        auto [it, inserted] = rowIndex.emplace(key, result.rows.size());
        if (inserted) {
            OpRow row;
            switch (groupBy) {
            case GroupBy::Op:
                row.op = id;
                row.name = profile.str(op.name);
                row.program = program;
                row.category = category;
                row.frameworkOp = attribution.frameworkOp;
                row.source = attribution.source;
                break;
            case GroupBy::Category:
                row.name = category;
                row.category = category;
                break;
            case GroupBy::Program:
                row.name = program.empty() ? "(no program)" : program;
                row.program = program;
                break;
            case GroupBy::FrameworkOp:
                row.name = key.empty() ? "(not recorded)" : key;
                row.frameworkOp = key;
                break;
            case GroupBy::Source:
                row.name = key.empty() ? "(not recorded)" : key;
                row.source = key;
                break;
            }
            result.rows.push_back(std::move(row));
        }
        OpRow& row = result.rows[it->second];
        const double occurrences = static_cast<double>(t.occurrences);
        row.occurrences += t.occurrences;
        row.totalTimePs += t.time;
        row.selfTimePs += t.self;
        row.flops += op.flops * occurrences;
        row.modelFlops += op.modelFlops * occurrences;
        row.bytesAccessed += op.bytesAccessed * occurrences;
        row.hbmBytes += (op.hbmBytes >= 0 ? op.hbmBytes : op.bytesAccessed) * occurrences;
        row.hbmFromBreakdown = row.hbmFromBreakdown || op.hbmBytes >= 0;
    }

    for (const auto& row : result.rows) {
        result.totalTimePs += row.selfTimePs;
        result.totalFlops += row.flops;
        result.totalHbmBytes += row.hbmBytes;
    }
    // A category or program row counts each instant once, for the innermost op running then
    // (self time): with inclusive times a row holding a step and the ops inside it, as some
    // Chrome traces have on one line, would count that time twice and rows would add up to more
    // than the busy time. Op rows keep inclusive time. On TPU XLA Ops lines nothing nests, and
    // the two are the same.
    for (auto& row : result.rows) {
        if (groupBy != GroupBy::Op)
            row.totalTimePs = row.selfTimePs;
        finishRow(row, result.totalTimePs, profile.device);
    }
    result.flopsUtilization = flopsUtilization(result.totalFlops, result.totalTimePs, profile.device.peakTflopsPerCore);
    result.hbmUtilization = hbmUtilization(result.totalHbmBytes, result.totalTimePs, profile.device.peakHbmGbpsPerCore);
    std::stable_sort(result.rows.begin(), result.rows.end(), [](const OpRow& a, const OpRow& b) {
        if (a.totalTimePs != b.totalTimePs)
            return a.totalTimePs > b.totalTimePs;
        return a.name < b.name;
    });
    return result;
}

} // namespace tpuscope::model
