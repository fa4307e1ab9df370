// SPDX-License-Identifier: GPL-3.0-or-later
#include "xspacemerge.h"

#include <string>

namespace tpuscope::model::xspace {

std::vector<OpId> mergeOps(ProfileBuilder& builder, LocalPlane& local)
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

void mergePlane(ProfileBuilder& builder, LocalPlane& local)
{
    Profile& profile = builder.profile();
    {
        Plane& plane = profile.planes[local.planeId];
        if (local.deviceType)
            plane.deviceType = std::string(*local.deviceType);
        if (local.peakTflops)
            plane.peakTflops = *local.peakTflops;
        if (local.peakHbmGbps)
            plane.peakHbmGbps = *local.peakHbmGbps;
    }
    profile.stats.unknownMetadataIds += local.unknownMetadataIds;
    profile.stats.malformedEvents += local.malformedEvents;
    for (HloResult& result : local.programs) {
        const EventMeta& meta = local.metas[result.meta];
        if (!result.module) {
            if (!result.overLimit)
                ++profile.stats.hloDecodeFailures;
            profile.load.warnings.push_back("program " + std::string(meta.name) + ": " + result.error);
        }
        std::string name(meta.name);
        if (auto paren = name.rfind('('); paren != std::string::npos && paren > 0)
            name.resize(paren);
        builder.addProgram(result.programId, result.module ? result.module->name : name, std::move(result.module));
    }
    if (local.kind == PlaneKind::Metadata)
        return; // events of the metadata plane are not decoded (see decodeLines)
    for (const LocalPlane::StepMarkerEvent& m : local.stepMarkers) {
        const EventMeta& meta = local.metas[m.meta];
        const std::string_view name = meta.displayName.empty() ? meta.name : meta.displayName;
        builder.addStepMarker({m.start, m.duration, m.stepNum, builder.intern(name), local.planeId});
    }
    for (LocalLine& line : local.lines) {
        const LineHeader& header = line.header;
        const std::string_view name = header.displayName.empty() ? header.name : header.displayName;
        const TrackId trackId = builder.addTrack(local.planeId, name, line.kind, header.id);
        Track& track = profile.tracks[trackId];
        track.displayId = header.displayId ? header.displayId : header.id;
        track.start = std::move(line.start);
        track.duration = std::move(line.duration);
        track.op = std::move(line.op);
        track.aggregated = std::move(line.aggregated);
    }
    local.metas = {};
    local.lines = {};
}

} // namespace tpuscope::model::xspace
