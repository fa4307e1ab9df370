// SPDX-License-Identifier: GPL-3.0-or-later
// Rule `host-offload`: the critical path of a step whose arrays live in host memory (memory space
// S(5), FORMATS.md §6.2) and move through copy-start/copy-done pairs. From the pairs on the timeline:
// host-link GB/s per direction, the transfer-bound lower limit of the step, the compute that could
// hide transfers, the overlap headroom (the gain), and whether the offloaded arrays would fit in HBM.
#include "advicerules.h"
#include "layout.h"

#include <algorithm>
#include <climits>
#include <map>
#include <string_view>
#include <unordered_map>

namespace tpuscope::model::advice_detail {

namespace {

// HBM per chip (FORMATS.md §6.1); TensorCores per chip come from the generation table.
struct HbmCapacity
{
    const char* generation;
    double bytes;
    const char* text;
};
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr HbmCapacity kHbmPerChip[]
    = {{"v2", 16 * kGiB, "16 GiB"}, {"v3", 32 * kGiB, "32 GiB"}, {"v4", 32 * kGiB, "32 GiB"}, {"v5e", 16e9, "16 GB"},
        {"v5p", 95e9, "95 GB"}, {"v6e", 32e9, "32 GB"}, {"v7x", 192 * kGiB, "192 GiB"}};

enum class Direction : uint8_t { None, ToDevice, ToHost };

struct CopyInfo
{
    Direction direction = Direction::None;
    double bytes = 0;
    std::string startName; // for a copy-done: the copy-start it waits for
};

/// Direction and size of a copy-start from its HLO text: "(dst, src, u32[]) copy-start(src %x)".
CopyInfo copyStartInfo(std::string_view text)
{
    CopyInfo info;
    const layout::ShapeParseResult result = layout::parseInstructionResultShape(text);
    if (!result.ok() || !result.shape.isTuple() || result.shape.tupleShapes.size() < 2)
        return info;
    const hlo::Shape& dst = result.shape.tupleShapes[0];
    const hlo::Shape& src = result.shape.tupleShapes[1];
    if (!dst.hasLayout || !src.hasLayout)
        return info;
    if (dst.layout.memorySpace == 5 && src.layout.memorySpace != 5)
        info.direction = Direction::ToHost;
    else if (src.layout.memorySpace == 5 && dst.layout.memorySpace != 5)
        info.direction = Direction::ToDevice;
    const layout::PaddingInfo p = layout::computePadding(dst);
    info.bytes = static_cast<double>(p.logicalBytes);
    return info;
}

std::string copyDoneStart(std::string_view text)
{
    const size_t call = text.find(" copy-done(");
    const size_t percent = text.rfind('%');
    if (call == std::string_view::npos || percent == std::string_view::npos || percent < call)
        return {};
    size_t end = percent + 1;
    while (end < text.size() && text[end] != ')' && text[end] != ',' && text[end] != ' ')
        ++end;
    return std::string(text.substr(percent + 1, end - percent - 1));
}

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

/// Link time of one direction's transfers served one after another (the DMA queue): each transfer runs
/// from its start or the previous one's end, whichever is later, to its copy-done's end. A copy-done
/// that does not wait only says the copy had ended by then, so the time is an upper bound.
double serialServiceTime(std::vector<std::pair<TimePs, TimePs>> intervals)
{
    std::sort(intervals.begin(), intervals.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    double total = 0;
    TimePs previousEnd = INT64_MIN;
    for (const auto& [b, e] : intervals) {
        const TimePs from = std::max(b, previousEnd);
        if (e > from)
            total += static_cast<double>(e - from);
        previousEnd = std::max(previousEnd, e);
    }
    return total;
}

} // namespace

void hostOffloadRule(const Context& ctx, std::vector<Advice>& out)
{
    const Profile& profile = ctx.profile;
    // Host copies by op, and the copy-start each copy-done waits for.
    std::unordered_map<OpId, CopyInfo> copies;
    std::unordered_map<std::string, OpId> startByName;
    for (OpId id = 0; id < profile.ops.size(); ++id) {
        const OpInfo& op = profile.ops[id];
        const std::string& category = profile.str(op.category);
        const std::string& text = profile.str(op.longName);
        if (category == "copy-start") {
            CopyInfo info = copyStartInfo(text);
            if (info.direction != Direction::None) {
                copies[id] = info;
                startByName[std::to_string(op.program) + "/" + profile.str(op.name)] = id;
            }
        }
    }
    std::unordered_map<OpId, OpId> doneToStart;
    for (OpId id = 0; id < profile.ops.size(); ++id) {
        const OpInfo& op = profile.ops[id];
        if (profile.str(op.category) != "copy-done")
            continue;
        auto it = startByName.find(std::to_string(op.program) + "/" + copyDoneStart(profile.str(op.longName)));
        if (it != startByName.end())
            doneToStart[id] = it->second;
    }
    if (copies.empty() || doneToStart.empty())
        return;

    // The dominant program: the module with the most run time on the XLA Modules lines.
    std::map<OpId, double> moduleTime;
    for (PlaneId planeId : profile.tpuCorePlanes())
        for (TrackId t : profile.planes[planeId].tracks) {
            const Track& track = profile.tracks[t];
            if (track.kind == TrackKind::XlaModules)
                for (size_t i = 0; i < track.size(); ++i)
                    if (track.depth[i] == 0)
                        moduleTime[track.op[i]] += static_cast<double>(track.duration[i]);
        }
    if (moduleTime.empty())
        return;
    const OpId dominant = std::max_element(moduleTime.begin(), moduleTime.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
    })->first;

