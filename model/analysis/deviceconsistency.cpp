// SPDX-License-Identifier: GPL-3.0-or-later
#include "deviceconsistency.h"

#include "opmodel.h"

#include <map>
#include <unordered_map>

namespace tpuscope::model {

namespace {

void keepLargest(DeviceEvidence& best, const OpRow& row, double value)
{
    if (value > best.value) {
        best.op = row.name;
        best.program = row.program;
        best.value = value;
    }
}

} // namespace

bool generationFits(const TpuGeneration& g, const DeviceConsistency& check)
{
    const double slack = 1 + kDeviceTolerance;
    if (check.fastestFlops.known() && check.fastestFlops.value > g.peakTflopsPerCore * slack)
        return false;
    if (check.fastestHbm.known() && check.fastestHbm.value > g.peakHbmGbpsPerCore * slack)
        return false;
    // A JAX device may be a whole chip (megacore), so one chip's HBM is the most an array can use.
    if (check.footprint.known() && g.hbmBytesPerDevice > 0 && check.footprint.value > g.hbmBytesPerDevice)
        return false;
    return true;
}

DeviceConsistency checkDeviceConsistency(const Profile& profile, const OpBreakdown& breakdown)
{
    return checkDeviceConsistency(profile, breakdown, buildOpModel(profile));
}

DeviceConsistency checkDeviceConsistency(const Profile& profile, const OpBreakdown& breakdown, const OpModel& traits)
{
    DeviceConsistency check;
    const DeviceInfo& device = profile.device;
    check.deviceKnown = device.peakTflopsPerCore > 0 || device.peakHbmGbpsPerCore > 0;
    for (const OpRow& row : breakdown.rows) {
        if (row.op == kNone)
            continue;
        // Custom kernels carry their own cost estimates, which may over-count: an over-peak one
        // says the estimate is wrong, not the device (reported as over peak instead).
        if (row.customKernelCost) {
            check.customKernelsSkipped += row.capped ? 1 : 0;
            continue;
        }
        if (row.ratedAgainst != RatedAgainst::Roofline || !row.asyncPartner.empty() || row.occurrences <= 0)
            continue;
        if (row.rateTimePs / static_cast<double>(row.occurrences) < kDeviceEvidenceMinOccurrencePs)
            continue;
        if (row.attainedTflops)
            keepLargest(check.fastestFlops, row, *row.attainedTflops);
        if (row.attainedHbmGbps)
            keepLargest(check.fastestHbm, row, *row.attainedHbmGbps);
    }
    // Footprint: per program, the distinct entry parameters its ops read (in HBM), or its largest
    // array. Programs without ids (Chrome JSON) share one key; names repeat per core, so a
    // parameter seen on every core is counted once, as a per-core figure should be.
    std::map<std::string, std::unordered_map<std::string, double>> parameters;
    std::map<std::string, double> largest;
    for (OpId id = 0; id < profile.ops.size(); ++id) {
        const OpInfo& op = profile.ops[id];
        if (!op.isXlaOp)
            continue;
        const std::string program = opProgramLabel(profile, op);
        for (const auto& [name, bytes] : traits[id].hbmParameters)
            parameters[program].emplace(name, bytes);
        largest[program] = std::max(largest[program], traits[id].largestArrayBytes);
    }
    for (const auto& [program, arrays] : largest) {
        double bytes = arrays;
        if (auto it = parameters.find(program); it != parameters.end()) {
            double sum = 0;
            for (const auto& [name, b] : it->second)
                sum += b;
            bytes = std::max(bytes, sum);
        }
        if (bytes > check.footprint.value) {
            check.footprint.op = program.empty() ? "the program" : program;
            check.footprint.program = program;
            check.footprint.value = bytes;
        }
    }

    const double slack = 1 + kDeviceTolerance;
    if (device.peakTflopsPerCore > 0 && check.fastestFlops.value > device.peakTflopsPerCore * slack)
        check.excesses.push_back({"FLOP rate", check.fastestFlops, device.peakTflopsPerCore});
    if (device.peakHbmGbpsPerCore > 0 && check.fastestHbm.value > device.peakHbmGbpsPerCore * slack)
        check.excesses.push_back({"HBM bandwidth", check.fastestHbm, device.peakHbmGbpsPerCore});
    if (const TpuGeneration* g = findTpuGeneration(device.generation);
        g && g->hbmBytesPerDevice > 0 && check.footprint.value > g->hbmBytesPerDevice)
        check.excesses.push_back({"HBM capacity", check.footprint, g->hbmBytesPerDevice});
    for (const TpuGeneration& g : tpuGenerations())
        if (generationFits(g, check))
            check.fittingGenerations.push_back(&g);
    return check;
}

} // namespace tpuscope::model
