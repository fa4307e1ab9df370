// SPDX-License-Identifier: GPL-3.0-or-later
// Category rows that hold both a parent event and its children (a step and the ops inside it on
// one line, as some Chrome traces have) must count that time once: categories partition busy time.
#include "analysis/opbreakdown.h"
#include "core/profile.h"

#include <gtest/gtest.h>

using namespace tpuscope::model;

TEST(OpBreakdownNesting, ParentAndChildrenInOneRowCountTheirTimeOnce)
{
    ProfileBuilder b;
    b.addHost({});
    const PlaneId plane = b.addPlane("/device:TPU:0");
    const TrackId track = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    auto op = [&](const char* name, const char* category) {
        OpInfo info;
        info.name = b.intern(name);
        info.category = b.intern(category);
        info.isXlaOp = true;
        return b.addOp(info);
    };
    const OpId step = op("step 0", "unknown");
    const OpId a = op("fusion.1", "unknown");
    const OpId c = op("convolution.2", "convolution");
    b.addEvent(track, 0, 1000, step); // [0, 1000): the step, 700 of it inside ops
    b.addEvent(track, 100, 300, a); // same category as the step
    b.addEvent(track, 500, 400, c); // another category
    b.addEvent(track, 2000, 100, a); // outside any step
    const ProfilePtr profile = b.finish();

    const OpBreakdown byCategory = computeOpBreakdown(*profile, {}, GroupBy::Category);
    EXPECT_DOUBLE_EQ(byCategory.totalTimePs, 1100); // busy time: 1000 + 100
    double fractions = 0;
    for (const OpRow& row : byCategory.rows) {
        EXPECT_LE(row.timeFraction, 1.0) << row.name;
        fractions += row.timeFraction;
        if (row.name == "unknown") {
            EXPECT_DOUBLE_EQ(row.totalTimePs, (1000 - 700) + 300 + 100); // the step's own time + fusion.1
        }
        if (row.name == "convolution") {
            EXPECT_DOUBLE_EQ(row.totalTimePs, 400);
        }
    }
    EXPECT_DOUBLE_EQ(fractions, 1.0); // categories partition the busy time

    // Per op, each row keeps its inclusive time (the step still spans its children).
    const OpBreakdown byOp = computeOpBreakdown(*profile);
    for (const OpRow& row : byOp.rows)
        if (row.name == "step 0") {
            EXPECT_DOUBLE_EQ(row.totalTimePs, 1000);
        }
}

// finish nests a track in the pass that checks its order, assuming the order holds; a track found
// out of order late (after a partial overlap was counted) must come out as the same track in order.
TEST(OpBreakdownNesting, ATrackOutOfOrderNestsLikeTheSameTrackInOrder)
{
    struct Event
    {
        TimePs start, duration;
    };
    constexpr TimePs us = 1000000; // well beyond the 1 ns within which ends count as touching
    const std::vector<Event> inOrder {
        {0, 1000 * us}, {100 * us, 200 * us}, {350 * us, 800 * us}, {2000 * us, 100 * us}, {2050 * us, -5}};
    const std::vector<Event> lastTwoSwapped {
        {0, 1000 * us}, {100 * us, 200 * us}, {350 * us, 800 * us}, {2050 * us, -5}, {2000 * us, 100 * us}};
    auto build = [](const std::vector<Event>& events) {
        ProfileBuilder b;
        b.addHost({});
        const TrackId track = b.addTrack(b.addPlane("/device:TPU:0"), "XLA Ops", TrackKind::XlaOps);
        OpInfo info;
        info.name = b.intern("fusion.1");
        const OpId op = b.addOp(info);
        for (const Event& e : events)
            b.addEvent(track, e.start, e.duration, op);
        return b.finish();
    };
    for (const ProfilePtr& profile : {build(inOrder), build(lastTwoSwapped)}) {
        const Track& t = profile->tracks.front();
        EXPECT_EQ(t.start, (std::vector<TimePs> {0, 100 * us, 350 * us, 2000 * us, 2050 * us}));
        EXPECT_EQ(t.duration, (std::vector<TimePs> {1000 * us, 200 * us, 800 * us, 100 * us, 0}));
        EXPECT_EQ(t.depth, (std::vector<uint16_t> {0, 1, 1, 0, 1}));
        EXPECT_EQ(t.maxDepth, 1);
        EXPECT_EQ(t.lastEnd, 2100 * us);
        EXPECT_EQ(profile->stats.partialOverlaps, 1); // [350, 1150) sticks out of [0, 1000), once
        EXPECT_EQ(profile->stats.negativeDurations, 1);
        EXPECT_EQ(profile->spanEnd, 2100 * us);
    }
}