    // Per run of the dominant program on each core: transfer intervals per direction, the time the
    // core waits for them in copy-done, and compute. A transfer belongs to the run its copy-done ends
    // in: copy-starts are issued just before the module event begins, or in the previous run.
    double runs = 0, stepTime = 0, computeTime = 0, waitTime = 0, runWait = 0;
    double busy[3] = {0, 0, 0}, bytes[3] = {0, 0, 0};
    double bothBusy = 0;
    std::vector<OpId> evidence;
    for (PlaneId planeId : profile.tpuCorePlanes()) {
        const Track* modules = nullptr;
        const Track* ops = nullptr;
        for (TrackId t : profile.planes[planeId].tracks) {
            const Track& track = profile.tracks[t];
            if (track.kind == TrackKind::XlaModules && !modules)
                modules = &track;
            if (track.kind == TrackKind::XlaOps && !ops)
                ops = &track;
        }
        if (!modules || !ops)
            continue;
        std::unordered_map<OpId, TimePs> openStart; // copy-start op -> its latest start on this core
        std::vector<std::pair<TimePs, TimePs>> coreIntervals[3], coreAll;
        size_t i = 0;
        for (size_t m = 0; m < modules->size(); ++m) {
            if (modules->depth[m] != 0 || modules->op[m] != dominant)
                continue;
            const TimePs begin = modules->start[m], end = modules->end(m);
            std::vector<std::pair<TimePs, TimePs>> intervals[3], all;
            double compute = 0;
            for (; i < ops->size() && ops->start[i] < end; ++i) {
                const OpId op = ops->op[i];
                if (copies.count(op)) {
                    openStart[op] = ops->start[i];
                    continue;
                }
                const bool inRun = ops->start[i] >= begin;
                if (auto d = doneToStart.find(op); d != doneToStart.end()) {
                    // Events that start together are sorted longest first, so a copy-start issued at the
                    // same instant as its copy-done comes after it on the track.
                    for (size_t j = i + 1; j < ops->size() && ops->start[j] == ops->start[i]; ++j)
                        if (ops->op[j] == d->second)
                            openStart[d->second] = ops->start[j];
                    auto s = openStart.find(d->second);
                    if (!inRun || s == openStart.end())
                        continue;
                    waitTime += static_cast<double>(ops->duration[i]);
                    runWait += static_cast<double>(ops->duration[i]);
                    if (std::find(evidence.begin(), evidence.end(), op) == evidence.end())
                        evidence.push_back(op);
                    const CopyInfo& info = copies[d->second];
                    const auto dir = static_cast<size_t>(info.direction);
                    intervals[dir].emplace_back(s->second, ops->end(i));
                    all.emplace_back(s->second, ops->end(i));
                    bytes[dir] += info.bytes;
                    openStart.erase(s);
                    continue;
                }
                const std::string& category = profile.str(profile.ops[op].category);
                if (inRun && ops->depth[i] == 0 && category != "copy-start" && category != "copy-done")
                    compute += static_cast<double>(ops->duration[i]);
            }
            runs += 1;
            stepTime += static_cast<double>(end - begin);
            computeTime += compute;
            for (size_t dir = 1; dir < 3; ++dir)
                coreIntervals[dir].insert(coreIntervals[dir].end(), intervals[dir].begin(), intervals[dir].end());
            coreAll.insert(coreAll.end(), all.begin(), all.end());
        }
        // Over the whole core: a transfer queued behind one that ended in the previous run still waits.
        for (size_t dir = 1; dir < 3; ++dir)
            busy[dir] += serialServiceTime(coreIntervals[dir]);
        bothBusy += unionLength(coreAll);
    }
    const size_t toDevice = static_cast<size_t>(Direction::ToDevice), toHost = static_cast<size_t>(Direction::ToHost);
    if (runs <= 0 || busy[toDevice] + busy[toHost] <= 0)
        return;
    const double step = stepTime / runs, compute = computeTime / runs;
    const double share = ctx.breakdown.totalTimePs > 0 ? waitTime / ctx.breakdown.totalTimePs : 0;
    if (share < kHostOffloadMinShare)
        return;
    // Per run and core: link rates, and the step's lower limit if the link never idled.
    auto gbps = [&](size_t dir) { return busy[dir] > 0 ? bytes[dir] * 1000.0 / busy[dir] : 0.0; };
    // The step waits for these transfers in copy-done: with all compute hidden under them it would still
    // take that long, unless fewer bytes move or more of them move at once.
    const double lowerLimit = runWait / runs;
    const double headroom = std::max(0.0, step - lowerLimit);
    const double gain = std::min(headroom, compute);
    const double offloaded = std::max(bytes[toDevice], bytes[toHost]) / runs;
    std::string fit = "the HBM capacity of this device is not known";
    double capacity = 0;
    if (const TpuGeneration* gen
        = findTpuGeneration(profile.device.generation.empty() ? profile.device.type : profile.device.generation))
        for (const HbmCapacity& c : kHbmPerChip)
            if (std::string_view(c.generation) == gen->key) {
                capacity = c.bytes / std::max(1, gen->tensorCoresPerChip);
                fit = format("%s per step of offloaded arrays %s the %s of HBM per %s (FORMATS.md §6.1), before the "
                             "program's other buffers",
                    formatBytes(offloaded).c_str(), offloaded < capacity ? "would fit in" : "do not fit in", c.text,
                    gen->tensorCoresPerChip > 1 ? "chip (shared by its TensorCores)" : "chip");
            }

