// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tpuscope::model {

/// Per-TensorCore peaks of one TPU generation (FORMATS.md §6.1, bf16 dense).
struct TpuGeneration
{
    const char* key; // "v5e"
    const char* displayName; // "TPU v5e"
    int tensorCoresPerChip;
    double peakTflopsPerCore;
    double peakHbmGbpsPerCore;
    const char* note; // caveats from the sources
    // HBM one JAX device can address (FORMATS.md §6.1): a TensorCore on v2/v3, a chip where one
    // device is one chip (v4/v5p megacore, single-core chips). 0 = unknown.
    double hbmBytesPerDevice = 0;
    const char* hbmNote = "";
    /// Bidirectional inter-chip interconnect (ICI) bandwidth per chip, GB/s, from the Cloud TPU page
    /// named in `iciSource`; 0 where no page gives it. A collective's data leave and enter a chip
    /// at once, so a per-direction rate is half of it, shared by the chip's TensorCores.
    double iciGbpsPerChip = 0;
    const char* iciSource = "";

    /// ICI bandwidth per TensorCore and direction (GB/s); 0 when unknown.
    double iciGbpsPerCoreAndDirection() const
    {
        return iciGbpsPerChip > 0 ? iciGbpsPerChip / 2 / (tensorCoresPerChip > 0 ? tensorCoresPerChip : 1) : 0;
    }
};

const std::vector<TpuGeneration>& tpuGenerations();
/// Finds a generation by key ("v5e", "v6e", ...) or by a device_type_string such as
/// "TPU v6 Lite", "TPU v4", "TPU v5p". Returns nullptr when nothing matches.
const TpuGeneration* findTpuGeneration(std::string_view keyOrDeviceType);

} // namespace tpuscope::model
