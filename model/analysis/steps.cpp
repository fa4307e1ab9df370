// SPDX-License-Identifier: GPL-3.0-or-later
#include "steps.h"

#include "../core/format.h"
#include "../core/parallel.h"
#include "../core/stopcheck.h"
#include "opmodel.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <thread>
#include <unordered_map>

namespace tpuscope::model {

const char* stepSourceName(StepSource source)
{
    switch (source) {
    case StepSource::StepsLine:
        return "Steps line";
    case StepSource::ProgramRuns:
        return "XLA Modules";
    case StepSource::HostMarkers:
        return "host step markers";
    case StepSource::None:
        break;
    }
    return "none";
}

namespace {

enum class TimeClass : uint8_t { Compute, Collective, HostTransfer, Infeed };

/// Where an op's time goes in a step, from the op model.
TimeClass timeClassOf(const OpTraits& t)
{
    if (t.isInfeedOrOutfeed())
        return TimeClass::Infeed;
    if (t.isCollective())
        return TimeClass::Collective;
    if (t.isHostTransfer())
        return TimeClass::HostTransfer;
    return TimeClass::Compute;
}

void addTime(StepTimeSplit& split, TimeClass c, double ps)
{
    switch (c) {
    case TimeClass::Collective:
        split.collectivePs += ps;
        break;
    case TimeClass::HostTransfer:
        split.hostTransferPs += ps;
        break;
    case TimeClass::Infeed:
        split.infeedPs += ps;
        break;
    default:
        split.computePs += ps;
        break;
    }
}

struct Window
{
    TimePs begin = 0;
    TimePs end = 0;
    int64_t number = -1;
};

/// Start-to-next-start windows over runs sorted by start; the last one ends with its run.
std::vector<Window> windowsFromRuns(const std::vector<Window>& runs)
{
    std::vector<Window> out = runs;
    for (size_t i = 0; i + 1 < out.size(); ++i)
        out[i].end = std::max(out[i].begin, out[i + 1].begin);
    return out;
}

/// Windows that are events in their own right (the Steps line): overlaps are clipped.
std::vector<Window> clippedWindows(std::vector<Window> events)
{
    for (size_t i = 1; i < events.size(); ++i) {
        events[i].begin = std::max(events[i].begin, events[i - 1].end);
        events[i].end = std::max(events[i].end, events[i].begin);
    }
    return events;
}

/// One core: busy time by class in each window, in the warm-up and in the tail.
struct CoreSteps
{
    std::vector<Window> windows;
    std::vector<StepTimeSplit> steps;
    StepTimeSplit warmup;
    StepTimeSplit tail;
    double busyPs = 0; // all busy time of the core, inside steps or not
};

class Sweep
{
public:
    Sweep(CoreSteps& core, TimePs spanBegin, TimePs spanEnd)
        : m_core(core)
        , m_windows(core.windows.data())
        , m_windowCount(core.windows.size())
        , m_spanBegin(spanBegin)
        , m_spanEnd(spanEnd)
    {
        m_core.steps.assign(m_windowCount, {});
        m_steps = m_core.steps.data();
    }

    void restart() { m_next = 0; }

    /// The window busy() is at: an interval that starts in it and ends before its end goes to
    /// it, one that ends before its begin to the warm-up (window 0) or to no step; at
    /// windowCount() every interval goes to the tail.
    size_t current() const { return m_next; }
    size_t windowCount() const { return m_windowCount; }
    const Window& window(size_t w) const { return m_windows[w]; }
    /// Where busy() adds an interval that lies wholly in the window it is at (inside: in the
    /// window, else before it); null: in no step.
    StepTimeSplit* target(bool inside) const
    {
        if (m_next >= m_windowCount)
            return &m_core.tail;
        if (inside)
            return &m_steps[m_next];
        return m_next == 0 ? &m_core.warmup : nullptr;
    }

    /// What TrackSweep summed by TimeClass into one target, as busy() would have added it
    /// interval by interval.
    void add(StepTimeSplit* split, const int64_t (&byClass)[4])
    {
        if (split) {
            split->computePs += static_cast<double>(byClass[0]);
            split->collectivePs += static_cast<double>(byClass[1]);
            split->hostTransferPs += static_cast<double>(byClass[2]);
            split->infeedPs += static_cast<double>(byClass[3]);
        }
        m_busyPs += static_cast<double>(byClass[0] + byClass[1] + byClass[2] + byClass[3]);
    }

