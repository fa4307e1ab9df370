// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinegeometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tpuscope::widgets {

using model::kNone;
using model::OpId;
using model::Track;
using model::TrackId;

void TimelineGeometryBuilder::setProfile(model::ProfilePtr profile)
{
    m_profile = std::move(profile);
    m_tracks.clear();
    m_opColors.clear();
    m_markedOps.clear();
    if (!m_profile)
        return;
    m_tracks.resize(m_profile->tracks.size());
    m_opColors.assign(m_profile->ops.size(), qRgb(128, 128, 128));
    for (size_t ti = 0; ti < m_profile->tracks.size(); ++ti) {
        const Track& t = m_profile->tracks[ti];
        TrackIndex& index = m_tracks[ti];
        const size_t depths = size_t(t.maxDepth) + 1;
        index.depths.resize(depths);
        if (depths == 1) {
            // The common case (flat lines): no index array at all.
            index.depths[0].identity = true;
        } else {
            std::vector<uint32_t> counts(depths, 0);
            for (uint16_t d : t.depth)
                ++counts[std::min<size_t>(d, depths - 1)];
            for (size_t d = 0; d < depths; ++d)
                index.depths[d].events.reserve(counts[d]);
            for (size_t i = 0; i < t.size(); ++i)
                index.depths[std::min<size_t>(t.depth[i], depths - 1)].events.push_back(static_cast<uint32_t>(i));
        }
        for (DepthIndex& d : index.depths) {
            const size_t n = sizeOf(t, d);
            TimePs maxEnd = std::numeric_limits<TimePs>::min();
            for (size_t k = 0; k < n; ++k) {
                const TimePs end = t.end(eventOf(d, k));
                if (end < maxEnd)
                    d.monotoneEnds = false;
                maxEnd = std::max(maxEnd, end);
            }
            if (!d.monotoneEnds) {
                // Overlapping events on one depth (partial overlaps in the source): a running
                // maximum keeps the "first event ending after t" search a binary search.
                d.prefixMaxEnd.resize(n);
                maxEnd = std::numeric_limits<TimePs>::min();
                for (size_t k = 0; k < n; ++k) {
                    maxEnd = std::max(maxEnd, t.end(eventOf(d, k)));
                    d.prefixMaxEnd[k] = maxEnd;
                }
            }
        }
    }
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
    return sizeOf(m_profile->tracks[track], m_tracks[track].depths[depth]);
}

uint32_t TimelineGeometryBuilder::depthEvent(TrackId track, int depth, size_t position) const
{
    return eventOf(m_tracks[track].depths[depth], position);
}

size_t TimelineGeometryBuilder::firstEndingAfter(const Track& t, const DepthIndex& d, TimePs time) const
{
    size_t lo = 0, hi = sizeOf(t, d);
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
    const Track& t, const DepthIndex& d, size_t from, size_t to, TimePs time) const
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
    const DepthIndex& d = m_tracks[track].depths[depth];
    const size_t first = firstEndingAfter(t, d, begin);
    return {first, firstStartingAtOrAfter(t, d, first, sizeOf(t, d), end)};
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

