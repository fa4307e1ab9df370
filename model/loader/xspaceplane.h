// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the XSpace decoder's workers learn about one plane, kept apart from the builder until the
// merge (xspacemerge.h) moves it in on the calling thread. Internal to the XSpace decoder.

#include "core/profile.h"
#include "xstat.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tpuscope::model::xspace {

struct LineHeader
{
    int64_t id = 0;
    int64_t displayId = 0;
    // Owned, not views: the line's bytes may be handed back (and, inflated, zeroed) once decoded.
    std::string name;
    std::string displayName;
    int64_t timestampNs = 0;
    size_t eventCount = 0; // events are decoded in a second pass, straight from the line bytes
    // Byte offset in the line of every chunkEvents-th event (events chunkEvents, 2·chunkEvents, …):
    // where pass 2 may split a large line over workers (XSpaceDecoder's chunked planes).
    std::vector<size_t> chunkOffsets;
};

struct PlaneSpans
{
    int64_t id = 0;
    std::string_view name;
    std::vector<std::string_view> lines;
    std::vector<std::string_view> eventMetadata;
    std::vector<std::string_view> statMetadata;
    std::vector<std::string_view> stats;
};

/// One XLine decoded on a worker into columns; `op` holds plane-local op indices until merged.
struct LocalLine
{
    std::string_view bytes;
    LineHeader header;
    TrackKind kind = TrackKind::Other;
    bool xlaOpLine = false;
    std::vector<TimePs> start;
    std::vector<TimePs> duration;
    std::vector<OpId> op;
    std::vector<Track::Aggregated> aggregated;
};

struct HloResult
{
    size_t meta = 0;
    uint64_t programId = 0;
    uint64_t instructions = 0; // counted on the wire in pass 1, before anything is decoded
    bool overLimit = false; // more instructions than LoadLimits::maxHloInstructions: not decoded
    std::shared_ptr<const hlo::Module> module;
    std::string error;
};

/// Everything a worker learns about one plane; merged into the builder on the calling thread.
struct LocalPlane
{
    const PlaneSpans* spans = nullptr;
    PlaneId planeId = 0;
    PlaneKind kind = PlaneKind::Other;
    PlaneContext ctx;
    std::optional<std::string_view> deviceType;
    std::optional<double> peakTflops;
    std::optional<double> peakHbmGbps;
    std::vector<EventMeta> metas;
    std::unordered_map<int64_t, uint32_t> index; // metadata id → metas index (first entry wins)
    std::vector<uint32_t> dense; // the same for small ids, kNone = absent
    std::vector<std::pair<uint32_t, bool>> usedOps; // (metas index, XLA-op line) in first-use order
    // The plane-local op of (metas index at, XLA-op line xla) at [2·at + xla], kNone until used: a
    // small table read once per event, apart from the large metadata entries (xspacechunks.h).
    std::vector<uint32_t> opOfMeta;
    std::vector<LocalLine> lines;
    std::vector<HloResult> programs;
    struct StepMarkerEvent
    {
        TimePs start;
        TimePs duration;
        int64_t stepNum;
        uint32_t meta; // metas index
    };
    std::vector<StepMarkerEvent> stepMarkers; // host events with a step_num stat
    int64_t unknownMetadataIds = 0;
    int64_t malformedEvents = 0;
    // A plane decoded while the input still arrived (xspacearrival.h): the time origin its times
    // were computed against, and whether any time it checked came near the int64 limits.
    std::optional<int64_t> arrivalOriginNs;
    bool nearTimeLimits = false;
};

} // namespace tpuscope::model::xspace
