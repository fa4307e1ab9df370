// SPDX-License-Identifier: GPL-3.0-or-later
// Rule `host-offload`: the critical path of a step whose arrays live in host memory (memory space
// S(5), FORMATS.md §6.2) and move through copy-start/copy-done pairs. From the host link's figures
// (hostlink.h, the same the op table shows): its rate per direction, the limit the busier direction
// sets on the step while both run at once, the wait beyond it that slicing the transfers could
// remove, the compute that could hide transfers, and whether the offloaded arrays would fit in HBM.
#include "advicerules.h"

#include <algorithm>

namespace tpuscope::model::advice_detail {

namespace host_offload {

constexpr AdviceThreshold kHostOffloadMinShare {"host-offload", "min_share", 0.10, "share",
    "waiting in copy-done for host-memory (S(5)) copies, share of op time", "ours"};
constexpr AdviceThreshold kHostOffloadWarningShare {
    "host-offload", "warning_share", 0.30, "share", "warning from this share", "ours"};
constexpr AdviceThreshold kHostOffloadCriticalShare {
    "host-offload", "critical_share", 0.50, "share", "critical from this share", "ours"};

void run(const Context& ctx, RuleOutput& out)
{
    const Profile& profile = ctx.profile;
    const HostLinkStats& link = ctx.hostLink;
    if (!link.any() || link.runs <= 0 || link.waitOps.empty())
        return;
    const double totalWait = link.waitPsPerRun * link.runs;
    const double share = ctx.breakdown.totalTimePs > 0 ? totalWait / ctx.breakdown.totalTimePs : 0;
    if (share < kHostOffloadMinShare.value)
        return;
    const double step = link.runPs, wait = link.waitPsPerRun, compute = link.computePsPerRun;
    const double toDeviceBusy = link.toDeviceBusyPsPerRun, toHostBusy = link.toHostBusyPsPerRun;
    // Each direction has its own lanes: both run at once, so at today's rates the busier direction
    // alone sets the step's lower limit, not their sum.
    const double lowerLimit = std::max(toDeviceBusy, toHostBusy);
    // Waiting beyond that limit is time the link of the busier direction sits idle while the core
    // waits: transfers queued behind each other's dependencies. Slices that overlap remove it.
    const double slicingGain = std::max(0.0, std::min(wait, step) - lowerLimit);
    const double overlapGain = std::min(compute, std::max(0.0, step - lowerLimit - slicingGain));
    const double gain = std::min(std::max(0.0, step - lowerLimit), slicingGain + overlapGain);
    const double toDeviceGbps = link.toDevice.gbps(), toHostGbps = link.toHost.gbps();
    const double offloaded = std::max(link.toDeviceBytesPerRun, link.toHostBytesPerRun);
    std::string fit = "the HBM capacity of this device is not known";
    double capacity = 0;
    if (const TpuGeneration* gen
        = findTpuGeneration(profile.device.generation.empty() ? profile.device.type : profile.device.generation);
        gen && gen->hbmBytesPerDevice > 0) {
        capacity = gen->hbmBytesPerDevice;
        fit = format("%s per step of offloaded arrays %s the %s of HBM per device (%s), before the program's "
                     "other buffers",
            formatBytes(offloaded).c_str(), offloaded < capacity ? "would fit in" : "do not fit in",
            formatBytes(capacity).c_str(), gen->hbmNote);
    }

    Advice a;
    a.severity = share >= kHostOffloadCriticalShare.value ? Severity::Critical
        : share >= kHostOffloadWarningShare.value         ? Severity::Warning
                                                          : Severity::Info;
    a.title = format("Host offload bounds the step: %s of each %s step waits for host-link transfers",
        formatDurationPs(wait).c_str(), formatDurationPs(step).c_str());
    a.detail = format(
        "Each run of %s (%s on average, %.0f runs over the cores) moves arrays between HBM and host memory (S(5)) "
        "through copy-start/copy-done pairs: %s host->device at %.1f GB/s and %s device->host at %.1f GB/s per "
        "core (bytes over the time the link carried that direction's transfers). The two directions run at the same "
        "time (both busy %s of each step), so at these rates the busier one, %s per step, is the lower limit of the "
        "step while these transfers stay. The core waits %s per step in copy-done: %s more than that limit, time in "
        "which even the busier direction's link sits idle because each transfer is issued only after the ones before "
        "it are consumed. Splitting the offloaded "
        "arrays into slices, so that one slice moves while the next is issued and consumed, can save up to %s per "
        "step; overlapping the transfers with the %s of compute per step saves at most %s more. Waiting in "
        "copy-done takes %s of op time. To go below the limit, move fewer bytes over the host link (offload less, "
        "bf16 instead of f32) or keep the arrays in HBM: %s.",
        link.program.c_str(), formatDurationPs(step).c_str(), link.runs, formatBytes(link.toDeviceBytesPerRun).c_str(),
        toDeviceGbps, formatBytes(link.toHostBytesPerRun).c_str(), toHostGbps,
        formatDurationPs(link.bothBusyPsPerRun).c_str(), formatDurationPs(lowerLimit).c_str(),
        formatDurationPs(wait).c_str(), formatDurationPs(std::max(0.0, wait - lowerLimit)).c_str(),
        formatDurationPs(slicingGain).c_str(), formatDurationPs(compute).c_str(), formatDurationPs(overlapGain).c_str(),
        pct(share).c_str(), fit.c_str());
    for (OpId op : link.waitOps)
        if (a.ops.size() < 4)
            addEvidence(a, ctx, op);
    a.numbers.set("step_ps", step)
        .set("runs", link.runs)
        .set("to_device_gbps", toDeviceGbps)
        .set("to_host_gbps", toHostGbps)
        .set("to_device_bytes_per_step", link.toDeviceBytesPerRun)
        .set("to_host_bytes_per_step", link.toHostBytesPerRun)
        .set("copy_wait_ps_per_step", wait)
        .set("transfer_bound_step_ps", lowerLimit)
        .set("to_device_busy_ps_per_step", toDeviceBusy)
        .set("to_host_busy_ps_per_step", toHostBusy)
        .set("both_directions_busy_ps_per_step", link.bothBusyPsPerRun)
        .set("link_busy_either_direction_ps", link.eitherBusyPsPerRun)
        .set("compute_ps_per_step", compute)
        .set("slicing_gain_ps", slicingGain)
        .set("overlap_gain_ps", overlapGain)
        .set("offloaded_bytes_per_step", offloaded)
        .set("hbm_capacity_bytes", capacity)
        .set("fits_in_hbm", capacity > 0 ? (offloaded < capacity ? "yes" : "no") : "unknown")
        .set("copy_wait_time_fraction", share);
    a.threshold = format("waiting in copy-done for S(5) host copies >= %s of op time (ours); warning from %s, "
                         "critical from %s",
        pct(kHostOffloadMinShare.value).c_str(), pct(kHostOffloadWarningShare.value).c_str(),
        pct(kHostOffloadCriticalShare.value).c_str());
    a.gainPs = gain;
    a.gain = format("up to %s/step: %s from slicing the transfers (the wait beyond the busier direction's %s) and "
                    "%s from overlapping them with compute, never more than the step above that limit (%s). An upper "
                    "bound: the transfers themselves stay",
        formatDurationPs(gain).c_str(), formatDurationPs(slicingGain).c_str(), formatDurationPs(lowerLimit).c_str(),
        formatDurationPs(overlapGain).c_str(), formatDurationPs(std::max(0.0, step - lowerLimit)).c_str());
    // The gain is the evidence ops' wait: spread over them by their time.
    double evidenceTime = 0;
    for (const OpRow& row : ctx.breakdown.rows)
        if (std::find(link.waitOps.begin(), link.waitOps.end(), row.op) != link.waitOps.end())
            evidenceTime += row.totalTimePs;
    for (const OpRow& row : ctx.breakdown.rows)
        if (evidenceTime > 0 && std::find(link.waitOps.begin(), link.waitOps.end(), row.op) != link.waitOps.end())
            a.gainByOp.emplace_back(row.op, gain * row.totalTimePs / evidenceTime);
    out.items.push_back(std::move(a));
}

} // namespace host_offload

const AdviceRuleEntry& hostOffloadRule()
{
    using namespace host_offload;
    static const AdviceRuleEntry entry {
        AdviceRuleId::HostOffload, {kHostOffloadMinShare, kHostOffloadWarningShare, kHostOffloadCriticalShare}, &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
