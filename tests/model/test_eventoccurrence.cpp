// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/eventoccurrence.h"
#include "analysis/profileanalysis.h"
#include "core/format.h"
#include "core/profile.h"

#include <gtest/gtest.h>

using namespace tpuscope::model;

namespace {

constexpr TimePs kUs = 1'000'000; // ps

/// Two TPU cores (100 TFLOP/s, 1000 GB/s), each with a Steps line (steps 7 [10, 20) µs and 8
/// [20, 30) µs), an XLA Modules line (jit_step runs [11, 19) and [21, 29) µs) and an XLA Ops line.
/// fusion.1 runs 1, 3 and 2 µs on core 0 (at 12, 14, 22 µs) and 4 µs on core 1 (at 22 µs); dot.2
/// runs once, 2 µs at 25 µs on core 0. A host thread starts the profile at 0.
struct EventProfile
{
    ProfilePtr profile;
    TrackId hostLine = kNone;
    TrackId ops0 = kNone, ops1 = kNone;
};

EventProfile makeEventProfile()
{
    ProfileBuilder b;
    EventProfile out;
    b.addProgram(1, "jit_step", nullptr);
    auto op = [&](const std::string& name, double flops, double bytes, bool xla = true) {
        OpInfo info;
        info.name = b.intern(name);
        info.category = b.intern(xla ? "loop fusion" : "");
        info.isXlaOp = xla;
        info.programId = 1;
        info.hasProgramId = true;
        info.flops = flops;
        info.bytesAccessed = bytes;
        info.flopsRecorded = info.bytesRecorded = xla;
        return b.addOp(info);
    };
    const PlaneId host = b.addPlane("/host:CPU");
    out.hostLine = b.addTrack(host, "python", TrackKind::HostThread);
    OpInfo hostOp;
    hostOp.name = b.intern("train_loop");
    b.addEvent(out.hostLine, 0, 40 * kUs, b.addOp(hostOp));
    const OpId fusion = op("fusion.1", 1e7, 2e5);
    const OpId dot = op("dot.2", 1e8, 1e6);
    const OpId jit = op("jit_step", 0, 0, false);
    for (int core = 0; core < 2; ++core) {
        const PlaneId plane = b.addPlane("/device:TPU:" + std::to_string(core));
        b.profile().planes[plane].peakTflops = 100;
        b.profile().planes[plane].peakHbmGbps = 1000;
        const TrackId steps = b.addTrack(plane, "Steps", TrackKind::Steps);
        const TrackId modules = b.addTrack(plane, "XLA Modules", TrackKind::XlaModules);
        const TrackId ops = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
        for (int s = 0; s < 2; ++s) {
            OpInfo step;
            step.name = b.intern(std::to_string(7 + s));
            b.addEvent(steps, (10 + 10 * s) * kUs, 10 * kUs, b.addOp(step));
            b.addEvent(modules, (11 + 10 * s) * kUs, 8 * kUs, jit);
        }
        if (core == 0) {
            out.ops0 = ops;
            b.addEvent(ops, 12 * kUs, 1 * kUs, fusion);
            b.addEvent(ops, 14 * kUs, 3 * kUs, fusion);
            b.addEvent(ops, 22 * kUs, 2 * kUs, fusion);
            b.addEvent(ops, 25 * kUs, 2 * kUs, dot);
        } else {
            out.ops1 = ops;
            b.addEvent(ops, 22 * kUs, 4 * kUs, fusion);
        }
    }
    out.profile = b.finish();
    return out;
}

const OpRow* rowNamed(const OpBreakdown& breakdown, const std::string& name)
{
    for (const OpRow& row : breakdown.rows)
        if (row.name == name)
            return &row;
    return nullptr;
}

} // namespace

