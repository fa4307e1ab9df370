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

/// The gain is the evidence ops' wait: spread over them by their time.
void spreadGainOverWaitOps(const Context& ctx, const HostLinkStats& link, double gain, Advice& a)
{
    double evidenceTime = 0;
    for (const OpRow& row : ctx.breakdown.rows)
        if (std::find(link.waitOps.begin(), link.waitOps.end(), row.op) != link.waitOps.end())
            evidenceTime += row.totalTimePs;
    for (const OpRow& row : ctx.breakdown.rows)
        if (evidenceTime > 0 && std::find(link.waitOps.begin(), link.waitOps.end(), row.op) != link.waitOps.end())
            a.gainByOp.emplace_back(row.op, gain * row.totalTimePs / evidenceTime);
}

/// Whether the offloaded arrays would fit in HBM beside the program's own peak (the memory view's
/// largest module peak, from its buffer assignment), in words; sets the numbers it used.
std::string hbmFitText(const Context& ctx, double offloaded, Advice& a)
{
    const Profile& profile = ctx.profile;
    const TpuGeneration* gen
        = findTpuGeneration(profile.device.generation.empty() ? profile.device.type : profile.device.generation);
    if (!gen || gen->hbmBytesPerDevice <= 0) {
        a.numbers.set("fits_in_hbm", "unknown");
        return "the HBM capacity of this device is not known";
    }
    const double capacity = gen->hbmBytesPerDevice;
    double peak = 0;
    std::string module;
    if (ctx.memory)
        for (const ModuleMemory& m : ctx.memory->modules)
            if (static_cast<double>(m.peakHeapBytes) > peak) {
                peak = static_cast<double>(m.peakHeapBytes);
                module = m.name;
            }
    const double needed = offloaded + peak;
    a.numbers.set("hbm_capacity_bytes", capacity);
    if (peak > 0)
        a.numbers.set("program_peak_bytes", peak);
    a.numbers.set("fits_in_hbm", needed < capacity ? "yes" : "no");
    if (peak <= 0)
        return format("%s per step of offloaded arrays %s the %s of HBM per device (%s); the program's own HBM peak is "
                      "not known (the file has no buffer assignment), so whether both fit is not known",
            formatBytes(offloaded).c_str(), offloaded < capacity ? "would fit in" : "do not fit in",
            formatBytes(capacity).c_str(), gen->hbmNote);
    return format("%s per step of offloaded arrays on top of the program's own HBM peak (%s, %s) is %s, %s the %s of "
                  "HBM per device (%s)",
        formatBytes(offloaded).c_str(), formatBytes(peak).c_str(), module.c_str(), formatBytes(needed).c_str(),
        needed < capacity ? "which fits in" : "more than", formatBytes(capacity).c_str(), gen->hbmNote);
}

/// "The 4 chips of this host share one host link ...": the devices on one host move their transfers
/// through the same host connection, so the host carries their sum. Empty for one chip or unknown.
std::string sharedLinkText(const Context& ctx, double toDeviceGbps, double toHostGbps, Advice& a)
{
    const int hosts = std::max<int>(1, static_cast<int>(ctx.profile.device.hosts));
    const int devicesPerHost = static_cast<int>(ctx.profile.tpuCorePlanes().size()) / hosts;
    const std::optional<int> chips = chipsOfDevices(ctx.profile, devicesPerHost);
    if (!chips || *chips < 2)
        return {};
    a.numbers.set("chips_per_host_link", *chips);
    return format(" The %d chips of %s share its link to host memory: together they move about %.0f GB/s "
                  "host->device and %.0f GB/s device->host through it, so offloading on one chip slows the others.",
        *chips, hosts > 1 ? "each host" : "this host", toDeviceGbps * devicesPerHost, toHostGbps * devicesPerHost);
}