    /// [a, b) is busy with an op of class c; called with non-decreasing a. Splits the interval
    /// over the windows, the warm-up and the tail exactly: TrackSweep calls it for the ops its
    /// fast path does not take.
    void busy(TimePs a, TimePs b, TimeClass c)
    {
        m_busyPs += static_cast<double>(b - a);
        while (a < b) {
            while (m_next < m_windowCount && a >= m_windows[m_next].end)
                ++m_next;
            TimePs until = b;
            if (m_next >= m_windowCount) {
                addTime(m_core.tail, c, static_cast<double>(b - a)); // after the last step
            } else if (a < m_windows[m_next].begin) {
                until = std::min(b, m_windows[m_next].begin);
                if (m_next == 0)
                    addTime(m_core.warmup, c, static_cast<double>(until - a));
                // Between two windows that do not touch (none of ours): counted in no step.
            } else {
                until = std::min(b, m_windows[m_next].end);
                addTime(m_steps[m_next], c, static_cast<double>(until - a));
            }
            a = until;
        }
    }

    /// Idle = window length − busy time, for the steps, the warm-up and the tail.
    void finish()
    {
        m_core.busyPs += m_busyPs;
        const auto& w = m_core.windows;
        for (size_t i = 0; i < w.size(); ++i) {
            StepTimeSplit& s = m_core.steps[i];
            s.idlePs = std::max(0.0, static_cast<double>(w[i].end - w[i].begin) - s.busyPs());
        }
        const TimePs firstBegin = w.empty() ? m_spanEnd : w.front().begin;
        const TimePs lastEnd = w.empty() ? m_spanEnd : w.back().end;
        m_core.warmup.idlePs = std::max(0.0, static_cast<double>(firstBegin - m_spanBegin) - m_core.warmup.busyPs());
        m_core.tail.idlePs = std::max(0.0, static_cast<double>(m_spanEnd - lastEnd) - m_core.tail.busyPs());
    }

private:
    CoreSteps& m_core;
    const Window* m_windows;
    size_t m_windowCount;
    StepTimeSplit* m_steps = nullptr;
    TimePs m_spanBegin;
    TimePs m_spanEnd;
    size_t m_next = 0;
    double m_busyPs = 0;
};

/// What the hosts analysis reads of one core's steps (CoreStepCollectives per window), gathered
/// in the sweep's pass over the events: each top-level op by the window it starts in. W is any
/// window with a begin and an end (the sweep's Window, the analysis's CoreStep).
template <class W> class CollectiveGatherer
{
public:
    CollectiveGatherer(const W* windows, size_t windowCount, std::vector<CoreStepCollectives>* out,
        const std::vector<uint8_t>& collective)
        : m_windows(windows)
        , m_windowCount(out ? windowCount : 0)
        , m_out(out)
        , m_collective(collective.data())
        , m_opCount(collective.size())
    {
        if (m_out)
            m_out->assign(m_windowCount, {});
    }

    void restart() { m_next = 0; }

    /// The window add() records an op in when the op starts in it.
    size_t current() const { return m_next; }
    /// What TrackSweep records of ops that start in window w: the latest end, and a collective.
    void addLastOpEnd(size_t w, TimePs lastOpEnd)
    {
        TimePs& last = (*m_out)[w].lastOpEnd;
        last = std::max(last, lastOpEnd);
    }
    void addCollective(size_t w, TimePs begin, TimePs duration, OpId op)
    {
        (*m_out)[w].collectives.push_back({op, 0, begin, duration});
    }

    void add(TimePs begin, TimePs duration, OpId op)
    {
        while (m_next < m_windowCount && begin >= m_windows[m_next].end)
            ++m_next;
        if (m_next >= m_windowCount || begin < m_windows[m_next].begin)
            return;
        CoreStepCollectives& step = (*m_out)[m_next];
        step.lastOpEnd = std::max(step.lastOpEnd, begin + duration);
        if (op < m_opCount && m_collective[op])
            step.collectives.push_back({op, 0, begin, duration});
    }

private:
    const W* m_windows;
    size_t m_windowCount; // 0 when nothing is gathered
    std::vector<CoreStepCollectives>* m_out;
    const uint8_t* m_collective;
    size_t m_opCount;
    size_t m_next = 0;
};

/// The sweep's byte per op: its TimeClass in the low bits, and whether a core waits in it as in a
/// collective (collectiveWaitsByOp). One table, so an event costs one lookup.
constexpr uint8_t kTimeClassBits = 3;
constexpr uint8_t kWaitsInCollective = 4;
static_assert(static_cast<uint8_t>(TimeClass::Infeed) <= kTimeClassBits);

/// Sweeps the top-level ops of one track of a core into the sweep and, with Gather, the
/// gatherer. Nearly every op lies in the region the op before it did: inside one window, in the
/// gap before the next window, or in the tail. Such an op is summed by class and recorded for the
/// hosts in a loop whose state stays in registers, without the window search and the per-class
/// switch of Sweep::busy (this loop was the longest of the analysis, and its state lived on the
/// stack). Any other op (across an edge, or where the two window cursors differ) goes through
/// Sweep::busy and CollectiveGatherer::add, which split it exactly. The sums are whole
/// picoseconds, so summing them here first gives the same doubles busy() gives (sums below 2^53
/// ps: 2.5 hours of busy time per core).
template <bool Gather> class TrackSweep
{
public:
    TrackSweep(Sweep& sweep, CollectiveGatherer<Window>& gatherer, const uint8_t* opBits, uint8_t classMask)
        : m_sweep(sweep)
        , m_gatherer(gatherer)
        , m_opBits(opBits)
        , m_classMask(classMask)
    {
    }

    /// False when stopped.
    bool run(const Track& track, StopCheck& stopCheck)
    {
        const TimePs* const start = track.start.data();
        const TimePs* const duration = track.duration.data();
        const uint16_t* const depth = track.depth.data();
        const OpId* const op = track.op.data();
        const uint8_t* const opBits = m_opBits;
        const uint8_t classMask = m_classMask;
        const size_t n = track.size();
        m_sweep.restart();
        m_gatherer.restart();
        Region region;
        TimePs coveredUntil = std::numeric_limits<TimePs>::min(); // the end of the ops' union so far
        for (size_t from = 0; from < n; from += StopCheck::kInterval) {
            const size_t to = std::min(n, from + StopCheck::kInterval);
            if (stopCheck.stoppedAfter(to - from))
                return false;
            for (size_t i = from; i < to; ++i) {
                if (depth[i] != 0)
                    continue;
                const TimePs begin = start[i];
                const TimePs end = begin + duration[i];
                const uint8_t bits = opBits[op[i]];
                if (begin >= region.begin && end < region.end) {
                    m_byClass[bits & classMask] += std::max<TimePs>(0, end - std::max(begin, coveredUntil));
                    // Where the op is covered already this leaves coveredUntil as busy() would: a
                    // zero-length op past it moves it to a point no later op starts before.
                    coveredUntil = std::max(coveredUntil, end);
                    if constexpr (Gather) {
                        region.lastOpEnd = std::max(region.lastOpEnd, end);
                        if (bits & region.collectiveMask)
                            addCollective(region.window, begin, duration[i], op[i]);
                    }
                    continue;
                }
                region = takeSlow(
                    region, begin, duration[i], op[i], static_cast<TimeClass>(bits & classMask), coveredUntil);
            }
        }
        flush(region);
        return true;
    }

private:
    /// Where the fast path adds an op that starts at or after `begin` and ends before `end`
    /// (empty: none), and what it recorded there since the last flush.
    struct Region
    {
        TimePs begin = std::numeric_limits<TimePs>::max();
        TimePs end = std::numeric_limits<TimePs>::min();
        StepTimeSplit* target = nullptr; // null: busy time in no step
        size_t window = 0; // the gatherer's window, when collectiveMask is set
        uint8_t collectiveMask = 0; // kWaitsInCollective inside a window the gatherer records
        TimePs lastOpEnd = -1;
    };

    void flush(const Region& region)
    {
        if (region.begin >= region.end)
            return;
        m_sweep.add(region.target, m_byClass);
        m_byClass[0] = m_byClass[1] = m_byClass[2] = m_byClass[3] = 0;
        if constexpr (Gather)
            if (region.collectiveMask)
                m_gatherer.addLastOpEnd(region.window, region.lastOpEnd);
    }

    /// Out of line, so the fast path's loop keeps its few values in registers.
    [[gnu::noinline]] void addCollective(size_t window, TimePs begin, TimePs duration, OpId op)
    {
        m_gatherer.addCollective(window, begin, duration, op);
    }

    /// An op outside the fast path's region: flushes its sums, splits the op exactly and takes
    /// the region the next op is likely in.
    [[gnu::noinline]] Region takeSlow(
        const Region& region, TimePs begin, TimePs duration, OpId op, TimeClass c, TimePs& coveredUntil)
    {
        flush(region);
        if constexpr (Gather)
            m_gatherer.add(begin, duration, op);
        const TimePs end = begin + duration;
        const TimePs busyFrom = std::max(begin, coveredUntil);
        if (end > busyFrom) {
            m_sweep.busy(busyFrom, end, c);
            coveredUntil = end;
        }
        Region next;
        const size_t w = m_sweep.current();
        // The gatherer records an op by its start, the sweep by where it is not covered yet: the
        // fast path needs both at the same window. (They can part only where a top-level op lies
        // wholly under the ones before it, which nesting makes a child; they meet again at the
        // next op taken here.)
        if (Gather && m_gatherer.current() != w)
            return next;
        constexpr TimePs kMin = std::numeric_limits<TimePs>::min(), kMax = std::numeric_limits<TimePs>::max();
        if (w >= m_sweep.windowCount()) {
            next.begin = kMin;
            next.end = kMax;
            next.target = m_sweep.target(false);
        } else if (begin >= m_sweep.window(w).begin) {
            next.begin = m_sweep.window(w).begin;
            next.end = m_sweep.window(w).end;
            next.target = m_sweep.target(true);
            next.window = w;
            next.collectiveMask = Gather ? kWaitsInCollective : 0;
        } else {
            next.begin = kMin;
            next.end = m_sweep.window(w).begin;
            next.target = m_sweep.target(false);
        }
        return next;
    }

    Sweep& m_sweep;
    CollectiveGatherer<Window>& m_gatherer;
    const uint8_t* m_opBits;
    uint8_t m_classMask;
    int64_t m_byClass[4] = {0, 0, 0, 0};
};

/// "jit_f(12190760917235803885)" -> "jit_f".
std::string withoutProgramId(const std::string& name)
{
    if (name.empty() || name.back() != ')')
        return name;
    const size_t open = name.rfind('(');
    if (open == std::string::npos || open == 0)
        return name;
    for (size_t i = open + 1; i + 1 < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9')
            return name;
    return name.substr(0, open);
}

int64_t stepNumberFromName(const std::string& name)
{
    int64_t value = -1;
    auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), value);
    return ec == std::errc() && ptr == name.data() + name.size() ? value : -1;
}

struct ProgramAccumulator
{
    std::string key; // the module event's name
    std::string name;
    int64_t runs = 0;
    double sum = 0;
    double sumSquares = 0;
    double lo = std::numeric_limits<double>::infinity();
    double hi = 0;
    std::vector<int64_t> runsPerCore;
    std::vector<double> timePerCore;
};

} // namespace

