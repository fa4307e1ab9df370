// SPDX-License-Identifier: GPL-3.0-or-later
#include "../testanalysis.h"
#include "../testevents.h"
#include "../testsession.h"
#include "rooflinechart.h"
#include "timeaxisticker.h"
#include "utilizationchart.h"

#include "analysis/utilization.h"
#include "core/profile.h"
#include "loader/loader.h"

#include <QFile>
#include <QSignalSpy>
#include <QTest>

#include <qcustomplot.h>

#include <gtest/gtest.h>

#include <cmath>

using namespace tpuscope::model;
using tpuscope::widgets::RooflineChart;
using tpuscope::widgets::TimeAxisTicker;
using tpuscope::widgets::UtilizationChart;

namespace tpuscope_test {
ProfilePtr makeFusionProfile(); // test_details.cpp
OpId opNamed(const Profile& p, const std::string& name);
} // namespace tpuscope_test

using namespace tpuscope_test;

namespace {

ProfilePtr loadSample()
{
    const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
    if (!QFile::exists(QString::fromStdString(path)))
        return {};
    auto result = loadProfile(path);
    EXPECT_TRUE(result.ok()) << result.error;
    return result.profile;
}

void saveShot(QWidget& w, const char* name)
{
    const QByteArray dir = qgetenv("TPUSCOPE_SHOT_DIR");
    if (dir.isEmpty())
        return;
    w.show();
    QCoreApplication::processEvents();
    w.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + QString::fromLatin1(name));
}

} // namespace

TEST(TimeAxisTicker, Labels)
{
    EXPECT_EQ(TimeAxisTicker::formatTime(20e12, 98e12, 20e12), QStringLiteral("20 s"));
    EXPECT_EQ(TimeAxisTicker::formatTime(2.5e9, 10e9, 2.5e9), QStringLiteral("2.5 ms"));
    EXPECT_EQ(TimeAxisTicker::formatTime(1.2e9, 2e9, 0.2e9), QStringLiteral("1.2 ms"));
    EXPECT_EQ(TimeAxisTicker::formatTime(500e3, 800e3, 100e3), QStringLiteral("500 ns"));
    EXPECT_EQ(TimeAxisTicker::formatTime(300, 800, 100), QStringLiteral("300 ps"));
    EXPECT_EQ(TimeAxisTicker::formatTime(0, 2e6, 5e5), QStringLiteral("0.0 µs"));
}

// The chart's axis counts from the profile's start like the timeline's ruler, not from the
// file's time base (a JSON trace starting at ts = 1 s showed 18.3 s on the chart, 17.3 s above).
TEST(TimeAxisTicker, LabelsCountFromTheTickOrigin)
{
    TimeAxisTicker ticker;
    ticker.setTickOrigin(1e12); // the profile starts at 1 s
    QVector<double> ticks, subTicks;
    QVector<QString> labels;
    ticker.generate(QCPRange(1e12, 1e12 + 10e9), QLocale(), QLatin1Char('g'), 6, ticks, &subTicks, &labels);
    ASSERT_GE(labels.size(), 3);
    EXPECT_TRUE(labels.contains(QStringLiteral("0 ms"))) << labels.join(QStringLiteral(", ")).toStdString();
    EXPECT_FALSE(labels.join(QStringLiteral(",")).contains(QStringLiteral("1000")))
        << labels.join(QStringLiteral(", ")).toStdString();
}

