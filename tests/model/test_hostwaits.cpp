// SPDX-License-Identifier: GPL-3.0-or-later
// The hosts analysis's wait in collectives other than the synchronizing one: each instance (op,
// its occurrence in the step on the core) against the shortest run of it on the other cores,
// with the cores running the collectives in different orders, some twice and some on one core.
#include "analysis/hosts.h"
#include "analysis/opmodel.h"
#include "analysis/steps.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace tpuscope::model;

namespace {

constexpr TimePs kUs = 1'000'000; // ps

/// Three TPU cores on one host, each with a Steps line of two 1 ms steps and the given ops, laid
/// end to end from each step's start, a synchronizing all-reduce last.
std::shared_ptr<const Profile> podOf(const std::vector<std::vector<std::vector<std::string>>>& names,
    const std::vector<std::vector<std::vector<TimePs>>>& durationsUs)
{
    ProfileBuilder b;
    auto op = [&b](const std::string& name) {
        OpInfo info;
        info.name = b.intern(name);
        info.category = b.intern(name.substr(0, name.find('.')));
        info.isXlaOp = true;
        return b.addOp(info);
    };
    for (size_t c = 0; c < names.size(); ++c) {
        const PlaneId plane = b.addPlane("/device:TPU:" + std::to_string(c));
        const TrackId steps = b.addTrack(plane, "Steps", TrackKind::Steps);
        const TrackId ops = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
        for (size_t s = 0; s < names[c].size(); ++s) {
            OpInfo step;
            step.name = b.intern(std::to_string(s));
            const TimePs begin = static_cast<TimePs>(s) * 1000 * kUs;
            b.addEvent(steps, begin, 1000 * kUs, b.addOp(step));
            TimePs t = begin + 10 * kUs;
            for (size_t i = 0; i < names[c][s].size(); ++i) {
                b.addEvent(ops, t, durationsUs[c][s][i] * kUs, op(names[c][s][i]));
                t += durationsUs[c][s][i] * kUs + kUs;
            }
            b.addEvent(ops, t, 5 * kUs, op("all-reduce.9")); // the synchronizing collective
        }
    }
    return b.finish();
}

} // namespace

TEST(HostCollectiveWaits, EachInstanceWaitsBeyondTheShortestOfItsOwnRunsOnTheOtherCores)
{
    // Step 0: core 1 runs reduce-scatter first; core 2 runs the all-gather once and a
    // collective-permute no other core runs. Step 1: the same order everywhere.
    const auto profile = podOf(
        {
            {{"all-gather.1", "reduce-scatter.2", "all-gather.1"}, {"all-gather.1"}},
            {{"reduce-scatter.2", "all-gather.1", "all-gather.1"}, {"all-gather.1"}},
            {{"all-gather.1", "collective-permute.3"}, {"all-gather.1"}},
        },
        {
            {{10, 20, 30}, {10}},
            {{25, 12, 40}, {10}},
            {{11, 50}, {14}},
        });
    const OpModel model = buildOpModel(*profile);
    const StepAnalysis steps = computeSteps(*profile, model);
    ASSERT_EQ(steps.coreSteps.size(), 3u);
    const HostAnalysis hosts = analyzeHosts(*profile, model, steps);
    EXPECT_EQ(hosts.syncCollective, "all-reduce.9");
    ASSERT_TRUE(hosts.otherWaitMeasured);
    ASSERT_EQ(hosts.coreSync.size(), 3u);
    // all-gather #0: 10, 12, 11 µs; all-gather #1: 30, 40; reduce-scatter #0: 20, 25; the
    // collective-permute ran on one core: no wait.
    EXPECT_EQ(hosts.coreSync[0][0].otherWaitPs, 0.0);
    EXPECT_EQ(hosts.coreSync[1][0].otherWaitPs, static_cast<double>((2 + 10 + 5) * kUs));
    EXPECT_EQ(hosts.coreSync[2][0].otherWaitPs, static_cast<double>(1 * kUs));
    EXPECT_EQ(hosts.coreSync[0][1].otherWaitPs, 0.0);
    EXPECT_EQ(hosts.coreSync[1][1].otherWaitPs, 0.0);
    EXPECT_EQ(hosts.coreSync[2][1].otherWaitPs, static_cast<double>(4 * kUs));
}

TEST(HostCollectiveWaits, NoneIsMeasuredWhenNoInstanceRanOnTwoCores)
{
    const auto profile = podOf({{{"all-gather.1"}}, {{"reduce-scatter.2"}}}, {{{10}}, {{20}}});
    const OpModel model = buildOpModel(*profile);
    const HostAnalysis hosts = analyzeHosts(*profile, model, computeSteps(*profile, model));
    ASSERT_EQ(hosts.coreSync.size(), 2u);
    EXPECT_FALSE(hosts.otherWaitMeasured);
    EXPECT_EQ(hosts.coreSync[0][0].otherWaitPs, 0.0);
    EXPECT_EQ(hosts.coreSync[1][0].otherWaitPs, 0.0);
}
