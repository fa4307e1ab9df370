// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Checks the device peaks in use (whatever their source: plane stats, generation table, --device,
// the GUI choice, op_profile implied peaks) against what the profile's own ops did: the fastest
// sustained FLOP and HBM rates of ordinary XLA ops, and the largest array an op holds. A device the
// data contradict makes every utilization wrong, so it is called out, with the generations that
// do fit.

#include "../core/devicepeaks.h"
#include "opbreakdown.h"

#include <string>
#include <vector>

namespace tpuscope::model {

/// Ops shorter than this per occurrence are no evidence: launch overheads and clock rounding
/// dominate them.
constexpr double kDeviceEvidenceMinOccurrencePs = 20e6; // 20 µs
/// A rate more than this above the peak contradicts the device (measurement noise stays below).
constexpr double kDeviceTolerance = 0.10;

/// One measured figure, named by the op that attains it.
struct DeviceEvidence
{
    std::string op;
    std::string program;
    double value = 0; // TFLOP/s, GB/s or bytes
    bool known() const { return !op.empty(); }
};

struct DeviceConsistency
{
    DeviceEvidence fastestFlops; // TFLOP/s per core
    DeviceEvidence fastestHbm; // GB/s per core
    /// Bytes a program must hold in HBM at once: its entry parameters (all live while it runs), or
    /// its largest array when that is more; `op` names the program.
    DeviceEvidence footprint;
    bool deviceKnown = false; // the profile has peaks to compare with
    /// What the chosen device cannot do: each names the evidence, its value and the device's limit.
    struct Excess
    {
        std::string what; // "FLOP rate", "HBM bandwidth", "HBM capacity"
        DeviceEvidence evidence;
        double limit = 0;
    };
    std::vector<Excess> excesses;
    std::vector<const TpuGeneration*> fittingGenerations; // generations the evidence fits
    size_t customKernelsSkipped = 0; // over-peak custom kernels left out (their estimate is theirs)

    /// Whether any rate was measured: without one there is nothing to compare the device with.
    bool measured() const { return fastestFlops.known() || fastestHbm.known(); }
    /// Whether the check questions the device: the file names none, or the data contradict it.
    /// The device-consistency advice fires, and the device chooser speaks, exactly then.
    bool questionsDevice() const { return measured() && (!deviceKnown || !excesses.empty()); }
};

DeviceConsistency checkDeviceConsistency(const Profile& profile, const OpBreakdown& breakdown);
/// The same with the profile's op model already built.
DeviceConsistency checkDeviceConsistency(const Profile& profile, const OpBreakdown& breakdown, const OpModel& model);

/// Whether a generation fits the evidence (rates within kDeviceTolerance, footprint within one
/// chip's HBM).
bool generationFits(const TpuGeneration& generation, const DeviceConsistency& check);

} // namespace tpuscope::model
