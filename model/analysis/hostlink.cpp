// SPDX-License-Identifier: GPL-3.0-or-later
#include "hostlink.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace tpuscope::model {

double unionLength(std::vector<std::pair<TimePs, TimePs>>& intervals)
{
    std::sort(intervals.begin(), intervals.end());
    double total = 0;
    TimePs begin = 0, end = 0;
    bool open = false;
    for (const auto& [b, e] : intervals) {
        if (!open || b > end) {
            if (open)
                total += static_cast<double>(end - begin);
            begin = b;
            end = e;
            open = true;
        } else {
            end = std::max(end, e);
        }
    }
    if (open)
        total += static_cast<double>(end - begin);
    return total;
}

namespace {

using Intervals = std::vector<std::pair<TimePs, TimePs>>;

struct Transfer
{
    size_t done = 0; // index of the done event on the ops track
    TimePs begin = 0; // the start half's start
    TimePs end = 0; // the done half's end
    TransferDirection direction = TransferDirection::None;
    double bytes = 0;
};

/// The bytes one transfer moves: the array its HLO names, else the larger cost record of its halves.
double transferBytes(const Profile& profile, const OpModel& model, OpId done)
{
    const OpTraits& t = model[done];
    if (t.transferBytes > 0)
        return t.transferBytes;
    auto recorded = [&](OpId op) {
        const OpInfo& info = profile.ops[op];
        return info.hbmBytes >= 0 ? info.hbmBytes : info.bytesAccessed;
    };
    return std::max(recorded(done), t.partner != kNone ? recorded(t.partner) : 0.0);
}

/// The length of `waits` outside `busy`: |waits ∪ busy| − |busy| (copies, so both stay as they are).
double outsideLength(const Intervals& waits, const Intervals& busy)
{
    Intervals all = waits;
    all.insert(all.end(), busy.begin(), busy.end());
    Intervals busyCopy = busy;
    return std::max(0.0, unionLength(all) - unionLength(busyCopy));
}

/// Link-busy time of both directions together and of both at once, from the two directions' own.
void addBusy(Intervals& toDevice, Intervals& toHost, double& device, double& host, double& either, double& both)
{
    Intervals all = toDevice;
    all.insert(all.end(), toHost.begin(), toHost.end());
    const double d = unionLength(toDevice), h = unionLength(toHost), e = unionLength(all);
    device += d;
    host += h;
    either += e;
    both += std::max(0.0, d + h - e);
}

} // namespace

