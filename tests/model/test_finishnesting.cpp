// SPDX-License-Identifier: GPL-3.0-or-later
// ProfileBuilder::finish nests each track in the pass that checks its order and notes its ops:
// the depth limit, touching events, and each op's first track from a long track (a bitmap over
// the op ids) and a short one (a sorted copy).
#include "core/profile.h"

#include <gtest/gtest.h>

using namespace tpuscope::model;

namespace {

OpId addOp(ProfileBuilder& b, const std::string& name)
{
    OpInfo info;
    info.name = b.intern(name);
    info.isXlaOp = true;
    return b.addOp(info);
}

} // namespace

TEST(FinishNesting, EventsBeyondTheDepthLimitStayAtItsLastRowAndAreCounted)
{
    ProfileBuilder b;
    const TrackId track = b.addTrack(b.addPlane("/device:TPU:0"), "XLA Ops", TrackKind::XlaOps);
    const OpId op = addOp(b, "fusion.1");
    constexpr int kEvents = 600; // each inside the one before
    for (int k = 0; k < kEvents; ++k)
        b.addEvent(track, 10 * k, 100000 - 20 * k, op);
    const ProfilePtr profile = b.finish();
    const Track& t = profile->tracks[track];
    ASSERT_EQ(t.depth.size(), static_cast<size_t>(kEvents));
    EXPECT_EQ(t.depth[0], 0);
    EXPECT_EQ(t.depth[511], 511);
    EXPECT_EQ(t.depth[512], 511);
    EXPECT_EQ(t.depth[kEvents - 1], 511);
    EXPECT_EQ(t.maxDepth, 511);
    EXPECT_EQ(profile->stats.depthLimitHits, kEvents - 512);
    EXPECT_EQ(profile->stats.partialOverlaps, 0);
    EXPECT_EQ(t.lastEnd, 100000);
}

TEST(FinishNesting, EventsOverlappingByUpToANanosecondTouchAndOneBeyondNests)
{
    ProfileBuilder b;
    const TrackId track = b.addTrack(b.addPlane("/device:TPU:0"), "XLA Ops", TrackKind::XlaOps);
    const OpId op = addOp(b, "fusion.1");
    b.addEvent(track, 0, 5000, op); // [0, 5000)
    b.addEvent(track, 4000, 5000, op); // starts 1000 ps before the end: touching
    b.addEvent(track, 7000, 5000, op); // starts 2000 ps before [4000, 9000) ends: sticks out of it
    b.addEvent(track, 20000, -5, op); // a negative duration, clamped
    const ProfilePtr profile = b.finish();
    const Track& t = profile->tracks[track];
    EXPECT_EQ(t.depth, (std::vector<uint16_t> {0, 0, 1, 0}));
    EXPECT_EQ(t.maxDepth, 1);
    EXPECT_EQ(profile->stats.partialOverlaps, 1);
    EXPECT_EQ(profile->stats.negativeDurations, 1);
    EXPECT_EQ(t.duration.back(), 0);
    EXPECT_EQ(t.lastEnd, 20000);
}

TEST(FinishNesting, EachOpsFirstTrackFromLongAndShortTracks)
{
    ProfileBuilder b;
    const PlaneId plane = b.addPlane("/device:TPU:0");
    const TrackId shortTrack = b.addTrack(plane, "XLA Modules", TrackKind::XlaModules);
    const TrackId longTrack = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    std::vector<OpId> ops;
    for (int i = 0; i < 100; ++i)
        ops.push_back(addOp(b, "op." + std::to_string(i)));
    // 3 events of 100 ops: the short track's ops come from a sorted copy of its column.
    b.addEvent(shortTrack, 0, 10, ops[7]);
    b.addEvent(shortTrack, 20, 10, ops[3]);
    b.addEvent(shortTrack, 40, 10, ops[7]);
    // 50 events: the long track's from a bitmap filled while it is nested.
    for (int i = 0; i < 50; ++i)
        b.addEvent(longTrack, 100 * i, 50, ops[static_cast<size_t>(49 - i)]);
    const ProfilePtr profile = b.finish();
    EXPECT_EQ(profile->ops[ops[7]].firstTrack, shortTrack);
    EXPECT_EQ(profile->ops[ops[3]].firstTrack, shortTrack);
    EXPECT_EQ(profile->ops[ops[10]].firstTrack, longTrack);
    EXPECT_EQ(profile->ops[ops[49]].firstTrack, longTrack);
    EXPECT_EQ(profile->ops[ops[50]].firstTrack, kNone);
    EXPECT_EQ(profile->ops[ops[99]].firstTrack, kNone);
}
