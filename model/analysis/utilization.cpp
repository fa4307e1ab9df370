// SPDX-License-Identifier: GPL-3.0-or-later
#include "utilization.h"

#include "core/stopcheck.h"
#include "opmodel.h"

#include <algorithm>
#include <cmath>

namespace tpuscope::model {

namespace {

/// Index of the first event that can overlap `begin`. Events are sorted by start; nested events sit
/// inside their depth-0 parent, so walking back stops at the first top-level event that ends before
/// `begin` (nothing earlier can reach past it without containing it).
size_t firstOverlapping(const Track& track, TimePs begin)
{
    const auto it = std::upper_bound(track.start.begin(), track.start.end(), begin);
    size_t first = static_cast<size_t>(it - track.start.begin());
    for (size_t i = first; i > 0; --i) {
        const size_t j = i - 1;
        if (track.end(j) > begin)
            first = j;
        else if (track.depth.empty() || track.depth[j] == 0)
            break;
    }
    return first;
}

struct Accumulator
{
    double begin = 0;
    double width = 0; // bucket width in ps
    double invWidth = 0;
    size_t buckets = 0;
    std::vector<double> flops, bytes; // integrals per bucket
    std::vector<double> flopsPeak, hbmPeak; // max rate per bucket

    void reset()
    {
        std::fill(flops.begin(), flops.end(), 0.0);
        std::fill(bytes.begin(), bytes.end(), 0.0);
        std::fill(flopsPeak.begin(), flopsPeak.end(), 0.0);
        std::fill(hbmPeak.begin(), hbmPeak.end(), 0.0);
    }

    double maxFlopsRate = 0; // TFLOP/s above which an event is left out of the peaks (0 = none)
    double maxHbmRate = 0; // GB/s
    size_t implausible = 0;

