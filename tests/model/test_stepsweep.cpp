// SPDX-License-Identifier: GPL-3.0-or-later
// The steps sweep against a plain reference: every top-level op split by brute force over every
// step window, on generated cores whose ops cross window edges, fall in gaps, the warm-up and the
// tail, overlap, nest, last no time and sit exactly on edges.
#include "analysis/opmodel.h"
#include "analysis/steps.h"
#include "analysistestutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

constexpr TimePs kUnit = 1000; // ps

enum class WindowSource { StepsLine, ProgramRuns };

struct Generated
{
    ProfilePtr profile;
    size_t cores = 0;
};

/// Cores with an XLA Ops line of ops of every time class and either a Steps line (windows with
/// gaps, some overlapping and clipped) or an XLA Modules line (runs of one program).
Generated generate(uint64_t seed, WindowSource source, int coreCount)
{
    std::mt19937_64 rng(seed);
    auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    ProfileBuilder b;
    const TrackId host = b.addTrack(b.addPlane("/host:CPU"), "python", TrackKind::HostThread);
    auto named = [&](const std::string& name) {
        OpInfo info;
        info.name = b.intern(name);
        return b.addOp(info);
    };
    const std::vector<OpId> ops = {
        addXlaOp(b, "fusion.1", "loop fusion"),
        addXlaOp(b, "convolution.2", "convolution"),
        addXlaOp(b, "all-reduce.3", "all-reduce"),
        addXlaOp(b, "all-gather-start.4", "all-gather-start"),
        addXlaOp(b, "all-gather-done.4", "all-gather-done"),
        addXlaOp(b, "copy-start.5", "copy-start", "f32[1024]{0:T(1024)S(5)}"),
        addXlaOp(b, "copy-done.5", "copy-done", "f32[1024]{0:T(1024)S(5)}"),
        addXlaOp(b, "infeed.6", "infeed"),
        addXlaOp(b, "outfeed.7", "outfeed"),
    };
    const OpId program = named("jit_step(3)");
    b.addEvent(host, 0, 1, named("host"));
    Generated out;
    out.cores = static_cast<size_t>(coreCount);
    for (int c = 0; c < coreCount; ++c) {
        const PlaneId plane = b.addPlane("/device:TPU:" + std::to_string(c));
        const TrackId opsLine = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
        const TrackId windowLine = source == WindowSource::StepsLine
            ? b.addTrack(plane, "Steps", TrackKind::Steps)
            : b.addTrack(plane, "XLA Modules", TrackKind::XlaModules);
        // Windows: a warm-up, then steps with gaps (none, some, or a step starting inside the last).
        TimePs t = uniform(0, 300) * kUnit;
        const int windows = static_cast<int>(uniform(5, 40));
        std::vector<TimePs> edges;
        for (int w = 0; w < windows; ++w) {
            const TimePs length = uniform(20, 200) * kUnit;
            edges.push_back(t);
            edges.push_back(t + length);
            b.addEvent(windowLine, t, length, source == WindowSource::StepsLine ? named(std::to_string(w)) : program);
            const int64_t gapKind = uniform(0, 5);
            t += length + (gapKind == 0 ? -uniform(1, 10) : gapKind <= 2 ? 0 : uniform(1, 120)) * kUnit;
        }
        const TimePs end = t + uniform(0, 400) * kUnit;
        // Ops: back to back, with gaps, overlapping the one before, lasting no time, long enough to
        // cross several windows, some with a nested child; starts land on window edges often
        // because both use whole units.
        TimePs at = uniform(0, 100) * kUnit;
        while (at < end) {
            const int64_t kind = uniform(0, 19);
            const TimePs duration = (kind == 0 ? 0 : kind == 1 ? uniform(100, 500) : uniform(1, 60)) * kUnit;
            const OpId id = ops[static_cast<size_t>(uniform(0, static_cast<int64_t>(ops.size()) - 1))];
            b.addEvent(opsLine, at, duration, id);
            if (kind == 2 && duration > 2 * kUnit)
                b.addEvent(opsLine, at + kUnit, duration - 2 * kUnit, ops[0]);
            const int64_t gap = uniform(0, 9);
            at += gap == 0 ? duration - std::min(duration, uniform(1, 20) * kUnit)
                : gap <= 5 ? duration
                           : duration + uniform(1, 80) * kUnit;
        }
        // Ops that last no time exactly on the windows' edges: one at an end belongs to the next
        // window when that one starts there, else to none.
        for (TimePs edge : edges)
            if (uniform(0, 1) == 0)
                b.addEvent(opsLine, edge, 0, ops[static_cast<size_t>(uniform(2, 4))]);
    }
    out.profile = b.finish();
    return out;
}