TEST(UtilizationChart, FollowsProfileCoreAndRange)
{
    auto profile = makeFusionProfile();
    // Other ranges and cores are session jobs, as in the application.
    tpuscope::qt::TraceSession session;
    UtilizationChart chart;
    chart.resize(800, 300);
    chart.setSession(&session);
    ASSERT_TRUE(tpuscope::test::showInSession(session, profile));
    chart.flush();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !chart.isComputing(); }, 10'000));
    EXPECT_EQ(chart.pointCount(), 1000);
    // The conv op runs 4096 FLOP in 400 ps on both cores = 10.24 TFLOP/s of 100 → 10.24 % peak
    // somewhere; the averaged line never goes above it.
    double maxValue = 0;
    for (int i = 0; i < chart.pointCount(); ++i)
        maxValue = std::max(maxValue, chart.flopsValueAt(i));
    EXPECT_NEAR(maxValue, 10.24, 0.2);

    // setVisibleRange comes from the timeline: it moves the axis but does not echo back.
    QSignalSpy spy(&chart, &UtilizationChart::rangeChanged);
    chart.setVisibleRange(1000, 2000);
    tpuscope::test::firePendingTimers(chart); // a debounced echo would be emitted now
    EXPECT_EQ(spy.count(), 0);
    EXPECT_DOUBLE_EQ(chart.plot()->xAxis->range().lower, 1000);
    EXPECT_DOUBLE_EQ(chart.plot()->xAxis->range().upper, 2000);

    // A drag/zoom on the chart's own axis is reported (debounced) to the timeline.
    chart.plot()->xAxis->setRange(3000, 5000);
    ASSERT_TRUE(spy.wait(10'000));
    EXPECT_EQ(spy.last().at(0).value<TimePs>(), 3000);
    EXPECT_EQ(spy.last().at(1).value<TimePs>(), 5000);
    // Dragging past the end is clamped to the profile span.
    chart.plot()->xAxis->setRange(profile->spanEnd - 500, profile->spanEnd + 1500);
    EXPECT_DOUBLE_EQ(chart.plot()->xAxis->range().upper, static_cast<double>(profile->spanEnd));

    chart.setCore(1);
    EXPECT_EQ(chart.core(), 1);
    chart.flush();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !chart.isComputing(); }, 10'000));
    EXPECT_GT(chart.pointCount(), 0);
    chart.setCore(-1);
    EXPECT_EQ(chart.core(), -1);

    chart.setAnalysis(nullptr);
    EXPECT_EQ(chart.pointCount(), 0);
}

// Re-bucketing a zoomed range is a session job, never a computation on the GUI thread; a chart
// without a session shows the whole-span series of the analysis only.
TEST(UtilizationChart, ZoomedRangesAreSessionJobs)
{
    auto profile = makeFusionProfile();
    const auto analysis = tpuscope::test::analysisOf(profile);
    const TimePs span = profile->spanEnd - profile->spanBegin;
    const TimePs begin = profile->spanBegin + span / 3, end = profile->spanBegin + span / 2;

    UtilizationChart alone;
    alone.resize(800, 300);
    alone.setAnalysis(analysis);
    alone.setVisibleRange(begin, end);
    alone.setCore(1);
    alone.flush();
    EXPECT_FALSE(alone.isComputing());
    ASSERT_EQ(alone.pointCount(), int(analysis->utilization.size()));
    const double wholeScale = 100.0 / analysis->utilization.peakTflops;
    for (int i = 0; i < alone.pointCount(); i += 97)
        EXPECT_DOUBLE_EQ(
            alone.flopsValueAt(i), std::min(100.0, analysis->utilization.flopsAverage[size_t(i)] * wholeScale));

    tpuscope::qt::TraceSession session;
    UtilizationChart chart;
    chart.resize(800, 300);
    chart.setSession(&session);
    ASSERT_TRUE(tpuscope::test::showInSession(session, profile));
    chart.setVisibleRange(begin, end);
    chart.flush();
    EXPECT_TRUE(chart.isComputing()); // flush() only asks: the job answers through the event loop
    ASSERT_TRUE(QTest::qWaitFor([&] { return !chart.isComputing(); }, 10'000));
    // The buckets of the zoomed range (twice it, around it), as computeUtilization gives them.
    UtilizationOptions options;
    const double half = double(end - begin) / 2;
    options.begin = std::max<TimePs>(profile->spanBegin, TimePs(std::floor(double(begin) - half)));
    options.end = std::min<TimePs>(profile->spanEnd, TimePs(std::ceil(double(end) + half)));
    options.buckets = kAnalysisUtilizationBuckets;
    options.implausibleRateFactor = kAnalysisImplausibleRateFactor;
    const UtilizationSeries expected = computeUtilization(*profile, options);
    ASSERT_EQ(chart.pointCount(), int(expected.size()));
    const double scale = 100.0 / expected.peakTflops;
    for (int i = 0; i < chart.pointCount(); i += 97)
        EXPECT_NEAR(chart.flopsValueAt(i), std::min(100.0, expected.flopsAverage[size_t(i)] * scale), 1e-9) << i;
}

TEST(RooflineChart, PointsAndClickSelects)
{
    auto profile = makeFusionProfile();
    RooflineChart chart;
    chart.resize(700, 450);
    chart.setAnalysis(tpuscope::test::analysisOf(profile));
    chart.show();
    chart.plot()->replot(); // lays out the axes so pixel positions are valid
    const auto& r = chart.roofline();
    EXPECT_EQ(r.points.size(), 3u);
    EXPECT_DOUBLE_EQ(r.ridge, 100);

    const OpId conv = opNamed(*profile, "fusion.3");
    QPointF pos;
    ASSERT_TRUE(chart.pointPosition(conv, &pos));
    EXPECT_EQ(chart.opAt(pos), conv);
    EXPECT_EQ(chart.opAt(pos + QPointF(40, 40)), kNone);

    QSignalSpy spy(&chart, &RooflineChart::opSelected);
    QTest::mouseClick(chart.plot(), Qt::LeftButton, {}, pos.toPoint());
    ASSERT_EQ(spy.count(), 1);
    EXPECT_EQ(spy.at(0).at(0).value<OpId>(), conv);
    EXPECT_EQ(chart.selectedOp(), conv);
    // A click on empty space selects nothing.
    QTest::mouseClick(chart.plot(), Qt::LeftButton, {}, (pos + QPointF(60, 60)).toPoint());
    EXPECT_EQ(spy.count(), 1);

    chart.setSelectedOp(opNamed(*profile, "fusion.1"));
    EXPECT_EQ(chart.selectedOp(), opNamed(*profile, "fusion.1"));
    chart.setAnalysis(nullptr);
    EXPECT_TRUE(chart.roofline().points.empty());
}

TEST(Charts, RealSample)
{
    auto profile = loadSample();
    if (!profile)
        GTEST_SKIP() << "sample not found";
    tpuscope::qt::TraceSession session;
    UtilizationChart util;
    util.resize(1000, 300);
    util.setSession(&session);
    ASSERT_TRUE(tpuscope::test::showInSession(session, profile));
    util.flush();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !util.isComputing(); }, 10'000));
    EXPECT_EQ(util.pointCount(), 1000);
    RooflineChart roof;
    roof.resize(800, 500);
    roof.setAnalysis(tpuscope::test::analysisOf(profile));
    EXPECT_FALSE(roof.roofline().points.empty());
    saveShot(util, "details_util_sample.png");
    saveShot(roof, "details_roofline_sample.png");
    // Zoomed into one step on core 0.
    util.setCore(0);
    util.setVisibleRange(profile->spanBegin + (profile->spanEnd - profile->spanBegin) / 2,
        profile->spanBegin + (profile->spanEnd - profile->spanBegin) / 2 + 2'000'000'000'000LL);
    util.flush();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !util.isComputing(); }, 10'000));
    saveShot(util, "details_util_sample_zoom.png");

    auto fusion = makeFusionProfile();
    UtilizationChart util2;
    util2.resize(1000, 300);
    util2.setAnalysis(tpuscope::test::analysisOf(fusion));
    util2.flush();
    saveShot(util2, "details_util_fusion.png");
    RooflineChart roof2;
    roof2.resize(800, 500);
    roof2.setAnalysis(tpuscope::test::analysisOf(fusion));
    roof2.setSelectedOp(opNamed(*fusion, "fusion.3"));
    saveShot(roof2, "details_roofline_fusion.png");
}

