// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timescale.h"

#include "core/depthindex.h"
#include "core/profile.h"

#include <QRgb>
#include <QtGlobal>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
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
    bool marked = false; // low-utilization op (the exact event or the run's representative)
};

/// Builds level-of-detail geometry for the tracks of a profile. No widgets: the timeline view
/// and the tests drive it directly.
///
/// Merging rules (what the tests check both paths against): time is cut into buckets of
/// W = 2^ℓ ps, the largest power of two not above one pixel (so a bucket is 0.5–1 px wide, and
/// the grid is absolute: panning never changes which events merge). An event at least
/// kExactWidth px wide is drawn exactly. The other events of a bucket — maximal sequences of them
/// between exact events — become one run: from the first one's start to the furthest end (at
/// least kMinRectWidth px), coloured and marked as its widest event (the first of equals), with
/// the number of events merged. Adjacent runs of the same colour and marker merge. A window
/// takes whole buckets: from the bucket of the first event still visible at its left edge to the
/// bucket holding its right edge.
///
/// Per track and depth the builder reads the indices of that depth's events from a
/// model::DepthIndex, built in the load job (O(n), off the GUI thread). Drawn event by event, a zoomed-out frame would
/// cost O(visible events), so dense depths also get a level of detail: per chosen level ℓ, one entry per non-empty
/// bucket (first event, first start, furthest end, widest duration and its op). A frame then reads entries of the
/// finest stored level at or below its own ℓ and combines the few per bucket — O(pixels), with the same result as
/// visiting every event (entries only stand for buckets whose events are all narrow at this zoom; the others are
/// visited event by event). Levels are chosen in setProfile from the index's histogram (≤ 1/16 entry per event each, ≤
/// 1/8 in all: under 3.5 bytes per event) and built by a worker thread, O(n) per depth, so loading never waits for
/// them. Until a depth's levels are ready, frames that would need them merge each bucket with one binary search and a
/// sampled colour instead (the former algorithm: the same extents and counts on ordinary depths, the colour of a dense
/// run possibly another one of its events).
class TimelineGeometryBuilder
{
public:
    enum class Path {
        Auto, // levels of detail when ready, else sampled when zoomed out; events when zoomed in
        Events, // every frame visits the events themselves (the reference)
        Sampled, // never the levels of detail (what a frame does while they are being built)
    };

    TimelineGeometryBuilder() = default;
    ~TimelineGeometryBuilder();
    TimelineGeometryBuilder(const TimelineGeometryBuilder&) = delete;
    TimelineGeometryBuilder& operator=(const TimelineGeometryBuilder&) = delete;

    using TimePs = model::TimePs;
    using ColorFunction = std::function<QRgb(model::OpId)>;

    /// Runs whose pixel extent is below this are widened so they stay visible.
    static constexpr double kMinRectWidth = 1.0;
    /// Events at least this wide are drawn exactly; narrower ones join per-bucket runs.
    static constexpr double kExactWidth = 1.0;
    /// Depths with fewer events are always drawn event by event.
    static constexpr size_t kLodMinEvents = 1024;

    /// Shows `profile` through its depth index (ProfileAnalysis::depthIndex, built in the load
    /// job; O(rows) here) and, unless told not to, starts the worker that builds the levels of
    /// detail. Without an index (tests and benchmarks that drive the builder directly) it is built
    /// here, O(n) on this thread.
    void setProfile(
        model::ProfilePtr profile, std::shared_ptr<const model::DepthIndex> index = nullptr, bool startWorker = true);
    /// Starts the worker if setProfile did not (a caller with more to do on loading first).
    void startLevelsOfDetail();
    const model::ProfilePtr& profile() const { return m_profile; }
    /// The depth index drawn from (the one setProfile was given, or built there).
    const std::shared_ptr<const model::DepthIndex>& depthIndex() const { return m_index; }

    /// Colours are looked up per op once here, so the hot loop makes no calls.
    void setColorFunction(const ColorFunction& color);
    /// Ops whose events get a low-utilization marker (indexed by OpId; may be empty).
    void setMarkedOps(std::vector<bool> marked);
    void setPath(Path path) { m_path = path; }

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