TEST(EventOccurrence, SaysWhenWhereAndInWhichStepAndProgramRunTheEventRan)
{
    const EventProfile fixture = makeEventProfile();
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(fixture.profile);
    // The third fusion.1 of core 0: 22 µs, 2 µs long, in step 8 and the second jit_step run.
    const EventOccurrence e = describeEvent(*analysis, fixture.ops0, 2);
    ASSERT_TRUE(e.found);
    EXPECT_TRUE(e.xlaOp);
    EXPECT_EQ(fixture.profile->str(fixture.profile->ops[e.op].name), "fusion.1");
    EXPECT_EQ(e.startPs, 22 * kUs);
    EXPECT_EQ(e.durationPs, 2 * kUs);
    EXPECT_EQ(e.endPs, 24 * kUs);
    EXPECT_EQ(e.plane, "/device:TPU:0");
    EXPECT_EQ(e.line, "XLA Ops");
    EXPECT_EQ(e.coreOrdinal, 0);
    EXPECT_TRUE(e.host.empty()); // one host: not named
    ASSERT_TRUE(e.stepIndex);
    EXPECT_EQ(*e.stepIndex, 1);
    EXPECT_EQ(e.stepNumber, 8);
    EXPECT_EQ(e.stepCount, 2);
    EXPECT_EQ(e.program, "jit_step");
    EXPECT_EQ(e.moduleRun, "jit_step");
    EXPECT_EQ(e.moduleRunStartPs, 21 * kUs);
    EXPECT_EQ(e.moduleRunDurationPs, 8 * kUs);
    // Not compared yet: describeEvent reads no other event.
    EXPECT_EQ(e.occurrences, 0);

    // Between steps and module runs (the first fusion.1 is inside step 7, the run at 11 µs).
    const EventOccurrence first = describeEvent(*analysis, fixture.ops0, 0);
    EXPECT_EQ(first.stepNumber, 7);
    EXPECT_EQ(first.moduleRunStartPs, 11 * kUs);

    // A host event: no core, no step, no module run, no rates.
    const EventOccurrence host = describeEvent(*analysis, fixture.hostLine, 0);
    ASSERT_TRUE(host.found);
    EXPECT_FALSE(host.xlaOp);
    EXPECT_EQ(host.coreOrdinal, -1);
    EXPECT_FALSE(host.stepIndex);
    EXPECT_TRUE(host.moduleRun.empty());
    EXPECT_FALSE(host.flopsUtilization);

    // Bad input is no event, never a crash.
    EXPECT_FALSE(describeEvent(*analysis, kNone, 0).found);
    EXPECT_FALSE(describeEvent(*analysis, fixture.ops0, 99).found);
    EXPECT_FALSE(describeEventOccurrence(*analysis, 12345, 0).found);
}

TEST(EventOccurrence, ComparesTheEventWithTheOpsOccurrences)
{
    const EventProfile fixture = makeEventProfile();
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(fixture.profile);
    const EventOccurrence e = describeEventOccurrence(*analysis, fixture.ops0, 2);
    // fusion.1: 1, 3, 2 µs on core 0, 4 µs on core 1; this one is the third on core 0.
    EXPECT_EQ(e.occurrenceOnCore, 3);
    EXPECT_EQ(e.occurrencesOnCore, 3);
    EXPECT_EQ(e.occurrences, 4);
    EXPECT_DOUBLE_EQ(e.minPs, 1.0 * kUs);
    EXPECT_DOUBLE_EQ(e.medianPs, 2.5 * kUs);
    EXPECT_DOUBLE_EQ(e.maxPs, 4.0 * kUs);
    EXPECT_DOUBLE_EQ(e.shorterFraction, 0.25);
    // On core 1 it is the first of one.
    const EventOccurrence other = describeEventOccurrence(*analysis, fixture.ops1, 0);
    EXPECT_EQ(other.occurrenceOnCore, 1);
    EXPECT_EQ(other.occurrencesOnCore, 1);
    EXPECT_DOUBLE_EQ(other.shorterFraction, 0.75);
    // The longest occurrence is core 1's.
    const auto longest = longestOccurrence(*fixture.profile, findOccurrences(*fixture.profile, e.op));
    EXPECT_EQ(longest.first, fixture.ops1);
    EXPECT_EQ(longest.second, 0u);
    // A stopped search (findOccurrences returns nothing) leaves the comparison out, not half-filled.
    EventOccurrence stopped = describeEvent(*analysis, fixture.ops0, 2);
    compareWithOccurrences(stopped, *fixture.profile, OpOccurrences {});
    EXPECT_EQ(stopped.occurrences, 0);
    EXPECT_EQ(stopped.occurrenceOnCore, 0);
}

