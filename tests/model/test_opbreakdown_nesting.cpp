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
