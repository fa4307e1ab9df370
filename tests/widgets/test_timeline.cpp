// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinegeometry.h"
#include "timelinerasterizer.h"
#include "timelinesearch.h"
#include "timelineview.h"
#include "timescale.h"

#include "../testsession.h"
#include "analysis/opbreakdown.h"
#include "core/profile.h"
#include "loader/loader.h"

#include <QApplication>
#include <QResizeEvent>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

using namespace tpuscope;
using model::kNone;
using model::OpId;
using model::TimePs;
using model::TrackId;
using model::TrackKind;
using widgets::TimelineGeometryBuilder;
using widgets::TimelineRect;
using widgets::TimelineSearch;
using widgets::TimelineView;
using widgets::TimeScale;

namespace {

constexpr TimePs kNs = 1000;

OpId addXlaOp(model::ProfileBuilder& b, const char* name, const char* category, double flops = 0)
{
    model::OpInfo info;
    info.name = b.intern(name);
    info.category = b.intern(category);
    info.isXlaOp = true;
    info.flops = flops;
    info.bytesAccessed = 1000;
    return b.addOp(info);
}

/// `count` back-to-back events of 1 ns on one XLA Ops track; ops alternate between two kinds
/// so merged runs cannot simply collapse into one rect.
model::ProfilePtr denseProfile(size_t count)
{
    model::ProfileBuilder b;
    const auto plane = b.addPlane("/device:TPU:0");
    const TrackId track = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    const OpId a = addXlaOp(b, "fusion.1", "loop fusion");
    const OpId c = addXlaOp(b, "convolution.2", "convolution fusion");
    for (size_t i = 0; i < count; ++i)
        b.addEvent(track, TimePs(i) * kNs, kNs, (i % 2) ? c : a);
    return b.finish();
}

/// Sends the resize event an unshown widget would only get when shown, so the scroll area
/// lays out its viewport (hit tests need the real viewport size).
void resizeUnshown(QWidget& w, QSize size)
{
    const QSize old = w.size();
    w.resize(size);
    QResizeEvent event(size, old);
    QApplication::sendEvent(&w, &event);
}

} // namespace

// --- TimeScale -------------------------------------------------------------------------------------

TEST(TimeScale, MapsTimeToPixelsAndBack)
{
    const TimeScale s(1000, 11000, 100); // 100 ps per pixel
    EXPECT_DOUBLE_EQ(s.timeToX(1000), 0);
    EXPECT_DOUBLE_EQ(s.timeToX(6000), 50);
    EXPECT_DOUBLE_EQ(s.timeToX(11000), 100);
    EXPECT_EQ(s.xToTime(25), 3500);
    EXPECT_DOUBLE_EQ(s.psPerPixel(), 100);
    for (TimePs t : {1000, 1234, 5000, 10999})
        EXPECT_NEAR(double(s.xToTime(s.timeToX(t))), double(t), 1);
    // A degenerate window never divides by zero.
    const TimeScale empty(5, 5, 0);
    EXPECT_GT(empty.pixelsPerPs(), 0);
}