void TimelineGeometryBuilder::buildDepth(
    const Track& t, const DepthIndex& d, uint16_t depth, const TimeScale& scale, std::vector<TimelineRect>& out) const
{
    const size_t n = sizeOf(t, d);
    if (n == 0)
        return;
    const TimePs begin = scale.begin();
    const TimePs end = scale.end();
    const double width = scale.width();
    const double psPerPx = scale.psPerPixel();
    const size_t firstOut = out.size();
    const bool haveMarks = !m_markedOps.empty();
    auto colorOf = [&](OpId op) { return op < m_opColors.size() ? m_opColors[op] : qRgb(128, 128, 128); };
    auto markedOf = [&](OpId op) { return haveMarks && op < m_markedOps.size() && m_markedOps[op]; };
    // Clamp to just outside the view so float precision never matters for far-away edges.
    auto clampX = [&](double x) { return static_cast<float>(std::clamp(x, -2.0, width + 2.0)); };

    size_t k = firstEndingAfter(t, d, begin);
    const size_t kEnd = firstStartingAtOrAfter(t, d, k, n, end);
    while (k < kEnd) {
        const uint32_t e = eventOf(d, k);
        const TimePs s = t.start[e];
        const TimePs en = s + t.duration[e];
        if (en <= begin) { // only possible when ends are not monotone
            ++k;
            continue;
        }
        const double xs = scale.timeToX(s);
        const double xe = scale.timeToX(en);
        if (xe - xs >= kExactWidth) {
            TimelineRect r;
            r.x0 = clampX(xs);
            r.x1 = clampX(xe);
            r.event = e;
            r.color = colorOf(t.op[e]);
            r.depth = depth;
            r.marked = markedOf(t.op[e]);
            out.push_back(r);
            ++k;
            continue;
        }

        // A sub-pixel event starts a run: every event starting in the same pixel column joins it,
        // found with one binary search instead of visiting each event.
        const double column = std::floor(xs);
        const TimePs columnEnd = begin + static_cast<TimePs>(std::ceil((column + 1.0) * psPerPx));
        size_t kc = firstStartingAtOrAfter(t, d, k + 1, kEnd, std::max(columnEnd, s + 1));
        if (kc - 1 > k) {
            // A wide event that starts late in the column is drawn exactly on the next turn.
            const uint32_t last = eventOf(d, kc - 1);
            if ((scale.timeToX(t.end(last)) - scale.timeToX(t.start[last])) >= kExactWidth)
                --kc;
        }
        const size_t count = kc - k;
        // The widest event of the run decides its colour; dense columns are sampled.
        const size_t stride = std::max<size_t>(1, count / 16);
        uint32_t representative = e;
        TimePs widest = t.duration[e];
        for (size_t j = k + stride; j < kc; j += stride) {
            const uint32_t ej = eventOf(d, j);
            if (t.duration[ej] > widest) {
                widest = t.duration[ej];
                representative = ej;
            }
        }
        const double runEnd = std::max(scale.timeToX(endUpTo(t, d, kc - 1)), xs + kMinRectWidth);
        const QRgb color = colorOf(t.op[representative]);
        const bool marked = markedOf(t.op[representative]);

        TimelineRect* previous = out.size() > firstOut ? &out.back() : nullptr;
        if (previous && previous->event == kNone && previous->color == color && previous->marked == marked
            && xs <= previous->x1 + 0.5) {
            previous->x1 = std::max(previous->x1, clampX(runEnd));
            previous->count += static_cast<uint32_t>(count);
        } else {
            TimelineRect r;
            r.x0 = clampX(xs);
            r.x1 = clampX(runEnd);
            r.event = kNone; // even a lone narrow event: runs merge with their neighbours
            r.count = static_cast<uint32_t>(count);
            r.color = color;
            r.depth = depth;
            r.marked = marked;
            out.push_back(r);
        }
        k = kc;
    }
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
    const DepthIndex& d = m_tracks[track].depths[depth];
    const size_t n = sizeOf(tr, d);
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
            if (d.monotoneEnds)
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

void TimelineGeometryBuilder::addToBatches(const std::vector<TimelineRect>& rects, double xOffset, double top,
    double rowHeight, double gap, RectBatches& batches)
{
    QList<QRect>* current = nullptr;
    QRgb currentColor = 0;
    for (const TimelineRect& r : rects) {
        if (!current || r.color != currentColor) {
            current = &batches[r.color];
            currentColor = r.color;
        }
        const int x0 = int(std::lround(xOffset + r.x0));
        const int x1 = std::max(x0 + 1, int(std::lround(xOffset + r.x1)));
        const int y = int(std::lround(top + r.depth * rowHeight));
        current->append(QRect(x0, y, x1 - x0, int(std::lround(rowHeight - gap))));
    }
}

} // namespace tpuscope::widgets