/// The step spread over the program's runs: " Steps take 551 ms to 982 ms (average 784 ms)."
std::string stepSpreadText(const Context& ctx, Advice& a)
{
    const StepAnalysis* s = ctx.stepAnalysis;
    if (!s || s->steps.size() < 2 || s->maxStepPs <= s->minStepPs)
        return {};
    a.numbers.set("min_step_ps", s->minStepPs).set("max_step_ps", s->maxStepPs);
    return format(" Steps take %s to %s (average %s): the transfers' waits vary from step to step.",
        formatDurationPs(s->minStepPs).c_str(), formatDurationPs(s->maxStepPs).c_str(),
        formatDurationPs(s->avgStepPs).c_str());
}

void setNumbers(const HostLinkStats& link, double lowerLimit, double idleWhileWaiting, Advice& a)
{
    a.numbers.set("step_ps", link.runPs)
        .set("runs", link.runs)
        .set("to_device_gbps", link.toDevice.gbps())
        .set("to_host_gbps", link.toHost.gbps())
        .set("to_device_bytes_per_step", link.toDeviceBytesPerRun)
        .set("to_host_bytes_per_step", link.toHostBytesPerRun)
        .set("copy_wait_ps_per_step", link.waitPsPerRun)
        .set("transfer_bound_step_ps", lowerLimit)
        .set("to_device_busy_ps_per_step", link.toDeviceBusyPsPerRun)
        .set("to_host_busy_ps_per_step", link.toHostBusyPsPerRun)
        .set("both_directions_busy_ps_per_step", link.bothBusyPsPerRun)
        .set("link_busy_either_direction_ps", link.eitherBusyPsPerRun)
        .set("busier_link_idle_while_waiting_ps_per_step", idleWhileWaiting)
        .set("compute_ps_per_step", link.computePsPerRun);
}