TEST(TimeScale, TickUnitsFollowTheZoom)
{
    struct Case
    {
        TimePs duration;
        TimePs step;
        TimeScale::Unit unit;
        const char* firstLabel; // the first major tick after 0
    };
    const Case cases[] = {
        {TimePs(1'000'000'000), 100'000'000, TimeScale::Unit::Us, "100 µs"}, // 1 ms on 1000 px
        {10 * kNs, 1 * kNs, TimeScale::Unit::Ns, "1 ns"},
        {100, 10, TimeScale::Unit::Ns, "0.01 ns"},
        {TimePs(5'000'000'000'000), 500'000'000'000, TimeScale::Unit::Ms, "500 ms"},
        {TimePs(100'000'000'000'000), 10'000'000'000'000, TimeScale::Unit::S, "10 s"},
        {TimePs(30'000'000), 5'000'000, TimeScale::Unit::Us, "5 µs"},
    };
    for (const Case& c : cases) {
        const TimeScale s(0, c.duration, 1000);
        const auto ticks = s.ticks(0, 90);
        EXPECT_EQ(ticks.step, c.step) << c.duration;
        EXPECT_EQ(ticks.unit, c.unit) << c.duration;
        EXPECT_GE(ticks.step * s.pixelsPerPs(), 90 - 1e-6);
        std::vector<TimeScale::Tick> majors;
        for (const auto& t : ticks.ticks)
            if (t.major)
                majors.push_back(t);
        ASSERT_GE(majors.size(), 2u);
        EXPECT_EQ(TimeScale::tickLabel(ticks, majors[1].time), QString::fromUtf8(c.firstLabel)) << c.duration;
        // Minor ticks subdivide the major step evenly.
        EXPECT_EQ(ticks.step % ticks.minorStep, 0);
        for (const auto& t : ticks.ticks)
            EXPECT_TRUE(t.x >= -1e-9 && t.x <= 1000 + 1e-9);
    }
}

TEST(TimeScale, LongOffsetsAreShownRelativeToABase)
{
    // 10 µs window 42 s into the profile: labels must not read "42000010 µs".
    const TimePs begin = TimePs(42'000'000'000'000) + 123'456'789;
    const TimeScale s(begin, begin + 10'000'000, 1000);
    const auto ticks = s.ticks(0, 90);
    EXPECT_EQ(ticks.unit, TimeScale::Unit::Us);
    EXPECT_NE(ticks.base, 0);
    EXPECT_LE(ticks.base, begin);
    for (const auto& t : ticks.ticks) {
        if (t.major) {
            EXPECT_LE(TimeScale::tickLabel(ticks, t.time).size(), 12)
                << TimeScale::tickLabel(ticks, t.time).toStdString();
        }
    }
}

// A 4.32 s span on an 880-px ruler: ticks every 500 ms, 87 px apart, the last 40 px from the
// right edge. Its label went left of the tick, whole, and ran into the one before: "3500 ms4000 ms".
TEST(TimelineRuler, ALabelMovedLeftOfItsTickNeverRunsIntoTheOneBefore)
{
    const int width = 880;
    std::vector<double> x;
    for (int i = 0; i <= 9; ++i)
        x.push_back(60 + 87.0 * i);
    ASSERT_GT(x.back(), width - 50.0);
    const std::vector<int> labelWidth(x.size(), 52); // "3500 ms" in a 9-pt font
    const std::vector<double> left = widgets::TimelineRasterizer::rulerLabelLefts(x, labelWidth, width);
    ASSERT_EQ(left.size(), x.size());
    double lastRight = -1e9;
    size_t drawn = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(left[i]))
            continue;
        ++drawn;
        EXPECT_GE(left[i], lastRight + 8) << "label " << i << " overlaps the one before";
        EXPECT_LE(left[i] + labelWidth[i], width) << "label " << i << " runs past the edge";
        lastRight = left[i] + labelWidth[i];
    }
    EXPECT_EQ(drawn, x.size() - 1); // the last one had no room
    EXPECT_TRUE(std::isnan(left.back()));
    // With room left of the tick it is drawn there rather than dropped.
    const std::vector<double> roomy = widgets::TimelineRasterizer::rulerLabelLefts({20, 200, 860}, {52, 52, 52}, width);
    EXPECT_DOUBLE_EQ(roomy[2], 860 - 3 - 52);
}

TEST(TimeScale, LabelsFarFromTheStartMoveToALargerUnit)
{
    // Issue 25.11: a 5 ms window 100 ms into the profile read "102500 µs".
    const TimePs ms = 1'000'000'000;
    const TimeScale s(100 * ms, 105 * ms, 1000);
    const auto ticks = s.ticks(0, 90);
    EXPECT_EQ(ticks.step, 500'000'000);
    EXPECT_EQ(ticks.unit, TimeScale::Unit::Ms);
    EXPECT_EQ(TimeScale::tickLabel(ticks, 102 * ms + ms / 2), QStringLiteral("102.5 ms"));
    for (const auto& t : ticks.ticks)
        if (t.major) {
            EXPECT_LE(TimeScale::tickLabel(ticks, t.time).indexOf(QLatin1Char('.')), 3)
                << TimeScale::tickLabel(ticks, t.time).toStdString();
        }
}

// The timeline prints durations with the one formatter set (the CLI and the tables read the same).
TEST(TimeScale, FormatsDurations)
{
    EXPECT_EQ(TimeScale::formatDuration(500), QStringLiteral("500 ps"));
    EXPECT_EQ(TimeScale::formatDuration(1500), QStringLiteral("1.5 ns"));
    EXPECT_EQ(TimeScale::formatDuration(12'340'000), QString::fromUtf8("12.3 µs"));
    EXPECT_EQ(TimeScale::formatDuration(2.5e9), QStringLiteral("2.5 ms"));
    EXPECT_EQ(TimeScale::formatDuration(3e12), QStringLiteral("3 s"));
    EXPECT_EQ(
        TimeScale::formatDuration(12'340'000), QString::fromStdString(tpuscope::model::formatDurationPs(12'340'000)));
}

// --- geometry ------------------------------------------------------------------------------------

TEST(TimelineGeometry, MergesSubPixelEventsPerPixelColumn)
{
    const size_t n = 1'000'000;
    const auto profile = denseProfile(n);
    TimelineGeometryBuilder builder;
    builder.setProfile(profile);
    builder.setColorFunction([](OpId op) { return op == 0 ? qRgb(255, 0, 0) : qRgb(0, 0, 255); });
    builder.waitForLevelsOfDetail(); // the same path every run (the sampled one is tested elsewhere)

    const int width = 1000;
    const TimeScale s(0, TimePs(n) * kNs, width); // 1000 events per pixel
    std::vector<TimelineRect> rects;
    builder.buildTrack(0, s, rects);
    ASSERT_FALSE(rects.empty());
    EXPECT_LE(rects.size(), size_t(3 * width));
    std::map<int, int> perColumn;
    uint64_t covered = 0;
    for (const auto& r : rects) {
        ++perColumn[int(std::floor(r.x0))];
        covered += r.count;
        EXPECT_EQ(r.event, kNone); // nothing is wide enough to be drawn exactly
        EXPECT_GE(r.x1 - r.x0, 1.0f - 1e-4f);
    }
    for (const auto& [column, count] : perColumn)
        EXPECT_LE(count, 3) << "column " << column;
    // Every event is accounted for by exactly one run.
    EXPECT_EQ(covered, n);
    // The runs cover the whole width without holes.
    float reach = 0;
    for (const auto& r : rects) {
        EXPECT_LE(r.x0, reach + 1.0f);
        reach = std::max(reach, r.x1);
    }
    EXPECT_GE(reach, width - 1);
}

TEST(TimelineGeometry, ZoomedInRectsAreExact)
{
    const auto profile = denseProfile(1'000'000);
    TimelineGeometryBuilder builder;
    builder.setProfile(profile);
    builder.setColorFunction([](OpId op) { return qRgb(10, 20, int(op)); });
    const TimePs begin = 500'000 * kNs;
    const TimeScale s(begin, begin + 10 * kNs, 1000); // 10 events, 100 px each
    std::vector<TimelineRect> rects;
    builder.buildTrack(0, s, rects);
    ASSERT_EQ(rects.size(), 10u);
    for (size_t i = 0; i < rects.size(); ++i) {
        EXPECT_EQ(rects[i].event, 500'000u + i);
        EXPECT_EQ(rects[i].count, 1u);
        EXPECT_FLOAT_EQ(rects[i].x0, float(100 * i));
        EXPECT_FLOAT_EQ(rects[i].x1, float(100 * (i + 1)));
        EXPECT_EQ(rects[i].color, qRgb(10, 20, int((500'000 + i) % 2)));
    }
    // Half an event at each edge: clipped, not dropped.
    const TimeScale shifted(begin + kNs / 2, begin + kNs / 2 + 10 * kNs, 1000);
    rects.clear();
    builder.buildTrack(0, shifted, rects);
    ASSERT_EQ(rects.size(), 11u);
    EXPECT_EQ(rects.front().event, 500'000u);
    EXPECT_LT(rects.front().x0, 0.0f);
    EXPECT_EQ(rects.back().event, 500'010u);
}

TEST(TimelineGeometry, NestedEventsGoToTheirDepthRows)
{
    model::ProfileBuilder b;
    const auto plane = b.addPlane("/host:CPU");
    const TrackId track = b.addTrack(plane, "python", TrackKind::HostThread);
    model::OpInfo info;
    info.name = b.intern("outer");
    const OpId outer = b.addOp(info);
    info.name = b.intern("child");
    const OpId child = b.addOp(info);
    info.name = b.intern("leaf");
    const OpId leaf = b.addOp(info);
    // Added out of order: the builder sorts and computes depth.
    b.addEvent(track, 35 * kNs, 5 * kNs, leaf);
    b.addEvent(track, 0, 100 * kNs, outer);
    b.addEvent(track, 30 * kNs, 30 * kNs, child);
    b.addEvent(track, 10 * kNs, 10 * kNs, child);
    b.addEvent(track, 200 * kNs, 50 * kNs, outer); // a second root far right
    const auto profile = b.finish();

    TimelineGeometryBuilder builder;
    builder.setProfile(profile);
    ASSERT_EQ(builder.depthCount(track), 3);
    EXPECT_EQ(builder.depthSize(track, 0), 2u);
    EXPECT_EQ(builder.depthSize(track, 1), 2u);
    EXPECT_EQ(builder.depthSize(track, 2), 1u);

    const TimeScale s(0, 100 * kNs, 1000);
    std::vector<TimelineRect> rects;
    builder.buildTrack(track, s, rects);
    ASSERT_EQ(rects.size(), 4u); // the second root is outside the window
    std::map<int, std::vector<std::pair<float, float>>> byDepth;
    for (const auto& r : rects) {
        ASSERT_NE(r.event, kNone);
        EXPECT_EQ(r.depth, profile->tracks[track].depth[r.event]);
        byDepth[r.depth].emplace_back(r.x0, r.x1);
    }
    EXPECT_EQ(byDepth[0], (std::vector<std::pair<float, float>> {{0, 1000}}));
    EXPECT_EQ(byDepth[1], (std::vector<std::pair<float, float>> {{100, 200}, {300, 600}}));
    EXPECT_EQ(byDepth[2], (std::vector<std::pair<float, float>> {{350, 400}}));

    // A window inside the parent still finds it (it started before the window).
    rects.clear();
    builder.buildTrack(track, TimeScale(70 * kNs, 80 * kNs, 100), rects);
    ASSERT_EQ(rects.size(), 1u);
    EXPECT_EQ(rects[0].depth, 0);

    // Hit tests per depth.
    EXPECT_EQ(profile->tracks[track].op[builder.eventAt(track, 2, 37 * kNs, 0)], leaf);
    EXPECT_EQ(profile->tracks[track].op[builder.eventAt(track, 1, 37 * kNs, 0)], child);
    EXPECT_EQ(builder.eventAt(track, 1, 25 * kNs, 1 * kNs), kNone);
    EXPECT_NE(builder.eventAt(track, 1, 25 * kNs, 6 * kNs), kNone); // within tolerance of a neighbour
    EXPECT_EQ(profile->tracks[track].op[builder.eventAt(track, 0, 220 * kNs, 0)], outer);
}

TEST(TimelineGeometry, OverlappingEventsOnOneDepthAreFound)
{
    // Partial overlaps put events on one depth whose ends are not monotone.
    model::ProfileBuilder b;
    const auto plane = b.addPlane("/host:CPU");
    const TrackId track = b.addTrack(plane, "t", TrackKind::HostThread);
    model::OpInfo info;
    info.name = b.intern("x");
    const OpId op = b.addOp(info);
    b.addEvent(track, 0, 10 * kNs, op);
    b.addEvent(track, 5 * kNs, 10 * kNs, op); // partial overlap → depth 1
    b.addEvent(track, 12 * kNs, 2 * kNs, op);
    b.addEvent(track, 13 * kNs, 1 * kNs, op);
    const auto profile = b.finish();
    TimelineGeometryBuilder builder;
    builder.setProfile(profile);
    size_t total = 0;
    for (int d = 0; d < builder.depthCount(track); ++d) {
        const auto [first, last] = builder.visibleSpan(track, d, 0, 20 * kNs);
        total += last - first;
    }
    EXPECT_EQ(total, 4u);
    std::vector<TimelineRect> rects;
    builder.buildTrack(track, TimeScale(0, 20 * kNs, 200), rects);
    EXPECT_EQ(rects.size(), 4u);
}

// --- view ----------------------------------------------------------------------------------------

namespace {

struct TwoCoreProfile
{
    model::ProfilePtr profile;
    TrackId ops0 = kNone, ops1 = kNone;
    OpId slowFusion = kNone, fastConv = kNone, copy = kNone;
};

/// Two TPU cores, 100 ops each: op i on core c runs [i·100 ns + c·10 ns, +60 ns).
TwoCoreProfile twoCoreProfile()
{
    TwoCoreProfile r;
    model::ProfileBuilder b;
    const auto p0 = b.addPlane("/device:TPU:0");
    const auto p1 = b.addPlane("/device:TPU:1");
    for (auto p : {p0, p1}) {
        b.profile().planes[p].peakTflops = 100;
        b.profile().planes[p].peakHbmGbps = 1000;
    }
    const TrackId steps0 = b.addTrack(p0, "Steps", TrackKind::Steps);
    r.ops0 = b.addTrack(p0, "XLA Ops", TrackKind::XlaOps);
    r.ops1 = b.addTrack(p1, "XLA Ops", TrackKind::XlaOps);
    // 60 ns events: util = flops / (60000 ps · 100) → 6e5 flops = 10 %, 5.4e6 = 90 %.
    r.slowFusion = addXlaOp(b, "fusion.7", "loop fusion", 6e5);
    r.fastConv = addXlaOp(b, "convolution.3", "convolution fusion", 5.4e6);
    r.copy = addXlaOp(b, "copy.1", "data formatting", 0);
    model::OpInfo step;
    step.name = b.intern("0");
    const OpId stepOp = b.addOp(step);
    b.addEvent(steps0, 0, 10'000 * kNs, stepOp);
    for (int c = 0; c < 2; ++c) {
        for (int i = 0; i < 100; ++i) {
            const OpId op = i % 3 == 0 ? r.slowFusion : (i % 3 == 1 ? r.fastConv : r.copy);
            b.addEvent(c == 0 ? r.ops0 : r.ops1, TimePs(i) * 100 * kNs + c * 10 * kNs, 60 * kNs, op);
        }
    }
    const auto hostPlane = b.addPlane("/host:CPU");
    const TrackId thread = b.addTrack(hostPlane, "python3", TrackKind::HostThread);
    model::OpInfo hostOp;
    hostOp.name = b.intern("PjitFunction(fusion.7 launcher)");
    b.addEvent(thread, 0, 50 * kNs, b.addOp(hostOp));
    r.profile = b.finish();
    return r;
}

} // namespace

TEST(TimelineView, GroupsCoresAndCollapsesHostThreads)
{
    const auto data = twoCoreProfile();
    TimelineView view;
    view.setProfile(data.profile);
    const QStringList groups = view.groupNames();
    ASSERT_EQ(groups.size(), 3);
    EXPECT_TRUE(groups[0].startsWith(QStringLiteral("TPU:0")));
    EXPECT_TRUE(groups[1].startsWith(QStringLiteral("TPU:1")));
    // Steps before XLA Ops.
    const auto core0 = view.groupTracks(0);
    ASSERT_EQ(core0.size(), 2u);
    EXPECT_EQ(data.profile->tracks[core0[0]].kind, TrackKind::Steps);
    EXPECT_EQ(core0[1], data.ops0);
    EXPECT_TRUE(view.isGroupCollapsed(2));
    EXPECT_FALSE(view.isGroupCollapsed(0));
    resizeUnshown(view, QSize(1000, 600));
    const TrackId host = view.groupTracks(2).at(0);
    EXPECT_EQ(view.trackTop(host), -1);
    view.setGroupCollapsed(2, false);
    EXPECT_GT(view.trackTop(host), view.trackTop(data.ops1));
}

TEST(TimelineView, HitTestPicksTheEventUnderTheMouse)
{
    const auto data = twoCoreProfile();
    TimelineView view;
    view.setProfile(data.profile);
    resizeUnshown(view, QSize(1000 + 190 + 40, 600));
    const int width = view.eventAreaWidth();
    ASSERT_GT(width, 500);
    view.setVisibleRange(0, 1000 * kNs); // events 0..9 of each core
    const auto [b, e] = view.visibleRange();
    const TimeScale s(b, e, width);
    auto pointAt = [&](TimePs t, TrackId track) {
        return QPoint(view.eventAreaLeft() + int(std::lround(s.timeToX(t))), view.trackTop(track) + 5);
    };
    // Middle of core 1's event 4 (starts at 410 ns).
    auto hit = view.eventAt(pointAt(440 * kNs, data.ops1));
    EXPECT_EQ(hit.first, data.ops1);
    EXPECT_EQ(hit.second, 4u);
    hit = view.eventAt(pointAt(440 * kNs, data.ops0));
    EXPECT_EQ(hit.first, data.ops0);
    EXPECT_EQ(hit.second, 4u);
    // In the 40 ns gap after an event: nothing (gap ≫ 3 px tolerance).
    hit = view.eventAt(pointAt(485 * kNs, data.ops0));
    EXPECT_EQ(hit.first, kNone);
    // Label column and ruler are not events.
    EXPECT_EQ(view.eventAt(QPoint(10, view.trackTop(data.ops0) + 5)).first, kNone);
    EXPECT_EQ(view.eventAt(QPoint(view.eventAreaLeft() + 100, 5)).first, kNone);

    QSignalSpy selected(&view, &TimelineView::eventSelected);
    view.selectEvent(data.ops1, 4);
    ASSERT_EQ(selected.count(), 1);
    EXPECT_EQ(selected.at(0).at(0).value<TrackId>(), data.ops1);
    EXPECT_EQ(selected.at(0).at(1).value<quint32>(), 4u);
    EXPECT_EQ(view.selectedEvent(), std::make_pair(data.ops1, 4u));

    // Painting works offscreen and reports its frame time.
    QSignalSpy painted(&view, &TimelineView::framePainted);
    const QPixmap pixmap = view.grab();
    EXPECT_FALSE(pixmap.isNull());
    EXPECT_GE(painted.count(), 1);
    EXPECT_GT(view.lastRectCount(), 0u);
}

TEST(TimelineView, HighlightsOccurrencesOfAnOp)
{
    const auto data = twoCoreProfile();
    TimelineView view;
    view.setProfile(data.profile);
    resizeUnshown(view, QSize(1200, 500));
    view.setHighlightedOp(data.fastConv);
    EXPECT_EQ(view.highlightedOp(), data.fastConv);
    EXPECT_EQ(view.highlightedOccurrenceCount(), 66u); // i % 3 == 1 for i < 100, two cores
    EXPECT_FALSE(view.grab().isNull());
    view.setHighlightedOp(kNone);
    EXPECT_EQ(view.highlightedOccurrenceCount(), 0u);
    view.setHighlightedOp(12345); // unknown op clears too
    EXPECT_EQ(view.highlightedOp(), kNone);
}

TEST(TimelineView, MarksLowUtilizationOpsOfEveryKind)
{
    const auto data = twoCoreProfile();
    TimelineView view;
    // Without a breakdown (a load's preview) nothing is computed here: no op is marked yet.
    const uint64_t breakdowns = model::opBreakdownComputations();
    view.setProfile(data.profile);
    EXPECT_EQ(model::opBreakdownComputations(), breakdowns);
    EXPECT_FALSE(view.isLowUtilizationOp(data.slowFusion));
    // The session's analysis brings the breakdown.
    qt::TraceSession session;
    view.setSession(&session);
    ASSERT_TRUE(test::showInSession(session, data.profile));
    EXPECT_TRUE(view.isLowUtilizationOp(data.slowFusion)); // 10 % < 25 %
    EXPECT_FALSE(view.isLowUtilizationOp(data.fastConv)); // 90 %
    // Not a fusion, but far below its roofline: marked as the op table flags it (issue 25.9).
    EXPECT_TRUE(view.isLowUtilizationOp(data.copy));
    view.setLowUtilizationThreshold(0.05);
    EXPECT_FALSE(view.isLowUtilizationOp(data.slowFusion));
    view.setColorMode(TimelineView::ColorMode::FlopsUtilization);
    EXPECT_NE(view.legendWidget(), nullptr);
    EXPECT_FALSE(view.grab().isNull());
}

TEST(TimelineView, RangeSelectionShowsStatistics)
{
    const auto data = twoCoreProfile();
    // The statistics are a session job over the shown analysis, as in the application.
    qt::TraceSession session;
    TimelineView view;
    view.setSession(&session);
    ASSERT_TRUE(test::showInSession(session, data.profile));
    ASSERT_EQ(view.profile(), data.profile);
    resizeUnshown(view, QSize(1200, 500));
    QSignalSpy spy(&view, &TimelineView::rangeSelected);
    // [0, 295 ns) overlaps events 0, 1, 2 on both cores: fusion.7, convolution.3, copy.1 twice each.
    view.selectRange(0, 295 * kNs);
    ASSERT_EQ(spy.count(), 1);
    EXPECT_EQ(spy.at(0).at(1).value<TimePs>(), 295 * kNs);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.isRangeSummaryPending(); }, 10'000));
    const QStringList summary = view.selectionSummary();
    ASSERT_GE(summary.size(), 5);
    EXPECT_TRUE(summary[1].startsWith(QStringLiteral("6 ops"))) << summary[1].toStdString();
    // Busy time is clipped to the range: core 0 runs [0,60) [100,160) [200,260) = 180 ns, core 1
    // [10,70) [110,170) [210,270) = 180 ns; 360 ns of 2 × 295 ns.
    EXPECT_TRUE(summary[1].contains(QStringLiteral("busy 360 ns of 2 core"))) << summary[1].toStdString();
    EXPECT_TRUE(summary[1].contains(QStringLiteral("(61.0%)"))) << summary[1].toStdString();
    QStringList top;
    for (int i = 2; i < summary.size(); ++i)
        top << summary[i];
    const QString joined = top.join(u'\n');
    EXPECT_TRUE(joined.contains(QStringLiteral("fusion.7")));
    EXPECT_TRUE(joined.contains(QStringLiteral("convolution.3")));
    EXPECT_TRUE(joined.contains(QStringLiteral("copy.1")));
    EXPECT_FALSE(view.grab().isNull());

    // Z zooms to the selection; 0 resets.
    view.setFocus();
    QKeyEvent z(QEvent::KeyPress, Qt::Key_Z, Qt::NoModifier, QStringLiteral("z"));
    QApplication::sendEvent(&view, &z);
    EXPECT_EQ(view.visibleRange(), std::make_pair(TimePs(0), 295 * kNs));
    QKeyEvent zero(QEvent::KeyPress, Qt::Key_0, Qt::NoModifier, QStringLiteral("0"));
    QApplication::sendEvent(&view, &zero);
    EXPECT_LT(view.visibleRange().first, 0);
    EXPECT_GT(view.visibleRange().second, 9960 * kNs);

    view.selectRange(20'000 * kNs, 30'000 * kNs); // beyond the ops
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.isRangeSummaryPending(); }, 10'000));
    ASSERT_GE(view.selectionSummary().size(), 2);
    EXPECT_EQ(view.selectionSummary()[1], QStringLiteral("no XLA ops in the range"));
}

TEST(TimelineView, ZoomKeysAndWheelKeepTheRangeValid)
{
    const auto data = twoCoreProfile();
    TimelineView view;
    view.setProfile(data.profile);
    resizeUnshown(view, QSize(1200, 500));
    const auto full = view.visibleRange();
    QKeyEvent w(QEvent::KeyPress, Qt::Key_W, Qt::NoModifier, QStringLiteral("w"));
    QApplication::sendEvent(&view, &w);
    auto r = view.visibleRange();
    EXPECT_NEAR(double(r.second - r.first), 0.8 * double(full.second - full.first), 2);
    QKeyEvent d(QEvent::KeyPress, Qt::Key_D, Qt::NoModifier, QStringLiteral("d"));
    QApplication::sendEvent(&view, &d);
    EXPECT_GT(view.visibleRange().first, r.first);
    for (int i = 0; i < 200; ++i)
        QApplication::sendEvent(&view, &w);
    r = view.visibleRange();
    EXPECT_GE(r.second - r.first, 100); // zoom stops at a sane minimum
    view.zoomToFirstOccurrence(data.copy);
    EXPECT_EQ(view.selectedEvent(), std::make_pair(data.ops0, 2u));
    r = view.visibleRange();
    EXPECT_LE(r.first, 200 * kNs);
    EXPECT_GE(r.second, 260 * kNs);
}

TEST(TimelineSearch, FindsMatchesAcrossTracksInTimeOrder)
{
    const auto data = twoCoreProfile();
    TimelineView view;
    view.setProfile(data.profile);
    resizeUnshown(view, QSize(1200, 500));
    TimelineSearch search(&view);
    QSignalSpy selected(&view, &TimelineView::eventSelected);
    search.setText(QStringLiteral("FUSION.7"));
    search.search();
    // 34 per core on the XLA Ops lines, plus the host event whose name contains "fusion.7".
    ASSERT_EQ(search.matchCount(), 69u);
    TimePs last = std::numeric_limits<TimePs>::min();
    for (size_t i = 0; i < search.matchCount(); ++i) {
        const auto [track, event] = search.match(i);
        const TimePs start = data.profile->tracks[track].start[event];
        EXPECT_GE(start, last);
        last = start;
    }
    // Time order across tracks: core 0 and the host thread at 0, core 1 at 10 ns, core 0 at 300 ns, ...
    const TrackId host = view.groupTracks(2).at(0);
    EXPECT_EQ(search.match(0).first, data.ops0);
    EXPECT_EQ(search.match(1).first, host);
    EXPECT_EQ(search.match(2).first, data.ops1);
    EXPECT_EQ(search.match(3), std::make_pair(data.ops0, 3u));
    EXPECT_EQ(search.match(4), std::make_pair(data.ops1, 3u));

    search.next();
    ASSERT_EQ(selected.count(), 1);
    EXPECT_EQ(search.currentIndex(), 0);
    EXPECT_EQ(search.statusText(), QStringLiteral("1 / 69"));
    search.next();
    search.next();
    EXPECT_EQ(search.currentIndex(), 2);
    const auto [track, event] = search.match(2);
    EXPECT_EQ(view.selectedEvent(), std::make_pair(track, event));
    const auto range = view.visibleRange();
    const TimePs start = data.profile->tracks[track].start[event];
    EXPECT_LE(range.first, start);
    EXPECT_GE(range.second, data.profile->tracks[track].end(event));
    search.previous();
    EXPECT_EQ(search.currentIndex(), 1);
    search.previous();
    search.previous();
    EXPECT_EQ(search.currentIndex(), 68); // wraps around

    search.setText(QStringLiteral("no-such-op"));
    search.search();
    EXPECT_EQ(search.matchCount(), 0u);
    EXPECT_EQ(search.statusText(), QStringLiteral("no matches"));
}

TEST(TimelineView, RealV6eSampleShowsFourCores)
{
    const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "sample missing: " << path;
    const auto result = model::loadProfile(path);
    ASSERT_TRUE(result.ok()) << result.error;
    TimelineView view;
    view.setProfile(result.profile);
    resizeUnshown(view, QSize(1600, 900));
    int cores = 0;
    for (int g = 0; g < view.groupNames().size(); ++g) {
        if (!view.groupNames()[g].startsWith(QStringLiteral("TPU:")))
            continue;
        ++cores;
        bool hasOps = false;
        for (TrackId t : view.groupTracks(g))
            hasOps |= result.profile->tracks[t].kind == TrackKind::XlaOps;
        EXPECT_TRUE(hasOps) << view.groupNames()[g].toStdString();
    }
    EXPECT_EQ(cores, 4);
    QSignalSpy painted(&view, &TimelineView::framePainted);
    EXPECT_FALSE(view.grab().isNull());
    EXPECT_EQ(painted.count(), 1);
    EXPECT_GT(view.lastRectCount(), 10u);
    TimelineSearch search(&view);
    search.setText(QStringLiteral("fusion"));
    search.search();
    EXPECT_GT(search.matchCount(), 100u);
}
