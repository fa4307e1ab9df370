// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/opbreakdown.h"
#include "analysis/utilization.h"
#include "core/profile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

using namespace tpuscope::model;

namespace {

struct Ev
{
    TimePs start;
    TimePs duration;
    double flops;
    double bytes;
};

/// Two TPU cores (peaks 100 TFLOP/s and 1000 GB/s per core), one `XLA Ops` line each, one op per event.
ProfilePtr makeProfile(const std::vector<Ev>& core0, const std::vector<Ev>& core1, bool withPeaks = true)
{
    ProfileBuilder b;
    int n = 0;
    auto addCore = [&](int core, const std::vector<Ev>& events) {
        PlaneId plane = b.addPlane("/device:TPU:" + std::to_string(core));
        if (withPeaks) {
            b.profile().planes[plane].peakTflops = 100;
            b.profile().planes[plane].peakHbmGbps = 1000;
        }
        TrackId track = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
        for (const Ev& e : events) {
            OpInfo op;
            op.name = b.intern("op." + std::to_string(n++));
            op.category = b.intern(e.flops > 0 ? "convolution fusion" : "loop fusion");
            op.isXlaOp = true;
            op.flops = e.flops;
            op.bytesAccessed = e.bytes;
            b.addEvent(track, e.start, e.duration, b.addOp(op));
        }
    };
    addCore(0, core0);
    addCore(1, core1);
    return b.finish();
}

UtilizationSeries util(const ProfilePtr& p, int core, TimePs begin, TimePs end, int buckets)
{
    UtilizationOptions o;
    o.core = core;
    o.begin = begin;
    o.end = end;
    o.buckets = buckets;
    return computeUtilization(*p, o);
}

} // namespace

TEST(Utilization, SpreadsCostUniformlyOverDuration)
{
    // 1000 FLOP over [0, 100) ps → 10 FLOP/ps = 10 TFLOP/s; 5000 bytes → 50 B/ps = 50000 GB/s.
    auto p = makeProfile({{0, 100, 1000, 5000}, {150, 50, 0, 0}}, {});
    auto s = util(p, 0, 0, 200, 4); // buckets of 50 ps
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(s.coresCounted, 1);
    EXPECT_DOUBLE_EQ(s.bucketPs, 50);
    EXPECT_NEAR(s.flopsAverage[0], 10, 1e-9);
    EXPECT_NEAR(s.flopsAverage[1], 10, 1e-9);
    EXPECT_NEAR(s.flopsAverage[2], 0, 1e-9);
    EXPECT_NEAR(s.flopsAverage[3], 0, 1e-9);
    EXPECT_NEAR(s.hbmAverage[0], 50000, 1e-6);
    EXPECT_NEAR(s.flopsPeak[1], 10, 1e-9);
    EXPECT_DOUBLE_EQ(s.peakTflops, 100);
    EXPECT_DOUBLE_EQ(s.peakHbmGbps, 1000);

    // A bucket half covered gets half the rate as its average but the full rate as its peak.
    auto half = util(p, 0, 0, 200, 2); // buckets of 100 ps: [0,100) full, [100,200) empty of flops
    EXPECT_NEAR(half.flopsAverage[0], 10, 1e-9);
    auto offset = util(p, 0, 50, 250, 2); // [50,150) half covered by the 10 TFLOP/s op
    EXPECT_NEAR(offset.flopsAverage[0], 5, 1e-9);
    EXPECT_NEAR(offset.flopsPeak[0], 10, 1e-9);
}

TEST(Utilization, IntegralIsConservedAcrossBucketCounts)
{
    std::vector<Ev> events;
    double totalFlops = 0;
    for (int i = 0; i < 200; ++i) {
        const double f = 100.0 * (i % 7 + 1);
        events.push_back({i * 37, 20 + (i % 5), f, f * 3});
        totalFlops += f;
    }
    auto p = makeProfile(events, {});
    const TimePs end = 200 * 37;
    for (int buckets : {1, 3, 17, 500, 1000}) {
        auto s = util(p, 0, 0, end, buckets);
        const double integral = std::accumulate(s.flopsAverage.begin(), s.flopsAverage.end(), 0.0) * s.bucketPs;
        EXPECT_NEAR(integral, totalFlops, totalFlops * 1e-9) << buckets << " buckets";
    }
}