    Advice a;
    a.rule = "host-offload";
    a.severity = share >= kHostOffloadCriticalShare ? Severity::Critical
        : share >= kHostOffloadWarningShare         ? Severity::Warning
                                                    : Severity::Info;
    a.title = format("Host offload bounds the step: %s of each %s step waits for host-link transfers",
        formatDurationPs(lowerLimit).c_str(), formatDurationPs(step).c_str());
    a.detail = format(
        "Each run of %s (%s on average, %.0f runs over the cores) moves arrays between HBM and host memory (S(5)) "
        "through copy-start/copy-done pairs: %s host->device at %.1f GB/s and %s device->host at %.1f GB/s per "
        "core (at least: each direction's copies taken one after another, up to the copy-done that saw them end). The "
        "core waits %s per step in "
        "copy-done for them: a lower limit for the step while these transfers stay. The compute that could hide "
        "them is %s per step, so overlapping transfers with compute can save at most %s. Waiting in copy-done "
        "takes %s of op time. To go faster, move fewer bytes over the host link (offload less, bf16 instead of "
        "f32) or keep the arrays in HBM: %s.",
        profile.str(profile.ops[dominant].name).c_str(), formatDurationPs(step).c_str(), runs,
        formatBytes(bytes[toDevice] / runs).c_str(), gbps(toDevice), formatBytes(bytes[toHost] / runs).c_str(),
        gbps(toHost), formatDurationPs(lowerLimit).c_str(), formatDurationPs(compute).c_str(),
        formatDurationPs(gain).c_str(), pct(share).c_str(), fit.c_str());
    std::sort(evidence.begin(), evidence.end(), [&](OpId x, OpId y) {
        double tx = 0, ty = 0;
        for (const OpRow& r : ctx.breakdown.rows) {
            tx = r.op == x ? r.totalTimePs : tx;
            ty = r.op == y ? r.totalTimePs : ty;
        }
        return tx > ty;
    });
    for (OpId op : evidence)
        if (a.ops.size() < 4)
            addEvidence(a, ctx, op);
    a.numbers.set("step_ps", step)
        .set("runs", runs)
        .set("to_device_gbps", gbps(toDevice))
        .set("to_host_gbps", gbps(toHost))
        .set("to_device_bytes_per_step", bytes[toDevice] / runs)
        .set("to_host_bytes_per_step", bytes[toHost] / runs)
        .set("transfer_bound_step_ps", lowerLimit)
        .set("to_device_busy_ps_per_step", busy[toDevice] / runs)
        .set("to_host_busy_ps_per_step", busy[toHost] / runs)
        .set("link_busy_either_direction_ps", bothBusy / runs)
        .set("compute_ps_per_step", compute)
        .set("overlap_headroom_ps", headroom)
        .set("offloaded_bytes_per_step", offloaded)
        .set("hbm_capacity_bytes", capacity)
        .set("fits_in_hbm", capacity > 0 ? (offloaded < capacity ? 1 : 0) : -1)
        .set("copy_wait_time_fraction", share);
    a.threshold = format("waiting in copy-done for S(5) host copies >= %s of op time (ours); warning from %s, "
                         "critical from %s",
        pct(kHostOffloadMinShare).c_str(), pct(kHostOffloadWarningShare).c_str(),
        pct(kHostOffloadCriticalShare).c_str());
    a.gainPs = gain;
    a.gain = format("up to %s/step: the step minus its transfer-bound limit (%s), and never more than the compute "
                    "that could hide transfers (%s). An upper bound: the transfers themselves stay",
        formatDurationPs(gain).c_str(), formatDurationPs(headroom).c_str(), formatDurationPs(compute).c_str());
    out.push_back(std::move(a));
}

} // namespace tpuscope::model::advice_detail