int classOf(const OpTraits& t)
{
    if (t.isInfeedOrOutfeed())
        return 3;
    if (t.isCollective())
        return 1;
    if (t.isHostTransfer())
        return 2;
    return 0;
}

void add(StepTimeSplit& split, int c, TimePs ps)
{
    double* part[] = {&split.computePs, &split.collectivePs, &split.hostTransferPs, &split.infeedPs};
    *part[c] += static_cast<double>(ps);
}

struct Reference
{
    std::vector<std::vector<StepTimeSplit>> steps; // per core and window
    std::vector<StepTimeSplit> warmup, tail;
    double busyPs = 0;
    StepCollectives collectives;
};

/// Each top-level op's time beyond what the ops before it covered, split over every window by
/// brute force; the warm-up is before the first window, the tail from the last one's end. Each
/// op is recorded for the hosts in the window it starts in.
Reference reference(const Profile& profile, const OpModel& model, const StepAnalysis& analysis)
{
    const std::vector<PlaneId> cores = profile.tpuCorePlanes();
    Reference ref;
    ref.steps.resize(cores.size());
    ref.warmup.resize(cores.size());
    ref.tail.resize(cores.size());
    ref.collectives.resize(cores.size());
    for (size_t c = 0; c < cores.size(); ++c) {
        const std::vector<CoreStep>& windows = analysis.coreSteps[c];
        ref.steps[c].resize(windows.size());
        ref.collectives[c].resize(windows.size());
        const TimePs firstBegin = windows.front().begin, lastEnd = windows.back().end;
        for (TrackId id : profile.planes[cores[c]].tracks) {
            const Track& track = profile.tracks[id];
            if (track.kind != TrackKind::XlaOps)
                continue;
            TimePs covered = std::numeric_limits<TimePs>::min();
            for (size_t i = 0; i < track.size(); ++i) {
                if (track.depth[i] != 0)
                    continue;
                const TimePs start = track.start[i], end = track.end(i);
                const int cls = classOf(model[track.op[i]]);
                for (size_t w = 0; w < windows.size(); ++w)
                    if (start >= windows[w].begin && start < windows[w].end) {
                        CoreStepCollectives& step = ref.collectives[c][w];
                        step.lastOpEnd = std::max(step.lastOpEnd, end);
                        if (waitsInCollective(model[track.op[i]]))
                            step.collectives.push_back({track.op[i], 0, start, track.duration[i]});
                    }
                const TimePs from = std::max(start, covered);
                if (end <= from)
                    continue;
                covered = end;
                ref.busyPs += static_cast<double>(end - from);
                for (size_t w = 0; w < windows.size(); ++w) {
                    const TimePs a = std::max(from, windows[w].begin), z = std::min(end, windows[w].end);
                    if (z > a)
                        add(ref.steps[c][w], cls, z - a);
                }
                if (from < firstBegin)
                    add(ref.warmup[c], cls, std::min(end, firstBegin) - from);
                if (end > lastEnd)
                    add(ref.tail[c], cls, end - std::max(from, lastEnd));
            }
        }
    }
    return ref;
}

void expectSameSplit(const StepTimeSplit& got, const StepTimeSplit& want, const std::string& where)
{
    EXPECT_EQ(got.computePs, want.computePs) << where;
    EXPECT_EQ(got.collectivePs, want.collectivePs) << where;
    EXPECT_EQ(got.hostTransferPs, want.hostTransferPs) << where;
    EXPECT_EQ(got.infeedPs, want.infeedPs) << where;
}

