// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timescale.h"

#include "core/profile.h"

#include <QHash>
#include <QList>
#include <QRect>
#include <QRgb>

#include <cstdint>
#include <functional>
#include <vector>

namespace tpuscope::widgets {

/// One rect of a track's geometry, in pixels along x (relative to the scale) and in depth rows.
struct TimelineRect
{
    float x0 = 0;
    float x1 = 0;
    uint32_t event = model::kNone; // the event drawn exactly, or kNone for a merged run
    uint32_t count = 1; // events merged into this rect (1 for exact rects)
    QRgb color = 0;
    uint16_t depth = 0;
    bool marked = false; // low-utilization fusion (the exact event or the run's representative)
};

/// Rects batched by colour: one brush change and one drawRects() per colour (STYLE.md §2.1).
/// Integer rects: with antialiasing off that is what gets drawn anyway, and the raster engine's
/// integer path skips per-rect normalisation and rounding.
using RectBatches = QHash<QRgb, QList<QRect>>;

/// Builds level-of-detail geometry for the tracks of a profile. No widgets: the timeline view
/// and the tests drive it directly.
///
/// Per track and depth it keeps the indices of that depth's events (sorted by start, built once
/// in setProfile, O(n)); a window is found by binary search, and events narrower than a pixel
/// are merged per pixel column into runs, skipping over the rest of a dense column with a binary
/// search, so a frame costs O(rows × pixel columns × log n) however many events there are.
class TimelineGeometryBuilder
{
public:
    using TimePs = model::TimePs;
    using ColorFunction = std::function<QRgb(model::OpId)>;

    /// Runs whose pixel extent is below this are widened so they stay visible.
    static constexpr double kMinRectWidth = 1.0;
    /// Events at least this wide are drawn exactly; narrower ones join per-pixel runs.
    static constexpr double kExactWidth = 1.0;

    void setProfile(model::ProfilePtr profile);
    const model::ProfilePtr& profile() const { return m_profile; }

    /// Colours are looked up per op once here, so the hot loop makes no calls.
    void setColorFunction(const ColorFunction& color);
    /// Ops whose events get a low-utilization marker (indexed by OpId; may be empty).
    void setMarkedOps(std::vector<bool> marked);

    /// Rects of every depth of `track` within the scale's window, appended to `out` (depth-major,
    /// x ascending within a depth).
    void buildTrack(model::TrackId track, const TimeScale& scale, std::vector<TimelineRect>& out) const;
    /// Rects for the subset of a track's events listed in `events` (ascending event indices),
    /// e.g. the occurrences of a highlighted op; merged per pixel like buildTrack.
    void buildSubset(model::TrackId track, const std::vector<uint32_t>& events, const TimeScale& scale,
        std::vector<TimelineRect>& out) const;

    /// Number of depth rows of a track (maxDepth + 1, or 1 for an empty track).
    int depthCount(model::TrackId track) const;
    /// [first, last) positions in the depth list of the events overlapping [begin, end).
    std::pair<size_t, size_t> visibleSpan(model::TrackId track, int depth, TimePs begin, TimePs end) const;
    size_t depthSize(model::TrackId track, int depth) const;
    uint32_t depthEvent(model::TrackId track, int depth, size_t position) const;

    /// The event at time t on a depth row, or the nearest one within `tolerance` ps; kNone if none.
    uint32_t eventAt(model::TrackId track, int depth, TimePs t, TimePs tolerance) const;

    /// Appends rects to colour batches at vertical offset `top` with per-depth `rowHeight`.
    static void addToBatches(const std::vector<TimelineRect>& rects, double xOffset, double top, double rowHeight,
        double gap, RectBatches& batches);

private:
    struct DepthIndex
    {
        std::vector<uint32_t> events; // empty with `identity` = every event of the track
        bool identity = false;
        bool monotoneEnds = true; // ends ascend with start: binary search on end directly
        std::vector<TimePs> prefixMaxEnd; // only when ends are not monotone
    };
    struct TrackIndex
    {
        std::vector<DepthIndex> depths;
    };

    uint32_t eventOf(const DepthIndex& d, size_t k) const { return d.identity ? uint32_t(k) : d.events[k]; }
    size_t sizeOf(const model::Track& t, const DepthIndex& d) const { return d.identity ? t.size() : d.events.size(); }
    TimePs endUpTo(const model::Track& t, const DepthIndex& d, size_t k) const
    {
        return d.monotoneEnds ? t.end(eventOf(d, k)) : d.prefixMaxEnd[k];
    }
    size_t firstEndingAfter(const model::Track& t, const DepthIndex& d, TimePs time) const;
    size_t firstStartingAtOrAfter(
        const model::Track& t, const DepthIndex& d, size_t from, size_t to, TimePs time) const;
    void buildDepth(const model::Track& t, const DepthIndex& d, uint16_t depth, const TimeScale& scale,
        std::vector<TimelineRect>& out) const;

    model::ProfilePtr m_profile;
    std::vector<TrackIndex> m_tracks;
    std::vector<QRgb> m_opColors;
    std::vector<bool> m_markedOps;
};

} // namespace tpuscope::widgets
