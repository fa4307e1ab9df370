// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Hosts: one row per host of a multi-host (pod) profile, and which host holds the step back.
//
// Every host runs the same program; a step ends at its synchronizing collective (the last
// collective of the step, e.g. the gradient all-reduce), which no chip can leave before the last
// participant has arrived. So:
// - a chip's **collective wait** in one collective instance is its duration beyond the shortest
//   duration of that instance over the chips that ran it (the last to arrive does not wait; its
//   duration is the transfer): wait_i = dur_i − min_j dur_j. Participants are every TPU core of the
//   profile that ran that instance (same op, same occurrence within the step); for a collective
//   over a subgroup (replica groups smaller than the run) this over-states the wait, and `note`
//   says so;
// - a host's **arrival** at a step's synchronizing collective is the latest start of it over the
//   host's chips, and its **lateness** is that arrival after the earliest host's.
//
// Clock alignment: host clocks differ (tens of µs to ms). The loader merges hosts on their files'
// origins and keeps each host's own clock; this analysis estimates each host's offset from events
// that coincide in true time — the end of the step's synchronizing collective (all participants
// leave together), else the end of the step's last op — as the median over steps of the host's
// time minus the reference host's (the first host). Ends, not starts: a late host arrives late but
// leaves with the others, so an offset never absorbs (hides) a straggler nor creates one. The
// offsets are applied to the numbers here only (arrivals, lateness); the profile's timeline and
// `stepStartPs` stay in the profile's merged time, as the timeline draws them.
//
// A file without a timeline (a share file) carries each core's timing at the synchronizing
// collective per step (Profile::recorded->coreSync); the analysis reads that instead of events.
// The synchronizing collective's wait is then computed over every core of the file as here; the
// other collectives' wait is as the writer measured it (over the cores of the file it was written
// from: for a merge of per-host share files, each host's own cores, and `note` says so).

#include "../core/profile.h"
#include "steps.h"

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace tpuscope::model {

struct OpModel;
struct StepAnalysis;

/// A host is late in a step when it reaches the step's synchronizing collective at least this share
/// of the average step after the median of the other hosts, and within it of the last host.
constexpr double kLateMarginShareOfStep = 0.02;

/// One host. Per-step figures are per step and per core, averaged over the host's cores and steps
/// (ps); unknown values are empty, never 0.
struct HostRow
{
    std::string name; // XSpace hostnames, else the file name, else "host N"
    uint32_t host = 0; // index into Profile::hosts
    /// Chips: the cores for one-core chips (v5e, v6e) and megacore devices (v4, v5p: one device per
    /// chip), half of them for v2/v3; unknown for other or unknown generations.
    std::optional<int> chips;
    int cores = 0;
    int64_t steps = 0; // steps of the host's cores (the fewest over them)
    double avgStepPs = 0;
    double computePs = 0;
    double collectivePs = 0; // all time in collectives, waiting included
    /// Of collectivePs, the time waiting for the last participant; empty when no collective
    /// instance ran on two or more cores.
    std::optional<double> collectiveWaitPs;
    double idlePs = 0; // no op running (input wait, launch gaps)
    double hostTransferPs = 0; // transfers to or from host memory and infeed/outfeed
    /// The slowest core's compute per step (its own average): a slow chip shows here.
    double slowestCoreComputePs = 0;
    std::string slowestCore; // that core's plane ("/device:TPU:3")
    /// Steps in which this host reached the synchronizing collective last and late
    /// (kLateMarginShareOfStep); empty when no step has one.
    std::optional<int64_t> lateSteps;
    /// Mean over steps of its arrival after the median arrival of the other hosts (aligned clocks);
    /// empty without arrivals or without other hosts.
    std::optional<double> lateVsOthersPs;
    /// This host's clock minus the reference host's (subtract it to align); empty when unknown.
    std::optional<TimePs> clockOffsetPs;
    std::string offsetSource; // "reference host", "synchronizing collective ends", "step's last op ends", "none"
};

struct HostAnalysis
{
    std::vector<HostRow> hosts; // hosts with TPU cores, in profile order
    int64_t steps = 0; // steps matched across hosts (by index)
    double avgStepPs = 0; // over every core
    std::string syncCollective; // the name of the step's synchronizing collective (the most common one)
    std::string note; // what the numbers cannot show, or why there are none
    // [host row][step]; NaN where unknown (a host without the collective in that step).
    std::vector<std::vector<double>> stepPs; // the host's step time (mean over its cores)
    /// Arrival at the step's synchronizing collective after the earliest host's (aligned clocks).
    std::vector<std::vector<double>> latenessPs;
    /// The step's start on the host (earliest over its cores), in the profile's merged time as the
    /// timeline draws it (not offset-corrected), so a view can open that host and step.
    std::vector<std::vector<TimePs>> stepStartPs;
    /// Per step, the host rows that were late in it.
    std::vector<std::vector<int>> lateHostsByStep;
    /// Per TPU core (ordinal), per matched step: the synchronizing collective's timing the numbers
    /// above come from, in the profile's merged time. A share file keeps it (share/sharehosts.h),
    /// so the hosts of a share file give the same answer as its timeline.
    std::vector<std::vector<CoreSyncStep>> coreSync;
    bool otherWaitMeasured = false; // some other collective ran on two or more cores

    /// The row of profile host `host`, or nullptr.
    const HostRow* row(uint32_t host) const;
};

/// Chips of `devices` TPU devices (core planes) of the profile's generation: two devices per chip on
/// v2/v3, one elsewhere it is known (v4/v5p megacore, single-core chips); empty when unknown.
std::optional<int> chipsOfDevices(const Profile& profile, int devices);

/// `gathered`: what computeSteps gathered for these `steps` in its sweep (their collectives per
/// core and step), taken instead of a pass over the events; null to read the events here.
HostAnalysis analyzeHosts(const Profile& profile, const OpModel& model, const StepAnalysis& steps,
    std::stop_token stop = {}, StepCollectives* gathered = nullptr);

} // namespace tpuscope::model