void checkAgainstReference(uint64_t seed, WindowSource source)
{
    const Generated g = generate(seed, source, 3);
    const Profile& profile = *g.profile;
    const OpModel model = buildOpModel(profile);
    StepCollectives gathered;
    const StepAnalysis analysis = computeSteps(profile, model, {}, &gathered);
    const std::string where = "seed " + std::to_string(seed);
    ASSERT_EQ(analysis.source, source == WindowSource::StepsLine ? StepSource::StepsLine : StepSource::ProgramRuns)
        << where;
    ASSERT_EQ(analysis.coreSteps.size(), g.cores) << where;
    const Reference ref = reference(profile, model, analysis);
    double warmupSum = 0, tailSum = 0;
    for (size_t c = 0; c < g.cores; ++c) {
        ASSERT_EQ(analysis.coreSteps[c].size(), ref.steps[c].size()) << where;
        for (size_t w = 0; w < ref.steps[c].size(); ++w) {
            const CoreStep& step = analysis.coreSteps[c][w];
            const std::string at = where + " core " + std::to_string(c) + " step " + std::to_string(w);
            expectSameSplit(step.time, ref.steps[c][w], at);
            EXPECT_EQ(
                step.time.idlePs, std::max(0.0, static_cast<double>(step.end - step.begin) - ref.steps[c][w].busyPs()))
                << at;
        }
        warmupSum += ref.warmup[c].busyPs();
        tailSum += ref.tail[c].busyPs();
        ASSERT_EQ(gathered[c].size(), ref.collectives[c].size()) << where;
        for (size_t w = 0; w < ref.collectives[c].size(); ++w) {
            const std::string at = where + " core " + std::to_string(c) + " step " + std::to_string(w);
            EXPECT_EQ(gathered[c][w].lastOpEnd, ref.collectives[c][w].lastOpEnd) << at;
            ASSERT_EQ(gathered[c][w].collectives.size(), ref.collectives[c][w].collectives.size()) << at;
            for (size_t k = 0; k < ref.collectives[c][w].collectives.size(); ++k) {
                EXPECT_EQ(gathered[c][w].collectives[k].op, ref.collectives[c][w].collectives[k].op) << at;
                EXPECT_EQ(gathered[c][w].collectives[k].start, ref.collectives[c][w].collectives[k].start) << at;
                EXPECT_EQ(gathered[c][w].collectives[k].duration, ref.collectives[c][w].collectives[k].duration) << at;
            }
        }
    }
    // The averages over the cores: whole picoseconds, so only the division can round.
    const double cores = static_cast<double>(g.cores);
    EXPECT_DOUBLE_EQ(analysis.warmup.busyPs(), warmupSum / cores) << where;
    EXPECT_DOUBLE_EQ(analysis.tail.busyPs(), tailSum / cores) << where;
    const double capacity = analysis.spanPs * cores;
    EXPECT_DOUBLE_EQ(analysis.busyFraction, std::min(1.0, ref.busyPs / capacity)) << where;
}

} // namespace

TEST(StepSweep, GeneratedCoresWithAStepsLineMatchABruteForceSplit)
{
    for (uint64_t seed = 1; seed <= 40; ++seed)
        checkAgainstReference(seed, WindowSource::StepsLine);
}

TEST(StepSweep, GeneratedCoresWithProgramRunsMatchABruteForceSplit)
{
    for (uint64_t seed = 101; seed <= 140; ++seed)
        checkAgainstReference(seed, WindowSource::ProgramRuns);
}

TEST(StepSweep, TheGeneratedOpsReachEveryPartOfTheSweep)
{
    // What the comparison above relies on: the ops land in steps, gaps, the warm-up and the tail,
    // of every class, and the hosts get collectives.
    const Generated g = generate(7, WindowSource::StepsLine, 3);
    const OpModel model = buildOpModel(*g.profile);
    StepCollectives gathered;
    const StepAnalysis analysis = computeSteps(*g.profile, model, {}, &gathered);
    const Reference ref = reference(*g.profile, model, analysis);
    StepTimeSplit steps;
    for (const auto& core : ref.steps)
        for (const StepTimeSplit& s : core)
            steps += s;
    EXPECT_GT(steps.computePs, 0);
    EXPECT_GT(steps.collectivePs, 0);
    EXPECT_GT(steps.hostTransferPs, 0);
    EXPECT_GT(steps.infeedPs, 0);
    double warmup = 0, tail = 0, inSteps = steps.busyPs();
    for (size_t c = 0; c < g.cores; ++c) {
        warmup += ref.warmup[c].busyPs();
        tail += ref.tail[c].busyPs();
    }
    EXPECT_GT(warmup, 0);
    EXPECT_GT(tail, 0);
    EXPECT_GT(ref.busyPs, inSteps + warmup + tail); // some busy time is in gaps between steps
    size_t collectives = 0;
    for (const auto& core : gathered)
        for (const CoreStepCollectives& s : core)
            collectives += s.collectives.size();
    EXPECT_GT(collectives, 0u);
}