StepAnalysis computeSteps(const Profile& profile, const StepOptions& options)
{
    return computeSteps(profile, buildOpModel(profile), options, nullptr);
}

bool waitsInCollective(const OpTraits& op)
{
    return op.opClass == OpClass::SyncCollective || op.opClass == OpClass::AsyncCollectiveDone;
}

std::vector<uint8_t> collectiveWaitsByOp(const OpModel& model)
{
    std::vector<uint8_t> collective(model.size());
    for (size_t op = 0; op < model.size(); ++op)
        collective[op] = waitsInCollective(model[op]);
    return collective;
}

bool gatherStepCollectives(const Profile& profile, PlaneId core, const std::vector<CoreStep>& windows,
    const std::vector<uint8_t>& collective, std::vector<CoreStepCollectives>& out, std::stop_token stop)
{
    const size_t count = std::min(windows.size(), out.size());
    CollectiveGatherer<CoreStep> gatherer(windows.data(), count, &out, collective); // out: count entries
    StopCheck check(std::move(stop));
    for (TrackId id : profile.planes[core].tracks) {
        const Track& track = profile.tracks[id];
        if (track.kind != TrackKind::XlaOps)
            continue;
        gatherer.restart();
        const TimePs* const start = track.start.data();
        const TimePs* const duration = track.duration.data();
        const uint16_t* const depth = track.depth.data();
        const OpId* const op = track.op.data();
        for (size_t i = 0; i < track.size(); ++i) {
            if (check.stopped())
                return false;
            if (depth[i] == 0)
                gatherer.add(start[i], duration[i], op[i]);
        }
    }
    return true;
}

