// SPDX-License-Identifier: GPL-3.0-or-later
#include "xspacemerge.h"

#include <algorithm>
#include <limits>
#include <string>

namespace tpuscope::model::xspace {

std::vector<OpId> mergeOps(ProfileBuilder& builder, const LocalPlane& local)
{
    std::vector<OpId> remap(local.usedOps.size());
    // Most of these stats are absent; StringPool id 0 is always the empty string.
    auto intern = [&builder](std::string_view text) { return text.empty() ? StringId(0) : builder.intern(text); };
    for (size_t k = 0; k < local.usedOps.size(); ++k) {
        const auto [at, xla] = local.usedOps[k];
        const EventMeta& meta = local.metas[at];
        OpInfo info;
        if (meta.unknown) {
            info.name = builder.intern("<unknown metadata " + std::to_string(meta.unknownId) + ">");
        } else {
            info.category = intern(meta.category);
            info.shapeWithLayout = intern(meta.shapeWithLayout);
            info.tfOp = intern(meta.tfOp);
            info.source = intern(meta.source);
            info.deduplicatedName = intern(meta.deduplicatedName);
            info.programId = meta.programId;
            info.hasProgramId = meta.hasProgramIdStat;
            info.flops = meta.flops;
            info.modelFlops = meta.modelFlops;
            info.bytesAccessed = meta.bytesAccessed;
            info.hbmBytes = meta.hbmBytes;
            info.flopsRecorded = meta.flopsRecorded;
            info.bytesRecorded = meta.bytesRecorded || meta.hbmBytes >= 0;
            info.name = builder.intern(meta.displayName.empty() ? meta.name : meta.displayName);
            if (!meta.displayName.empty())
                info.longName = builder.intern(meta.name);
        }
        info.isXlaOp = xla;
        remap[k] = builder.addOp(info);
    }
    return remap;
}

void remapOps(LocalPlane& local, const std::vector<OpId>& remap)
{
    for (LocalLine& line : local.lines) {
        for (OpId& op : line.op)
            op = remap[op];
        for (auto& a : line.aggregated)
            a.op = remap[a.op];
    }
}

namespace {

/// The plane's own device type and peaks, where its stats gave them.
void setPlaneDevice(Profile& profile, const LocalPlane& local)
{
    Plane& plane = profile.planes[local.planeId];
    if (local.deviceType)
        plane.deviceType = std::string(*local.deviceType);
    if (local.peakTflops)
        plane.peakTflops = *local.peakTflops;
    if (local.peakHbmGbps)
        plane.peakHbmGbps = *local.peakHbmGbps;
}

/// A program's name: its module's, else the metadata event's without its "(id)" suffix.
std::string programName(const LocalPlane& local, const HloResult& result)
{
    if (result.module)
        return result.module->name;
    std::string name(local.metas[result.meta].name);
    if (auto paren = name.rfind('('); paren != std::string::npos && paren > 0)
        name.resize(paren);
    return name;
}

/// The (empty) track of a line, named and numbered as the line header says.
Track& addLineTrack(ProfileBuilder& builder, const LocalPlane& local, const LocalLine& line)
{
    const LineHeader& header = line.header;
    const std::string_view name = header.displayName.empty() ? header.name : header.displayName;
    Track& track = builder.profile().tracks[builder.addTrack(local.planeId, name, line.kind, header.id)];
    track.displayId = header.displayId ? header.displayId : header.id;
    return track;
}

} // namespace

void mergePlane(ProfileBuilder& builder, LocalPlane& local)
{
    Profile& profile = builder.profile();
    setPlaneDevice(profile, local);
    profile.stats.unknownMetadataIds += local.unknownMetadataIds;
    profile.stats.malformedEvents += local.malformedEvents;
    for (HloResult& result : local.programs) {
        const EventMeta& meta = local.metas[result.meta];
        if (!result.module) {
            if (!result.overLimit)
                ++profile.stats.hloDecodeFailures;
            profile.load.warnings.push_back("program " + std::string(meta.name) + ": " + result.error);
        }
        builder.addProgram(result.programId, programName(local, result), std::move(result.module));
    }
    if (local.kind == PlaneKind::Metadata)
        return; // events of the metadata plane are not decoded (see decodeLines)
    for (const LocalPlane::StepMarkerEvent& m : local.stepMarkers) {
        const EventMeta& meta = local.metas[m.meta];
        const std::string_view name = meta.displayName.empty() ? meta.name : meta.displayName;
        builder.addStepMarker({m.start, m.duration, m.stepNum, builder.intern(name), local.planeId});
    }
    for (LocalLine& line : local.lines) {
        Track& track = addLineTrack(builder, local, line);
        track.start = std::move(line.start);
        track.duration = std::move(line.duration);
        track.op = std::move(line.op);
        track.aggregated = std::move(line.aggregated);
    }
    local.metas = {};
    local.lines = {};
}

namespace {

/// Events of `line` that start before `cut`: the prefix a binary search finds (lines come sorted
/// by start from the profiler; an unsorted one gives some prefix, still bounded by its size).
size_t eventsBefore(const LocalLine& line, TimePs cut)
{
    return static_cast<size_t>(std::partition_point(line.start.begin(), line.start.end(), [cut](TimePs t) {
        return t < cut;
    }) - line.start.begin());
}

} // namespace

void addPreviewPlanes(ProfileBuilder& preview, const std::vector<const LocalPlane*>& done, size_t maxEvents)
{
    // The cut: the latest start time whose prefixes hold at most maxEvents events, found by
    // bisection over the time range (the count only grows with the cut).
    std::vector<const LocalLine*> lines;
    size_t total = 0;
    TimePs low = std::numeric_limits<TimePs>::max(), high = std::numeric_limits<TimePs>::min();
    for (const LocalPlane* local : done)
        for (const LocalLine& line : local->lines)
            if (!line.start.empty()) {
                lines.push_back(&line);
                total += line.start.size();
                low = std::min(low, line.start.front());
                high = std::max(high, line.start.back());
            }
    auto count = [&lines](TimePs cut) {
        size_t n = 0;
        for (const LocalLine* line : lines)
            n += eventsBefore(*line, cut);
        return n;
    };
    TimePs cut = std::numeric_limits<TimePs>::max();
    if (total > maxEvents && low < high) {
        // Invariant: count(low) <= maxEvents (nothing starts before the earliest start), and the
        // answer is below high + 1 (which would take every event of the sorted lines).
        TimePs lo = low, hi = high;
        while (hi - lo > 1) {
            const TimePs mid = lo + (hi - lo) / 2;
            (count(mid) <= maxEvents ? lo : hi) = mid;
        }
        cut = lo;
    }

    for (const LocalPlane* local : done) {
        if (local->kind == PlaneKind::Metadata) {
            // The programs' HLO (shared, not copied) gives the ops their categories, so the preview
            // has the colours the whole profile will have.
            for (const HloResult& result : local->programs)
                preview.addProgram(result.programId, programName(*local, result), result.module);
            continue;
        }
        // mergeOps only reads the plane: it interns and adds its ops in the preview builder.
        const std::vector<OpId> remap = mergeOps(preview, *local);
        setPlaneDevice(preview.profile(), *local);
        for (const LocalLine& line : local->lines) {
            Track& track = addLineTrack(preview, *local, line);
            const size_t n = cut == std::numeric_limits<TimePs>::max() ? line.start.size() : eventsBefore(line, cut);
            track.start.assign(line.start.begin(), line.start.begin() + static_cast<ptrdiff_t>(n));
            track.duration.assign(line.duration.begin(), line.duration.begin() + static_cast<ptrdiff_t>(n));
            track.op.resize(n);
            for (size_t i = 0; i < n; ++i)
                track.op[i] = remap[line.op[i]];
        }
    }
}

void offerXSpacePreview(
    ProfileBuilder& builder, const std::vector<LocalPlane>& locals, const std::vector<std::atomic<bool>>& decoded)
{
    std::vector<const LocalPlane*> done;
    for (size_t i = 0; i < locals.size(); ++i)
        if (decoded[i].load(std::memory_order_acquire))
            done.push_back(&locals[i]);
    if (std::none_of(done.begin(), done.end(), [](const LocalPlane* p) { return p->kind != PlaneKind::Metadata; }))
        return;
    builder.sendPreview([&](ProfileBuilder& preview) { addPreviewPlanes(preview, done, kPreviewEvents); });
}

} // namespace tpuscope::model::xspace
