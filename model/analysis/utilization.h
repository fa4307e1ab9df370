// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Utilization over time (FLOPS and HBM bandwidth, resampled to a fixed bucket budget) and the
// roofline model (FORMATS.md §7) for the charts. Qt-free so the CLI and tests can use it.

#include "opbreakdown.h"

#include <stop_token>
#include <string>
#include <vector>

namespace tpuscope::model {

struct UtilizationOptions
{
    int core = -1; // ordinal in Profile::tpuCorePlanes() (as OpFilter::core); -1 = all cores
    TimePs begin = 0; // range; end <= begin means the whole profile span
    TimePs end = 0;
    int buckets = 800; // point budget; clamped to [1, 100000]
    /// When > 0 and the device peaks are known, events whose FLOP or HBM rate exceeds this factor
    /// times the per-core peak are physically impossible (e.g. an async `copy-start` that records the
    /// bytes of the whole transfer on a nanosecond event): they still count in the averages but are
    /// left out of the peak envelope, which they would otherwise pin at the ceiling.
    double implausibleRateFactor = 0;
};

/// Utilization sampled on equal buckets over [begin, end). Rates are per core (over all cores: the
/// mean over the cores counted), so they compare directly with the per-core peaks.
/// * `*Average` is exact: each event spreads its FLOPs/bytes uniformly over its duration and a
///   bucket gets the integral over its width divided by the width.
/// * `*Peak` keeps the spikes that averaging hides (heaptrack's max-per-bucket idea): the highest
///   instantaneous rate of any event overlapping the bucket, per core; over all cores the per-core
///   peaks are averaged, which is an upper bound of the true peak (exact when the cores run in
///   lockstep, as SPMD programs do, or when buckets are shorter than the ops).
struct UtilizationSeries
{
    TimePs begin = 0;
    TimePs end = 0;
    double bucketPs = 0;
    int coresCounted = 0;
    double peakTflops = 0; // per-core denominators (0 = unknown)
    double peakHbmGbps = 0;
    std::vector<double> flopsAverage; // TFLOP/s per core
    std::vector<double> flopsPeak;
    std::vector<double> hbmAverage; // GB/s per core
    std::vector<double> hbmPeak;
    size_t eventsVisited = 0; // events that overlapped the range (for tests and benchmarks)
    size_t implausibleEvents = 0; // left out of the peaks (see UtilizationOptions)

    size_t size() const { return flopsAverage.size(); }
    TimePs bucketBegin(size_t i) const { return begin + static_cast<TimePs>(static_cast<double>(i) * bucketPs); }
    double bucketCenter(size_t i) const
    {
        return static_cast<double>(begin) + (static_cast<double>(i) + 0.5) * bucketPs;
    }
};

/// O(events overlapping the range + buckets): tracks are searched with binary search.
/// Only `XLA Ops` tracks of TPU core planes count; aggregated events (no start time) cannot be placed.
/// Returns early with a partial series (which the caller discards) once `stop` is requested.
UtilizationSeries computeUtilization(
    const Profile& profile, const UtilizationOptions& options = {}, std::stop_token stop = {});
/// The same with the profile's op model already built (the analysis has one: building it again
/// costs a pass over every op).
UtilizationSeries computeUtilization(
    const Profile& profile, const OpModel& model, const UtilizationOptions& options, std::stop_token stop = {});

// ---------------------------------------------------------------------------------------------
// Roofline

/// Attainable FLOP/s at an intensity: min(intensity × peak HBM bandwidth, peak FLOP/s), in TFLOP/s.
double rooflineTflops(double intensityFlopsPerByte, double peakTflops, double peakHbmGbps);
/// Intensity where the bandwidth slope meets the compute ceiling (FLOP/byte); 0 when a peak is unknown.
double ridgePoint(double peakTflops, double peakHbmGbps);
/// xprof's bound-by over the resources we know (FORMATS.md §7): "Compute", "HBM" or "Unknown".
const char* boundBy(double flopsUtilization, double hbmUtilization);

struct RooflinePoint
{
    OpId op = kNone;
    std::string name;
    std::string category;
    OpClass categoryClass = OpClass::Compute; // the class holding most of the category's time
    std::string program;
    double timePs = 0; // total over occurrences and cores
    double timeFraction = 0;
    double flops = 0;
    double hbmBytes = 0;
    double intensity = 0; // FLOP per HBM byte (xprof hbm_operational_intensity)
    double achievedTflops = 0; // flops / time, per core
    double attainableTflops = 0; // the roofline at this intensity (0 when peaks unknown)
    double flopsUtilization = 0; // capped
    double flopsUtilizationUncapped = 0;
    double hbmUtilization = 0;
    double rooflineEfficiency = 0; // attained over the roofline at this intensity
    bool lowUtilization = false;
    bool customKernelCost = false;
    std::string boundBy;
};

struct Roofline
{
    double peakTflops = 0; // per core
    double peakHbmGbps = 0;
    double ridge = 0; // FLOP/byte
    std::vector<RooflinePoint> points; // ops with FLOPs, bytes and time > 0, by time descending
    size_t opsWithoutFlops = 0; // not plottable on log axes
    size_t opsWithoutBytes = 0;
    size_t opsOffRoofline = 0; // collectives, host transfers, on-chip copies, async halves
    bool hasPeaks() const { return peakTflops > 0 && peakHbmGbps > 0; }
};

/// One point per breakdown row (GroupBy::Op rows; other rows are skipped).
Roofline computeRoofline(const Profile& profile, const OpBreakdown& breakdown);

} // namespace tpuscope::model