HostLinkStats computeHostLink(const Profile& profile, const OpModel& model)
{
    if (profile.recorded)
        return profile.recorded->hasHostLink ? profile.recorded->hostLink : HostLinkStats {};
    HostLinkStats stats;
    const std::vector<PlaneId> cores = profile.tpuCorePlanes();
    // Most programs move nothing over the host link: their ops tracks need no pass to pair halves.
    if (std::none_of(model.ops.begin(), model.ops.end(), [](const OpTraits& t) { return t.isHostTransfer(); }))
        return stats;

    // The dominant program: the module with the most run time on the XLA Modules lines.
    std::map<OpId, double> moduleTime;
    for (PlaneId plane : cores)
        for (TrackId id : profile.planes[plane].tracks) {
            const Track& track = profile.tracks[id];
            if (track.kind == TrackKind::XlaModules)
                for (size_t i = 0; i < track.size(); ++i)
                    if (track.depth[i] == 0)
                        moduleTime[track.op[i]] += static_cast<double>(track.duration[i]);
        }
    OpId dominant = kNone;
    double dominantTime = -1;
    for (const auto& [op, time] : moduleTime)
        if (time > dominantTime) {
            dominant = op;
            dominantTime = time;
        }

    double runTime = 0, computeTime = 0, waitTime = 0, runBytes[3] = {0, 0, 0};
    double runBusyDevice = 0, runBusyHost = 0, runEither = 0, runBoth = 0, idleDevice = 0, idleHost = 0;
    std::unordered_map<OpId, double> waitByOp;
    for (PlaneId plane : cores) {
        const Track* modules = nullptr;
        const Track* ops = nullptr;
        for (TrackId id : profile.planes[plane].tracks) {
            const Track& track = profile.tracks[id];
            if (track.kind == TrackKind::XlaModules && !modules)
                modules = &track;
            if (track.kind == TrackKind::XlaOps && !ops)
                ops = &track;
        }
        if (!ops)
            continue;
        std::vector<Transfer> transfers;
        forEachAsyncPair(*ops, model, [&](size_t done, size_t start) {
            const OpTraits& t = model[ops->op[done]];
            if (!t.isHostTransfer())
                return;
            transfers.push_back(
                {done, ops->start[start], ops->end(done), t.direction, transferBytes(profile, model, ops->op[done])});
        });
        if (transfers.empty())
            continue;
        Intervals toDevice, toHost;
        for (const Transfer& x : transfers) {
            HostLinkDirection& d = x.direction == TransferDirection::ToHost ? stats.toHost : stats.toDevice;
            d.transfers += 1;
            d.bytes += x.bytes;
            (x.direction == TransferDirection::ToHost ? toHost : toDevice).emplace_back(x.begin, x.end);
        }
        addBusy(toDevice, toHost, stats.toDevice.busyPs, stats.toHost.busyPs, stats.eitherBusyPs, stats.bothBusyPs);

        // The runs of the dominant program: a transfer belongs to the run its done half starts in,
        // and the run's compute is its other top-level ops.
        if (!modules || dominant == kNone)
            continue;
        std::sort(
            transfers.begin(), transfers.end(), [&](const Transfer& a, const Transfer& b) { return a.done < b.done; });
        Intervals runDevice, runHost, runWaits;
        size_t next = 0, op = 0;
        for (size_t m = 0; m < modules->size(); ++m) {
            if (modules->depth[m] != 0 || modules->op[m] != dominant)
                continue;
            const TimePs begin = modules->start[m], end = modules->end(m);
            stats.runs += 1;
            runTime += static_cast<double>(end - begin);
            for (; op < ops->size() && ops->start[op] < end; ++op)
                if (ops->start[op] >= begin && ops->depth[op] == 0 && !model[ops->op[op]].isHostTransfer())
                    computeTime += static_cast<double>(ops->duration[op]);
            while (next < transfers.size() && ops->start[transfers[next].done] < begin)
                ++next;
            for (; next < transfers.size() && ops->start[transfers[next].done] < end; ++next) {
                const Transfer& x = transfers[next];
                const double wait = static_cast<double>(ops->duration[x.done]);
                waitTime += wait;
                waitByOp[ops->op[x.done]] += wait;
                runBytes[static_cast<size_t>(x.direction)] += x.bytes;
                runWaits.emplace_back(ops->start[x.done], ops->end(x.done));
                (x.direction == TransferDirection::ToHost ? runHost : runDevice).emplace_back(x.begin, x.end);
            }
        }
        idleDevice += outsideLength(runWaits, runDevice);
        idleHost += outsideLength(runWaits, runHost);
        addBusy(runDevice, runHost, runBusyDevice, runBusyHost, runEither, runBoth);
    }
    if (stats.runs > 0) {
        stats.program = profile.str(profile.ops[dominant].name);
        const double runs = stats.runs;
        stats.runPs = runTime / runs;
        stats.computePsPerRun = computeTime / runs;
        stats.waitPsPerRun = waitTime / runs;
        stats.toDeviceBytesPerRun = runBytes[static_cast<size_t>(TransferDirection::ToDevice)] / runs;
        stats.toHostBytesPerRun = runBytes[static_cast<size_t>(TransferDirection::ToHost)] / runs;
        stats.toDeviceBusyPsPerRun = runBusyDevice / runs;
        stats.toHostBusyPsPerRun = runBusyHost / runs;
        stats.eitherBusyPsPerRun = runEither / runs;
        stats.bothBusyPsPerRun = runBoth / runs;
        stats.toDeviceIdleWhileWaitingPsPerRun = idleDevice / runs;
        stats.toHostIdleWhileWaitingPsPerRun = idleHost / runs;
    }
    std::vector<std::pair<double, OpId>> waits;
    for (const auto& [op, wait] : waitByOp)
        waits.emplace_back(wait, op);
    std::sort(waits.begin(), waits.end(),
        [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    for (const auto& [wait, op] : waits)
        stats.waitOps.push_back(op);
    return stats;
}

} // namespace tpuscope::model
