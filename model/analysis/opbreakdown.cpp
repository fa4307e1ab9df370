// SPDX-License-Identifier: GPL-3.0-or-later
#include "opbreakdown.h"

#include "attribution.h"
#include "opcost.h"

#include <algorithm>
#include <atomic>
#include <deque>
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

bool isFusionCategory(std::string_view category)
{
    return category.ends_with(" fusion") || category == "fusion";
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
    case BoundBy::Unknown:
        break;
    }
    return nullptr;
}

std::optional<bool> isLowUtilization(const OpRow& row, double threshold)
{
    // Known only where the breakdown found it applicable (cost data, peaks, not a collective).
    if (!row.rooflineEfficiency || !row.lowUtilization)
        return std::nullopt;
    return *row.rooflineEfficiency < threshold;
}

namespace {

struct OpTotals
{
    int64_t occurrences = 0;
    double time = 0;
    double self = 0;
    double pairSpan = 0; // done halves: start→done spans of the pairs matched on the timeline
    int64_t pairsTimed = 0; // how many occurrences those spans cover
};

/// Sums time and self time per op over one track. Self time = duration − time of the
/// direct children on the same line (children clipped to their parent). Async done events are
/// matched with the oldest open start of their pair on the same line, for the pair's span.
void accumulateTrack(
    const Track& track, const OpFilter& filter, const std::vector<OpCostTraits>& traits, std::vector<OpTotals>& totals)
{
    const bool ranged = filter.rangeEnd > filter.rangeBegin;
    const size_t n = track.size();
    std::vector<TimePs> childTime(n, 0);
    // The parent of an event at depth d is the latest earlier event at depth d − 1: nesting was
    // decided once, when the profile was built (ProfileBuilder::finish).
    std::vector<uint32_t> lastAtDepth(static_cast<size_t>(track.maxDepth) + 1, 0);
    for (size_t i = 0; i < n; ++i) {
        const uint16_t depth = track.depth[i];
        if (depth > 0) {
            const uint32_t parent = lastAtDepth[depth - 1];
            const TimePs begin = track.start[i];
            childTime[parent] += std::max<TimePs>(0, std::min(track.end(i), track.end(parent)) - begin);
        }
        lastAtDepth[depth] = static_cast<uint32_t>(i);
    }
    std::unordered_map<OpId, std::deque<TimePs>> openStarts;
    for (size_t i = 0; i < n; ++i) {
        const OpCostTraits& trait = traits[track.op[i]];
        TimePs pairBegin = -1;
        if (trait.async == AsyncRole::Start) {
            openStarts[track.op[i]].push_back(track.start[i]);
        } else if (trait.async == AsyncRole::Done) {
            auto it = openStarts.find(trait.partner);
            if (it != openStarts.end() && !it->second.empty()) {
                pairBegin = it->second.front();
                it->second.pop_front();
            }
        }
        if (ranged && (track.start[i] >= filter.rangeEnd || track.end(i) <= filter.rangeBegin))
            continue;
        OpTotals& t = totals[track.op[i]];
        t.occurrences += 1;
        t.time += static_cast<double>(track.duration[i]);
        t.self += static_cast<double>(std::max<TimePs>(0, track.duration[i] - childTime[i]));
        if (pairBegin >= 0) {
            t.pairSpan += static_cast<double>(track.end(i) - pairBegin);
            t.pairsTimed += 1;
        }
    }
    if (!ranged) {
        for (const auto& a : track.aggregated) {
            OpTotals& t = totals[a.op];
            t.occurrences += a.occurrences;
            t.time += static_cast<double>(a.duration);
            t.self += static_cast<double>(a.duration);
        }
    }
}

std::string programName(const Profile& profile, const OpInfo& op)
{
    if (op.program != kNone)
        return profile.programs[op.program].name;
    if (op.hasProgramId)
        return "program " + std::to_string(op.programId);
    return {};
}

/// Per-row facts that the rates need beyond the row's totals.
struct RowCost
{
    bool costKnown = false;
    bool hostTransfer = false;
    bool collective = false;
    AsyncRole async = AsyncRole::None;
    size_t partnerRow = SIZE_MAX;
    double vmemBytes = 0;
    double pairSpan = 0;
    int64_t pairsTimed = 0;
    double ratedFlops = 0; // what the rates use: an async pair's cost once, on its done half
    double ratedBytes = 0;
};

/// Utilizations, roofline position and waste of one op row, from its totals and rate time.
void rateRow(OpRow& row, const RowCost& cost, const DeviceInfo& device)
{
    if (!cost.costKnown || row.rateTimePs <= 0)
        return;
    // FLOP per ps = TFLOP/s; bytes per ps × 1000 = GB/s.
    row.attainedTflops = cost.ratedFlops / row.rateTimePs;
    if (!cost.hostTransfer)
        row.attainedHbmGbps = cost.ratedBytes * 1000.0 / row.rateTimePs;
    row.flopsUtilizationUncapped = flopsUtilization(cost.ratedFlops, row.rateTimePs, device.peakTflopsPerCore);
    if (row.flopsUtilizationUncapped)
        row.flopsUtilization = std::min(1.0, *row.flopsUtilizationUncapped);
    if (cost.hostTransfer) {
        // Host memory sits behind the host link, not HBM: rate the bytes there. No host-link peak
        // is recorded in any format, so its efficiency stays unknown.
        row.hostGbps = row.hostBytes * 1000.0 / row.rateTimePs;
        row.boundBy = BoundBy::Host;
        return;
    }
    if (cost.ratedBytes > 0)
        row.arithmeticIntensity = cost.ratedFlops / cost.ratedBytes;
    row.hbmUtilizationUncapped = hbmUtilization(cost.ratedBytes, row.rateTimePs, device.peakHbmGbpsPerCore);
    if (row.hbmUtilizationUncapped)
        row.hbmUtilization = std::min(1.0, *row.hbmUtilizationUncapped);
    row.capped = row.flopsUtilizationUncapped.value_or(0) > 1 || row.hbmUtilizationUncapped.value_or(0) > 1;
    if (row.flopsUtilizationUncapped && row.hbmUtilizationUncapped) {
        // At intensity I the roofline bound is min(peak FLOP/s, I × peak B/s); attained over bound
        // is the larger of the two utilizations, and the larger one names the roof (FORMATS.md §7).
        const double fu = *row.flopsUtilizationUncapped;
        const double hu = *row.hbmUtilizationUncapped;
        row.rooflineEfficiency = std::min(1.0, std::max(fu, hu));
        row.boundBy = fu >= hu ? BoundBy::Compute : BoundBy::Hbm;
        row.wastedFraction = row.timeFraction * (1.0 - *row.rooflineEfficiency);
        // Collectives and async halves wait on the interconnect or their partner: far from the
        // HBM/compute roofline is no sign of a slow op there, so they are not "low utilization".
        if (!cost.collective && cost.async == AsyncRole::None)
            row.lowUtilization = *row.rooflineEfficiency < kDefaultLowUtilizationThreshold;
    }
}

/// The start half of an async pair shows the pair's rates (its bytes are counted on the done half).
void copyPairRates(OpRow& start, const OpRow& done)
{
    start.flopsUtilization = done.flopsUtilization;
    start.flopsUtilizationUncapped = done.flopsUtilizationUncapped;
    start.hbmUtilization = done.hbmUtilization;
    start.hbmUtilizationUncapped = done.hbmUtilizationUncapped;
    start.capped = done.capped;
    start.hostGbps = done.hostGbps;
    start.attainedTflops = done.attainedTflops;
    start.attainedHbmGbps = done.attainedHbmGbps;
    start.arithmeticIntensity = done.arithmeticIntensity;
    start.rooflineEfficiency = done.rooflineEfficiency;
    start.boundBy = done.boundBy;
    start.rateTimePs = done.rateTimePs;
    if (start.rooflineEfficiency)
        start.wastedFraction = start.timeFraction * (1.0 - *start.rooflineEfficiency);
}

/// Time-weighted mean of a utilization over the rows that know it.
template <typename Get> HeadlineUtilization headline(const std::vector<OpRow>& rows, Get get)
{
    HeadlineUtilization h;
    double capped = 0, uncapped = 0, overPeak = 0;
    for (const OpRow& row : rows) {
        const std::optional<double> u = get(row);
        if (!u || row.totalTimePs <= 0)
            continue;
        h.coveredTimePs += row.totalTimePs;
        capped += std::min(1.0, *u) * row.totalTimePs;
        uncapped += *u * row.totalTimePs;
        if (*u > 1) {
            overPeak += row.totalTimePs;
            ++h.overPeakOps;
        }
    }
    if (h.coveredTimePs > 0) {
        h.capped = capped / h.coveredTimePs;
        h.uncapped = uncapped / h.coveredTimePs;
        h.overPeakPoints = overPeak / h.coveredTimePs;
    }
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
        const size_t h = std::hash<std::string_view> {}(key.name);
        return h ^ (std::hash<std::string> {}(key.program) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
    }
};

/// Category or program rows, each combined from its op rows (read in the given order, not copied).
std::vector<OpRow> groupRows(const std::vector<const OpRow*>& opRows, GroupBy groupBy, double totalTimePs)
{
    std::vector<std::vector<const OpRow*>> members;
    std::vector<std::string> names;
    std::unordered_map<std::string, size_t> index;
    for (const OpRow* member : opRows) {
        const OpRow& r = *member;
        const std::string& key = groupBy == GroupBy::Category ? r.category
            : groupBy == GroupBy::Program                     ? r.program
            : groupBy == GroupBy::FrameworkOp                 ? r.frameworkOp
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
        OpRow row = combineOpRows(members[g], totalTimePs);
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

} // namespace

std::vector<size_t> rowOfEachOp(const Profile& profile, const OpBreakdown& breakdown)
{
    std::unordered_map<RowKey, size_t, RowKeyHash> index;
    index.reserve(breakdown.rows.size());
    for (size_t r = 0; r < breakdown.rows.size(); ++r)
        index.emplace(RowKey {breakdown.rows[r].program, breakdown.rows[r].name}, r);
    std::vector<size_t> rows(profile.ops.size(), SIZE_MAX);
    for (OpId id = 0; id < profile.ops.size(); ++id) {
        auto it = index.find(RowKey {programName(profile, profile.ops[id]), profile.str(profile.ops[id].name)});
        if (it != index.end())
            rows[id] = it->second;
    }
    return rows;
}

OpRow combineOpRows(const std::vector<const OpRow*>& members, double totalTimePs)
{
    OpRow row;
    double fuT = 0, fuUT = 0, fuW = 0, huT = 0, huUT = 0, huW = 0, effT = 0, effW = 0, wasted = 0;
    double knownCostTime = 0, hostRateTime = 0;
    bool anyWasted = false, lowApplies = false;
    size_t hostMembers = 0;
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
        row.flops += r.flops;
        row.modelFlops += r.modelFlops;
        row.bytesAccessed += r.bytesAccessed;
        row.hbmBytes += r.hbmBytes;
        row.hostBytes += r.hostBytes;
        row.largestArrayBytes = std::max(row.largestArrayBytes, r.largestArrayBytes);
        row.hbmFromBreakdown = row.hbmFromBreakdown || r.hbmFromBreakdown;
        row.customKernelCost = row.customKernelCost || r.customKernelCost;
        row.capped = row.capped || r.capped;
        knownCostTime += r.costCoverage * w;
        if (r.flopsUtilizationUncapped) {
            fuT += std::min(1.0, *r.flopsUtilizationUncapped) * w;
            fuUT += *r.flopsUtilizationUncapped * w;
            fuW += w;
        }
        if (r.hbmUtilizationUncapped) {
            huT += std::min(1.0, *r.hbmUtilizationUncapped) * w;
            huUT += *r.hbmUtilizationUncapped * w;
            huW += w;
        }
        if (r.rooflineEfficiency) {
            effT += *r.rooflineEfficiency * w;
            effW += w;
        }
        lowApplies = lowApplies || r.lowUtilization.has_value();
        if (r.wastedFraction && r.totalTimePs > 0) {
            wasted += *r.wastedFraction * (r.selfTimePs / r.totalTimePs);
            anyWasted = true;
        }
        if (r.boundBy == BoundBy::Host) {
            ++hostMembers;
            hostRateTime += r.rateTimePs;
        }
    }
    // Sums add up; rates are the time-weighted means of the members that know them, so a group is
    // never rated on ops without cost data.
    row.timeFraction = totalTimePs > 0 ? row.totalTimePs / totalTimePs : 0;
    row.rateTimePs = row.totalTimePs;
    row.costCoverage = row.totalTimePs > 0 ? knownCostTime / row.totalTimePs : 0;
    if (fuW > 0) {
        row.flopsUtilization = fuT / fuW;
        row.flopsUtilizationUncapped = fuUT / fuW;
    }
    if (huW > 0) {
        row.hbmUtilization = huT / huW;
        row.hbmUtilizationUncapped = huUT / huW;
    }
    if (row.hbmBytes > 0 && row.costCoverage > 0)
        row.arithmeticIntensity = row.flops / row.hbmBytes;
    if (effW > 0) {
        row.rooflineEfficiency = effT / effW;
        if (lowApplies) // a group of collectives only is not "low utilization" either
            row.lowUtilization = *row.rooflineEfficiency < kDefaultLowUtilizationThreshold;
        row.boundBy
            = row.flopsUtilization.value_or(0) >= row.hbmUtilization.value_or(0) ? BoundBy::Compute : BoundBy::Hbm;
    } else if (!members.empty() && hostMembers == members.size()) {
        row.boundBy = BoundBy::Host;
        if (hostRateTime > 0)
            row.hostGbps = row.hostBytes * 1000.0 / hostRateTime;
    }
    if (anyWasted)
        row.wastedFraction = wasted;
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
    result.rows = groupRows(madeOrder, groupBy, opLevel.totalTimePs);
    sortRowsByTime(result.rows);
    return result;
}

OpBreakdown computeOpBreakdown(const Profile& profile, const OpFilter& filter, GroupBy groupBy)
{
    g_opBreakdownComputations.fetch_add(1, std::memory_order_relaxed);
    OpBreakdown result;
    result.groupBy = groupBy;
    result.core = filter.core;

    const std::vector<OpCostTraits> traits = classifyOpCosts(profile);
    std::vector<OpTotals> totals(profile.ops.size());
    const std::vector<PlaneId> cores = profile.tpuCorePlanes();
    for (size_t ordinal = 0; ordinal < cores.size(); ++ordinal) {
        if (filter.core >= 0 && static_cast<int>(ordinal) != filter.core)
            continue;
        ++result.coresCounted;
        for (TrackId trackId : profile.planes[cores[ordinal]].tracks) {
            const Track& track = profile.tracks[trackId];
            if (track.kind == TrackKind::XlaOps)
                accumulateTrack(track, filter, traits, totals);
        }
    }

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
        std::string program = programName(profile, op);
        auto [it, inserted] = rowIndex.emplace(RowKey {program, profile.str(op.name)}, rows.size());
        if (inserted) {
            OpRow row;
            row.op = id;
            row.name = profile.str(op.name);
            row.program = program;
            row.category = profile.str(op.category);
            const OpAttribution attribution = opAttribution(profile, id);
            row.frameworkOp = attribution.frameworkOp;
            row.source = attribution.source;
            rows.push_back(std::move(row));
            costs.emplace_back();
        }
        rowOfOp[id] = it->second;
        OpRow& row = rows[it->second];
        RowCost& cost = costs[it->second];
        const OpCostTraits& trait = traits[id];
        const double occurrences = static_cast<double>(t.occurrences);
        row.occurrences += t.occurrences;
        row.totalTimePs += t.time;
        row.selfTimePs += t.self;
        row.flops += op.flops * occurrences;
        row.modelFlops += op.modelFlops * occurrences;
        row.bytesAccessed += op.bytesAccessed * occurrences;
        // HBM bytes: the breakdown's HBM entries; else bytes accessed less the arrays in VMEM.
        const double hbmPerOccurrence
            = op.hbmBytes >= 0 ? op.hbmBytes : std::max(0.0, op.bytesAccessed - trait.vmemBytes);
        row.hbmBytes += hbmPerOccurrence * occurrences;
        row.hbmFromBreakdown = row.hbmFromBreakdown || op.hbmBytes >= 0;
        row.customKernelCost = row.customKernelCost || trait.customKernel;
        row.largestArrayBytes = std::max(row.largestArrayBytes, trait.largestArrayBytes);
        cost.costKnown = cost.costKnown || trait.costKnown;
        cost.hostTransfer = cost.hostTransfer || trait.hostTransfer;
        cost.collective = cost.collective || trait.collective;
        cost.async = trait.async;
        cost.pairSpan += t.pairSpan;
        cost.pairsTimed += t.pairsTimed;
    }
    for (OpId id = 0; id < profile.ops.size(); ++id) {
        const size_t r = rowOfOp[id];
        if (r != SIZE_MAX && traits[id].partner != kNone && rowOfOp[traits[id].partner] != SIZE_MAX)
            costs[r].partnerRow = rowOfOp[traits[id].partner];
    }

