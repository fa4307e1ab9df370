// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline's levels of detail against the per-event path and against a plain
// implementation of the merging rules, on random profiles and random windows: every rect must
// come out identical.
#include "timelinegeometry.h"
#include "timescale.h"

#include "core/profile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <tuple>

using namespace tpuscope;
using model::kNone;
using model::OpId;
using model::TimePs;
using model::TrackId;
using model::TrackKind;
using widgets::TimelineGeometryBuilder;
using widgets::TimelineRect;
using widgets::TimeScale;

namespace {

/// floor(log2(ps per pixel)), at least 0: the bucket level of the merging grid.
int referenceLevel(const TimeScale& scale)
{
    int level = 0;
    while (level < 62 && std::ldexp(1.0, level + 1) <= scale.psPerPixel())
        ++level;
    return level;
}

int64_t floorDiv(TimePs t, TimePs width)
{
    return t >= 0 ? t / width : -((-t + width - 1) / width);
}

/// The merging rules of TimelineGeometryBuilder (see its class comment) event by event with
/// linear scans: slow, obviously right, and independent of its indices and levels of detail.
std::vector<TimelineRect> referenceGeometry(const model::Profile& p, TrackId track, const TimeScale& scale,
    const std::vector<QRgb>& colors, const std::vector<bool>& marked)
{
    const model::Track& t = p.tracks[track];
    std::vector<TimelineRect> out;
    const size_t depths = size_t(t.maxDepth) + 1;
    const TimePs begin = scale.begin(), end = scale.end();
    const double width = scale.width();
    const TimePs bucketWidth = TimePs(1) << referenceLevel(scale);
    auto clampX = [&](double x) { return static_cast<float>(std::clamp(x, -2.0, width + 2.0)); };
    for (size_t depth = 0; depth < depths; ++depth) {
        std::vector<uint32_t> events;
        for (size_t i = 0; i < t.size(); ++i)
            if (std::min<size_t>(t.depth[i], depths - 1) == depth)
                events.push_back(uint32_t(i));
        // The first event (in start order) whose end, or an earlier event's, reaches past begin.
        size_t visible = 0;
        TimePs furthest = std::numeric_limits<TimePs>::min();
        for (; visible < events.size(); ++visible) {
            furthest = std::max(furthest, t.end(events[visible]));
            if (furthest > begin)
                break;
        }
        if (visible == events.size())
            continue;
        const int64_t firstBucket = floorDiv(t.start[events[visible]], bucketWidth);
        const int64_t lastBucket = floorDiv(end - 1, bucketWidth);

        const size_t firstOut = out.size();
        bool active = false;
        int64_t runBucket = 0;
        TimePs runStart = 0, runEnd = 0, runWidest = 0;
        OpId runOp = 0;
        uint32_t runCount = 0;
        auto flush = [&] {
            if (!active)
                return;
            active = false;
            const double xs = scale.timeToX(runStart);
            const double x1 = std::max(scale.timeToX(runEnd), xs + TimelineGeometryBuilder::kMinRectWidth);
            TimelineRect* previous = out.size() > firstOut ? &out.back() : nullptr;
            if (previous && previous->event == kNone && previous->color == colors[runOp]
                && previous->marked == marked[runOp] && xs <= previous->x1 + 0.5) {
                previous->x1 = std::max(previous->x1, clampX(x1));
                previous->count += runCount;
                return;
            }
            TimelineRect r;
            r.x0 = clampX(xs);
            r.x1 = clampX(x1);
            r.count = runCount;
            r.color = colors[runOp];
            r.depth = uint16_t(depth);
            r.marked = marked[runOp];
            out.push_back(r);
        };
        for (uint32_t e : events) {
            const int64_t bucket = floorDiv(t.start[e], bucketWidth);
            if (bucket < firstBucket || bucket > lastBucket)
                continue;
            const TimePs s = t.start[e], en = t.end(e);
            if (double(t.duration[e]) * scale.pixelsPerPs() >= TimelineGeometryBuilder::kExactWidth) {
                flush();
                if (en <= begin || s >= end)
                    continue;
                TimelineRect r;
                r.x0 = clampX(scale.timeToX(s));
                r.x1 = clampX(scale.timeToX(en));
                r.event = e;
                r.color = colors[t.op[e]];
                r.depth = uint16_t(depth);
                r.marked = marked[t.op[e]];
                out.push_back(r);
                continue;
            }
            if (active && bucket != runBucket)
                flush();
            if (!active) {
                active = true;
                runBucket = bucket;
                runStart = s;
                runEnd = en;
                runWidest = t.duration[e];
                runOp = t.op[e];
                runCount = 1;
                continue;
            }
            runEnd = std::max(runEnd, en);
            ++runCount;
            if (t.duration[e] > runWidest) {
                runWidest = t.duration[e];
                runOp = t.op[e];
            }
        }
        flush();
    }
    return out;
}

struct RandomProfile
{
    model::ProfilePtr profile;
    std::vector<QRgb> colors;
    std::vector<bool> marked;
};

/// Tracks of different shapes: dense flat lines with clusters (thousands of events per pixel
/// next to sparse stretches), a nested host thread, and a track whose depths are scrambled so
/// ends are not monotone on a depth (partial overlaps in a source).
RandomProfile randomProfile(uint64_t seed)
{
    std::mt19937_64 rng(seed);
    model::ProfileBuilder b;
    const int opCount = 12;
    std::vector<OpId> ops;
    for (int i = 0; i < opCount; ++i) {
        model::OpInfo info;
        info.name = b.intern("op." + std::to_string(i));
        ops.push_back(b.addOp(info));
    }
    std::uniform_int_distribution<int> pickOp(0, opCount - 1);
    const auto plane = b.addPlane("/device:TPU:0");

    // Dense lines: clusters of tiny events separated by gaps; a few long ones in between.
    for (int line = 0; line < 2; ++line) {
        const TrackId track = b.addTrack(plane, "XLA Ops " + std::to_string(line), TrackKind::XlaOps);
        const size_t count = 40'000 + size_t(rng() % 30'000);
        TimePs t = TimePs(rng() % 1000);
        for (size_t i = 0; i < count; ++i) {
            const int shape = int(rng() % 1000);
            TimePs d = 1 + TimePs(rng() % 40); // tiny
            if (shape < 5)
                d = 100'000 + TimePs(rng() % 2'000'000); // long
            else if (shape < 60)
                d = 1000 + TimePs(rng() % 20'000);
            // Equal durations are common so "first of the widest" ties are exercised.
            if (shape % 7 == 0)
                d = 16;
            b.addEvent(track, t, d, ops[size_t(pickOp(rng))]);
            t += d + (rng() % 100 == 0 ? TimePs(rng() % 5'000'000) : TimePs(rng() % 3));
        }
    }
    // Nested host thread: roots with children and grandchildren.
    const auto host = b.addPlane("/host:CPU");
    const TrackId nested = b.addTrack(host, "python", TrackKind::HostThread);
    {
        TimePs t = 0;
        for (int root = 0; root < 3000; ++root) {
            const TimePs rootLength = 10 + TimePs(rng() % 200'000);
            b.addEvent(nested, t, rootLength, ops[size_t(pickOp(rng))]);
            TimePs c = t;
            while (c < t + rootLength) {
                const TimePs childLength = 1 + TimePs(rng() % 20'000);
                if (c + childLength > t + rootLength)
                    break;
                b.addEvent(nested, c, childLength, ops[size_t(pickOp(rng))]);
                if (childLength > 4 && rng() % 2)
                    b.addEvent(nested, c + 1, childLength / 2, ops[size_t(pickOp(rng))]);
                c += childLength + TimePs(rng() % 50);
            }
            t += rootLength + TimePs(rng() % 100'000);
        }
    }
    const TrackId scrambled = b.addTrack(host, "scrambled", TrackKind::HostThread);
    {
        TimePs t = 0;
        for (int i = 0; i < 20'000; ++i) {
            const TimePs d = rng() % 50 == 0 ? TimePs(rng() % 3'000'000) : 1 + TimePs(rng() % 3000);
            b.addEvent(scrambled, t, d, ops[size_t(pickOp(rng))]);
            t += TimePs(rng() % 400);
        }
    }
    auto finished = b.finish();
    // finish() computes proper nesting; scramble one track's depths afterwards (the profile was
    // created non-const by the builder, and nothing else holds it yet).
    model::Track& s = const_cast<model::Profile&>(*finished).tracks[scrambled];
    s.maxDepth = 2;
    for (auto& depth : s.depth)
        depth = uint16_t(rng() % 3);

    RandomProfile r;
    r.profile = finished;
    // Few colours, so neighbouring runs often merge.
    const QRgb palette[] = {qRgb(200, 0, 0), qRgb(0, 200, 0), qRgb(0, 0, 200), qRgb(90, 90, 90)};
    for (int i = 0; i < opCount; ++i) {
        r.colors.push_back(palette[rng() % 4]);
        r.marked.push_back(rng() % 3 == 0);
    }
    return r;
}

bool depthEndsMonotone(const model::Track& t, int depth)
{
    TimePs furthest = std::numeric_limits<TimePs>::min();
    for (size_t i = 0; i < t.size(); ++i) {
        if (t.depth[i] != depth)
            continue;
        if (t.end(i) < furthest)
            return false;
        furthest = t.end(i);
    }
    return true;
}

std::string describe(const TimelineRect& r)
{
    return "x " + std::to_string(r.x0) + ".." + std::to_string(r.x1) + " depth " + std::to_string(r.depth) + " event "
        + (r.event == kNone ? std::string("run") : std::to_string(r.event)) + " count " + std::to_string(r.count)
        + " colour " + std::to_string(r.color) + (r.marked ? " marked" : "");
}

std::string where(uint64_t seed, int window, TrackId track, const TimeScale& scale)
{
    return "seed " + std::to_string(seed) + " window " + std::to_string(window) + " track " + std::to_string(track)
        + " [" + std::to_string(scale.begin()) + ", " + std::to_string(scale.end()) + ") width "
        + std::to_string(scale.width());
}

/// Exact equality, rect by rect; on failure says where.
void expectSameRects(const std::vector<TimelineRect>& got, const std::vector<TimelineRect>& expected,
    const std::string& context, size_t* runs = nullptr)
{
    ASSERT_EQ(got.size(), expected.size()) << context;
    for (size_t i = 0; i < got.size(); ++i) {
        const TimelineRect& a = got[i];
        const TimelineRect& e = expected[i];
        const bool same = a.x0 == e.x0 && a.x1 == e.x1 && a.event == e.event && a.count == e.count && a.color == e.color
            && a.depth == e.depth && a.marked == e.marked;
        ASSERT_TRUE(same) << context << " rect " << i << "\n  got      " << describe(a) << "\n  expected "
                          << describe(e);
        if (runs)
            *runs += a.event == kNone;
    }
}

} // namespace

TEST(TimelineGeometryReference, LevelOfDetailMatchesThePerEventPath)
{
    size_t windows = 0, runs = 0, lodWindows = 0, mergedEvents = 0;
    bool sawNonMonotone = false;
    for (uint64_t seed : {1u, 2u, 3u}) {
        const RandomProfile data = randomProfile(seed);
        const model::Profile& p = *data.profile;
        TimelineGeometryBuilder lod, perEvent;
        for (TimelineGeometryBuilder* b : {&lod, &perEvent}) {
            b->setProfile(data.profile);
            b->setColorFunction([&](OpId op) { return data.colors[op]; });
            b->setMarkedOps(data.marked);
        }
        perEvent.setPath(TimelineGeometryBuilder::Path::Events);
        lod.waitForLevelsOfDetail();
        ASSERT_TRUE(lod.levelsOfDetailReady());
        for (const auto& t : p.tracks)
            for (int d = 0; d <= t.maxDepth; ++d)
                sawNonMonotone = sawNonMonotone || !depthEndsMonotone(t, d);
        // The dense lines must have levels of detail, or this test checks nothing.
        ASSERT_GE(lod.lodLevels(0, 0).size(), 2u);
        ASSERT_GE(lod.lodLevels(1, 0).size(), 2u);

        std::mt19937_64 rng(seed * 7919);
        const TimePs span = p.spanEnd - p.spanBegin;
        for (int w = 0; w < 80; ++w) {
            // Whole profile, windows overhanging either end, and zooms down to sub-picosecond pixels.
            const double fraction = std::pow(10.0, -double(rng() % 9000) / 1000.0);
            const TimePs length = std::max<TimePs>(1, TimePs(double(span) * fraction));
            const TimePs begin = p.spanBegin - length / 10 + TimePs(rng() % uint64_t(span + 1));
            const int width = w == 0 ? 1500 : 1 + int(rng() % 2000);
            const TimeScale scale
                = w == 0 ? TimeScale(p.spanBegin, p.spanEnd, 1500) : TimeScale(begin, begin + length, width);
            bool usedLod = false;
            for (TrackId track = 0; track < p.tracks.size(); ++track) {
                const auto expected = referenceGeometry(p, track, scale, data.colors, data.marked);
                std::vector<TimelineRect> fast, slow;
                lod.buildTrack(track, scale, fast);
                perEvent.buildTrack(track, scale, slow);
                expectSameRects(slow, expected, "per-event path, " + where(seed, w, track, scale));
                expectSameRects(fast, expected, "level of detail, " + where(seed, w, track, scale), &runs);
                if (HasFatalFailure())
                    return;
                const auto levels = lod.lodLevels(track, 0);
                usedLod = usedLod || (!levels.empty() && levels.front() <= TimelineGeometryBuilder::gridLevel(scale));
                for (const auto& r : fast)
                    mergedEvents += r.event == kNone ? r.count : 0;
            }
            lodWindows += usedLod;
            ++windows;
        }
    }
    // The comparison means something only if it covered the interesting cases.
    EXPECT_EQ(windows, 240u);
    EXPECT_TRUE(sawNonMonotone);
    EXPECT_GT(runs, 10'000u);
    EXPECT_GT(lodWindows, 60u);
    EXPECT_GT(mergedEvents, 1'000'000u);
}

TEST(TimelineGeometryReference, GridLevelIsTheLargestPowerOfTwoWithinAPixel)
{
    for (double psPerPx : {0.01, 1.0, 1.5, 2.0, 3.0, 1000.0, 1024.0, 1025.0, 1e9, 1e15}) {
        const TimeScale s(0, TimePs(std::llround(psPerPx * 1000)), 1000);
        const int level = TimelineGeometryBuilder::gridLevel(s);
        EXPECT_EQ(level, referenceLevel(s)) << psPerPx;
        if (s.psPerPixel() >= 1) {
            EXPECT_LE(std::ldexp(1.0, level), s.psPerPixel() * (1 + 1e-12)) << psPerPx;
            EXPECT_GT(std::ldexp(1.0, level + 1), s.psPerPixel()) << psPerPx;
        }
    }
}

TEST(TimelineGeometryReference, PanningKeepsWhatMerges)
{
    // The grid is absolute: a window moved by any amount merges the events it still shows the
    // same way, only shifted (the old per-pixel-column merging changed with every pan).
    const RandomProfile data = randomProfile(5);
    const model::Profile& p = *data.profile;
    TimelineGeometryBuilder builder;
    builder.setProfile(data.profile);
    builder.setColorFunction([](OpId op) { return qRgb(int(op) * 20, 0, 0); }); // few merges
    builder.waitForLevelsOfDetail(); // every build below on the same path
    // A window over ten thousand events of the first dense line.
    const auto& starts = p.tracks[0].start;
    const size_t middle = starts.size() / 2;
    const TimePs begin = starts[middle - 5000], length = starts[middle + 5000] - begin;
    const TimeScale a(begin, begin + length, 1000);
    size_t compared = 0;
    for (TimePs shift : {TimePs(1), TimePs(777), length / 1000 / 3, length / 7}) {
        const TimeScale b(begin + shift, begin + shift + length, 1000);
        std::vector<TimelineRect> ra, rb;
        builder.buildTrack(0, a, ra);
        builder.buildTrack(0, b, rb);
        const double dx = double(shift) * a.pixelsPerPs();
        // Runs well inside both windows (merging can still differ where a window cuts a run).
        auto inner = [&](const std::vector<TimelineRect>& rects, double offset) {
            std::vector<std::tuple<int64_t, uint32_t, QRgb>> result;
            for (const auto& r : rects)
                if (r.event == kNone && r.x0 + offset > 200 && r.x1 + offset < 800)
                    result.emplace_back(std::llround((r.x0 + offset) * 16), r.count, r.color);
            return result;
        };
        const auto ia = inner(ra, 0), ib = inner(rb, dx);
        ASSERT_FALSE(ia.empty());
        EXPECT_EQ(ia.size(), ib.size()) << "shift " << shift;
        size_t same = 0;
        for (size_t i = 0; i < std::min(ia.size(), ib.size()); ++i) {
            same += std::get<1>(ia[i]) == std::get<1>(ib[i]) && std::get<2>(ia[i]) == std::get<2>(ib[i])
                && std::abs(std::get<0>(ia[i]) - std::get<0>(ib[i])) <= 1;
        }
        EXPECT_EQ(same, ia.size()) << "shift " << shift;
        compared += ia.size();
    }
    EXPECT_GT(compared, 100u);
}

TEST(TimelineGeometryReference, LevelsOfDetailAreSmall)
{
    const RandomProfile data = randomProfile(4);
    TimelineGeometryBuilder builder;
    builder.setProfile(data.profile);
    builder.waitForLevelsOfDetail();
    const size_t events = data.profile->eventCount();
    EXPECT_GT(builder.lodBytes(), 0u);
    EXPECT_GT(builder.lodBuildNs(), 0);
    // At most 1/8 entry (28 bytes) per event of a depth that has levels of detail.
    EXPECT_LE(double(builder.lodBytes()) / double(events), 3.5);
}

TEST(TimelineGeometryReference, SampledPathKeepsExtentsAndCounts)
{
    // What frames draw while the worker builds the levels: per bucket the same events and extent
    // as the exact path (on depths without overlaps), only a dense run's colour may differ.
    const RandomProfile data = randomProfile(6);
    const model::Profile& p = *data.profile;
    TimelineGeometryBuilder sampled, exact;
    for (TimelineGeometryBuilder* b : {&sampled, &exact}) {
        b->setProfile(data.profile);
        b->setColorFunction([](OpId) { return qRgb(1, 2, 3); }); // one colour: merging cannot differ
    }
    sampled.setPath(TimelineGeometryBuilder::Path::Sampled);
    exact.setPath(TimelineGeometryBuilder::Path::Events);
    std::mt19937_64 rng(99);
    const TimePs span = p.spanEnd - p.spanBegin;
    size_t compared = 0;
    for (int w = 0; w < 40; ++w) {
        const TimePs length
            = std::max<TimePs>(1, TimePs(double(span) * std::pow(10.0, -double(rng() % 4000) / 1000.0)));
        const TimePs begin = p.spanBegin + TimePs(rng() % uint64_t(span));
        const TimeScale scale(begin, begin + length, 200 + int(rng() % 1800));
        for (TrackId track : {TrackId(0), TrackId(1), TrackId(2)}) { // the dense lines and the nested thread
            std::vector<TimelineRect> a, b;
            sampled.buildTrack(track, scale, a);
            exact.buildTrack(track, scale, b);
            expectSameRects(a, b, "sampled, " + where(6, w, track, scale));
            if (HasFatalFailure())
                return;
            compared += a.size();
        }
    }
    EXPECT_GT(compared, 5000u);
}
