// SPDX-License-Identifier: GPL-3.0-or-later
// Which device a profile ran on: what the file records (deviceFromFile), what the user asked for
// against it (chooseDevice, withDevice) and the core count the replica groups imply. Apart from
// profile.cpp, which builds the profile: this decides what its peaks mean.
#include "profile.h"

#include "devicepeaks.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>

namespace tpuscope::model {

DeviceInfo deviceFromFile(const Profile& p)
{
    // Cores are TensorCore planes over all hosts. Peaks a loader set already (an op_profile's
    // implied peaks) stand; otherwise the plane stats, else the generation the planes name.
    DeviceInfo device = p.device;
    device.hosts = static_cast<int>(p.hosts.size());
    const Plane* peakPlane = nullptr;
    int planes = 0;
    bool aggregate = false;
    for (const auto& plane : p.planes) {
        if (plane.kind != PlaneKind::TpuCore)
            continue;
        ++planes;
        aggregate = aggregate || plane.aggregate;
        if (device.type.empty() && !plane.deviceType.empty())
            device.type = plane.deviceType;
        if (!peakPlane && plane.peakTflops > 0)
            peakPlane = &plane;
    }
    // A loader that knows the count better (a share file records its original's) set it already.
    if (device.coresSource == CoreCountSource::None) {
        device.cores = planes;
        device.coresSource = planes > 0 ? CoreCountSource::Planes : CoreCountSource::None;
        device.coresAtLeast = planes;
        device.coresNote.clear();
        if (aggregate) {
            // One plane holds every core's time (op_profile.json): the file does not say how many.
            const int devices = devicesFromReplicaGroups(p);
            device.coresAtLeast = devices;
            if (devices > 1) {
                device.cores = devices;
                device.coresSource = CoreCountSource::ReplicaGroups;
                device.coresNote = "cores not recorded; at least " + std::to_string(devices)
                    + " from the replica groups; per-core figures assume " + std::to_string(devices)
                    + " (set the count with --cores N or the device bar)";
            } else {
                device.cores = 1;
                device.coresSource = CoreCountSource::None;
                device.coresNote = "cores not recorded (no collective names its replica groups); per-core figures "
                                   "assume 1 (set the count with --cores N or the device bar)";
            }
        }
    }
    const TpuGeneration* generation = device.type.empty() ? nullptr : findTpuGeneration(device.type);
    if (generation)
        device.generation = generation->key;
    if (device.peakSource == PeakSource::None && peakPlane) {
        device.peakTflopsPerCore = peakPlane->peakTflops;
        device.peakHbmGbpsPerCore = peakPlane->peakHbmGbps;
        device.peakSource = PeakSource::PlaneStats;
        device.peakNote = "from the device plane stats peak_teraflops_per_second / peak_hbm_bw_gigabytes_per_second";
        if (device.peakHbmGbpsPerCore <= 0 && generation)
            device.peakHbmGbpsPerCore = generation->peakHbmGbpsPerCore;
    }
    if (device.peakSource == PeakSource::None && generation) {
        device.peakTflopsPerCore = generation->peakTflopsPerCore;
        device.peakHbmGbpsPerCore = generation->peakHbmGbpsPerCore;
        device.peakSource = PeakSource::GenerationTable;
        device.peakNote
            = std::string("from the generation table for ") + generation->displayName + ": " + generation->note;
    }
    if (generation)
        device.iciGbpsPerCore = generation->iciGbpsPerCoreAndDirection();
    if (device.peakSource == PeakSource::None && device.cores > 0)
        device.peakNote = "unknown TPU generation: utilizations need a peak; choose one (--device v5e, ...)";
    return device;
}

const char* coreCountSourceName(CoreCountSource source)
{
    switch (source) {
    case CoreCountSource::Planes:
        return "planes";
    case CoreCountSource::ReplicaGroups:
        return "replica groups";
    case CoreCountSource::UserChoice:
        return "user choice";
    case CoreCountSource::None:
        break;
    }
    return "none";
}

namespace {

std::string peaksText(const DeviceInfo& d)
{
    char buffer[96];
    std::snprintf(
        buffer, sizeof buffer, "%.4g TFLOP/s and %.4g GB/s per core", d.peakTflopsPerCore, d.peakHbmGbpsPerCore);
    return buffer;
}

/// What the file records of its device, in words, for a refusal.
std::string recordedDeviceText(const DeviceInfo& d)
{
    std::string text = d.type.empty() ? std::string("no TPU generation") : "device type '" + d.type + "'";
    if (d.peakSource == PeakSource::PlaneStats || d.peakSource == PeakSource::GenerationTable)
        text += " with " + peaksText(d)
            + (d.peakSource == PeakSource::PlaneStats ? " (its own peak figures)" : " (the generation table)");
    return text;
}

/// Peaks within this of a generation's are that generation (the files' own figures round, and
/// xprof's op_profile implies peaks from rounded utilizations).
constexpr double kPeakAgreement = 0.05;

bool peaksAgree(const DeviceInfo& d, const TpuGeneration& g)
{
    auto close = [](double a, double b) { return a <= 0 || b <= 0 || std::fabs(a / b - 1) <= kPeakAgreement; };
    return close(d.peakTflopsPerCore, g.peakTflopsPerCore) && close(d.peakHbmGbpsPerCore, g.peakHbmGbpsPerCore);
}

} // namespace

DeviceChoice chooseDevice(const DeviceInfo& fileDevice, std::string_view deviceOverride, int coresOverride)
{
    DeviceChoice choice {fileDevice, {}};
    DeviceInfo& device = choice.device;
    if (!deviceOverride.empty()) {
        const TpuGeneration* chosen = findTpuGeneration(deviceOverride);
        const bool peaksRecorded = fileDevice.peakSource == PeakSource::PlaneStats;
        if (!chosen) {
            choice.refusal = "unknown TPU generation '" + std::string(deviceOverride) + "'";
        } else if (!fileDevice.generation.empty()) {
            // The file names its generation: a choice can only agree with it.
            if (fileDevice.generation != chosen->key)
                choice.refusal = std::string("--device ") + chosen->key + " contradicts the file, which records "
                    + recordedDeviceText(fileDevice) + "; the file's device is used";
        } else if (peaksRecorded) {
            // The file records its peaks but names no generation: a generation whose peaks are the
            // file's names them (and brings its HBM capacity and ICI bandwidth); another is refused.
            if (!peaksAgree(fileDevice, *chosen)) {
                choice.refusal = std::string("--device ") + chosen->key + " (" + chosen->displayName + ", "
                    + std::to_string(static_cast<int>(chosen->peakTflopsPerCore)) + " TFLOP/s per core) contradicts "
                    + "the file, which records " + recordedDeviceText(fileDevice) + "; the file's peaks are used";
            } else {
                device.generation = chosen->key;
                device.type = chosen->displayName;
                device.iciGbpsPerCore = chosen->iciGbpsPerCoreAndDirection();
                device.peakNote += std::string("; they match ") + chosen->displayName + " (chosen by the user)";
            }
        } else {
            // Nothing recorded: the choice decides.
            device.generation = chosen->key;
            device.type = chosen->displayName;
            device.peakTflopsPerCore = chosen->peakTflopsPerCore;
            device.peakHbmGbpsPerCore = chosen->peakHbmGbpsPerCore;
            device.iciGbpsPerCore = chosen->iciGbpsPerCoreAndDirection();
            device.peakSource = PeakSource::UserChoice;
            device.peakNote = std::string("chosen by the user (") + chosen->displayName
                + "), per-core peaks from the generation table: " + chosen->note;
        }
    }
    if (coresOverride > 0) {
        std::string refusal;
        if (fileDevice.coresSource == CoreCountSource::Planes && coresOverride != fileDevice.cores)
            refusal = "--cores " + std::to_string(coresOverride) + " contradicts the file, which records "
                + std::to_string(fileDevice.cores) + " TPU core" + (fileDevice.cores == 1 ? "" : "s")
                + " (one plane each); the file's count is used";
        else if (coresOverride < fileDevice.coresAtLeast)
            refusal = "--cores " + std::to_string(coresOverride) + " contradicts the file: its collectives' replica "
                + "groups span at least " + std::to_string(fileDevice.coresAtLeast) + " devices";
        if (!refusal.empty()) {
            choice.refusal += (choice.refusal.empty() ? "" : "; ") + refusal;
        } else if (fileDevice.coresSource != CoreCountSource::Planes) {
            device.cores = coresOverride;
            device.coresSource = CoreCountSource::UserChoice;
            device.coresNote = "cores not recorded; " + std::to_string(coresOverride) + " as given by the user";
        }
    }
    return choice;
}

std::shared_ptr<const Profile> withDevice(const Profile& profile, std::string_view deviceOverride, int coresOverride)
{
    auto copy = std::make_shared<Profile>(profile);
    DeviceChoice choice = chooseDevice(copy->fileDevice, deviceOverride, coresOverride);
    copy->device = std::move(choice.device);
    copy->load.deviceRefusal = std::move(choice.refusal);
    return copy;
}

int devicesFromReplicaGroups(const Profile& profile)
{
    int devices = 0;
    for (const OpInfo& op : profile.ops) {
        const std::string& text = profile.str(op.longName);
        for (size_t at = text.find("replica_groups="); at != std::string::npos;
             at = text.find("replica_groups=", at + 1)) {
            size_t i = at + std::strlen("replica_groups=");
            int found = 0;
            if (const size_t iota = text.find("<=[", i); text.compare(i, 1, "[") == 0 && iota != std::string::npos
                && iota < text.find_first_of(" ,)", text.find(']', i) + 1)) {
                // [groups,size]<=[d0,d1,...]: the devices are the product of the reshape dims.
                int64_t product = 1;
                size_t j = iota + 3;
                while (j < text.size() && text[j] != ']') {
                    product = std::min<int64_t>(product * std::max<int64_t>(1, std::atoll(text.c_str() + j)), 1 << 20);
                    j = text.find_first_of(",]", j);
                    if (j == std::string::npos)
                        break;
                    if (text[j] == ',')
                        ++j;
                }
                found = static_cast<int>(product);
            } else if (text.compare(i, 2, "{{") == 0) {
                const size_t close = text.find("}}", i);
                for (size_t j = i; j < close && j < text.size(); ++j)
                    if (std::isdigit(static_cast<unsigned char>(text[j]))
                        && !std::isdigit(static_cast<unsigned char>(text[j - 1]))) {
                        found = std::max(found, std::min(std::atoi(text.c_str() + j), 1 << 20) + 1);
                    }
            }
            devices = std::max(devices, found);
        }
    }
    return devices;
}

} // namespace tpuscope::model