TEST(Utilization, RangeClipping)
{
    // Event [100, 300) at 2 TFLOP/s; a range [200, 250) sees only its tail.
    auto p = makeProfile({{0, 50, 0, 0}, {100, 200, 400, 0}, {400, 100, 100, 0}}, {});
    auto s = util(p, 0, 200, 250, 5);
    EXPECT_EQ(s.begin, 200);
    EXPECT_EQ(s.end, 250);
    for (size_t b = 0; b < s.size(); ++b) {
        EXPECT_NEAR(s.flopsAverage[b], 2, 1e-9) << b;
        EXPECT_NEAR(s.flopsPeak[b], 2, 1e-9) << b;
    }
    // The event ending before the range and the one after it were never visited.
    EXPECT_EQ(s.eventsVisited, 1u);

    // Range exactly between events: nothing.
    auto gap = util(p, 0, 300, 400, 4);
    for (size_t b = 0; b < gap.size(); ++b)
        EXPECT_EQ(gap.flopsAverage[b], 0) << b;

    // Whole span by default.
    auto all = util(p, 0, 0, 0, 10);
    EXPECT_EQ(all.begin, p->spanBegin);
    EXPECT_EQ(all.end, p->spanEnd);
}

TEST(Utilization, PeaksSurviveDownsampling)
{
    // A 1 ps spike of 1000 TFLOP/s inside 1e6 ps of idle: the average is tiny, the peak keeps it.
    auto p = makeProfile({{0, 1, 0, 0}, {500000, 1, 1000, 0}, {999999, 1, 0, 0}}, {});
    auto s = util(p, 0, 0, 1000000, 500);
    const auto maxAvg = *std::max_element(s.flopsAverage.begin(), s.flopsAverage.end());
    const auto maxPeak = *std::max_element(s.flopsPeak.begin(), s.flopsPeak.end());
    EXPECT_NEAR(maxAvg, 1000.0 / 2000.0, 1e-9); // 1000 FLOP over a 2000 ps bucket
    EXPECT_NEAR(maxPeak, 1000, 1e-9);
    EXPECT_EQ(std::count_if(s.flopsPeak.begin(), s.flopsPeak.end(), [](double v) { return v > 0; }), 1);
}

TEST(Utilization, ImpossibleRatesStayOutOfThePeaks)
{
    // Peaks are 100 TFLOP/s and 1000 GB/s. A 2 ps event claiming 1e6 bytes (5e8 GB/s) cannot be real;
    // a 100 ps event at 500 GB/s can.
    auto p = makeProfile({{0, 100, 0, 50}, {500, 2, 0, 1e6}}, {});
    UtilizationOptions o;
    o.core = 0;
    o.begin = 0;
    o.end = 1000;
    o.buckets = 2;
    auto raw = computeUtilization(*p, o);
    EXPECT_NEAR(raw.hbmPeak[1], 5e8, 1e-3);
    EXPECT_EQ(raw.implausibleEvents, 0u);
    o.implausibleRateFactor = 1.05;
    auto filtered = computeUtilization(*p, o);
    EXPECT_EQ(filtered.implausibleEvents, 1u);
    EXPECT_EQ(filtered.hbmPeak[1], 0);
    EXPECT_NEAR(filtered.hbmPeak[0], 500, 1e-9);
    // The average still carries the bytes: 1e6 B over a 500 ps bucket = 2e6 GB/s.
    EXPECT_NEAR(filtered.hbmAverage[1], 1e6 * 1000.0 / 500, 1e-3);
}