    /// The bucket level ℓ (bucket width 2^ℓ ps) a scale merges at.
    static int gridLevel(const TimeScale& scale);
    /// Levels of detail chosen for a depth (ascending ℓ; built or not).
    std::vector<int> lodLevels(model::TrackId track, int depth) const;
    /// True once the worker has built every level of detail of the profile.
    bool levelsOfDetailReady() const { return m_lodsPending.load(std::memory_order_acquire) == 0; }
    /// Blocks until the worker is done (tests, benchmarks).
    void waitForLevelsOfDetail();
    /// Bytes held by the per-depth indices and the levels of detail built so far.
    size_t indexBytes() const;
    /// The part of indexBytes() in levels of detail.
    size_t lodBytes() const;
    /// Wall time the worker spent building levels of detail (complete once ready).
    qint64 lodBuildNs() const { return m_lodBuildNs.load(); }

private:
    /// One level of detail: an entry per non-empty bucket of 2^level ps, in time order. Every
    /// event of the depth is in exactly one entry; entry q holds positions [firstPos[q],
    /// firstPos[q + 1]).
    struct Lod
    {
        int level = 0;
        std::vector<uint32_t> firstPos;
        std::vector<TimePs> firstStart;
        std::vector<TimePs> maxEnd;
        std::vector<TimePs> widestDuration;
        std::vector<model::OpId> widestOp;
        size_t size() const { return firstPos.size(); }
        size_t bytes() const;
    };
    /// A depth row: its events (the model's index) and the levels of detail drawn from them.
    struct DepthRow
    {
        const model::DepthEvents* row = nullptr; // owned by m_index
        std::vector<int> lodLevels; // chosen in setProfile, ascending
        std::vector<size_t> lodEntries; // their sizes (known from the same histogram)
        std::vector<Lod> lods; // written by the worker, read only once `lodReady`
        std::unique_ptr<std::atomic<bool>> lodReady = std::make_unique<std::atomic<bool>>(false);
    };
    struct TrackIndex
    {
        std::vector<DepthRow> depths;
    };
    class RunBuilder;

    static uint32_t eventOf(const DepthRow& d, size_t k) { return d.row->event(k); }
    static size_t sizeOf(const DepthRow& d) { return d.row->count; }
    static TimePs endUpTo(const model::Track& t, const DepthRow& d, size_t k)
    {
        return d.row->monotoneEnds ? t.end(eventOf(d, k)) : d.row->prefixMaxEnd[k];
    }
    size_t firstEndingAfter(const model::Track& t, const DepthRow& d, TimePs time) const;
    size_t firstStartingAtOrAfter(const model::Track& t, const DepthRow& d, size_t from, size_t to, TimePs time) const;
    static void chooseLevels(DepthRow& d);
    void buildLods(const model::Track& t, DepthRow& d);
    void stopWorker();
    void buildDepth(const model::Track& t, const DepthRow& d, uint16_t depth, const TimeScale& scale,
        std::vector<TimelineRect>& out) const;

    QRgb colorOf(model::OpId op) const { return op < m_opColors.size() ? m_opColors[op] : qRgb(128, 128, 128); }
    bool markedOf(model::OpId op) const { return op < m_markedOps.size() && m_markedOps[op]; }

    model::ProfilePtr m_profile;
    std::shared_ptr<const model::DepthIndex> m_index; // m_profile's events by depth row
    std::vector<TrackIndex> m_tracks; // not resized while the worker runs
    std::vector<QRgb> m_opColors;
    std::vector<bool> m_markedOps;
    Path m_path = Path::Auto;
    std::thread m_worker;
    bool m_workerStarted = false;
    std::atomic<bool> m_stopWorker {false};
    std::atomic<size_t> m_lodsPending {0};
    std::atomic<qint64> m_lodBuildNs {0};
};

} // namespace tpuscope::widgets