TEST(EventOccurrence, OwnRatesAreTheOpsCostOverThisDurationAndMatchTheTableForOneOccurrence)
{
    const EventProfile fixture = makeEventProfile();
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(fixture.profile);
    // fusion.1 at 22 µs: 1e7 FLOP over 2 µs at 100 TFLOP/s = 5%; 2e5 B over 2 µs at 1000 GB/s = 10%.
    const EventOccurrence e = describeEvent(*analysis, fixture.ops0, 2);
    ASSERT_TRUE(e.flopsUtilization);
    ASSERT_TRUE(e.hbmUtilization);
    EXPECT_NEAR(*e.flopsUtilization, 0.05, 1e-12);
    EXPECT_NEAR(*e.hbmUtilization, 0.10, 1e-12);
    EXPECT_NEAR(*e.attainedTflops, 5.0, 1e-12);
    EXPECT_NEAR(*e.attainedHbmGbps, 100.0, 1e-9);
    // The op's own rate is over all four occurrences (10 µs): another number.
    const OpRow* fusionRow = rowNamed(analysis->breakdown, "fusion.1");
    ASSERT_TRUE(fusionRow && fusionRow->flopsUtilizationUncapped);
    EXPECT_NEAR(*fusionRow->flopsUtilizationUncapped, 4e7 / (10.0 * kUs * 100), 1e-12);

    // dot.2 runs once: its occurrence's rates are the op table's, to the last bit.
    const EventOccurrence dot = describeEvent(*analysis, fixture.ops0, 3);
    const OpRow* dotRow = rowNamed(analysis->breakdown, "dot.2");
    ASSERT_TRUE(dotRow);
    ASSERT_TRUE(dot.flopsUtilization && dotRow->flopsUtilizationUncapped);
    ASSERT_TRUE(dot.hbmUtilization && dotRow->hbmUtilizationUncapped);
    EXPECT_EQ(*dot.flopsUtilization, *dotRow->flopsUtilizationUncapped);
    EXPECT_EQ(*dot.hbmUtilization, *dotRow->hbmUtilizationUncapped);
    EXPECT_EQ(*dot.attainedTflops, *dotRow->attainedTflops);
    EXPECT_EQ(*dot.attainedHbmGbps, *dotRow->attainedHbmGbps);
}

TEST(EventOccurrence, NamesTheHostOnlyWhenThereAreSeveral)
{
    ProfileBuilder b;
    const uint32_t first = b.addHost("worker-0");
    const uint32_t second = b.addHost("worker-1");
    OpInfo info;
    info.name = b.intern("fusion.1");
    info.isXlaOp = true;
    const OpId op = b.addOp(info);
    TrackId onSecond = kNone;
    for (uint32_t host : {first, second}) {
        const PlaneId plane = b.addPlane("/device:TPU:0", host);
        const TrackId ops = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
        b.addEvent(ops, 0, kUs, op);
        onSecond = ops;
    }
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(b.finish());
    const EventOccurrence e = describeEvent(*analysis, onSecond, 0);
    ASSERT_TRUE(e.found);
    EXPECT_EQ(
        e.host, analysis->profile->hosts[analysis->profile->planes[analysis->profile->tracks[onSecond].plane].host]);
    EXPECT_EQ(e.host, "worker-1");
    EXPECT_EQ(e.coreOrdinal, 1);
}

TEST(EventOccurrence, TimesReadLikeTheRulerWithTheDigitsTheDurationNeeds)
{
    // The ruler's formatter (formatTimeLabel) in the unit of the time's size.
    EXPECT_EQ(formatEventTime(22 * kUs, 2 * kUs), "+" + formatTimeLabel(22.0 * kUs, TimeUnit::Us, 1));
    EXPECT_EQ(formatEventTime(22 * kUs, 2 * kUs), "+22.0 µs");
    // 1.23 s into the profile, 5 µs long: down to the µs, not the second.
    EXPECT_EQ(formatEventTime(1'234'567'890'123, 5 * kUs), "+1.234568 s");
    EXPECT_EQ(formatEventTime(0, 100), "+0 ps");
}

TEST(EventOccurrence, AnUnlinkedModuleRunOfTheEventsProgramIsNamedAsTheProgram)
{
    ProfileBuilder b;
    b.addProgram(42, "jit_f", nullptr);
    const PlaneId plane = b.addPlane("/device:TPU:0");
    const TrackId modules = b.addTrack(plane, "XLA Modules", TrackKind::XlaModules);
    const TrackId ops = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    OpInfo run;
    run.name = b.intern("jit_f(42)");
    b.addEvent(modules, 0, 10 * kUs, b.addOp(run));
    OpInfo op;
    op.name = b.intern("fusion.1");
    op.isXlaOp = true;
    op.programId = 42;
    op.hasProgramId = true;
    b.addEvent(ops, 2 * kUs, kUs, b.addOp(op));
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(b.finish());
    const EventOccurrence e = describeEvent(*analysis, ops, 0);
    EXPECT_EQ(e.program, "jit_f");
    EXPECT_EQ(e.moduleRun, "jit_f");
}