TEST(Utilization, AllCoresVersusPerCore)
{
    // Core 0 busy at 4 TFLOP/s on [0,100), core 1 at 2 TFLOP/s on [100,200).
    auto p = makeProfile({{0, 100, 400, 0}}, {{100, 100, 200, 0}});
    auto c0 = util(p, 0, 0, 200, 2);
    auto c1 = util(p, 1, 0, 200, 2);
    auto all = util(p, -1, 0, 200, 2);
    EXPECT_EQ(all.coresCounted, 2);
    EXPECT_NEAR(c0.flopsAverage[0], 4, 1e-9);
    EXPECT_NEAR(c0.flopsAverage[1], 0, 1e-9);
    EXPECT_NEAR(c1.flopsAverage[1], 2, 1e-9);
    // Over all cores: the mean per core, so it compares with the per-core peak.
    EXPECT_NEAR(all.flopsAverage[0], 2, 1e-9);
    EXPECT_NEAR(all.flopsAverage[1], 1, 1e-9);
    EXPECT_NEAR(all.flopsPeak[0], 2, 1e-9);
    // A core that does not exist counts nothing.
    auto none = util(p, 7, 0, 200, 2);
    EXPECT_EQ(none.coresCounted, 0);
    EXPECT_EQ(none.flopsAverage[0], 0);
}

TEST(Utilization, ZeroDurationAndEmptyProfile)
{
    auto p = makeProfile({{10, 0, 500, 0}, {20, 10, 0, 0}}, {});
    auto s = util(p, 0, 0, 100, 10);
    EXPECT_NEAR(s.flopsAverage[1], 50, 1e-9); // 500 FLOP in a 10 ps bucket
    EXPECT_EQ(s.flopsPeak[1], 0);

    ProfileBuilder b;
    auto empty = b.finish();
    auto e = computeUtilization(*empty, {});
    EXPECT_EQ(e.coresCounted, 0);
    EXPECT_EQ(e.size(), 800u);
}

TEST(Roofline, Maths)
{
    EXPECT_DOUBLE_EQ(ridgePoint(918, 1638), 918000.0 / 1638.0);
    EXPECT_DOUBLE_EQ(ridgePoint(0, 1638), 0);
    // Below the ridge the bandwidth slope: 10 FLOP/B × 1000 GB/s = 10 TFLOP/s.
    EXPECT_DOUBLE_EQ(rooflineTflops(10, 100, 1000), 10);
    EXPECT_DOUBLE_EQ(rooflineTflops(100, 100, 1000), 100); // at the ridge
    EXPECT_DOUBLE_EQ(rooflineTflops(1e6, 100, 1000), 100); // capped by compute
    EXPECT_DOUBLE_EQ(rooflineTflops(10, 0, 1000), 0);
    EXPECT_STREQ(boundBy(0.5, 0.2), "Compute");
    EXPECT_STREQ(boundBy(0.1, 0.2), "HBM");
    EXPECT_STREQ(boundBy(0, 0), "Unknown");
}

TEST(Roofline, PointsFromBreakdown)
{
    // op.0: 1000 FLOP, 100 B over 100 ps → intensity 10, achieved 10 TFLOP/s (at the roofline).
    // op.1: 1e4 FLOP, 10 B over 1000 ps → intensity 1000 (compute side), achieved 10 TFLOP/s.
    // op.2: no FLOPs → not plottable.
    auto p = makeProfile({{0, 100, 1000, 100}, {200, 1000, 1e4, 10}, {1300, 10, 0, 64}}, {});
    auto breakdown = computeOpBreakdown(*p);
    auto r = computeRoofline(*p, breakdown);
    ASSERT_TRUE(r.hasPeaks());
    EXPECT_DOUBLE_EQ(r.ridge, 100);
    ASSERT_EQ(r.points.size(), 2u);
    EXPECT_EQ(r.opsWithoutFlops, 1u);
    const RooflinePoint* a = nullptr;
    const RooflinePoint* c = nullptr;
    for (const auto& pt : r.points)
        (pt.name == "op.0" ? a : c) = &pt;
    ASSERT_TRUE(a && c);
    EXPECT_NEAR(a->intensity, 10, 1e-12);
    EXPECT_NEAR(a->achievedTflops, 10, 1e-12);
    EXPECT_NEAR(a->attainableTflops, 10, 1e-12);
    EXPECT_EQ(a->boundBy, "HBM"); // FLOPS util 10 %, HBM util 100 %
    EXPECT_NEAR(c->intensity, 1000, 1e-9);
    EXPECT_NEAR(c->attainableTflops, 100, 1e-12);
    EXPECT_NEAR(c->achievedTflops, 10, 1e-12);
    EXPECT_EQ(c->boundBy, "Compute");
    // Sorted like the breakdown: the longest op first.
    EXPECT_EQ(r.points.front().name, "op.1");
}
