// SPDX-License-Identifier: GPL-3.0-or-later
#include "hosts.h"

#include "../core/devicepeaks.h"
#include "../core/naturalorder.h"
#include "../core/parallel.h"
#include "../core/stopcheck.h"
#include "opmodel.h"
#include "steps.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <thread>

namespace tpuscope::model {

namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

using Instance = StepCollective;
using CoreStepEvents = CoreStepCollectives;

double median(std::vector<double> values)
{
    if (values.empty())
        return kUnknown;
    const size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
    const double upper = values[mid];
    if (values.size() % 2)
        return upper;
    return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

std::string hostName(const Profile& profile, uint32_t host, size_t hostCount)
{
    if (host < profile.hosts.size() && !profile.hosts[host].empty())
        return profile.hosts[host];
    // A single file without XSpace hostnames: its file name stands for the host.
    if (hostCount == 1 && !profile.load.path.empty()) {
        std::string name = std::filesystem::path(profile.load.path).filename().string();
        for (const char* suffix : {".xplane.pb", ".trace.json.gz", ".trace.json", ".op_profile.json"})
            if (name.size() > std::string_view(suffix).size() && name.ends_with(suffix))
                return name.substr(0, name.size() - std::string_view(suffix).size());
        return name;
    }
    return "host " + std::to_string(host);
}

} // namespace

std::optional<int> chipsOfDevices(const Profile& profile, int cores)
{
    const TpuGeneration* g = findTpuGeneration(profile.device.generation);
    if (!g)
        return std::nullopt;
    const std::string key = g->key;
    if (key == "v2" || key == "v3") // one device per TensorCore, two per chip
        return (cores + 1) / 2;
    if (key == "v5e" || key == "v6e" || key == "v4" || key == "v5p") // one device per chip
        return cores;
    return std::nullopt;
}

namespace {

/// Sorts each step's collectives by start and numbers each among its op's instances in the step.
void numberOccurrences(std::vector<CoreStepEvents>& events, size_t opCount)
{
    std::vector<int> seen(opCount); // per op: its instances so far in the step
    const auto byStart = [](const Instance& a, const Instance& b) { return a.start < b.start; };
    for (CoreStepEvents& step : events) {
        // Gathered from one XLA Ops line they are in order already, and the sort's buffer was
        // most of this pass; several lines (async ops on their own) interleave.
        if (!std::is_sorted(step.collectives.begin(), step.collectives.end(), byStart))
            std::stable_sort(step.collectives.begin(), step.collectives.end(), byStart);
        for (Instance& in : step.collectives)
            in.occurrence = seen[in.op]++;
        for (const Instance& in : step.collectives)
            seen[in.op] = 0;
    }
}

/// What measureStepWaits reuses from one step to the next: per op, indexed by op id.
struct StepWaitScratch
{
    explicit StepWaitScratch(size_t ops)
        : occurrences(ops, 0)
        , firstSlot(ops, 0)
    {
    }
    std::vector<uint32_t> occurrences; // the op's instances in the step on the core with most (0 = none)
    std::vector<uint32_t> firstSlot; // the slot of the op's occurrence 0
    std::vector<OpId> touched; // the ops with occurrences > 0
    std::vector<TimePs> shortest; // per slot (op, occurrence): the shortest duration over the cores
    std::vector<uint32_t> cores; // per slot: the cores that ran it
};

/// Step s's wait in every collective instance (op, occurrence) but the synchronizing one, per
/// core: its duration beyond the shortest over the cores that ran it, added to each core's
/// otherWaitPs in the core's order. True when an instance ran on two or more cores. Instances
/// meet in one slot per (op, occurrence), laid out from each op's most occurrences: a step can
/// hold thousands, and sorting them by key (before that an ordered map, then a hash map) was
/// most of this pass.
bool measureStepWaits(const std::vector<std::vector<CoreStepEvents>>& events,
    const std::vector<std::vector<const Instance*>>& syncInstance, size_t s,
    std::vector<std::vector<CoreSyncStep>>& coreSync, StepWaitScratch& scratch)
{
    auto forEachMeasured = [&](auto&& visit) {
        for (size_t c = 0; c < events.size(); ++c)
            for (const Instance& in : events[c][s].collectives)
                if (&in != syncInstance[c][s])
                    visit(c, in);
    };
    scratch.touched.clear();
    forEachMeasured([&](size_t, const Instance& in) {
        uint32_t& n = scratch.occurrences[in.op];
        if (n == 0)
            scratch.touched.push_back(in.op);
        n = std::max(n, static_cast<uint32_t>(in.occurrence) + 1);
    });
    uint32_t slots = 0;
    for (const OpId op : scratch.touched) {
        scratch.firstSlot[op] = slots;
        slots += scratch.occurrences[op];
    }
    scratch.shortest.assign(slots, std::numeric_limits<TimePs>::max());
    scratch.cores.assign(slots, 0);
    forEachMeasured([&](size_t, const Instance& in) {
        const uint32_t slot = scratch.firstSlot[in.op] + static_cast<uint32_t>(in.occurrence);
        scratch.shortest[slot] = std::min(scratch.shortest[slot], in.duration);
        ++scratch.cores[slot];
    });
    bool measured = false;
    forEachMeasured([&](size_t c, const Instance& in) {
        const uint32_t slot = scratch.firstSlot[in.op] + static_cast<uint32_t>(in.occurrence);
        if (scratch.cores[slot] < 2)
            return; // ran on one core: nothing to compare with
        measured = true;
        coreSync[c][s].otherWaitPs += static_cast<double>(in.duration - scratch.shortest[slot]);
    });
    for (const OpId op : scratch.touched)
        scratch.occurrences[op] = 0;
    return measured;
}

/// Measures each core's timing at the step's synchronizing collective on its XLA Ops lines (the
/// first S steps) into out.coreSync, and names the collective. False when stopped.
bool measureCoreSync(const Profile& profile, const OpModel& model, const StepAnalysis& steps,
    const std::vector<PlaneId>& corePlanes, size_t S, HostAnalysis& out, std::stop_token stop,
    StepCollectives* gathered)
{
    // Each core's collectives per step: gathered by the steps sweep when it was asked to, else
    // read here in a pass of their own.
    const bool haveGathered = gathered && gathered->size() == corePlanes.size()
        && std::all_of(gathered->begin(), gathered->end(), [S](const auto& core) { return core.size() >= S; });
    std::vector<std::vector<CoreStepEvents>> events(corePlanes.size());
    // One byte per op rather than the traits (this pass was a tenth of `summary` on a one-host
    // 1e6-event profile when it read them).
    const std::vector<uint8_t> collective = collectiveWaitsByOp(model);
    // Cores, then steps, are independent: they run side by side on the shared pool, each writing
    // only its own (one after the other they were a fifth of `summary` on the 1e7 bench file).
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::atomic_bool stopped {false};
    parallelFor(
        std::vector<size_t>(S > 0 ? corePlanes.size() : 0, 1), threads,
        [&](size_t c) {
            if (haveGathered) {
                events[c] = std::move((*gathered)[c]);
                events[c].resize(S);
            } else {
                events[c].resize(S);
                if (!gatherStepCollectives(profile, corePlanes[c], steps.coreSteps[c], collective, events[c], stop)) {
                    stopped = true;
                    return;
                }
            }
            numberOccurrences(events[c], collective.size());
        },
        [] {});
    if (stopped)
        return false;

    // The step's synchronizing collective: the op most cores end the step's collectives with.
    std::map<OpId, int64_t> lastCollective;
    for (size_t c = 0; c < corePlanes.size(); ++c)
        for (size_t s = 0; s < S; ++s)
            if (!events[c][s].collectives.empty())
                ++lastCollective[events[c][s].collectives.back().op];
    OpId sync = kNone;
    int64_t syncVotes = 0;
    for (const auto& [op, votes] : lastCollective)
        if (votes > syncVotes)
            sync = op, syncVotes = votes;
    if (sync != kNone)
        out.syncCollective = profile.str(profile.ops[sync].name);

    // Per core and step: the last occurrence of the synchronizing collective, the last op's end,
    // and the wait in every other collective instance (op, occurrence): its duration beyond the
    // shortest over the cores that ran it.
    out.coreSync.assign(corePlanes.size(), std::vector<CoreSyncStep>(S));
    std::vector<std::vector<const Instance*>> syncInstance(corePlanes.size(), std::vector<const Instance*>(S, nullptr));
    for (size_t c = 0; c < corePlanes.size(); ++c)
        for (size_t s = 0; s < S; ++s) {
            const CoreStepEvents& e = events[c][s];
            CoreSyncStep& cs = out.coreSync[c][s];
            cs.lastOpEndPs = e.lastOpEnd;
            for (auto it = e.collectives.rbegin(); it != e.collectives.rend(); ++it)
                if (it->op == sync) {
                    syncInstance[c][s] = &*it;
                    cs.syncStartPs = it->start;
                    cs.syncEndPs = it->start + it->duration;
                    break;
                }
        }
    // Steps go to the pool a few at a time, each run with its own scratch.
    const size_t stepsPerItem = std::max<size_t>(1, S / (8 * size_t(threads)));
    const size_t items = (S + stepsPerItem - 1) / stepsPerItem;
    std::vector<uint8_t> otherWaitMeasured(items, 0); // per item: no two items write one flag
    parallelFor(
        std::vector<size_t>(items, 1), threads,
        [&](size_t item) {
            StepWaitScratch scratch(collective.size());
            for (size_t s = item * stepsPerItem; s < std::min(S, (item + 1) * stepsPerItem); ++s)
                if (measureStepWaits(events, syncInstance, s, out.coreSync, scratch))
                    otherWaitMeasured[item] = 1;
        },
        [] {});
    out.otherWaitMeasured = out.otherWaitMeasured
        || std::find(otherWaitMeasured.begin(), otherWaitMeasured.end(), 1) != otherWaitMeasured.end();
    return true;
}

} // namespace

const HostRow* HostAnalysis::row(uint32_t host) const
{
    for (const HostRow& r : hosts)
        if (r.host == host)
            return &r;
    return nullptr;
}

HostAnalysis analyzeHosts(const Profile& profile, const OpModel& model, const StepAnalysis& steps, std::stop_token stop,
    StepCollectives* gathered)
{
    HostAnalysis out;
    const std::vector<PlaneId> corePlanes = profile.tpuCorePlanes();
    if (corePlanes.empty()) {
        out.note = "the profile has no TPU cores";
        return out;
    }
    // Host rows in profile order, each with its cores (ordinals among all TPU cores, the index of
    // StepAnalysis::coreSteps).
    std::map<uint32_t, std::vector<size_t>> coresOfHost;
    for (size_t c = 0; c < corePlanes.size(); ++c)
        coresOfHost[profile.planes[corePlanes[c]].host].push_back(c);
    // Rows in natural order of their names (w-2 before w-10), whatever order the hosts were loaded or
    // merged in, so the table, the heat map and the reference host are the same on every path.
    std::vector<std::pair<HostRow, std::vector<size_t>>> rows;
    for (const auto& [host, cores] : coresOfHost) {
        HostRow row;
        row.host = host;
        row.name = hostName(profile, host, coresOfHost.size());
        row.cores = static_cast<int>(cores.size());
        row.chips = chipsOfDevices(profile, row.cores);
        rows.emplace_back(std::move(row), cores);
    }
    std::stable_sort(
        rows.begin(), rows.end(), [](const auto& a, const auto& b) { return naturalLess(a.first.name, b.first.name); });
    std::vector<std::vector<size_t>> rowCores;
    for (auto& [row, cores] : rows) {
        out.hosts.push_back(std::move(row));
        rowCores.push_back(std::move(cores));
    }
    const size_t hostCount = out.hosts.size();
    out.avgStepPs = steps.avgStepPs;
    if (steps.core >= 0 || steps.coreSteps.size() != corePlanes.size()) {
        out.note = "no steps on the TPU cores: " + (steps.note.empty() ? std::string("none found") : steps.note);
        return out;
    }

    // Per host: its step time and where it went, from the steps' own split.
    size_t podSteps = std::numeric_limits<size_t>::max();
    for (size_t h = 0; h < hostCount; ++h) {
        HostRow& row = out.hosts[h];
        size_t hostSteps = std::numeric_limits<size_t>::max();
        double windows = 0, slowest = 0;
        for (size_t c : rowCores[h]) {
            const auto& cs = steps.coreSteps[c];
            hostSteps = std::min(hostSteps, cs.size());
            double coreCompute = 0;
            for (const CoreStep& s : cs) {
                row.avgStepPs += static_cast<double>(s.end - s.begin);
                row.computePs += s.time.computePs;
                row.collectivePs += s.time.collectivePs;
                row.idlePs += s.time.idlePs;
                row.hostTransferPs += s.time.hostTransferPs + s.time.infeedPs;
                coreCompute += s.time.computePs;
            }
            windows += static_cast<double>(cs.size());
            if (!cs.empty() && coreCompute / static_cast<double>(cs.size()) > slowest) {
                slowest = coreCompute / static_cast<double>(cs.size());
                row.slowestCore = profile.str(profile.planes[corePlanes[c]].name);
            }
        }
        row.steps = static_cast<int64_t>(hostSteps);
        row.slowestCoreComputePs = slowest;
        if (windows > 0)
            for (double* v : {&row.avgStepPs, &row.computePs, &row.collectivePs, &row.idlePs, &row.hostTransferPs})
                *v /= windows;
        podSteps = std::min(podSteps, hostSteps);
    }
    out.steps = static_cast<int64_t>(podSteps);
    const size_t S = podSteps;
    bool stepCountsDiffer = false;
    for (const HostRow& row : out.hosts)
        stepCountsDiffer = stepCountsDiffer || static_cast<size_t>(row.steps) != S;

    // Each core's timing at the synchronizing collective per step: recorded by a file without a
    // timeline, else measured on the XLA Ops lines.
    const RecordedTimeline* recorded = profile.recorded.get();
    if (recorded && recorded->hasCoreSync()) {
        out.syncCollective = recorded->syncCollective;
        out.otherWaitMeasured = recorded->otherWaitMeasured;
        out.coreSync.assign(corePlanes.size(), std::vector<CoreSyncStep>(S));
        for (size_t c = 0; c < corePlanes.size() && c < recorded->coreSync.size(); ++c)
            std::copy_n(
                recorded->coreSync[c].begin(), std::min(S, recorded->coreSync[c].size()), out.coreSync[c].begin());
    } else if (!measureCoreSync(profile, model, steps, corePlanes, S, out, stop, gathered))
        return out;
    const bool haveSync = !out.syncCollective.empty();

    // Collective wait: the synchronizing collective's, per step each core's duration beyond the
    // shortest over the cores that ran it, plus the other collectives' wait measured alike.
    std::vector<double> waitOfCore(corePlanes.size(), 0);
    bool anyShared = out.otherWaitMeasured;
    for (size_t s = 0; s < S; ++s) {
        TimePs shortest = std::numeric_limits<TimePs>::max();
        int participants = 0;
        for (size_t c = 0; c < corePlanes.size(); ++c) {
            const CoreSyncStep& e = out.coreSync[c][s];
            waitOfCore[c] += e.otherWaitPs;
            if (e.syncStartPs >= 0) {
                shortest = std::min(shortest, e.syncEndPs - e.syncStartPs);
                ++participants;
            }
        }
        if (participants < 2)
            continue;
        anyShared = true;
        for (size_t c = 0; c < corePlanes.size(); ++c)
            if (const CoreSyncStep& e = out.coreSync[c][s]; e.syncStartPs >= 0)
                waitOfCore[c] += static_cast<double>(e.syncEndPs - e.syncStartPs - shortest);
    }
    if (anyShared || corePlanes.size() == 1)
        for (size_t h = 0; h < hostCount; ++h) {
            double wait = 0, windows = 0;
            for (size_t c : rowCores[h]) {
                wait += waitOfCore[c];
                windows += static_cast<double>(std::min(S, steps.coreSteps[c].size()));
            }
            out.hosts[h].collectiveWaitPs = windows > 0 ? wait / windows : 0.0;
        }

    // Per host and step: its arrival (latest start over its cores) and departure (median end) at
    // the synchronizing collective (its last occurrence in the step), and the median end of the
    // step's last op.
    auto grid = [&] { return std::vector<std::vector<double>>(hostCount, std::vector<double>(S, kUnknown)); };
    std::vector<std::vector<double>> arrival = grid(), departure = grid(), lastEnd = grid();
    for (size_t h = 0; h < hostCount; ++h)
        for (size_t s = 0; s < S; ++s) {
            std::vector<double> ends, opEnds;
            double latest = kUnknown;
            for (size_t c : rowCores[h]) {
                const CoreSyncStep& e = out.coreSync[c][s];
                if (e.lastOpEndPs >= 0)
                    opEnds.push_back(static_cast<double>(e.lastOpEndPs));
                if (e.syncStartPs >= 0) {
                    const double start = static_cast<double>(e.syncStartPs);
                    latest = std::isnan(latest) ? start : std::max(latest, start);
                    ends.push_back(static_cast<double>(e.syncEndPs));
                }
            }
            arrival[h][s] = latest;
            departure[h][s] = median(ends);
            lastEnd[h][s] = median(opEnds);
        }

    // Clock offsets against the first host, the median over the steps both have.
    auto offsetFrom = [&](const std::vector<std::vector<double>>& ends, size_t h) {
        std::vector<double> d;
        for (size_t s = 0; s < S; ++s)
            if (!std::isnan(ends[h][s]) && !std::isnan(ends[0][s]))
                d.push_back(ends[h][s] - ends[0][s]);
        return median(d);
    };
    std::vector<double> offset(hostCount, kUnknown);
    for (size_t h = 0; h < hostCount; ++h) {
        HostRow& row = out.hosts[h];
        if (h == 0) {
            offset[h] = 0;
            row.offsetSource = "reference host";
        } else if (const double o = offsetFrom(departure, h); !std::isnan(o)) {
            offset[h] = o;
            row.offsetSource = "synchronizing collective ends";
        } else if (const double l = offsetFrom(lastEnd, h); !std::isnan(l)) {
            offset[h] = l;
            row.offsetSource = "step's last op ends";
        } else
            row.offsetSource = "none";
        if (!std::isnan(offset[h]))
            row.clockOffsetPs = static_cast<TimePs>(std::llround(offset[h]));
    }

    // Lateness on aligned clocks. A host without a known offset is compared on the loader's
    // merge (its file origin), which the note says.
    bool unaligned = false;
    out.stepPs = grid();
    out.latenessPs = grid();
    out.stepStartPs.assign(hostCount, std::vector<TimePs>(S, 0));
    out.lateHostsByStep.assign(S, {});
    const double margin = kLateMarginShareOfStep * steps.avgStepPs;
    std::vector<int64_t> late(hostCount, 0);
    std::vector<double> lateSum(hostCount, 0), lateCount(hostCount, 0);
    bool anyArrivals = false;
    for (size_t s = 0; s < S; ++s) {
        std::vector<double> aligned(hostCount, kUnknown);
        double earliest = kUnknown, latest = kUnknown;
        for (size_t h = 0; h < hostCount; ++h) {
            double stepSum = 0;
            TimePs start = std::numeric_limits<TimePs>::max();
            for (size_t c : rowCores[h]) {
                const CoreStep& cs = steps.coreSteps[c][s];
                stepSum += static_cast<double>(cs.end - cs.begin);
                start = std::min(start, cs.begin);
            }
            out.stepPs[h][s] = stepSum / static_cast<double>(rowCores[h].size());
            out.stepStartPs[h][s] = start;
            if (std::isnan(arrival[h][s]))
                continue;
            unaligned = unaligned || std::isnan(offset[h]);
            aligned[h] = arrival[h][s] - (std::isnan(offset[h]) ? 0 : offset[h]);
            earliest = std::isnan(earliest) ? aligned[h] : std::min(earliest, aligned[h]);
            latest = std::isnan(latest) ? aligned[h] : std::max(latest, aligned[h]);
        }
        for (size_t h = 0; h < hostCount; ++h) {
            if (std::isnan(aligned[h]))
                continue;
            anyArrivals = true;
            out.latenessPs[h][s] = aligned[h] - earliest;
            std::vector<double> others;
            for (size_t o = 0; o < hostCount; ++o)
                if (o != h && !std::isnan(aligned[o]))
                    others.push_back(aligned[o]);
            if (others.empty())
                continue;
            const double behind = aligned[h] - median(others);
            lateSum[h] += behind;
            ++lateCount[h];
            if (behind >= margin && aligned[h] >= latest - margin) {
                ++late[h];
                out.lateHostsByStep[s].push_back(static_cast<int>(h));
            }
        }
    }
    if (anyArrivals)
        for (size_t h = 0; h < hostCount; ++h) {
            out.hosts[h].lateSteps = late[h];
            if (lateCount[h] > 0)
                out.hosts[h].lateVsOthersPs = lateSum[h] / lateCount[h];
        }

    std::vector<std::string> notes;
    if (hostCount > 1 && stepCountsDiffer)
        notes.push_back("the hosts captured different numbers of steps: steps are matched by index, the first "
            + std::to_string(S) + " of each");
    if (!haveSync)
        notes.push_back("no step has a collective: lateness and collective wait are unknown");
    if (unaligned)
        notes.push_back("some hosts' clock offsets are unknown: their arrivals are compared on the files' origins");
    if (haveSync && recorded && recorded->hasCoreSync() && recorded->otherWaitScope == "host" && out.otherWaitMeasured
        && hostCount > 1)
        notes.push_back("merged from per-host share files: the wait in collectives other than the synchronizing one "
                        "is measured within each host (a lower bound)");
    if (haveSync && hostCount > 1) {
        const int groups = devicesFromReplicaGroups(profile);
        if (groups > 0 && groups < static_cast<int>(corePlanes.size()))
            notes.push_back("some collectives run over subgroups of " + std::to_string(groups)
                + " devices: a wait counted against every core that ran the instance can be over-stated");
    }
    for (size_t i = 0; i < notes.size(); ++i)
        out.note += (i ? "; " : "") + notes[i];
    return out;
}

} // namespace tpuscope::model