    void add(double s, double e, double opFlops, double opBytes, double rangeEnd)
    {
        if (e <= s) {
            // Instantaneous event: its cost lands in one bucket's average, it has no rate.
            if (s < begin || s >= rangeEnd)
                return;
            const size_t b = std::min(buckets - 1, static_cast<size_t>((s - begin) * invWidth));
            flops[b] += opFlops;
            bytes[b] += opBytes;
            return;
        }
        const double cs = std::max(s, begin);
        const double ce = std::min(e, rangeEnd);
        if (ce <= cs)
            return;
        const double duration = e - s;
        const double flopsRate = opFlops / duration; // FLOP per ps = TFLOP/s
        const double bytesRate = opBytes / duration; // byte per ps = 1000 GB/s
        const bool plausible
            = (maxFlopsRate <= 0 || flopsRate <= maxFlopsRate) && (maxHbmRate <= 0 || bytesRate * 1000.0 <= maxHbmRate);
        if (!plausible)
            ++implausible;
        const size_t b0 = std::min(buckets - 1, static_cast<size_t>((cs - begin) * invWidth));
        const size_t last = std::min(buckets - 1, static_cast<size_t>((ce - begin) * invWidth));
        if (b0 == last) {
            // The common case when zoomed out: the event lies inside one bucket.
            const double overlap = ce - cs;
            flops[b0] += flopsRate * overlap;
            bytes[b0] += bytesRate * overlap;
            if (plausible) {
                flopsPeak[b0] = std::max(flopsPeak[b0], flopsRate);
                hbmPeak[b0] = std::max(hbmPeak[b0], bytesRate * 1000.0);
            }
            return;
        }
        for (size_t b = b0; b <= last; ++b) {
            const double bs = begin + static_cast<double>(b) * width;
            const double overlap = std::min(ce, bs + width) - std::max(cs, bs);
            if (overlap <= 0)
                continue; // ends exactly on a bucket boundary
            flops[b] += flopsRate * overlap;
            bytes[b] += bytesRate * overlap;
            if (!plausible)
                continue;
            flopsPeak[b] = std::max(flopsPeak[b], flopsRate);
            hbmPeak[b] = std::max(hbmPeak[b], bytesRate * 1000.0);
        }
    }
};

} // namespace

UtilizationSeries computeUtilization(const Profile& profile, const UtilizationOptions& options, std::stop_token stop)
{
    return computeUtilization(profile, buildOpModel(profile), options, std::move(stop));
}

UtilizationSeries computeUtilization(
    const Profile& profile, const OpModel& traits, const UtilizationOptions& options, std::stop_token stop)
{
    UtilizationSeries series;
    series.begin = options.begin;
    series.end = options.end;
    if (series.end <= series.begin) {
        series.begin = profile.spanBegin;
        series.end = std::max(profile.spanEnd, profile.spanBegin + 1);
    }
    const size_t buckets = static_cast<size_t>(std::clamp(options.buckets, 1, 100000));
    series.bucketPs = static_cast<double>(series.end - series.begin) / static_cast<double>(buckets);
    series.peakTflops = profile.device.peakTflopsPerCore;
    series.peakHbmGbps = profile.device.peakHbmGbpsPerCore;
    series.flopsAverage.assign(buckets, 0.0);
    series.flopsPeak.assign(buckets, 0.0);
    series.hbmAverage.assign(buckets, 0.0);
    series.hbmPeak.assign(buckets, 0.0);

    Accumulator acc;
    acc.begin = static_cast<double>(series.begin);
    acc.width = series.bucketPs;
    acc.invWidth = 1.0 / series.bucketPs;
    acc.buckets = buckets;
    acc.flops.resize(buckets);
    acc.bytes.resize(buckets);
    acc.flopsPeak.resize(buckets);
    acc.hbmPeak.resize(buckets);
    const double rangeEnd = static_cast<double>(series.end);
    if (options.implausibleRateFactor > 0 && series.peakTflops > 0 && series.peakHbmGbps > 0) {
        acc.maxFlopsRate = options.implausibleRateFactor * series.peakTflops;
        acc.maxHbmRate = options.implausibleRateFactor * series.peakHbmGbps;
    }

    // Contiguous per-op costs: the event loop then touches only the track columns and these.
    // Async halves and host transfers are left out: a copy-start's bytes over its few ns would
    // read as an impossible HBM rate, and host bytes cross the host link, not HBM (the op table
    // rates them over their start→done span instead). VMEM operands are not HBM bytes.
    std::vector<double> opFlops(profile.ops.size()), opBytes(profile.ops.size());
    for (size_t i = 0; i < profile.ops.size(); ++i) {
        const OpInfo& op = profile.ops[i];
        if (traits[i].async != AsyncRole::None || traits[i].isHostTransfer()
            || traits[i].ratedAgainst == RatedAgainst::OnChip)
            continue;
        opFlops[i] = flopsPerOccurrence(op, traits[i]);
        opBytes[i] = hbmBytesPerOccurrence(op, traits[i]);
    }

    StopCheck stopCheck(std::move(stop));
    const std::vector<PlaneId> cores = profile.tpuCorePlanes();
    for (size_t ordinal = 0; ordinal < cores.size(); ++ordinal) {
        if (options.core >= 0 && static_cast<int>(ordinal) != options.core)
            continue;
        ++series.coresCounted;
        acc.reset();
        for (TrackId trackId : profile.planes[cores[ordinal]].tracks) {
            const Track& track = profile.tracks[trackId];
            if (track.kind != TrackKind::XlaOps || track.size() == 0)
                continue;
            const size_t first = firstOverlapping(track, series.begin);
            const size_t last = static_cast<size_t>(
                std::lower_bound(track.start.begin(), track.start.end(), series.end) - track.start.begin());
            for (size_t i = first; i < last; ++i) {
                if (stopCheck.stopped())
                    return series; // superseded: partial, discarded by the caller
                const TimePs s = track.start[i];
                const TimePs e = s + track.duration[i];
                if (e < series.begin || (e == series.begin && track.duration[i] > 0))
                    continue;
                const OpId op = track.op[i];
                ++series.eventsVisited;
                if (opFlops[op] <= 0 && opBytes[op] <= 0)
                    continue;
                acc.add(static_cast<double>(s), static_cast<double>(e), opFlops[op], opBytes[op], rangeEnd);
            }
        }
        for (size_t b = 0; b < buckets; ++b) {
            series.flopsAverage[b] += acc.flops[b] / acc.width;
            series.hbmAverage[b] += acc.bytes[b] * 1000.0 / acc.width;
            series.flopsPeak[b] += acc.flopsPeak[b];
            series.hbmPeak[b] += acc.hbmPeak[b];
        }
    }
    series.implausibleEvents = acc.implausible;
    if (series.coresCounted > 1) {
        const double n = series.coresCounted;
        for (size_t b = 0; b < buckets; ++b) {
            series.flopsAverage[b] /= n;
            series.hbmAverage[b] /= n;
            series.flopsPeak[b] /= n;
            series.hbmPeak[b] /= n;
        }
    }
    return series;
}

// ---------------------------------------------------------------------------------------------

double rooflineTflops(double intensity, double peakTflops, double peakHbmGbps)
{
    if (peakTflops <= 0 || peakHbmGbps <= 0 || intensity <= 0)
        return 0;
    // FLOP/byte × GB/s = GFLOP/s; / 1000 → TFLOP/s.
    return std::min(intensity * peakHbmGbps / 1000.0, peakTflops);
}

double ridgePoint(double peakTflops, double peakHbmGbps)
{
    if (peakTflops <= 0 || peakHbmGbps <= 0)
        return 0;
    return peakTflops * 1000.0 / peakHbmGbps;
}

const char* boundBy(double flopsUtil, double hbmUtil)
{
    if (flopsUtil <= 0 && hbmUtil <= 0)
        return "Unknown";
    return flopsUtil >= hbmUtil ? "Compute" : "HBM";
}

Roofline computeRoofline(const Profile& profile, const OpBreakdown& breakdown)
{
    Roofline roofline;
    roofline.peakTflops = profile.device.peakTflopsPerCore;
    roofline.peakHbmGbps = profile.device.peakHbmGbpsPerCore;
    roofline.ridge = ridgePoint(roofline.peakTflops, roofline.peakHbmGbps);
    std::unordered_map<std::string, OpClass> classes = categoryClasses(breakdown);
    for (const OpRow& row : breakdown.rows) {
        if (row.op == kNone || row.totalTimePs <= 0)
            continue;
        // Only ops the roofline speaks for: not collectives (the interconnect), host transfers, copies
        // into on-chip memory, or async halves waiting on their partner.
        if (row.ratedAgainst != RatedAgainst::Roofline || !row.asyncPartner.empty()) {
            ++roofline.opsOffRoofline;
            continue;
        }
        // A point needs a known position on both axes: FLOPs, HBM bytes and a rate (host
        // transfers and ops without cost data have none).
        if (row.flops <= 0 || !row.flopsUtilization) {
            ++roofline.opsWithoutFlops;
            continue;
        }
        if (!row.arithmeticIntensity || !row.hbmUtilization) {
            ++roofline.opsWithoutBytes;
            continue;
        }
        RooflinePoint p;
        p.op = row.op;
        p.name = row.name;
        p.category = row.category;
        p.categoryClass = classes[row.category];
        p.program = row.program;
        p.timePs = row.totalTimePs;
        p.timeFraction = row.timeFraction;
        p.flops = row.flops;
        p.hbmBytes = row.hbmBytes;
        // The breakdown's intensity and rate, so the chart, the table and the details agree.
        p.intensity = *row.arithmeticIntensity;
        p.achievedTflops = *row.flopsUtilizationUncapped * roofline.peakTflops;
        p.attainableTflops = rooflineTflops(p.intensity, roofline.peakTflops, roofline.peakHbmGbps);
        p.flopsUtilization = *row.flopsUtilization;
        p.flopsUtilizationUncapped = *row.flopsUtilizationUncapped;
        p.hbmUtilization = *row.hbmUtilization;
        p.rooflineEfficiency = row.rooflineEfficiency.value_or(0);
        p.lowUtilization = row.lowUtilization.value_or(false);
        p.customKernelCost = row.customKernelCost;
        p.boundBy = row.boundBy == BoundBy::Compute ? "Compute" : "HBM";
        roofline.points.push_back(std::move(p));
    }
    return roofline;
}

} // namespace tpuscope::model
