// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/rangesummary.h"
#include "core/profile.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace tpuscope::model;

namespace {

/// Two TPU cores with peaks. Core 0: a [0,100) with b [20,60) nested in it, c [150,250); core 1:
/// a [50,150) (the same (program, name) as core 0's a: one row). Costs give a 10% / 20% rate.

ProfilePtr makeRangeProfile()
{
    ProfileBuilder b;
    auto addOp = [&](const std::string& name, double flops, double bytes) {
        OpInfo op;
        op.name = b.intern(name);
        op.category = b.intern("loop fusion");
        op.isXlaOp = true;
        op.flops = flops;
        op.bytesAccessed = bytes;
        return b.addOp(op);
    };
    for (int core = 0; core < 2; ++core) {
        const PlaneId plane = b.addPlane("/device:TPU:" + std::to_string(core));
        b.profile().planes[plane].peakTflops = 100;
        b.profile().planes[plane].peakHbmGbps = 1000;
        const TrackId track = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
        if (core == 0) {
            b.addEvent(track, 0, 100, addOp("a", 1000, 0)); // 10 FLOP/ps over 100 ps = 10% of 100 TFLOP/s
            b.addEvent(track, 20, 40, addOp("b", 0, 0)); // no cost data: unknown
            b.addEvent(track, 150, 100, addOp("c", 0, 20)); // 0.2 B/ps = 200 GB/s = 20% of 1000 GB/s
        } else {
            b.addEvent(track, 50, 100, addOp("a", 1000, 0));
        }
    }
    return b.finish();
}

const RangeOpRow* rowNamed(const RangeSummary& s, const std::string& name)
{
    for (const RangeOpRow& r : s.rows)
        if (r.name == name)
            return &r;
    return nullptr;
}

} // namespace

TEST(RangeSummary, ClipsSelfTimeToTheRange)
{
    const ProfilePtr p = makeRangeProfile();
    const RangeSummary s = summarizeRange(*p, 40, 200);
    EXPECT_EQ(s.cores, 2);
    // a: core 0 [40,100) less b's [40,60) = 40, core 1 [50,150) = 100; b [40,60) = 20; c [150,200) = 50.
    ASSERT_EQ(s.rows.size(), 3u);
    EXPECT_EQ(s.rows[0].name, "a");
    EXPECT_DOUBLE_EQ(s.rows[0].timeInRangePs, 140);
    EXPECT_EQ(s.rows[0].occurrences, 2);
    EXPECT_EQ(s.rows[1].name, "c");
    EXPECT_DOUBLE_EQ(s.rows[1].timeInRangePs, 50);
    EXPECT_EQ(s.rows[2].name, "b");
    EXPECT_DOUBLE_EQ(s.rows[2].timeInRangePs, 20);
    EXPECT_EQ(s.occurrences, 4);
    // Busy: top-level events clipped, 60 + 50 + 100; the rows add up to it.
    EXPECT_DOUBLE_EQ(s.busyPs, 210);
    double sum = 0;
    for (const RangeOpRow& r : s.rows)
        sum += r.timeInRangePs;
    EXPECT_DOUBLE_EQ(sum, s.busyPs);
    EXPECT_DOUBLE_EQ(s.busyShare, 210.0 / (160.0 * 2));
    EXPECT_DOUBLE_EQ(rowNamed(s, "a")->rangeShare, 140.0 / 320.0);
}

TEST(RangeSummary, RatesAreKnownOnlyWithCostData)
{
    const ProfilePtr p = makeRangeProfile();
    const RangeSummary s = summarizeRange(*p, 0, 300);
    const RangeOpRow* a = rowNamed(s, "a");
    const RangeOpRow* b = rowNamed(s, "b");
    const RangeOpRow* c = rowNamed(s, "c");
    ASSERT_TRUE(a && b && c);
    ASSERT_TRUE(a->flopsUtilization.has_value());
    EXPECT_NEAR(*a->flopsUtilization, 0.10, 1e-9);
    ASSERT_TRUE(c->hbmUtilization.has_value());
    EXPECT_NEAR(*c->hbmUtilization, 0.20, 1e-9);
    EXPECT_FALSE(b->flopsUtilization.has_value());
    EXPECT_FALSE(b->hbmUtilization.has_value());
}

TEST(RangeSummary, EmptyReversedAndOneCore)
{
    const ProfilePtr p = makeRangeProfile();
    EXPECT_TRUE(summarizeRange(*p, 100, 100).rows.empty());
    const RangeSummary empty = summarizeRange(*p, 400, 500);
    EXPECT_TRUE(empty.rows.empty());
    EXPECT_EQ(empty.busyPs, 0);
    const RangeSummary reversed = summarizeRange(*p, 200, 40);
    EXPECT_EQ(reversed.begin, 40);
    EXPECT_EQ(reversed.end, 200);
    EXPECT_DOUBLE_EQ(reversed.busyPs, 210);
    const RangeSummary core1 = summarizeRange(*p, 40, 200, 1);
    EXPECT_EQ(core1.cores, 1);
    ASSERT_EQ(core1.rows.size(), 1u);
    EXPECT_DOUBLE_EQ(core1.rows[0].timeInRangePs, 100);
    EXPECT_DOUBLE_EQ(core1.busyShare, 100.0 / 160.0);
}
