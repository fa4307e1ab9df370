// SPDX-License-Identifier: GPL-3.0-or-later
//
// TF1 `trace` files: a serialized legacy Trace proto (FORMATS.md §4.1). Devices become planes,
// resources tracks, trace events timeline events. Read with the wire reader like XSpace, and
// tolerant of both the uint64 (oldest) and uint32 id encodings, which share the varint format.
// Times are picoseconds since tracing started; the file has no absolute time, so originNs
// stays 0.

#include "formats.h"
#include "wirereader.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>

namespace tpuscope::model {

namespace {

using wire::Reader;

struct ResourceInfo
{
    std::string_view name;
    uint64_t id = 0;
    uint64_t sortIndex = 0;
};

struct DeviceInfoLegacy
{
    std::string_view name;
    uint64_t id = 0;
    std::map<uint64_t, ResourceInfo> resources;
};

std::string describeTraceDamage(const Reader& r, const char* where)
{
    return std::string("corrupt or truncated TF1 trace: ") + r.error() + " at byte offset "
        + std::to_string(r.errorOffset()) + " (" + where + ")";
}

/// Reads one map entry {key = 1, value = 2}; returns the value payload.
std::string_view mapEntry(Reader r, uint64_t& key)
{
    std::string_view value;
    while (r.next()) {
        if (r.field() == 1 && r.type() == wire::Varint)
            key = r.u64();
        else if (r.field() == 2 && r.type() == wire::Len)
            value = r.bytes();
        else
            r.skip();
    }
    return value;
}

ResourceInfo readResource(Reader r)
{
    ResourceInfo res;
    while (r.next()) {
        switch (r.field()) {
        case 1:
            res.name = r.bytes();
            break;
        case 2:
            res.id = r.u64();
            break;
        case 3:
            res.sortIndex = r.u64();
            break;
        default:
            r.skip();
            break;
        }
    }
    return res;
}

DeviceInfoLegacy readDevice(Reader r, const char* base)
{
    DeviceInfoLegacy device;
    while (r.next()) {
        switch (r.field()) {
        case 1:
            device.name = r.bytes();
            break;
        case 2:
            device.id = r.u64();
            break;
        case 3: {
            uint64_t key = 0;
            std::string_view value = mapEntry(r.sub(), key);
            ResourceInfo res = readResource(Reader(value, base));
            if (!res.id)
                res.id = key;
            device.resources[key ? key : res.id] = res;
            break;
        }
        default:
            r.skip();
            break;
        }
    }
    return device;
}

/// "/job:worker/replica:0/task:0/device:TPU:3" → "/device:TPU:3"; empty when not that form.
std::string canonicalTpuName(std::string_view name)
{
    const auto pos = name.rfind("/device:TPU:");
    if (pos == std::string_view::npos || pos == 0)
        return {};
    std::string_view tail = name.substr(pos);
    const std::string_view digits = tail.substr(12);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return {};
    return std::string(tail);
}

double parseNumber(std::string_view s)
{
    double v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

bool printable(std::string_view s)
{
    return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x20 || c == '\t'; });
}

// --- strict shape checks used by format detection ---------------------------------------

bool checkResource(std::string_view bytes)
{
    Reader r(bytes);
    while (r.next()) {
        const uint32_t f = r.field(), t = r.type();
        if (f == 1 && t == wire::Len) {
            if (!printable(r.bytes()))
                return false;
        } else if ((f == 2 || f == 3) && t == wire::Varint) {
            r.u64();
        } else {
            return false;
        }
    }
    return !r.failed();
}

bool checkMapEntry(std::string_view bytes, bool (*checkValue)(std::string_view), bool stringKey = false)
{
    Reader r(bytes);
    bool sawValue = false;
    while (r.next()) {
        if (r.field() == 1 && r.type() == (stringKey ? wire::Len : wire::Varint)) {
            if (stringKey) {
                if (!printable(r.bytes()))
                    return false;
            } else {
                r.u64();
            }
        } else if (r.field() == 2 && r.type() == wire::Len) {
            std::string_view value = r.bytes();
            if (r.failed() || !checkValue(value))
                return false;
            sawValue = true;
        } else {
            return false;
        }
    }
    return !r.failed() && (sawValue || stringKey);
}

bool checkDevice(std::string_view bytes)
{
    Reader r(bytes);
    while (r.next()) {
        const uint32_t f = r.field(), t = r.type();
        if (f == 1 && t == wire::Len) {
            if (!printable(r.bytes()))
                return false;
        } else if (f == 2 && t == wire::Varint) {
            r.u64();
        } else if (f == 3 && t == wire::Len) {
            std::string_view entry = r.bytes();
            if (r.failed() || !checkMapEntry(entry, checkResource))
                return false;
        } else {
            return false;
        }
    }
    return !r.failed();
}

bool checkString(std::string_view s)
{
    return printable(s);
}

bool checkTraceEvent(std::string_view bytes)
{
    Reader r(bytes);
    bool any = false;
    while (r.next()) {
        const uint32_t f = r.field(), t = r.type();
        if ((f == 1 || f == 2 || f == 9 || f == 10) && t == wire::Varint) {
            r.u64();
        } else if (f == 3 && t == wire::Len) {
            if (!printable(r.bytes()))
                return false;
        } else if (f == 11 && t == wire::Len) {
            std::string_view entry = r.bytes();
            if (r.failed() || !checkMapEntry(entry, checkString, true))
                return false;
        } else {
            return false;
        }
        any = true;
    }
    return !r.failed() && any;
}

} // namespace

