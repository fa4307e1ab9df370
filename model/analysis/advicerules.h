// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What every advice rule shares: the context it reads and the helpers that word its numbers.
// Internal to the advice engine: rules live in advice*.cpp files and are called from computeAdvice;
// a new rule goes into a file of its own and one line in computeAdvice (ARCHITECTURE.md).

#include "../core/devicepeaks.h"
#include "../core/format.h"
#include "advice.h"
#include "attribution.h"
#include "memory.h"
#include "opmodel.h"
#include "steps.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tpuscope::model::advice_detail {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/// A share as text, with two decimals below 10 %.
std::string pct(double fraction);

struct Context
{
    const Profile& profile;
    const OpBreakdown& breakdown;
    const OpModel& model;
    const HostLinkStats& hostLink;
    int64_t steps = 0;
    int cores = 1; // what per-core figures divide by (OpBreakdown::coresRepresented)
    bool coresKnown = true; // false where the file does not record the cores (DeviceInfo::coresNote)
    std::vector<OpPadding> paddings; // by breakdown row
    BatchInference batch;
    const StepAnalysis* stepAnalysis = nullptr; // the steps `steps` counts (computeSteps)
    const MemoryReport* memory = nullptr; // analyzeMemory of the profile, when the caller has it

    /// Time per step per core of a total over all cores.
    double perStep(double totalPs) const { return totalPs / std::max(1, cores) / std::max<int64_t>(1, steps); }
    std::string perStepText(double totalPs) const
    {
        return formatDurationPs(perStep(totalPs)) + (steps > 0 ? "/step" : " per core over the profile");
    }
    /// "unet/conv2d_18/Conv2D, unet.py:87": the op's framework op and source line (attribution.h).
    std::string layer(OpId op) const { return attributionText(opAttribution(profile, op)); }
    const OpTraits& traits(const OpRow& row) const { return model[row.op]; }
};

/// What fixing an op can save at most, over the profile (all cores): its time, and for gains where
/// the useful work stays (padding, per-core batch) its time × (1 − utilization), with the roofline
/// efficiency (else the FLOPS utilization) as the utilization: the useful work at the roof still
/// takes that long. Unknown utilization leaves the time.
double saveableTimePs(const OpRow& row, bool usefulWorkStays);
/// Records that `ps` (over the profile, all cores) of an item's gain comes from `op`, capped at what
/// the op can save; returns what was recorded. computeAdvice combines the items from these.
double addOpGain(Advice& a, const Context& ctx, const OpRow& row, double ps, bool usefulWorkStays);

/// Padding-bound: an MXU op (a convolution/dot, or an op with an op_profile layout analysis, which
/// xprof records for convolutions only) whose FLOPS utilization is within kPaddingBoundPoints of the
/// share of its tiles that holds data, so the MXU runs at full speed on padding (needs the peaks).
constexpr double kPaddingBoundPoints = 0.05;
bool paddingBound(double paddingEfficiency, const OpRow& row, const OpPadding& padding);
/// " fusion.3 is padding-bound: ... ." (leading space).
std::string paddingBoundText(double paddingEfficiency, const OpRow& row);

/// Adds an op to an item's evidence once.
void addEvidence(Advice& a, const Context& ctx, OpId op);
/// Appends "Top evidence: fusion.3 = unet/conv2d_18/Conv2D, unet.py:87." to the detail when the
/// text does not name them yet (computeAdvice calls it for every item).
void nameTopEvidence(Advice& a);
/// "fusion.3 (58.0 %), fusion.12 (9.1 %) and 3 more".
std::string opList(const Context& ctx, const std::vector<const OpRow*>& rows, size_t max = 4);

// Rules that live in files of their own (advice_<topic>.cpp); computeAdvice calls each once.
void deviceConsistencyRule(const Context& ctx, std::vector<Advice>& out);

// strided-update (advice_stridedupdate.cpp): thresholds, listed in adviceThresholds().
constexpr double kStridedMaxHbmShare = 0.10, kStridedMinTimeShare = 0.03, kStridedWarningShare = 0.10;
void stridedUpdateRule(const Context& ctx, std::vector<Advice>& out);

// host-offload (advice_hostoffload.cpp): thresholds, listed in adviceThresholds().
constexpr double kHostOffloadMinShare = 0.10, kHostOffloadWarningShare = 0.30, kHostOffloadCriticalShare = 0.50;
void hostOffloadRule(const Context& ctx, std::vector<Advice>& out);
// Step-aware rules (advice_steps.cpp) and their thresholds, listed in adviceThresholds().
// input-bound: xprof TensorCoreIdleBound fires at > 10 % idle; "HIGHLY input-bound" at 20 %.
constexpr double kInputBoundShare = 0.10;
constexpr double kInputBoundCriticalShare = 0.20;
// capture-coverage (ours): a device busy < 20 % of the capture, or fewer than 5 runs of the main program.
constexpr double kCaptureMinBusyShare = 0.20;
constexpr double kCaptureMinRuns = 5;
void inputBoundRule(const Context& ctx, std::vector<Advice>& out);
void captureCoverageRule(const Context& ctx, std::vector<Advice>& out);
void memoryPaddingRule(const Context&, std::vector<Advice>&, double share, double minPeak, double atCapacity);

} // namespace tpuscope::model::advice_detail
