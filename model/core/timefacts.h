// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Facts about a profile's timeline that analyses derive from its events: where step time goes,
// the spans of async pairs, the host link's traffic. They are plain data so that a file without a
// timeline (a share file) can carry them as the original's analysis computed them, and the
// analyses of the reopened file read them instead of events it does not have (Profile::recorded).

#include <cstdint>
#include <string>
#include <vector>

namespace tpuscope::model {

using TimePs = int64_t;
using OpId = uint32_t;

/// Where time goes, in picoseconds. The parts add up to the window they were measured in.
struct StepTimeSplit
{
    double computePs = 0; // op time that is neither collective, host transfer nor infeed/outfeed
    double collectivePs = 0; // all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute
    double hostTransferPs = 0; // copies whose arrays live in host memory (memory space S(5))
    double infeedPs = 0; // infeed / outfeed ops
    double idlePs = 0; // no op running

    double busyPs() const { return computePs + collectivePs + hostTransferPs + infeedPs; }
    double totalPs() const { return busyPs() + idlePs; }
    StepTimeSplit& operator+=(const StepTimeSplit& o);
    StepTimeSplit scaled(double factor) const;
};

/// One direction of the host link (HBM ↔ host memory, S(5)), summed over the TPU cores.
struct HostLinkDirection
{
    int64_t transfers = 0; // start→done pairs matched on the timeline
    double bytes = 0; // each pair's array once
    /// Time the link carried at least one transfer of this direction: the union of the pairs'
    /// start→done intervals on each core, summed over cores.
    double busyPs = 0;
    /// Bytes over the link-busy time, per core (GB/s); 0 when nothing was timed.
    double gbps() const { return busyPs > 0 ? bytes * 1000.0 / busyPs : 0; }
};

/// The host link over the whole profile and over the runs of the program that moves the most data
/// through it (what the host-offload advice reads). Per-run figures are per core and run.
struct HostLinkStats
{
    HostLinkDirection toDevice;
    HostLinkDirection toHost;
    double eitherBusyPs = 0; // union of both directions' intervals, summed over cores
    double bothBusyPs = 0; // time both directions carried transfers at once, summed over cores

    // The runs of `program` (the dominant program on the XLA Modules lines) that wait for transfers.
    std::string program;
    double runs = 0; // over all cores
    double runPs = 0; // average run (step) length
    double computePsPerRun = 0; // op time in the run other than the transfers' halves
    double waitPsPerRun = 0; // time the core waits in the transfers' done halves
    double toDeviceBytesPerRun = 0;
    double toHostBytesPerRun = 0;
    double toDeviceBusyPsPerRun = 0; // link-busy time of that direction's transfers of the run
    double toHostBusyPsPerRun = 0;
    double eitherBusyPsPerRun = 0;
    double bothBusyPsPerRun = 0;
    /// Of the run's wait in the transfers' done halves, the time that direction's link carried no
    /// transfer (the union of the waits less that direction's busy intervals): a link idle while the
    /// core waits, which slicing the transfers could put to work.
    double toDeviceIdleWhileWaitingPsPerRun = 0;
    double toHostIdleWhileWaitingPsPerRun = 0;
    std::vector<OpId> waitOps; // the done halves the runs wait in, most wait first

    bool any() const { return toDevice.transfers + toHost.transfers > 0; }
};

/// An op's totals that a timeline gives beyond its occurrences and time: its self time and, for
/// the done half of an async pair, the start→done spans of the pairs matched on the timeline.
struct RecordedOpTiming
{
    double selfPs = -1; // -1: the same as the op's time
    double pairSpanPs = 0;
    int64_t pairsTimed = 0;
};

/// One step on one core.
struct CoreStep
{
    TimePs begin = 0;
    TimePs end = 0;
    StepTimeSplit time;
};

/// One step of one core at the step's synchronizing collective (hosts.h), what the hosts analysis
/// needs of a core's timeline and a share file keeps per step. Times are in the profile's time
/// (relative to nothing in particular); -1 where unknown.
struct CoreSyncStep
{
    TimePs syncStartPs = -1; // the start of the step's last synchronizing collective on this core
    TimePs syncEndPs = -1; // its end
    TimePs lastOpEndPs = -1; // the end of the step's last op (clock alignment without a collective)
    /// Time waiting in the step's other collectives: each instance's duration beyond the shortest
    /// over the cores that ran it (participants: the cores of the file it was measured in).
    double otherWaitPs = 0;
};

/// What a file without a timeline recorded about the one it was made from (share files).
/// What the original's advice said to do, per item (the share file's advice[].fix): a reopened
/// share file recomputes its advice from the data, and this says what the original's was.
struct RecordedAdviceFix
{
    std::string rule; // the rule's stable name ("per-core-batch")
    std::string action; // the imperative sentence; empty when the item names none
    int64_t perCoreBatch = 0;
    int64_t globalBatch = 0;
    std::vector<std::string> devices; // TPU generation keys
};

struct RecordedTimeline
{
    /// Per op (indexed by OpId, empty or shorter when not recorded).
    std::vector<RecordedOpTiming> opTimes;
    /// Each core's steps (by core ordinal), with where their time went; empty when none.
    std::vector<std::vector<CoreStep>> coreSteps;
    std::vector<StepTimeSplit> warmup; // per core: before the first step
    std::vector<StepTimeSplit> tail; // per core: after the last step
    double busyFraction = -1; // op busy time / (span × cores); -1 not recorded
    bool hasHostLink = false;
    HostLinkStats hostLink;
    std::vector<RecordedAdviceFix> adviceFixes; // in the file's advice order
    /// Per core (ordinal), per step (the first ones of coreSteps): the synchronizing collective's
    /// timing; empty when the file did not record it (files written before pod views).
    std::vector<std::vector<CoreSyncStep>> coreSync;
    std::string syncCollective; // its op name; empty when no step had a collective
    /// Whether some other collective ran on two or more cores, so otherWaitPs is measured.
    bool otherWaitMeasured = false;
    /// Where otherWaitPs was measured: "profile" (all its cores) or "host" (each host's own cores,
    /// a merge of per-host share files: a lower bound).
    std::string otherWaitScope;
    bool hasCoreSync() const { return !coreSync.empty(); }
};

} // namespace tpuscope::model