TEST(UtilizationChart, LargeProfileComputesInBackground)
{
    // The chart computes nothing for the whole span: the buckets come with the analysis; other
    // ranges are session jobs.
    ProfileBuilder b;
    OpInfo info;
    info.name = b.intern("fusion.0");
    info.flops = 5e4; // 50 TFLOP/s over 1000 ps
    info.bytesAccessed = 100;
    const OpId op = b.addOp(info);
    PlaneId plane = b.addPlane("/device:TPU:0");
    b.profile().planes[plane].peakTflops = 100;
    b.profile().planes[plane].peakHbmGbps = 1000;
    TrackId track = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    for (TimePs i = 0; i < 300000; ++i)
        b.addEvent(track, i * 2000, 1000, op);
    auto profile = b.finish();

    tpuscope::qt::TraceSession session;
    auto chart = std::make_unique<UtilizationChart>();
    chart->resize(800, 300);
    chart->setSession(&session);
    ASSERT_TRUE(tpuscope::test::showInSession(session, profile));
    // The whole-span series comes with the analysis (computed off the GUI thread by the session).
    EXPECT_TRUE(QTest::qWaitFor([&] { return chart->pointCount() == 1000; }, 5000));
    // Busy half of the time at 50 % of peak → 25 % average in every bucket.
    EXPECT_NEAR(chart->flopsValueAt(500), 25, 0.5);

    // A newer request supersedes an older one; deleting the chart with a job in flight is safe.
    chart->setVisibleRange(0, 1'000'000);
    chart->flush();
    EXPECT_TRUE(chart->isComputing());
    chart->setCore(0);
    chart.reset();
    QCoreApplication::processEvents();
}