    for (const OpRow& row : rows) {
        result.totalTimePs += row.selfTimePs;
        result.totalFlops += row.flops;
    }
    double costKnownTime = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
        OpRow& row = rows[r];
        RowCost& cost = costs[r];
        row.timeFraction = result.totalTimePs > 0 ? row.totalTimePs / result.totalTimePs : 0;
        row.rateTimePs = row.totalTimePs;
        cost.ratedFlops = row.flops;
        cost.ratedBytes = row.hbmBytes;
        if (cost.partnerRow != SIZE_MAX)
            row.asyncPartner = rows[cost.partnerRow].name;
        if (cost.async == AsyncRole::Done && cost.partnerRow != SIZE_MAX) {
            // One transfer: its bytes once (the larger record of the two halves), over start→done.
            const OpRow& start = rows[cost.partnerRow];
            const RowCost& startCost = costs[cost.partnerRow];
            cost.ratedFlops = std::max(row.flops, start.flops);
            cost.ratedBytes = std::max(row.hbmBytes, start.hbmBytes);
            cost.costKnown = cost.costKnown || startCost.costKnown;
            cost.hostTransfer = cost.hostTransfer || startCost.hostTransfer;
            // Spans from the timeline where pairs were matched; otherwise (op_profile, aggregated
            // events) the two halves' own times, a lower bound of the span.
            row.rateTimePs = cost.pairsTimed > 0
                ? cost.pairSpan * (static_cast<double>(row.occurrences) / cost.pairsTimed)
                : row.totalTimePs + start.totalTimePs;
        }
        if (cost.hostTransfer) {
            row.hostBytes = cost.ratedBytes;
            cost.ratedBytes = 0;
        }
        row.costCoverage = cost.costKnown ? 1 : 0;
        if (cost.costKnown)
            costKnownTime += row.totalTimePs;
    }
    for (size_t r = 0; r < rows.size(); ++r) {
        const RowCost& cost = costs[r];
        if (cost.async == AsyncRole::Start && cost.partnerRow != SIZE_MAX)
            continue;
        rateRow(rows[r], cost, profile.device);
    }
    for (size_t r = 0; r < rows.size(); ++r) {
        const RowCost& cost = costs[r];
        if (cost.async != AsyncRole::Start || cost.partnerRow == SIZE_MAX)
            continue;
        // The start half's bytes are the done half's: count them there only.
        rows[r].hostBytes = 0;
        costs[r].ratedBytes = 0;
        costs[r].ratedFlops = 0;
        rows[r].costCoverage = costs[cost.partnerRow].costKnown ? 1 : 0;
        if (rows[r].costCoverage > 0 && !cost.costKnown)
            costKnownTime += rows[r].totalTimePs;
        copyPairRates(rows[r], rows[cost.partnerRow]);
    }
    result.totalFlops = 0;
    for (const RowCost& cost : costs) {
        result.totalFlops += cost.ratedFlops;
        result.totalHbmBytes += cost.ratedBytes;
    }
    result.costCoverage = result.totalTimePs > 0 ? std::min(1.0, costKnownTime / result.totalTimePs) : 0;
    result.flops = headline(rows, [](const OpRow& r) { return r.flopsUtilizationUncapped; });
    result.hbm = headline(rows, [](const OpRow& r) { return r.hbmUtilizationUncapped; });
    for (HeadlineUtilization* h : {&result.flops, &result.hbm})
        h->coveredFraction = result.totalTimePs > 0 ? std::min(1.0, h->coveredTimePs / result.totalTimePs) : 0;

    if (groupBy == GroupBy::Op) {
        result.rows = std::move(rows);
    } else {
        std::vector<const OpRow*> members;
        members.reserve(rows.size());
        for (const OpRow& row : rows)
            members.push_back(&row);
        result.rows = groupRows(members, groupBy, result.totalTimePs);
    }
    sortRowsByTime(result.rows);
    return result;
}

} // namespace tpuscope::model