void run(const Context& ctx, RuleOutput& out)
{
    const HostLinkStats& link = ctx.hostLink;
    if (!link.any() || link.runs <= 0 || link.waitOps.empty())
        return;
    const double totalWait = link.waitPsPerRun * link.runs;
    const double share = ctx.breakdown.totalTimePs > 0 ? totalWait / ctx.breakdown.totalTimePs : 0;
    if (share < kHostOffloadMinShare.value)
        return;
    const double step = link.runPs, wait = link.waitPsPerRun, compute = link.computePsPerRun;
    // Each direction has its own lanes: both run at once, so at today's rates the busier direction
    // alone sets the step's lower limit, not their sum.
    const bool toDeviceBusier = link.toDeviceBusyPsPerRun >= link.toHostBusyPsPerRun;
    const double lowerLimit = std::max(link.toDeviceBusyPsPerRun, link.toHostBusyPsPerRun);
    // Slicing can save only time in which the busier direction's link sat idle while the core
    // waited, as measured on the timeline; without that evidence it is not claimed.
    const double idleWhileWaiting
        = toDeviceBusier ? link.toDeviceIdleWhileWaitingPsPerRun : link.toHostIdleWhileWaitingPsPerRun;
    const double slicingGain = std::max(0.0, std::min({wait - lowerLimit, step - lowerLimit, idleWhileWaiting}));
    const double overlapGain = std::min(compute, std::max(0.0, step - lowerLimit - slicingGain));
    const double gain = std::min(std::max(0.0, step - lowerLimit), slicingGain + overlapGain);
    const double toDeviceGbps = link.toDevice.gbps(), toHostGbps = link.toHost.gbps();
    const double offloaded = std::max(link.toDeviceBytesPerRun, link.toHostBytesPerRun);

    Advice a;
    a.severity = share >= kHostOffloadCriticalShare.value ? Severity::Critical
        : share >= kHostOffloadWarningShare.value         ? Severity::Warning
                                                          : Severity::Info;
    a.title = format("Host offload bounds the step: %s of each %s step waits for host-link transfers",
        formatDurationPs(wait).c_str(), formatDurationPs(step).c_str());
    setNumbers(link, lowerLimit, idleWhileWaiting, a);
    const std::string slicing = slicingGain > 0
        ? format("The core waits %s per step in copy-done, and for %s of it the busier direction's link carried no "
                 "transfer (measured on the timeline: the waits outside that direction's transfers), because each "
                 "transfer is issued only after the ones before it are consumed. Splitting the offloaded arrays into "
                 "slices, so that one slice moves while the next is issued and consumed, can save up to %s per step",
            formatDurationPs(wait).c_str(), formatDurationPs(idleWhileWaiting).c_str(),
            formatDurationPs(slicingGain).c_str())
        : format("The core waits %s per step in copy-done, and the busier direction's link carries a transfer "
                 "throughout those waits: the timeline shows no idle link for slicing the transfers to use, so no "
                 "gain is claimed for it",
            formatDurationPs(wait).c_str());
    // In the order their numbers are set.
    const std::string shared = sharedLinkText(ctx, toDeviceGbps, toHostGbps, a);
    const std::string spread = stepSpreadText(ctx, a);
    const std::string fit = hbmFitText(ctx, offloaded, a);
    a.detail = format(
        "Each run of %s (%s on average, %.0f runs over the cores) moves arrays between HBM and host memory (S(5)) "
        "through copy-start/copy-done pairs: %s host->device at %.1f GB/s and %s device->host at %.1f GB/s per "
        "device (bytes over the time the link carried that direction's transfers).%s The two directions run at the "
        "same time (both busy %s of each step), so at these rates the busier one, %s per step, is the lower limit of "
        "the step while these transfers stay. %s; overlapping the transfers with the %s of compute per step saves at "
        "most %s more.%s Waiting in copy-done takes %s of op time. To go below the limit, move fewer bytes over the "
        "host link (offload less, bf16 instead of f32) or keep the arrays in HBM: %s.",
        link.program.c_str(), formatDurationPs(step).c_str(), link.runs, formatBytes(link.toDeviceBytesPerRun).c_str(),
        toDeviceGbps, formatBytes(link.toHostBytesPerRun).c_str(), toHostGbps, shared.c_str(),
        formatDurationPs(link.bothBusyPsPerRun).c_str(), formatDurationPs(lowerLimit).c_str(), slicing.c_str(),
        formatDurationPs(compute).c_str(), formatDurationPs(overlapGain).c_str(), spread.c_str(), pct(share).c_str(),
        fit.c_str());
    a.fix.action = slicingGain > 0
        ? "Split the offloaded arrays into slices so one moves while the next is issued, and overlap the transfers "
          "with compute; to go below the link's limit, offload fewer or smaller (bf16) arrays."
        : "Overlap the transfers with compute, and to go below the link's limit offload fewer or smaller (bf16) "
          "arrays, or keep them in HBM if they fit.";
    for (OpId op : link.waitOps)
        if (a.ops.size() < 4)
            addEvidence(a, ctx, op);
    a.numbers.set("slicing_gain_ps", slicingGain)
        .set("overlap_gain_ps", overlapGain)
        .set("offloaded_bytes_per_step", offloaded)
        .set("copy_wait_time_fraction", share);
    a.threshold = format("waiting in copy-done for S(5) host copies >= %s of op time (ours); warning from %s, "
                         "critical from %s",
        pct(kHostOffloadMinShare.value).c_str(), pct(kHostOffloadWarningShare.value).c_str(),
        pct(kHostOffloadCriticalShare.value).c_str());
    a.gainPs = gain;
    a.gain = format("up to %s/step: %s from slicing the transfers (the measured time the busier direction's link sat "
                    "idle while the core waited, beyond its %s) and %s from overlapping them with compute, never more "
                    "than the step above that limit (%s). An upper bound: the transfers themselves stay",
        formatDurationPs(gain).c_str(), formatDurationPs(slicingGain).c_str(), formatDurationPs(lowerLimit).c_str(),
        formatDurationPs(overlapGain).c_str(), formatDurationPs(std::max(0.0, step - lowerLimit)).c_str());
    spreadGainOverWaitOps(ctx, link, gain, a);
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
