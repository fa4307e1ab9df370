// SPDX-License-Identifier: GPL-3.0-or-later
#include "opbreakdown.h"

#include "opgroups.h"

#include "attribution.h"
#include "core/hashcombine.h"
#include "hostlink.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <unordered_map>

namespace tpuscope::model {

std::optional<double> flopsUtilization(double flops, double timePs, double peakTflops)
{
    if (timePs <= 0 || peakTflops <= 0)
        return std::nullopt;
    // flops / (time_ps · 1e-12 s) / (peak · 1e12 FLOP/s) = flops / (time_ps · peak)
    return flops / (timePs * peakTflops);
}

std::optional<double> hbmUtilization(double bytes, double timePs, double peakGbps)
{
    if (timePs <= 0 || peakGbps <= 0)
        return std::nullopt;
    // bytes / (time_ps · 1e-12 s) / (peak · 1e9 B/s) = bytes · 1000 / (time_ps · peak)
    return bytes * 1000.0 / (timePs * peakGbps);
}

const char* boundByName(BoundBy bound)
{
    switch (bound) {
    case BoundBy::Compute:
        return "compute";
    case BoundBy::Hbm:
        return "hbm";
    case BoundBy::Host:
        return "host";
    case BoundBy::Ici:
        return "ici";
    case BoundBy::Unknown:
        break;
    }
    return nullptr;
}

std::optional<bool> isLowUtilization(const OpRow& row, double threshold)
{
    // Known only where the breakdown found it applicable (cost data, peaks, on the roofline).
    if (!row.rooflineEfficiency || !row.lowUtilization)
        return std::nullopt;
    return *row.rooflineEfficiency < threshold;
}

bool isLowUtilizationOp(const OpRow& row, double threshold)
{
    return row.op != kNone && row.timeFraction >= kLowUtilizationMinShare && isLowUtilization(row, threshold) == true;
}

std::optional<int> countLowUtilizationOps(const OpBreakdown& breakdown, double threshold)
{
    if (breakdown.groupBy != GroupBy::Op)
        return std::nullopt;
    bool known = false;
    int count = 0;
    for (const OpRow& row : breakdown.rows) {
        known = known || row.lowUtilization.has_value();
        count += isLowUtilizationOp(row, threshold) ? 1 : 0;
    }
    return known ? std::optional<int>(count) : std::nullopt;
}

namespace {

/// Sums time and self time per op over one track. Self time = duration − time of the
/// direct children on the same line (children clipped to their parent). Async done events are
/// matched with their start half (forEachAsyncPair), for the pair's span, where the profile has
/// done halves (`pairs`).
void accumulateTrack(const Track& track, const OpFilter& filter, const OpModel& model, const RecordedTimeline* recorded,
    bool pairs, std::vector<OpTotals>& totals)
{
    const bool ranged = filter.rangeEnd > filter.rangeBegin;
    const size_t n = track.size();
    // A flat track (most XLA Ops lines) has no children: its self time is its time, and the pass
    // below would only write zeros.
    std::vector<TimePs> childTime(track.maxDepth > 0 ? n : 0, 0);
    // The parent of an event at depth d is the latest earlier event at depth d − 1: nesting was
    // decided once, when the profile was built (ProfileBuilder::finish).
    std::vector<uint32_t> lastAtDepth(static_cast<size_t>(track.maxDepth) + 1, 0);
    for (size_t i = 0; i < childTime.size(); ++i) {
        const uint16_t depth = track.depth[i];
        if (depth > 0) {
            const uint32_t parent = lastAtDepth[depth - 1];
            const TimePs begin = track.start[i];
            childTime[parent] += std::max<TimePs>(0, std::min(track.end(i), track.end(parent)) - begin);
        }
        lastAtDepth[depth] = static_cast<uint32_t>(i);
    }
    auto inRange
        = [&](size_t i) { return !ranged || (track.start[i] < filter.rangeEnd && track.end(i) > filter.rangeBegin); };
    for (size_t i = 0; i < n; ++i) {
        if (!inRange(i))
            continue;
        OpTotals& t = totals[track.op[i]];
        t.occurrences += 1;
        t.time += static_cast<double>(track.duration[i]);
        t.self += static_cast<double>(std::max<TimePs>(0, track.duration[i] - (childTime.empty() ? 0 : childTime[i])));
    }
    if (pairs)
        forEachAsyncPair(track, model, [&](size_t done, size_t start) {
            if (!inRange(done))
                return;
            OpTotals& t = totals[track.op[done]];
            t.pairSpan += static_cast<double>(track.end(done) - track.start[start]);
            t.pairsTimed += 1;
        });
    if (!ranged) {
        for (const auto& a : track.aggregated) {
            OpTotals& t = totals[a.op];
            t.occurrences += a.occurrences;
            t.time += static_cast<double>(a.duration);
            double self = static_cast<double>(a.duration);
            // A file without a timeline may record what its original's timeline gave.
            if (recorded && a.op < recorded->opTimes.size()) {
                const RecordedOpTiming& r = recorded->opTimes[a.op];
                if (r.selfPs >= 0)
                    self = r.selfPs;
                t.pairSpan += r.pairSpanPs;
                t.pairsTimed += r.pairsTimed;
            }
            t.self += self;
        }
    }
}

/// Per-row facts that the rates need beyond the row's totals.
struct RowCost
{
    bool costKnown = false;
    bool bytesKnown = false;
    AsyncRole async = AsyncRole::None;
    size_t partnerRow = SIZE_MAX;
    TransferDirection direction = TransferDirection::None;
    double pairSpan = 0;
    int64_t pairsTimed = 0;
    double transferBytes = 0; // host transfers and async copies: the arrays moved (done half)
    double iciBytes = 0; // collectives: the data each device moves
    double partnerTimePs = 0; // async halves: the other half's own time
};

/// xprof's columns of one op row (own time, FORMATS.md §7), its bound and our own measures.
void rateRow(OpRow& row, const RowCost& cost, const DeviceInfo& device, const HostLinkStats* hostLink)
{
    const double ownTime = row.totalTimePs;
    row.rateTimePs = ownTime;
    if (cost.async == AsyncRole::Done && cost.partnerRow != SIZE_MAX)
        // Spans from the timeline where pairs were matched; otherwise (op_profile, aggregated
        // events) the two halves' own times, a lower bound of the span.
        row.rateTimePs = cost.pairsTimed > 0
            ? cost.pairSpan * (static_cast<double>(row.occurrences) / static_cast<double>(cost.pairsTimed))
            : ownTime + cost.partnerTimePs;
    if (!cost.costKnown || ownTime <= 0)
        return;
    // FLOP per ps = TFLOP/s; bytes per ps × 1000 = GB/s.
    row.attainedTflops = row.flops / ownTime;
    row.attainedHbmGbps = row.hbmBytes * 1000.0 / ownTime;
    row.flopsUtilizationUncapped = flopsUtilization(row.flops, ownTime, device.peakTflopsPerCore);
    if (cost.bytesKnown)
        row.hbmUtilizationUncapped = hbmUtilization(row.hbmBytes, ownTime, device.peakHbmGbpsPerCore);
    else
        row.attainedHbmGbps.reset();
    if (row.flopsUtilizationUncapped)
        row.flopsUtilization = std::min(1.0, *row.flopsUtilizationUncapped);
    if (row.hbmUtilizationUncapped)
        row.hbmUtilization = std::min(1.0, *row.hbmUtilizationUncapped);
    if (row.hbmBytes > 0)
        row.arithmeticIntensity = row.flops / row.hbmBytes;
    const double fu = row.flopsUtilizationUncapped.value_or(0), hu = row.hbmUtilizationUncapped.value_or(0);

    switch (row.ratedAgainst) {
    case RatedAgainst::HostLink:
        row.boundBy = BoundBy::Host;
        if (cost.async == AsyncRole::Done && row.rateTimePs > 0)
            row.hostGbps = row.hostBytes * 1000.0 / row.rateTimePs;
        if (hostLink) {
            const bool toHost = cost.direction == TransferDirection::ToHost;
            const HostLinkDirection& d = toHost ? hostLink->toHost : hostLink->toDevice;
            if (d.busyPs > 0)
                (toHost ? row.hostLinkToHostGbps : row.hostLinkToDeviceGbps) = d.gbps();
        }
        return;
    case RatedAgainst::Ici:
        // Collectives wait on the interconnect and on the other devices: never HBM- or compute-bound.
        row.boundBy = BoundBy::Ici;
        if (cost.iciBytes > 0 && row.rateTimePs > 0) {
            row.iciGbps = cost.iciBytes * 1000.0 / row.rateTimePs;
            if (device.iciGbpsPerCore > 0)
                row.iciUtilization = *row.iciGbps / device.iciGbpsPerCore;
        }
        return;
    case RatedAgainst::OnChip:
    case RatedAgainst::Nothing:
        return; // xprof: "Unknown" (no on-chip peak is recorded)
    case RatedAgainst::Roofline:
        break;
    }
    // xprof's bound: the resource with the higher utilization; Unknown when neither is above zero.
    if (fu > 0 || hu > 0)
        row.boundBy = fu >= hu ? BoundBy::Compute : BoundBy::Hbm;
    if (cost.async != AsyncRole::None && cost.partnerRow != SIZE_MAX) {
        // An HBM-to-HBM async copy: its bytes once over the start→done span.
        const double bytes = cost.transferBytes > 0 ? cost.transferBytes : row.countedHbmBytes;
        if (cost.async == AsyncRole::Done && row.rateTimePs > 0 && bytes > 0) {
            row.pairGbps = bytes * 1000.0 / row.rateTimePs;
            if (device.peakHbmGbpsPerCore > 0)
                row.pairHbmUtilization = *row.pairGbps / device.peakHbmGbpsPerCore;
        }
        return; // async halves wait on their partner: the roofline says nothing about them
    }
    if (!row.flopsUtilizationUncapped || !row.hbmUtilizationUncapped)
        return;
    row.capped = fu > 1 || hu > 1;
    if (row.capped && row.customKernelCost) {
        // A custom kernel's own estimate above the peak is a wrong estimate, not a fast kernel.
        row.efficiencyNote = "cost estimate above peak";
        return;
    }
    // At intensity I the roofline bound is min(peak FLOP/s, I × peak B/s); attained over bound is
    // the larger of the two utilizations (FORMATS.md §7).
    row.rooflineEfficiency = std::min(1.0, std::max(fu, hu));
    row.wastedFraction = row.timeFraction * (1.0 - *row.rooflineEfficiency);
    row.lowUtilization = *row.rooflineEfficiency < kDefaultLowUtilizationThreshold;
}

/// xprof's program-level utilization: all counted work over all op time.
HeadlineUtilization headline(const std::vector<OpRow>& rows, double totalTimePs, double peak, bool flops)
{
    HeadlineUtilization h;
    if (peak <= 0 || totalTimePs <= 0)
        return h;
    double work = 0, overPeakWork = 0;
    for (const OpRow& row : rows) {
        const std::optional<double>& u = flops ? row.flopsUtilizationUncapped : row.hbmUtilizationUncapped;
        if (!u)
            continue;
        const double w = flops ? row.countedFlops : row.countedHbmBytes;
        h.coveredTimePs += row.totalTimePs;
        work += w;
        if (row.capped && *u > 1) {
            overPeakWork += w;
            ++h.overPeakOps;
        }
    }
    if (h.coveredTimePs <= 0)
        return h;
    h.uncapped = flops ? *flopsUtilization(work, totalTimePs, peak) : *hbmUtilization(work, totalTimePs, peak);
    h.capped = std::min(1.0, *h.uncapped);
    h.overPeakPoints = work > 0 ? overPeakWork / work : 0;
    h.coveredFraction = std::min(1.0, h.coveredTimePs / totalTimePs);
    return h;
}

/// An op row's identity: (program, op name). The name views the profile's string table (or a
/// row's name), so that a big op name is not copied into a key (issue 18).
struct RowKey
{
    std::string program;
    std::string_view name;
    bool operator==(const RowKey&) const = default;
};

struct RowKeyHash
{
    size_t operator()(const RowKey& key) const
    {
        return hashCombine(std::hash<std::string_view> {}(key.name), std::hash<std::string> {}(key.program));
    }
};

/// Category or program rows, each combined from its op rows (read in the given order, not copied).
std::vector<OpRow> groupRows(
    const std::vector<const OpRow*>& opRows, GroupBy groupBy, double totalTimePs, const DeviceInfo& device)
{
    std::vector<std::vector<const OpRow*>> members;
    std::vector<std::string> names;
    std::unordered_map<std::string, size_t> index;
    for (const OpRow* member : opRows) {
        const OpRow& r = *member;
        const std::string key = groupBy == GroupBy::Category ? r.category
            : groupBy == GroupBy::Program                    ? r.program
            : groupBy == GroupBy::FrameworkOp                ? r.frameworkOp
            : groupBy == GroupBy::LayerGroup                 ? r.program + '\x1f' + std::to_string(r.groupKey)
                                                             : r.source;
        auto [it, inserted] = index.emplace(key, members.size());
        if (inserted) {
            members.emplace_back();
            names.push_back(key);
        }
        members[it->second].push_back(&r);
    }
    std::vector<OpRow> rows;
    rows.reserve(members.size());
    for (size_t g = 0; g < members.size(); ++g) {
        OpRow row = combineOpRows(members[g], totalTimePs, device);
        switch (groupBy) {
        case GroupBy::Category:
            row.name = names[g];
            row.category = names[g];
            break;
        case GroupBy::Program:
            row.name = names[g].empty() ? "(no program)" : names[g];
            row.program = names[g];
            break;
        case GroupBy::FrameworkOp:
            row.name = names[g].empty() ? "(not recorded)" : names[g];
            row.frameworkOp = names[g];
            break;
        case GroupBy::LayerGroup: {
            // The ops' common name: "all-reduce.*" for several, the op's own name for one; the
            // group's op (what a view selects) is its largest member.
            const OpRow* top = *std::max_element(members[g].begin(), members[g].end(),
                [](const OpRow* a, const OpRow* b) { return a->totalTimePs < b->totalTimePs; });
            row.name = members[g].size() > 1 ? opNameStem(top->name) : top->name;
            row.program = top->program;
            row.op = top->op;
            row.frameworkOp = top->frameworkOp;
            row.source = top->source;
            row.groupKey = top->groupKey;
            break;
        }
        case GroupBy::Source:
        case GroupBy::Op:
            row.name = names[g].empty() ? "(not recorded)" : names[g];
            row.source = names[g];
            break;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

/// What an async pair's two records of work count for together. Producers record a transfer either
/// on both halves alike (XSpace copies: each half carries the whole array) or split between them (an
/// op_profile's copy-start reads HBM, its copy-done writes VMEM; a collective's start and done move
/// different arrays): alike records are one transfer, counted once; different ones add up, as
/// xprof's program totals add them.
double pairWork(double done, double start)
{
    const double larger = std::max(done, start), smaller = std::min(done, start);
    return larger > 0 && smaller >= 0.99 * larger ? larger : done + start;
}

/// Group efficiencies speak for the group only when the members that have one hold most of its time.
constexpr double kGroupEfficiencyMinCoverage = 0.5;

} // namespace

std::vector<size_t> rowOfEachOp(const Profile& profile, const OpBreakdown& breakdown)
{
    std::unordered_map<RowKey, size_t, RowKeyHash> index;
    index.reserve(breakdown.rows.size());
    for (size_t r = 0; r < breakdown.rows.size(); ++r)
        index.emplace(RowKey {breakdown.rows[r].program, breakdown.rows[r].name}, r);
    std::vector<size_t> rows(profile.ops.size(), SIZE_MAX);
    for (OpId id = 0; id < profile.ops.size(); ++id) {
        auto it = index.find(RowKey {opProgramLabel(profile, profile.ops[id]), profile.str(profile.ops[id].name)});
        if (it != index.end())
            rows[id] = it->second;
    }
    return rows;
}

std::unordered_map<std::string, OpClass> categoryClasses(const OpBreakdown& breakdown)
{
    std::unordered_map<std::string, std::map<OpClass, double>> time;
    for (const OpRow& row : breakdown.rows)
        time[row.category][row.opClass] += row.totalTimePs;
    std::unordered_map<std::string, OpClass> out;
    for (const auto& [category, byClass] : time) {
        OpClass best = OpClass::Compute;
        double bestTime = -1;
        for (const auto& [opClass, t] : byClass)
            if (t > bestTime) {
                best = opClass;
                bestTime = t;
            }
        out.emplace(category, best);
    }
    return out;
}

OpRow combineOpRows(const std::vector<const OpRow*>& members, double totalTimePs, const DeviceInfo& device)
{
    OpRow row;
    double knownCostTime = 0, effT = 0, effW = 0, wasted = 0, hostRateTime = 0, hostRateBytes = 0;
    double iciTime = 0, iciBytes = 0, fuTime = 0, huTime = 0;
    bool anyWasted = false, lowApplies = false;
    std::map<BoundBy, double> timeByBound;
    std::map<OpClass, double> timeByClass;
    std::map<RatedAgainst, double> timeByRating;
    std::map<CostSource, double> timeByCost;
    for (const OpRow* member : members) {
        const OpRow& r = *member;
        // A category or program row counts each instant once, for the innermost op running then
        // (self time): with inclusive times a row holding a step and the ops inside it, as some
        // Chrome traces have on one line, would count that time twice and rows would add up to
        // more than the busy time. On TPU XLA Ops lines nothing nests, and the two are the same.
        const double w = r.selfTimePs;
        row.occurrences += r.occurrences;
        row.totalTimePs += r.selfTimePs;
        row.selfTimePs += r.selfTimePs;
        // A group's FLOPs and bytes are what its ops did, an async pair's once (on its done half).
        row.flops += r.countedFlops;
        row.modelFlops += r.modelFlops;
        row.bytesAccessed += r.countedBytesAccessed;
        row.hbmBytes += r.countedHbmBytes;
        row.hostBytes += r.hostBytes;
        row.countedFlops += r.countedFlops;
        row.countedHbmBytes += r.countedHbmBytes;
        row.countedBytesAccessed += r.countedBytesAccessed;
        row.largestArrayBytes = std::max(row.largestArrayBytes, r.largestArrayBytes);
        row.hbmFromBreakdown = row.hbmFromBreakdown || r.hbmFromBreakdown;
        row.customKernelCost = row.customKernelCost || r.customKernelCost;
        row.capped = row.capped || r.capped;
        knownCostTime += r.costCoverage * w;
        timeByBound[r.boundBy] += w;
        timeByClass[r.opClass] += w;
        timeByRating[r.ratedAgainst] += w;
        timeByCost[r.costSource] += w;
        if (r.flopsUtilizationUncapped)
            fuTime += w;
        if (r.hbmUtilizationUncapped)
            huTime += w;
        if (r.rooflineEfficiency) {
            effT += *r.rooflineEfficiency * w;
            effW += w;
        }
        lowApplies = lowApplies || r.lowUtilization.has_value();
        if (r.wastedFraction && r.totalTimePs > 0) {
            wasted += *r.wastedFraction * (r.selfTimePs / r.totalTimePs);
            anyWasted = true;
        }
        if (r.hostGbps) {
            hostRateTime += r.rateTimePs;
            hostRateBytes += r.hostBytes;
        }
        if (r.hostLinkToDeviceGbps)
            row.hostLinkToDeviceGbps = r.hostLinkToDeviceGbps;
        if (r.hostLinkToHostGbps)
            row.hostLinkToHostGbps = r.hostLinkToHostGbps;
        if (r.iciGbps) {
            iciTime += r.rateTimePs;
            iciBytes += *r.iciGbps * r.rateTimePs / 1000.0;
        }
    }
    auto most = [](const auto& byKey, auto fallback) {
        auto best = fallback;
        double bestTime = -1;
        for (const auto& [key, time] : byKey)
            if (time > bestTime) {
                best = key;
                bestTime = time;
            }
        return best;
    };
    row.timeFraction = totalTimePs > 0 ? row.totalTimePs / totalTimePs : 0;
    row.memberOps = static_cast<int64_t>(members.size());
    row.rateTimePs = row.totalTimePs;
    row.costCoverage = row.totalTimePs > 0 ? knownCostTime / row.totalTimePs : 0;
    row.opClass = most(timeByClass, OpClass::Compute);
    row.ratedAgainst = most(timeByRating, RatedAgainst::Roofline);
    row.costSource = most(timeByCost, CostSource::None);
    // xprof's group figures: the group's counted work over its time (as an op_profile category node).
    if (fuTime > 0)
        if ((row.flopsUtilizationUncapped
                = flopsUtilization(row.countedFlops, row.totalTimePs, device.peakTflopsPerCore)))
            row.flopsUtilization = std::min(1.0, *row.flopsUtilizationUncapped);
    if (huTime > 0)
        if ((row.hbmUtilizationUncapped
                = hbmUtilization(row.countedHbmBytes, row.totalTimePs, device.peakHbmGbpsPerCore)))
            row.hbmUtilization = std::min(1.0, *row.hbmUtilizationUncapped);
    if (row.countedHbmBytes > 0 && row.costCoverage > 0)
        row.arithmeticIntensity = row.countedFlops / row.countedHbmBytes;
    // The group is bound by what bounds most of its time: a program that waits on the host link 97 %
    // of its time is host-bound, whatever its few fusions are.
    row.boundBy = most(timeByBound, BoundBy::Unknown);
    if (effW > 0 && effW >= kGroupEfficiencyMinCoverage * row.totalTimePs) {
        row.rooflineEfficiency = effT / effW;
        if (lowApplies) // a group of collectives only is not "low utilization" either
            row.lowUtilization = *row.rooflineEfficiency < kDefaultLowUtilizationThreshold;
        if (anyWasted)
            row.wastedFraction = wasted;
    } else if (effW > 0) {
        row.efficiencyNote = "most of its time is not on the roofline";
    }
    if (hostRateTime > 0)
        row.hostGbps = hostRateBytes * 1000.0 / hostRateTime;
    if (iciTime > 0) {
        row.iciGbps = iciBytes * 1000.0 / iciTime;
        if (device.iciGbpsPerCore > 0)
            row.iciUtilization = *row.iciGbps / device.iciGbpsPerCore;
    }
    return row;
}

namespace {
std::atomic<uint64_t> g_opBreakdownComputations {0};

void sortRowsByTime(std::vector<OpRow>& rows)
{
    std::stable_sort(rows.begin(), rows.end(), [](const OpRow& a, const OpRow& b) {
        if (a.totalTimePs != b.totalTimePs)
            return a.totalTimePs > b.totalTimePs;
        return a.name < b.name;
    });
}
} // namespace

uint64_t opBreakdownComputations()
{
    return g_opBreakdownComputations.load(std::memory_order_relaxed);
}

OpBreakdown regroupOpBreakdown(const OpBreakdown& opLevel, GroupBy groupBy)
{
    if (groupBy == GroupBy::Op || opLevel.groupBy != GroupBy::Op) {
        OpBreakdown result = opLevel;
        result.groupBy = groupBy;
        return result;
    }
    // Every field but the op rows, which are read and not copied (a copy of every op name was a
    // third and fourth copy of a big name string, issue 18). Keep in step with OpBreakdown.
    OpBreakdown result;
    result.groupBy = groupBy;
    result.core = opLevel.core;
    result.coresCounted = opLevel.coresCounted;
    result.coresRepresented = opLevel.coresRepresented;
    result.device = opLevel.device;
    result.totalTimePs = opLevel.totalTimePs;
    result.totalFlops = opLevel.totalFlops;
    result.totalHbmBytes = opLevel.totalHbmBytes;
    result.costCoverage = opLevel.costCoverage;
    result.flops = opLevel.flops;
    result.hbm = opLevel.hbm;
    // Op rows are made in op-id order and then sorted by time; grouping them in the order they
    // were made sums each group in the same order as computeOpBreakdown, to the last bit.
    std::vector<const OpRow*> madeOrder;
    madeOrder.reserve(opLevel.rows.size());
    for (const OpRow& row : opLevel.rows)
        madeOrder.push_back(&row);
    std::stable_sort(madeOrder.begin(), madeOrder.end(), [](const OpRow* x, const OpRow* y) { return x->op < y->op; });
    result.rows = groupRows(madeOrder, groupBy, opLevel.totalTimePs, opLevel.device);
    sortRowsByTime(result.rows);
    return result;
}

OpBreakdown computeOpBreakdown(const Profile& profile, const OpFilter& filter, GroupBy groupBy)
{
    const OpModel model = buildOpModel(profile);
    const HostLinkStats hostLink = computeHostLink(profile, model);
    return computeOpBreakdown(profile, model, &hostLink, filter, groupBy);
}

OpBreakdown computeOpBreakdown(const Profile& profile, const OpModel& model, const HostLinkStats* hostLink,
    const OpFilter& filter, GroupBy groupBy)
{
    g_opBreakdownComputations.fetch_add(1, std::memory_order_relaxed);
    OpBreakdown result;
    result.groupBy = groupBy;
    result.core = filter.core;
    result.device = profile.device;

    std::vector<OpTotals> totals(profile.ops.size());
    const std::vector<PlaneId> cores = profile.tpuCorePlanes();
    const bool pairs
        = std::any_of(model.ops.begin(), model.ops.end(), [](const OpTraits& t) { return t.async == AsyncRole::Done; });
    bool aggregate = false;
    for (size_t ordinal = 0; ordinal < cores.size(); ++ordinal) {
        if (filter.core >= 0 && static_cast<int>(ordinal) != filter.core)
            continue;
        ++result.coresCounted;
        aggregate = aggregate || profile.planes[cores[ordinal]].aggregate;
        for (TrackId trackId : profile.planes[cores[ordinal]].tracks) {
            const Track& track = profile.tracks[trackId];
            if (track.kind == TrackKind::XlaOps)
                accumulateTrack(track, filter, model, profile.recorded.get(), pairs, totals);
        }
    }
    // Per-core figures divide by the cores the time is summed over: one plane each, or the device's
    // count where one plane sums every core (op_profile.json).
    result.coresRepresented = aggregate && filter.core < 0 ? std::max(1, profile.device.cores) : result.coresCounted;

    // Op rows keyed by (program, op name): the same HLO op on eight cores is one row.
    std::vector<OpRow> rows;
    std::vector<RowCost> costs;
    std::vector<size_t> rowOfOp(profile.ops.size(), SIZE_MAX);
    std::unordered_map<RowKey, size_t, RowKeyHash> rowIndex;
    for (OpId id = 0; id < profile.ops.size(); ++id) {
        const OpTotals& t = totals[id];
        if (t.occurrences == 0)
            continue;
        const OpInfo& op = profile.ops[id];
        const OpTraits& trait = model[id];
        std::string program = opProgramLabel(profile, op);
        auto [it, inserted] = rowIndex.emplace(RowKey {program, profile.str(op.name)}, rows.size());
        if (inserted) {
            OpRow row;
            row.op = id;
            row.name = profile.str(op.name);
            row.program = program;
            row.category = profile.str(op.category);
            row.opClass = trait.opClass;
            row.ratedAgainst = trait.ratedAgainst;
            const OpAttribution attribution = opAttribution(profile, id);
            row.frameworkOp = attribution.frameworkOp;
            row.source = attribution.source;
            rows.push_back(std::move(row));
            costs.emplace_back();
        }
        rowOfOp[id] = it->second;
        OpRow& row = rows[it->second];
        RowCost& cost = costs[it->second];
        const double occurrences = static_cast<double>(t.occurrences);
        row.occurrences += t.occurrences;
        row.totalTimePs += t.time;
        row.selfTimePs += t.self;
        row.flops += flopsPerOccurrence(op, trait) * occurrences;
        // A shapes estimate counts what the kernel must do: its FLOPs are model FLOPs too.
        row.modelFlops += (trait.costSource == CostSource::Shapes ? trait.shapeFlops : op.modelFlops) * occurrences;
        row.bytesAccessed
            += (trait.costSource == CostSource::Shapes ? trait.shapeBytes : op.bytesAccessed) * occurrences;
        row.hbmBytes += hbmBytesPerOccurrence(op, trait) * occurrences;
        row.hbmFromBreakdown = row.hbmFromBreakdown || op.hbmBytes >= 0;
        row.customKernelCost = row.customKernelCost || trait.customKernel;
        if (row.costSource == CostSource::None || trait.costSource == CostSource::File)
            row.costSource = trait.costSource;
        row.groupKey = trait.groupKey;
        row.largestArrayBytes = std::max(row.largestArrayBytes, trait.largestArrayBytes);
        cost.costKnown = cost.costKnown || trait.costKnown;
        cost.bytesKnown = cost.bytesKnown || trait.bytesKnown;
        cost.async = trait.async;
        cost.direction = trait.direction != TransferDirection::None ? trait.direction : cost.direction;
        cost.pairSpan += t.pairSpan;
        cost.pairsTimed += t.pairsTimed;
        cost.transferBytes += trait.transferBytes * occurrences;
        if (trait.isCollective())
            cost.iciBytes += trait.largestArrayLogicalBytes * occurrences;
    }
    for (OpId id = 0; id < profile.ops.size(); ++id) {
        const size_t r = rowOfOp[id];
        if (r != SIZE_MAX && model[id].partner != kNone && rowOfOp[model[id].partner] != SIZE_MAX)
            costs[r].partnerRow = rowOfOp[model[id].partner];
    }

    for (const OpRow& row : rows)
        result.totalTimePs += row.selfTimePs;
    double costKnownTime = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
        OpRow& row = rows[r];
        RowCost& cost = costs[r];
        row.timeFraction = result.totalTimePs > 0 ? row.totalTimePs / result.totalTimePs : 0;
        row.countedFlops = row.flops;
        row.countedHbmBytes = row.hbmBytes;
        row.countedBytesAccessed = row.bytesAccessed;
        if (cost.partnerRow != SIZE_MAX) {
            row.asyncPartner = rows[cost.partnerRow].name;
            // A pair is one transfer: its work counts once, on the done half, in every aggregate.
            const OpRow& other = rows[cost.partnerRow];
            if (cost.async == AsyncRole::Done) {
                row.countedFlops = pairWork(row.flops, other.flops);
                row.countedHbmBytes = pairWork(row.hbmBytes, other.hbmBytes);
                row.countedBytesAccessed = pairWork(row.bytesAccessed, other.bytesAccessed);
                cost.costKnown = cost.costKnown || costs[cost.partnerRow].costKnown;
                cost.bytesKnown = cost.bytesKnown || costs[cost.partnerRow].bytesKnown;
                if (cost.transferBytes <= 0)
                    cost.transferBytes = costs[cost.partnerRow].transferBytes;
                if (cost.direction == TransferDirection::None)
                    cost.direction = costs[cost.partnerRow].direction;
                // One collective moves its data once: on the done half, the larger record.
                cost.iciBytes = std::max(cost.iciBytes, costs[cost.partnerRow].iciBytes);
                cost.partnerTimePs = other.totalTimePs;
            } else {
                row.countedFlops = 0;
                row.countedHbmBytes = 0;
                row.countedBytesAccessed = 0;
            }
        }
        if (row.ratedAgainst == RatedAgainst::HostLink && cost.async != AsyncRole::Start) {
            // The array each transfer moves, else (no HLO) the larger cost record of the halves.
            row.hostBytes = cost.transferBytes > 0 ? cost.transferBytes : row.countedHbmBytes;
        }
    }
    for (size_t r = 0; r < rows.size(); ++r) {
        const RowCost& cost = costs[r];
        if (cost.partnerRow != SIZE_MAX && cost.async == AsyncRole::Start)
            rows[r].costCoverage = costs[cost.partnerRow].costKnown || cost.costKnown ? 1 : 0;
        else
            rows[r].costCoverage = cost.costKnown ? 1 : 0;
        if (rows[r].costCoverage > 0)
            costKnownTime += rows[r].totalTimePs;
        RowCost rated = cost;
        rated.costKnown = rows[r].costCoverage > 0;
        rateRow(rows[r], rated, profile.device, hostLink);
    }
    // The start half of a pair shows the pair's measures next to its own xprof columns.
    for (size_t r = 0; r < rows.size(); ++r) {
        const RowCost& cost = costs[r];
        if (cost.async != AsyncRole::Start || cost.partnerRow == SIZE_MAX)
            continue;
        const OpRow& done = rows[cost.partnerRow];
        OpRow& start = rows[r];
        start.rateTimePs = done.rateTimePs;
        start.pairGbps = done.pairGbps;
        start.pairHbmUtilization = done.pairHbmUtilization;
        start.hostGbps = done.hostGbps;
        start.iciGbps = done.iciGbps;
        start.iciUtilization = done.iciUtilization;
    }
    for (const OpRow& row : rows) {
        result.totalFlops += row.countedFlops;
        result.totalHbmBytes += row.countedHbmBytes;
    }
    result.costCoverage = result.totalTimePs > 0 ? std::min(1.0, costKnownTime / result.totalTimePs) : 0;
    result.flops = headline(rows, result.totalTimePs, profile.device.peakTflopsPerCore, true);
    result.hbm = headline(rows, result.totalTimePs, profile.device.peakHbmGbpsPerCore, false);
    if (filter.core < 0 && filter.rangeEnd <= filter.rangeBegin) {
        // The file's own program figure, where it records one, is what the headline reproduces.
        auto agrees = [](const HeadlineUtilization& h, const std::optional<double>& file) {
            return file && h.uncapped && std::fabs(*h.uncapped - *file) <= kRootAgreement;
        };
        result.flops.fromFile = agrees(result.flops, profile.fileRootUtilization.flops);
        result.hbm.fromFile = agrees(result.hbm, profile.fileRootUtilization.hbm);
    }

    if (groupBy == GroupBy::Op) {
        result.rows = std::move(rows);
        result.perOp = std::move(totals);
    } else {
        std::vector<const OpRow*> members;
        members.reserve(rows.size());
        for (const OpRow& row : rows)
            members.push_back(&row);
        result.rows = groupRows(members, groupBy, result.totalTimePs, profile.device);
    }
    sortRowsByTime(result.rows);
    return result;
}

} // namespace tpuscope::model