bool looksLikeLegacyTrace(std::string_view bytes)
{
    // A Trace holds only field 1 (device map entries {key varint, value Device}) and field 4
    // (TraceEvent). XSpace also opens with field 1 LEN, but its plane has a string name in
    // field 2 (printable text never parses as a Device: every printable byte is a tag of field
    // ≥ 4) and lines in field 3. Check the first fields strictly; a field cut off by the end of
    // the head, or of a short truncated file, ends the check (the decoder reports the truncation).
    const std::string_view head = bytes.substr(0, std::min<size_t>(bytes.size(), 1 << 20));
    Reader r(head);
    int checked = 0;
    while (checked < 64 && r.next()) {
        if (r.type() != wire::Len || (r.field() != 1 && r.field() != 4))
            return false;
        const uint32_t field = r.field();
        const uint64_t before = r.offset();
        std::string_view payload = r.bytes();
        if (r.failed())
            return checked > 0 && before < head.size();
        const bool ok = field == 1 ? checkMapEntry(payload, checkDevice) : checkTraceEvent(payload);
        if (!ok)
            return false;
        ++checked;
    }
    return checked > 0 && !r.failed();
}

std::string decodeLegacyTrace(
    std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress, std::stop_token stop)
{
    Profile& profile = builder.profile();
    std::map<uint64_t, DeviceInfoLegacy> devices;
    std::vector<std::string_view> events;
    Reader top(bytes);
    while (top.next()) {
        if (top.field() == 1 && top.type() == wire::Len) {
            uint64_t key = 0;
            std::string_view value = mapEntry(top.sub(), key);
            DeviceInfoLegacy device = readDevice(Reader(value, bytes.data()), bytes.data());
            if (!device.id)
                device.id = key;
            devices[key ? key : device.id] = std::move(device);
        } else if (top.field() == 4 && top.type() == wire::Len) {
            events.push_back(top.bytes());
        } else {
            top.skip();
        }
    }
    if (top.failed()) {
        if (devices.empty() && events.empty())
            return describeTraceDamage(top, "top-level Trace");
        profile.load.warnings.push_back(
            describeTraceDamage(top, "top-level Trace") + "; showing what was read before the damage");
    }
    if (devices.empty() && events.empty())
        return "the TF1 trace holds no devices and no events";

    // Every event is counted before one is decoded, and the devices and resources are rows
    // already: a file of few events but many rows is refused here, not after building them.
    uint64_t resources = 0;
    for (const auto& [id, device] : devices)
        resources += device.resources.size();
    const uint64_t heldBytes = events.size() * 2 * sizeof(std::string_view)
        + devices.size() * LoadLimits::kPeakBytesPerPlane + resources * LoadLimits::kPeakBytesPerLine;
    if (std::string over = builder.checkBudget(builder.profile().eventCount() + events.size(), heldBytes);
        !over.empty())
        return "the TF1 trace holds " + std::to_string(events.size()) + " events on " + std::to_string(devices.size())
            + " devices with " + std::to_string(resources) + " resources: " + over;
    const uint64_t allEvents = builder.profile().eventCount() + events.size();
    const uint64_t viewBytes = events.size() * 2 * sizeof(std::string_view);
    // Names and ops grow while events are decoded: a growth of 1 MiB brings the check on.
    uint64_t nextCheck = profile.strings.bytes() + builder.structureBytes() + (1u << 20);

    // Planes: device order; legacy "/job:…/device:TPU:n" names are shown as "/device:TPU:n"
    // like XSpace files when that is unambiguous (several tasks' TPU:0 keep their full names).
    std::unordered_map<std::string, int> canonicalCount;
    for (const auto& [id, device] : devices)
        if (auto c = canonicalTpuName(device.name); !c.empty())
            ++canonicalCount[c];
    struct PlaneTracks
    {
        PlaneId plane = 0;
        std::unordered_map<uint64_t, TrackId> tracks;
        const DeviceInfoLegacy* device = nullptr;
    };
    std::map<uint64_t, PlaneTracks> planes;
    auto makePlane = [&](uint64_t id, const DeviceInfoLegacy* device) -> PlaneTracks& {
        // Views, not copies: a device name is stored once, by the builder.
        std::string placeholder, canonical;
        std::string_view name = device && !device->name.empty()
            ? device->name
            : std::string_view(placeholder = "device " + std::to_string(id));
        if (canonical = canonicalTpuName(name); !canonical.empty() && canonicalCount[canonical] == 1)
            name = canonical;
        PlaneTracks& pt = planes[id];
        pt.plane = builder.addPlane(name, host);
        profile.planes[pt.plane].sortIndex = static_cast<int32_t>(id);
        pt.device = device;
        return pt;
    };
    for (const auto& [id, device] : devices)
        makePlane(id, &device);

    auto trackFor = [&](uint64_t deviceId, uint64_t resourceId) -> TrackId {
        auto pit = planes.find(deviceId);
        PlaneTracks& pt = pit != planes.end() ? pit->second : makePlane(deviceId, nullptr);
        auto tit = pt.tracks.find(resourceId);
        if (tit != pt.tracks.end())
            return tit->second;
        std::string placeholder = "resource " + std::to_string(resourceId);
        std::string_view name = placeholder;
        int32_t sortIndex = static_cast<int32_t>(resourceId);
        if (pt.device) {
            auto rit = pt.device->resources.find(resourceId);
            if (rit != pt.device->resources.end()) {
                if (!rit->second.name.empty())
                    name = rit->second.name;
                if (rit->second.sortIndex)
                    sortIndex = static_cast<int32_t>(rit->second.sortIndex);
            }
        }
        TrackKind kind = trackKindFromLineName(name);
        if (kind == TrackKind::Other && profile.planes[pt.plane].kind == PlaneKind::Host)
            kind = TrackKind::HostThread;
        const TrackId track = builder.addTrack(pt.plane, name, kind, static_cast<int64_t>(resourceId));
        profile.tracks[track].sortIndex = sortIndex;
        pt.tracks.emplace(resourceId, track);
        return track;
    };
    // Resources without events still show as (empty) rows, in sort order.
    for (auto& [id, device] : devices)
        for (const auto& [rid, res] : device.resources)
            trackFor(id, rid);

    // Ops are deduplicated by (name, XLA-ness) when an event has no args; with args the
    // builder's own dedup applies.
    std::unordered_map<std::string_view, OpId> plainOps[2];
    const size_t total = std::max<size_t>(events.size(), 1);
    for (size_t i = 0; i < events.size(); ++i) {
        Reader r(events[i], bytes.data());
        uint64_t deviceId = 0, resourceId = 0, timestamp = 0, duration = 0;
        std::string_view name;
        std::vector<std::pair<std::string_view, std::string_view>> args;
        while (r.next()) {
            switch (r.field()) {
            case 1:
                deviceId = r.u64();
                break;
            case 2:
                resourceId = r.u64();
                break;
            case 3:
                name = r.bytes();
                break;
            case 9:
                timestamp = r.u64();
                break;
            case 10:
                duration = r.u64();
                break;
            case 11: {
                Reader entry = r.sub();
                std::string_view k, v;
                while (entry.next()) {
                    if (entry.field() == 1)
                        k = entry.bytes();
                    else if (entry.field() == 2)
                        v = entry.bytes();
                    else
                        entry.skip();
                }
                args.emplace_back(k, v);
                break;
            }
            default:
                r.skip();
                break;
            }
        }
        if (r.failed() || timestamp > static_cast<uint64_t>(INT64_MAX) || duration > static_cast<uint64_t>(INT64_MAX)) {
            ++profile.stats.malformedEvents;
            continue;
        }
        const TrackId track = trackFor(deviceId, resourceId);
        const Track& t = profile.tracks[track];
        const bool xla = t.kind == TrackKind::XlaOps && profile.planes[t.plane].kind == PlaneKind::TpuCore;
        OpId op;
        if (args.empty()) {
            auto [it, inserted] = plainOps[xla].emplace(name, kNone);
            if (inserted) {
                OpInfo info;
                info.name = builder.intern(name);
                info.isXlaOp = xla;
                it->second = builder.addOp(info);
            }
            op = it->second;
        } else {
            OpInfo info;
            info.name = builder.intern(name);
            info.isXlaOp = xla;
            for (auto [k, v] : args) {
                if (k == "hlo_category")
                    info.category = builder.intern(v);
                else if (k == "long_name")
                    info.longName = builder.intern(v);
                else if (k == "tf_op")
                    info.tfOp = builder.intern(v);
                else if (k == "source")
                    info.source = builder.intern(v);
                else if (k == "shape_with_layout")
                    info.shapeWithLayout = builder.intern(v);
                else if (k == "flops")
                    info.flops = parseNumber(v), info.flopsRecorded = true;
                else if (k == "model_flops")
                    info.modelFlops = parseNumber(v), info.flopsRecorded = true;
                else if (k == "bytes_accessed")
                    info.bytesAccessed = parseNumber(v), info.bytesRecorded = true;
                else if (k == "program_id") {
                    uint64_t id = 0;
                    if (std::from_chars(v.data(), v.data() + v.size(), id).ec == std::errc()) {
                        info.programId = id;
                        info.hasProgramId = true;
                    }
                }
            }
            if (info.modelFlops == 0)
                info.modelFlops = info.flops;
            if (info.flops == 0)
                info.flops = info.modelFlops;
            op = builder.addOp(info);
        }
        builder.addEvent(track, static_cast<TimePs>(timestamp), static_cast<TimePs>(duration), op);
        if (profile.strings.bytes() + builder.structureBytes() >= nextCheck) {
            if (std::string over = builder.checkBudget(allEvents, viewBytes); !over.empty())
                return "stopped at event " + std::to_string(i) + " of the TF1 trace: " + over;
            nextCheck = profile.strings.bytes() + builder.structureBytes() + (1u << 20);
        }
        if ((i & 0xffff) == 0xffff) {
            if (stop.stop_requested())
                return "cancelled";
            if (progress)
                progress("decoding events", static_cast<double>(i) / total);
        }
    }
    profile.load.limitations.push_back("TF1 trace files carry no absolute time, no device type and usually no op "
                                       "costs: times start at 0 and utilizations need a device choice and op costs");
    return {};
}

} // namespace tpuscope::model
