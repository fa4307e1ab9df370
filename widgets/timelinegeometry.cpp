// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinegeometry.h"

#include <QElapsedTimer>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

namespace tpuscope::widgets {

using model::kNone;
using model::OpId;
using model::Track;
using model::TrackId;

namespace {

constexpr int kMaxLevel = 62;

/// Bucket index of a time at a level: floor(t / 2^level), also for negative times.
inline int64_t bucketOf(model::TimePs t, int level)
{
    return t >> level;
}

inline model::TimePs bucketStart(int64_t bucket, int level)
{
    return bucket << level; // well defined for negative values since C++20
}

} // namespace

TimelineGeometryBuilder::~TimelineGeometryBuilder()
{
    stopWorker();
}

void TimelineGeometryBuilder::stopWorker()
{
    if (m_worker.joinable()) {
        m_stopWorker = true;
        m_worker.join();
    }
    m_stopWorker = false;
}

void TimelineGeometryBuilder::waitForLevelsOfDetail()
{
    startLevelsOfDetail();
    if (m_worker.joinable())
        m_worker.join();
}

void TimelineGeometryBuilder::setProfile(
    model::ProfilePtr profile, std::shared_ptr<const model::DepthIndex> index, bool startWorker)
{
    stopWorker();
    m_workerStarted = false;
    m_profile = std::move(profile);
    m_index.reset();
    m_tracks.clear();
    m_opColors.clear();
    m_markedOps.clear();
    m_lodBuildNs = 0;
    m_lodsPending = 0;
    if (!m_profile)
        return;
    if (!index || index->tracks.size() != m_profile->tracks.size())
        index = std::make_shared<const model::DepthIndex>(model::buildDepthIndex(*m_profile));
    m_index = std::move(index);
    m_tracks.resize(m_profile->tracks.size());
    m_opColors.assign(m_profile->ops.size(), qRgb(128, 128, 128));
    size_t pending = 0;
    for (size_t ti = 0; ti < m_profile->tracks.size(); ++ti) {
        const std::vector<model::DepthEvents>& rows = m_index->tracks[ti];
        std::vector<DepthRow>& depths = m_tracks[ti].depths;
        depths.resize(rows.size());
        for (size_t d = 0; d < rows.size(); ++d) {
            depths[d].row = &rows[d];
            chooseLevels(depths[d]);
            pending += !depths[d].lodLevels.empty();
        }
    }
    m_lodsPending = pending;
    if (startWorker)
        startLevelsOfDetail();
}

void TimelineGeometryBuilder::startLevelsOfDetail()
{
    // Off the GUI thread; a depth's levels become visible through its lodReady flag.
    if (m_worker.joinable() || m_lodsPending == 0 || m_workerStarted)
        return;
    m_workerStarted = true;
    m_worker = std::thread([this] {
        for (size_t ti = 0; ti < m_tracks.size() && !m_stopWorker; ++ti) {
            for (DepthRow& d : m_tracks[ti].depths) {
                if (d.lodLevels.empty() || m_stopWorker)
                    continue;
                buildLods(m_profile->tracks[ti], d);
                if (m_stopWorker)
                    return; // possibly half built: never published
                d.lodReady->store(true, std::memory_order_release);
                m_lodsPending.fetch_sub(1, std::memory_order_acq_rel);
            }
        }
    });
}

void TimelineGeometryBuilder::chooseLevels(DepthRow& d)
{
    // The index counted, per pair of consecutive starts a ≤ b, bit_width(a ^ b): they share the
    // bucket of level ℓ exactly when ℓ ≥ that width, so the histogram gives every level's
    // bucket count without another pass over the events.
    const size_t n = sizeOf(d);
    const std::array<uint64_t, 65>& widths = d.row->startBitWidths;
    d.lodLevels.clear();
    d.lodEntries.clear();
    if (n < kLodMinEvents)
        return;
    // buckets[ℓ] = 1 + number of consecutive pairs in different buckets of level ℓ.
    std::array<uint64_t, kMaxLevel + 1> buckets {};
    uint64_t differing = widths[64];
    for (int level = kMaxLevel; level >= 0; --level) {
        differing += widths[size_t(level) + 1];
        buckets[size_t(level)] = 1 + differing;
    }
    // The finest level worth storing averages ≥ 16 events per bucket; coarser ones every other
    // level (a frame combines ≤ ~4 entries per bucket) up to where a handful of buckets remain.
    int finest = -1;
    for (int level = 0; level <= kMaxLevel; ++level) {
        if (buckets[size_t(level)] * 16 <= n) {
            finest = level;
            break;
        }
    }
    if (finest < 0)
        return;
    int top = finest;
    while (top < kMaxLevel && buckets[size_t(top)] > 16)
        ++top;
    for (int step = 2;; ++step) {
        // Clustered events do not halve the buckets per level: widen the spacing until all
        // levels together stay within 1/8 entry per event.
        d.lodLevels.clear();
        uint64_t total = 0;
        d.lodEntries.clear();
        for (int level = finest; level <= top; level += step) {
            d.lodLevels.push_back(level);
            d.lodEntries.push_back(buckets[size_t(level)]);
            total += buckets[size_t(level)];
        }
        if (d.lodLevels.back() != top) {
            d.lodLevels.push_back(top);
            d.lodEntries.push_back(buckets[size_t(top)]);
            total += buckets[size_t(top)];
        }
        if (total * 8 <= n || step > kMaxLevel)
            break;
    }
}

size_t TimelineGeometryBuilder::Lod::bytes() const
{
    return firstPos.capacity() * sizeof(uint32_t) + widestOp.capacity() * sizeof(OpId)
        + (firstStart.capacity() + maxEnd.capacity() + widestDuration.capacity()) * sizeof(TimePs);
}

void TimelineGeometryBuilder::buildLods(const Track& t, DepthRow& d)
{
    if (d.lodLevels.empty())
        return;
    QElapsedTimer timer;
    timer.start();
    const size_t n = sizeOf(d);
    d.lods.resize(d.lodLevels.size());
    // The finest level from the events in one pass; each coarser one from the level below
    // (entries never straddle a coarser bucket), the widest kept as the first of equals.
    Lod& finest = d.lods[0];
    finest.level = d.lodLevels[0];
    const size_t expected = d.lodEntries.empty() ? 0 : d.lodEntries[0];
    finest.firstPos.reserve(expected);
    finest.firstStart.reserve(expected);
    finest.maxEnd.reserve(expected);
    finest.widestDuration.reserve(expected);
    finest.widestOp.reserve(expected);
    const TimePs* starts = t.start.data();
    const TimePs* durations = t.duration.data();
    const uint32_t* events = d.row->identity ? nullptr : d.row->events.data();
    const int level = finest.level;
    size_t nextStopCheck = 0;
    for (size_t k = 0; k < n;) {
        if (k >= nextStopCheck) {
            if (m_stopWorker)
                return; // a new profile: lodReady stays false, nothing reads these
            nextStopCheck = k + (size_t(1) << 20);
        }
        // One bucket: its events are consecutive; locals stay in registers.
        const uint32_t first = events ? events[k] : static_cast<uint32_t>(k);
        const TimePs firstStart = starts[first];
        const int64_t bucket = bucketOf(firstStart, level);
        TimePs furthest = firstStart + durations[first];
        TimePs widest = durations[first];
        uint32_t widestEvent = first;
        size_t j = k + 1;
        for (; j < n; ++j) {
            const uint32_t e = events ? events[j] : static_cast<uint32_t>(j);
            const TimePs start = starts[e];
            if (bucketOf(start, level) != bucket)
                break;
            const TimePs duration = durations[e];
            furthest = std::max(furthest, start + duration);
            const bool wider = duration > widest;
            widest = wider ? duration : widest;
            widestEvent = wider ? e : widestEvent;
        }
        finest.firstPos.push_back(static_cast<uint32_t>(k));
        finest.firstStart.push_back(firstStart);
        finest.maxEnd.push_back(furthest);
        finest.widestDuration.push_back(widest);
        finest.widestOp.push_back(t.op[widestEvent]);
        k = j;
    }
    for (size_t li = 1; li < d.lods.size(); ++li) {
        const Lod& below = d.lods[li - 1];
        Lod& lod = d.lods[li];
        lod.level = d.lodLevels[li];
        lod.firstPos.reserve(d.lodEntries[li]);
        lod.firstStart.reserve(d.lodEntries[li]);
        lod.maxEnd.reserve(d.lodEntries[li]);
        lod.widestDuration.reserve(d.lodEntries[li]);
        lod.widestOp.reserve(d.lodEntries[li]);
        for (size_t q = 0; q < below.size();) {
            const int64_t bucket = bucketOf(below.firstStart[q], lod.level);
            TimePs furthest = below.maxEnd[q];
            size_t widest = q;
            size_t r = q + 1;
            for (; r < below.size() && bucketOf(below.firstStart[r], lod.level) == bucket; ++r) {
                furthest = std::max(furthest, below.maxEnd[r]);
                if (below.widestDuration[r] > below.widestDuration[widest])
                    widest = r;
            }
            lod.firstPos.push_back(below.firstPos[q]);
            lod.firstStart.push_back(below.firstStart[q]);
            lod.maxEnd.push_back(furthest);
            lod.widestDuration.push_back(below.widestDuration[widest]);
            lod.widestOp.push_back(below.widestOp[widest]);
            q = r;
        }
    }
    m_lodBuildNs += timer.nsecsElapsed();
}

std::vector<int> TimelineGeometryBuilder::lodLevels(TrackId track, int depth) const
{
    if (track >= m_tracks.size() || depth < 0 || size_t(depth) >= m_tracks[track].depths.size())
        return {};
    return m_tracks[track].depths[depth].lodLevels;
}

size_t TimelineGeometryBuilder::indexBytes() const
{
    size_t bytes = m_tracks.capacity() * sizeof(TrackIndex) + (m_index ? m_index->bytes() : 0);
    for (const TrackIndex& index : m_tracks) {
        bytes += index.depths.capacity() * sizeof(DepthRow);
        for (const DepthRow& d : index.depths) {
            bytes += d.lodLevels.capacity() * sizeof(int) + d.lodEntries.capacity() * sizeof(size_t)
                + sizeof(std::atomic<bool>);
            if (d.lodReady->load(std::memory_order_acquire)) {
                bytes += d.lods.capacity() * sizeof(Lod);
                for (const Lod& lod : d.lods)
                    bytes += lod.bytes();
            }
        }
    }
    return bytes;
}

size_t TimelineGeometryBuilder::lodBytes() const
{
    size_t bytes = 0;
    for (const TrackIndex& index : m_tracks)
        for (const DepthRow& d : index.depths)
            if (d.lodReady->load(std::memory_order_acquire))
                for (const Lod& lod : d.lods)
                    bytes += lod.bytes();
    return bytes;
}

int TimelineGeometryBuilder::gridLevel(const TimeScale& scale)
{
    const double psPerPx = scale.psPerPixel();
    if (!(psPerPx >= 2.0))
        return 0;
    // floor(log2) through the exponent, exact for every double; clamped so shifts stay defined.
    return std::clamp(std::ilogb(psPerPx), 0, kMaxLevel);
}

void TimelineGeometryBuilder::setColorFunction(const ColorFunction& color)
{
    if (!m_profile)
        return;
    m_opColors.resize(m_profile->ops.size());
    for (OpId op = 0; op < m_opColors.size(); ++op)
        m_opColors[op] = color(op);
}

void TimelineGeometryBuilder::setMarkedOps(std::vector<bool> marked)
{
    m_markedOps = std::move(marked);
}

int TimelineGeometryBuilder::depthCount(TrackId track) const
{
    if (track >= m_tracks.size())
        return 0;
    return static_cast<int>(m_tracks[track].depths.size());
}

size_t TimelineGeometryBuilder::depthSize(TrackId track, int depth) const
{
    if (track >= m_tracks.size() || depth < 0 || size_t(depth) >= m_tracks[track].depths.size())
        return 0;
    return sizeOf(m_tracks[track].depths[depth]);
}

uint32_t TimelineGeometryBuilder::depthEvent(TrackId track, int depth, size_t position) const
{
    return eventOf(m_tracks[track].depths[depth], position);
}

size_t TimelineGeometryBuilder::firstEndingAfter(const Track& t, const DepthRow& d, TimePs time) const
{
    size_t lo = 0, hi = sizeOf(d);
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (endUpTo(t, d, mid) > time)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

size_t TimelineGeometryBuilder::firstStartingAtOrAfter(
    const Track& t, const DepthRow& d, size_t from, size_t to, TimePs time) const
{
    size_t lo = from, hi = to;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (t.start[eventOf(d, mid)] >= time)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

std::pair<size_t, size_t> TimelineGeometryBuilder::visibleSpan(TrackId track, int depth, TimePs begin, TimePs end) const
{
    if (track >= m_tracks.size() || depth < 0 || size_t(depth) >= m_tracks[track].depths.size())
        return {0, 0};
    const Track& t = m_profile->tracks[track];
    const DepthRow& d = m_tracks[track].depths[depth];
    const size_t first = firstEndingAfter(t, d, begin);
    return {first, firstStartingAtOrAfter(t, d, first, sizeOf(d), end)};
}

void TimelineGeometryBuilder::buildTrack(TrackId track, const TimeScale& scale, std::vector<TimelineRect>& out) const
{
    if (!m_profile || track >= m_tracks.size())
        return;
    const Track& t = m_profile->tracks[track];
    const auto& depths = m_tracks[track].depths;
    for (size_t depth = 0; depth < depths.size(); ++depth)
        buildDepth(t, depths[depth], static_cast<uint16_t>(depth), scale, out);
}

/// Accumulates the current bucket's run from events or level-of-detail entries (in position
/// order, so "first of equals" is the same either way) and emits rects.
class TimelineGeometryBuilder::RunBuilder
{
public:
    RunBuilder(const TimelineGeometryBuilder& builder, const TimeScale& scale, int level, uint16_t depth,
        std::vector<TimelineRect>& out)
        : m_builder(builder)
        , m_scale(scale)
        , m_level(level)
        , m_depth(depth)
        , m_out(out)
        , m_firstOut(out.size())
        , m_width(scale.width())
    {
    }

    void add(TimePs start, TimePs end, TimePs widest, OpId widestOp, uint32_t count)
    {
        const int64_t bucket = bucketOf(start, m_level);
        if (m_active && bucket != m_bucket)
            flush();
        if (!m_active) {
            m_active = true;
            m_bucket = bucket;
            m_start = start;
            m_end = end;
            m_widest = widest;
            m_widestOp = widestOp;
            m_count = count;
            return;
        }
        m_end = std::max(m_end, end);
        m_count += count;
        if (widest > m_widest) {
            m_widest = widest;
            m_widestOp = widestOp;
        }
    }

    void flush()
    {
        if (!m_active)
            return;
        m_active = false;
        const double xs = m_scale.timeToX(m_start);
        const double runEnd = std::max(m_scale.timeToX(m_end), xs + kMinRectWidth);
        const QRgb color = m_builder.colorOf(m_widestOp);
        const bool marked = m_builder.markedOf(m_widestOp);
        TimelineRect* previous = m_out.size() > m_firstOut ? &m_out.back() : nullptr;
        if (previous && previous->event == kNone && previous->color == color && previous->marked == marked
            && xs <= previous->x1 + 0.5) {
            previous->x1 = std::max(previous->x1, clampX(runEnd));
            previous->count += m_count;
            return;
        }
        TimelineRect r;
        r.x0 = clampX(xs);
        r.x1 = clampX(runEnd);
        r.event = kNone; // even a lone narrow event: runs merge with their neighbours
        r.count = m_count;
        r.color = color;
        r.depth = m_depth;
        r.marked = marked;
        m_out.push_back(r);
    }

    void exact(uint32_t event, TimePs start, TimePs end, OpId op)
    {
        flush();
        if (end <= m_scale.begin() || start >= m_scale.end())
            return; // a whole bucket is taken at the window's edges; this one is off screen
        TimelineRect r;
        r.x0 = clampX(m_scale.timeToX(start));
        r.x1 = clampX(m_scale.timeToX(end));
        r.event = event;
        r.color = m_builder.colorOf(op);
        r.depth = m_depth;
        r.marked = m_builder.markedOf(op);
        m_out.push_back(r);
    }

private:
    // Clamp to just outside the view so float precision never matters for far-away edges.
    float clampX(double x) const { return static_cast<float>(std::clamp(x, -2.0, m_width + 2.0)); }

    const TimelineGeometryBuilder& m_builder;
    const TimeScale& m_scale;
    const int m_level;
    const uint16_t m_depth;
    std::vector<TimelineRect>& m_out;
    const size_t m_firstOut;
    const double m_width;
    bool m_active = false;
    int64_t m_bucket = 0;
    TimePs m_start = 0, m_end = 0, m_widest = 0;
    OpId m_widestOp = 0;
    uint32_t m_count = 0;
};

void TimelineGeometryBuilder::buildDepth(
    const Track& t, const DepthRow& d, uint16_t depth, const TimeScale& scale, std::vector<TimelineRect>& out) const
{
    const size_t n = sizeOf(d);
    if (n == 0)
        return;
    const int level = gridLevel(scale);
    const double pxPerPs = scale.pixelsPerPs();
    // Whole buckets: from the one holding the first event still visible at the left edge to the
    // one holding the right edge.
    const size_t visible = firstEndingAfter(t, d, scale.begin());
    if (visible >= n)
        return;
    const int64_t firstBucket = bucketOf(t.start[eventOf(d, visible)], level);
    const int64_t lastBucket = bucketOf(scale.end() - 1, level);
    if (firstBucket > lastBucket)
        return;
    const size_t k0 = firstStartingAtOrAfter(t, d, 0, visible, bucketStart(firstBucket, level));
    const size_t k1 = firstStartingAtOrAfter(t, d, visible, n, bucketStart(lastBucket + 1, level));

    RunBuilder run(*this, scale, level, depth, out);
    auto wide = [pxPerPs](TimePs duration) { return double(duration) * pxPerPs >= kExactWidth; };
    auto visit = [&](size_t from, size_t to) {
        for (size_t k = from; k < to; ++k) {
            const uint32_t e = eventOf(d, k);
            const TimePs start = t.start[e];
            const TimePs duration = t.duration[e];
            if (wide(duration))
                run.exact(e, start, start + duration, t.op[e]);
            else
                run.add(start, start + duration, duration, t.op[e], 1);
        }
    };

    // Zoomed in further than the finest level of detail, the events are few per bucket.
    const bool zoomedOut = !d.lodLevels.empty() && d.lodLevels.front() <= level;
    if (!zoomedOut || m_path == Path::Events) {
        visit(k0, k1);
        run.flush();
        return;
    }
    if (m_path == Path::Sampled || !d.lodReady->load(std::memory_order_acquire)) {
        // While the worker builds the levels: one binary search per bucket, the colour of the
        // widest of ≤ 16 sampled events.
        for (size_t k = k0; k < k1;) {
            const uint32_t e = eventOf(d, k);
            const TimePs start = t.start[e];
            const TimePs duration = t.duration[e];
            if (wide(duration)) {
                run.exact(e, start, start + duration, t.op[e]);
                ++k;
                continue;
            }
            const TimePs next = bucketStart(bucketOf(start, level) + 1, level);
            size_t kc = firstStartingAtOrAfter(t, d, k + 1, k1, next);
            // On a depth without overlaps only the last event of a bucket can be wide.
            if (kc - 1 > k && wide(t.duration[eventOf(d, kc - 1)]))
                --kc;
            const size_t stride = std::max<size_t>(1, (kc - k) / 16);
            uint32_t widest = e;
            for (size_t j = k + stride; j < kc; j += stride)
                if (t.duration[eventOf(d, j)] > t.duration[widest])
                    widest = eventOf(d, j);
            run.add(start, endUpTo(t, d, kc - 1), t.duration[widest], t.op[widest], static_cast<uint32_t>(kc - k));
            k = kc;
        }
        run.flush();
        return;
    }

    // The finest level of detail at or below the grid's level.
    const Lod* lod = nullptr;
    for (const Lod& candidate : d.lods)
        if (candidate.level <= level)
            lod = &candidate;
    // k0 starts a bucket of the grid, so it starts an entry of every finer level too.
    size_t q
        = size_t(std::upper_bound(lod->firstPos.begin(), lod->firstPos.end(), uint32_t(k0)) - lod->firstPos.begin())
        - 1;
    for (; q < lod->size() && lod->firstPos[q] < k1; ++q) {
        const size_t entryEnd = q + 1 < lod->size() ? lod->firstPos[q + 1] : n;
        if (!wide(lod->widestDuration[q]))
            run.add(lod->firstStart[q], lod->maxEnd[q], lod->widestDuration[q], lod->widestOp[q],
                static_cast<uint32_t>(entryEnd - lod->firstPos[q]));
        else
            visit(lod->firstPos[q], entryEnd); // an exact event among them: event by event
    }
    run.flush();
}

void TimelineGeometryBuilder::buildSubset(
    TrackId track, const std::vector<uint32_t>& events, const TimeScale& scale, std::vector<TimelineRect>& out) const
{
    if (!m_profile || track >= m_tracks.size() || events.empty())
        return;
    const Track& t = m_profile->tracks[track];
    const TimePs begin = scale.begin();
    const TimePs end = scale.end();
    const double width = scale.width();
    const double psPerPx = scale.psPerPixel();
    auto clampX = [&](double x) { return static_cast<float>(std::clamp(x, -2.0, width + 2.0)); };
    auto startLess = [&](uint32_t e, TimePs time) { return t.start[e] < time; };

    size_t p = std::lower_bound(events.begin(), events.end(), begin, startLess) - events.begin();
    // Events starting before the window may still reach into it (a parent op); look back a little.
    for (int back = 0; p > 0 && back < 64; ++back) {
        if (t.end(events[p - 1]) > begin)
            --p;
        else if (t.depth[events[p - 1]] == 0)
            break;
        else
            --p;
    }
    std::vector<size_t> lastOfDepth(size_t(t.maxDepth) + 1, SIZE_MAX);
    while (p < events.size()) {
        const uint32_t e = events[p];
        const TimePs s = t.start[e];
        if (s >= end)
            break;
        const TimePs en = t.end(e);
        if (en <= begin) {
            ++p;
            continue;
        }
        const uint16_t depth = t.depth[e];
        const double xs = scale.timeToX(s);
        const double xe = std::max(scale.timeToX(en), xs + kMinRectWidth);
        size_t next = p + 1;
        if (xe - xs < kExactWidth + 1e-9) {
            // Dense occurrences: skip the rest of this pixel column.
            const TimePs columnEnd = begin + static_cast<TimePs>(std::ceil((std::floor(xs) + 1.0) * psPerPx));
            next = std::max(next,
                size_t(std::lower_bound(events.begin() + p, events.end(), columnEnd, startLess) - events.begin()));
        }
        size_t& last = lastOfDepth[std::min<size_t>(depth, lastOfDepth.size() - 1)];
        if (last != SIZE_MAX && xs <= out[last].x1 + 0.5) {
            out[last].x1 = std::max(out[last].x1, clampX(xe));
            out[last].count += static_cast<uint32_t>(next - p);
            out[last].event = kNone;
        } else {
            TimelineRect r;
            r.x0 = clampX(xs);
            r.x1 = clampX(xe);
            r.event = next - p == 1 ? e : kNone;
            r.count = static_cast<uint32_t>(next - p);
            r.color = 0;
            r.depth = depth;
            last = out.size();
            out.push_back(r);
        }
        p = next;
    }
}

uint32_t TimelineGeometryBuilder::eventAt(TrackId track, int depth, TimePs t, TimePs tolerance) const
{
    if (!m_profile || track >= m_tracks.size() || depth < 0 || size_t(depth) >= m_tracks[track].depths.size())
        return kNone;
    const Track& tr = m_profile->tracks[track];
    const DepthRow& d = m_tracks[track].depths[depth];
    const size_t n = sizeOf(d);
    if (n == 0)
        return kNone;
    // Positions [0, p) start at or before t.
    const size_t p = firstStartingAtOrAfter(tr, d, 0, n, t + 1);
    if (p > 0) {
        // With overlapping events on one depth an earlier, longer event may contain t.
        for (size_t q = p; q > 0 && endUpTo(tr, d, q - 1) > t && p - q < 64; --q) {
            const uint32_t e = eventOf(d, q - 1);
            if (tr.end(e) > t)
                return e;
            if (d.row->monotoneEnds)
                break;
        }
    }
    uint32_t best = kNone;
    TimePs bestDistance = tolerance + 1;
    if (p > 0) {
        const uint32_t e = eventOf(d, p - 1);
        const TimePs distance = t - tr.end(e);
        if (distance < bestDistance) {
            bestDistance = distance;
            best = e;
        }
    }
    if (p < n) {
        const uint32_t e = eventOf(d, p);
        const TimePs distance = tr.start[e] - t;
        if (distance < bestDistance)
            best = e;
    }
    return best;
}

} // namespace tpuscope::widgets