StepAnalysis computeSteps(
    const Profile& profile, const OpModel& model, const StepOptions& options, StepCollectives* collectives)
{
    StepAnalysis out;
    out.core = options.core;
    out.spanPs = static_cast<double>(profile.spanEnd - profile.spanBegin);
    out.originPs = profile.spanBegin;
    const std::vector<PlaneId> allCores = profile.tpuCorePlanes();
    std::vector<PlaneId> cores;
    std::vector<size_t> ordinals; // of each core counted among all TPU cores
    for (size_t i = 0; i < allCores.size(); ++i)
        if (options.core < 0 || static_cast<int>(i) == options.core) {
            cores.push_back(allCores[i]);
            ordinals.push_back(i);
        }
    out.cores = static_cast<int>(cores.size());
    // One plane that sums every core (op_profile.json) stands for the profile's core count, the same
    // every other report gives.
    if (options.core < 0 && cores.size() == 1 && profile.planes[cores.front()].aggregate)
        out.cores = std::max(1, profile.device.cores);
    if (cores.empty()) {
        out.note = allCores.empty() ? "the profile has no TPU cores"
                                    : "core " + std::to_string(options.core) + " is not in the profile (it has "
                + std::to_string(allCores.size()) + " TPU cores)";
        return out;
    }

    // Programs: the runs on the XLA Modules lines, keyed by the module event's name.
    std::vector<ProgramAccumulator> programs;
    std::unordered_map<OpId, size_t> programOfOp;
    std::unordered_map<std::string, size_t> programOfKey;
    for (size_t c = 0; c < cores.size(); ++c) {
        for (TrackId id : profile.planes[cores[c]].tracks) {
            const Track& track = profile.tracks[id];
            if (track.kind != TrackKind::XlaModules)
                continue;
            for (size_t i = 0; i < track.size(); ++i) {
                if (track.depth[i] != 0)
                    continue;
                auto found = programOfOp.find(track.op[i]);
                if (found == programOfOp.end()) {
                    const OpInfo& op = profile.ops[track.op[i]];
                    std::string key = profile.str(op.name);
                    auto byKey = programOfKey.find(key);
                    if (byKey == programOfKey.end()) {
                        ProgramAccumulator p;
                        p.key = key;
                        p.name = op.program != kNone ? profile.programs[op.program].name : withoutProgramId(key);
                        p.runsPerCore.assign(cores.size(), 0);
                        p.timePerCore.assign(cores.size(), 0);
                        byKey = programOfKey.emplace(key, programs.size()).first;
                        programs.push_back(std::move(p));
                    }
                    found = programOfOp.emplace(track.op[i], byKey->second).first;
                }
                ProgramAccumulator& p = programs[found->second];
                const double d = static_cast<double>(track.duration[i]);
                ++p.runs;
                ++p.runsPerCore[c];
                p.timePerCore[c] += d;
                p.sum += d;
                p.sumSquares += d * d;
                p.lo = std::min(p.lo, d);
                p.hi = std::max(p.hi, d);
            }
        }
    }
    // Two programs may share a name (two compilations of one function): those keep their id.
    {
        std::map<std::string, int> uses;
        for (const ProgramAccumulator& p : programs)
            ++uses[p.name];
        for (ProgramAccumulator& p : programs)
            if (uses[p.name] > 1)
                p.name = p.key;
    }
    std::vector<size_t> order(programs.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return programs[a].sum > programs[b].sum; });
    const double capacity = out.spanPs * static_cast<double>(cores.size());
    std::vector<size_t> rankOf(programs.size());
    for (size_t r = 0; r < order.size(); ++r) {
        const ProgramAccumulator& p = programs[order[r]];
        rankOf[order[r]] = r;
        ProgramRunStats s;
        s.name = p.name;
        s.runs = p.runs;
        for (int64_t n : p.runsPerCore)
            s.cores += n > 0 ? 1 : 0;
        s.runsPerCore = s.cores ? static_cast<double>(p.runs) / s.cores : 0;
        s.totalPs = p.sum;
        s.avgPs = p.runs ? p.sum / static_cast<double>(p.runs) : 0;
        s.minPs = p.runs ? p.lo : 0;
        s.maxPs = p.hi;
        s.stddevPs = p.runs ? std::sqrt(std::max(0.0, p.sumSquares / p.runs - s.avgPs * s.avgPs)) : 0;
        s.timeFraction = capacity > 0 ? p.sum / capacity : 0;
        s.runsByCore = p.runsPerCore;
        s.timeByCore = p.timePerCore;
        out.programs.push_back(std::move(s));
    }
    if (!out.programs.empty())
        out.dominantProgram = 0;

    // The program the caller asked for, by name or by the module event's name.
    size_t chosen = programs.size();
    if (!options.program.empty()) {
        for (size_t i = 0; i < programs.size(); ++i)
            if (programs[i].name == options.program || programs[i].key == options.program
                || withoutProgramId(programs[i].key) == options.program)
                chosen = i;
        if (chosen == programs.size()) {
            out.note = "no program named '" + options.program + "' on the XLA Modules lines";
            return out;
        }
    } else if (!order.empty()) {
        chosen = order.front();
    }

    // The step windows of each core.
    std::vector<CoreSteps> perCore(cores.size());
    bool stepsLine = false;
    if (options.program.empty()) {
        for (size_t c = 0; c < cores.size(); ++c)
            for (TrackId id : profile.planes[cores[c]].tracks) {
                const Track& track = profile.tracks[id];
                if (track.kind != TrackKind::Steps || track.size() == 0 || !perCore[c].windows.empty())
                    continue;
                std::vector<Window> events;
                for (size_t i = 0; i < track.size(); ++i)
                    if (track.depth[i] == 0)
                        events.push_back({track.start[i], track.end(i),
                            stepNumberFromName(profile.str(profile.ops[track.op[i]].name))});
                perCore[c].windows = clippedWindows(std::move(events));
                stepsLine = true;
                out.sourceLine = profile.str(track.name);
            }
    }
    if (stepsLine) {
        out.source = StepSource::StepsLine;
    } else if (chosen < programs.size()) {
        out.source = StepSource::ProgramRuns;
        out.sourceLine = "XLA Modules";
        out.program = programs[chosen].name;
        for (size_t c = 0; c < cores.size(); ++c) {
            std::vector<Window> runs;
            for (TrackId id : profile.planes[cores[c]].tracks) {
                const Track& track = profile.tracks[id];
                if (track.kind != TrackKind::XlaModules)
                    continue;
                for (size_t i = 0; i < track.size(); ++i)
                    if (track.depth[i] == 0 && programOfOp[track.op[i]] == chosen)
                        runs.push_back({track.start[i], track.end(i), -1});
            }
            std::sort(runs.begin(), runs.end(), [](const Window& a, const Window& b) { return a.begin < b.begin; });
            perCore[c].windows = windowsFromRuns(runs);
        }
    } else if (!profile.stepMarkers.empty()) {
        // The marker name used most often; one marker per step number (several threads may
        // annotate the same step).
        std::unordered_map<StringId, size_t> uses;
        for (const StepMarker& m : profile.stepMarkers)
            ++uses[m.name];
        StringId name = profile.stepMarkers.front().name;
        for (const auto& [n, count] : uses)
            if (count > uses[name] || (count == uses[name] && profile.str(n) < profile.str(name)))
                name = n;
        std::vector<Window> runs;
        std::unordered_map<int64_t, bool> seen;
        for (const StepMarker& m : profile.stepMarkers)
            if (m.name == name && (m.stepNumber < 0 || !seen[m.stepNumber])) {
                seen[m.stepNumber] = true;
                runs.push_back({m.start, m.start + m.duration, m.stepNumber});
            }
        out.source = StepSource::HostMarkers;
        out.sourceLine = profile.str(name);
        for (CoreSteps& core : perCore)
            core.windows = windowsFromRuns(runs);
    } else {
        out.note = "no Steps line, no program runs on an XLA Modules line and no host step markers: numbers are per "
                   "profile, not per step";
    }

    // Busy time by class: the union of the top-level ops of each core (an overlap counts once).
    bool anyTimedOps = false, anyAggregatedOps = false;
    for (PlaneId plane : cores)
        for (TrackId id : profile.planes[plane].tracks) {
            const Track& track = profile.tracks[id];
            if (track.kind == TrackKind::XlaOps) {
                anyTimedOps |= track.size() > 0;
                anyAggregatedOps |= !track.aggregated.empty();
            }
        }
    // Without op start times (a share file keeps op totals only) busy time is program run time.
    out.opTimesKnown = anyTimedOps || !anyAggregatedOps;
    const TrackKind busyKind = out.opTimesKnown ? TrackKind::XlaOps : TrackKind::XlaModules;
    if (!out.opTimesKnown)
        out.note = "op start times are not in this file: a step's busy time is its program run time, all "
                   "counted as compute";
    // Each core is swept on its own, side by side on the shared pool (each writes only its own
    // CoreSteps): on one thread this sweep was the longest pass of the analysis. The hosts
    // analysis's collectives per step are gathered in the same pass when asked for.
    const bool gather = collectives && busyKind == TrackKind::XlaOps && options.core < 0 && options.program.empty();
    std::vector<uint8_t> collective;
    if (gather) {
        collectives->assign(cores.size(), {});
        collective = collectiveWaitsByOp(model);
    }
    std::vector<uint8_t> opBits(profile.ops.size(), static_cast<uint8_t>(TimeClass::Compute));
    for (size_t op = 0; op < opBits.size() && op < model.size(); ++op)
        opBits[op] = static_cast<uint8_t>(timeClassOf(model[op]))
            | (op < collective.size() && collective[op] ? kWaitsInCollective : 0);
    // Program runs as the busy time are all compute.
    const uint8_t classMask = busyKind == TrackKind::XlaOps ? kTimeClassBits : 0;
    std::atomic_bool stopped {false};
    std::vector<size_t> coreEvents(cores.size(), 0);
    for (size_t c = 0; c < cores.size(); ++c)
        for (TrackId id : profile.planes[cores[c]].tracks)
            if (profile.tracks[id].kind == busyKind)
                coreEvents[c] += profile.tracks[id].size();
    parallelFor(
        coreEvents, std::max(1u, std::thread::hardware_concurrency()),
        [&](size_t c) {
            StopCheck stopCheck(options.stop);
            Sweep sweep(perCore[c], profile.spanBegin, profile.spanEnd);
            CollectiveGatherer<Window> gatherer(perCore[c].windows.data(), perCore[c].windows.size(),
                gather ? &(*collectives)[c] : nullptr, collective);
            for (TrackId id : profile.planes[cores[c]].tracks) {
                const Track& track = profile.tracks[id];
                if (track.kind != busyKind)
                    continue;
                const bool swept = gather
                    ? TrackSweep<true>(sweep, gatherer, opBits.data(), classMask).run(track, stopCheck)
                    : TrackSweep<false>(sweep, gatherer, opBits.data(), classMask).run(track, stopCheck);
                if (!swept) {
                    stopped = true;
                    return;
                }
            }
            sweep.finish();
        },
        [] {});
    if (stopped)
        return out; // superseded: partial, discarded by the caller
    double busy = 0;
    for (const CoreSteps& core : perCore)
        busy += core.busyPs;
    out.busyFraction = capacity > 0 ? std::min(1.0, busy / capacity) : 0;

    // A file without an op timeline may record where its original's step time went: the same
    // windows with their split, the warm-up, the tail and the busy fraction.
    if (const RecordedTimeline* recorded = profile.recorded.get(); recorded && options.program.empty()) {
        bool matches = !recorded->coreSteps.empty();
        for (size_t c = 0; c < cores.size() && matches; ++c)
            matches = ordinals[c] < recorded->coreSteps.size()
                && recorded->coreSteps[ordinals[c]].size() == perCore[c].windows.size();
        if (matches) {
            for (size_t c = 0; c < cores.size(); ++c) {
                const auto& steps = recorded->coreSteps[ordinals[c]];
                for (size_t i = 0; i < steps.size(); ++i)
                    perCore[c].steps[i] = steps[i].time;
                if (ordinals[c] < recorded->warmup.size())
                    perCore[c].warmup = recorded->warmup[ordinals[c]];
                if (ordinals[c] < recorded->tail.size())
                    perCore[c].tail = recorded->tail[ordinals[c]];
            }
            if (recorded->busyFraction >= 0 && options.core < 0)
                out.busyFraction = recorded->busyFraction;
            out.opTimesKnown = true;
            out.note = "where step time goes is the original profile's, as its share file records it";
        }
    }

    // Averages over the cores.
    const double coreCount = static_cast<double>(cores.size());
    size_t maxSteps = 0, windows = 0;
    double stepSum = 0;
    out.minStepPs = std::numeric_limits<double>::infinity();
    for (const CoreSteps& core : perCore) {
        maxSteps = std::max(maxSteps, core.windows.size());
        windows += core.windows.size();
        const TimePs firstBegin = core.windows.empty() ? profile.spanEnd : core.windows.front().begin;
        const TimePs lastEnd = core.windows.empty() ? profile.spanEnd : core.windows.back().end;
        out.warmupPs += static_cast<double>(firstBegin - profile.spanBegin) / coreCount;
        out.tailPs += static_cast<double>(profile.spanEnd - lastEnd) / coreCount;
        out.warmup += core.warmup.scaled(1.0 / coreCount);
        out.tail += core.tail.scaled(1.0 / coreCount);
        for (size_t i = 0; i < core.windows.size(); ++i) {
            const double d = static_cast<double>(core.windows[i].end - core.windows[i].begin);
            stepSum += d;
            out.minStepPs = std::min(out.minStepPs, d);
            out.maxStepPs = std::max(out.maxStepPs, d);
            out.steadyPs += d / coreCount;
            out.steady += core.steps[i].scaled(1.0 / coreCount);
        }
    }
    if (windows == 0) {
        out.minStepPs = 0;
        out.warmupPs = out.tailPs = 0;
        out.warmup = out.tail = {};
        return out;
    }
    out.stepsPerCore = std::llround(static_cast<double>(windows) / coreCount);
    out.coreSteps.resize(perCore.size());
    for (size_t c = 0; c < perCore.size(); ++c)
        for (size_t i = 0; i < perCore[c].windows.size(); ++i)
            out.coreSteps[c].push_back({perCore[c].windows[i].begin, perCore[c].windows[i].end, perCore[c].steps[i]});
    out.avgStepPs = stepSum / static_cast<double>(windows);
    out.steps.resize(maxSteps);
    for (size_t i = 0; i < maxSteps; ++i) {
        StepRow& row = out.steps[i];
        row.index = static_cast<int64_t>(i);
        for (const CoreSteps& core : perCore) {
            if (i >= core.windows.size())
                continue;
            const Window& w = core.windows[i];
            if (row.cores == 0) {
                row.startPs = w.begin;
                row.endPs = w.end;
                row.stepNumber = w.number;
            }
            row.startPs = std::min(row.startPs, w.begin);
            row.endPs = std::max(row.endPs, w.end);
            row.durationPs += static_cast<double>(w.end - w.begin);
            row.time += core.steps[i];
            ++row.cores;
        }
        row.durationPs /= row.cores;
        row.time = row.time.scaled(1.0 / row.cores);
    }
    return out;
}

std::pair<TimePs, TimePs> deviceActivityRange(const Profile& profile)
{
    TimePs begin = std::numeric_limits<TimePs>::max(), end = std::numeric_limits<TimePs>::min();
    for (PlaneId plane : profile.tpuCorePlanes())
        for (TrackId id : profile.planes[plane].tracks) {
            const Track& track = profile.tracks[id];
            if (track.size() == 0
                || (track.kind != TrackKind::XlaOps && track.kind != TrackKind::XlaModules
                    && track.kind != TrackKind::Steps))
                continue;
            begin = std::min(begin, track.start.front()); // tracks are sorted by start
            end = std::max(end, track.lastEnd);
        }
    if (begin > end)
        return {0, 0};
    return {begin, end};
}

} // namespace tpuscope::model
