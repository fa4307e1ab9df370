// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One XEvent's fields as pass 2 of the XSpace decoder reads them: a fast path for the common shape
// and the general, checked decoder it falls back to. Internal to the XSpace decoder; inline
// because the fast path runs once per event.

#include "wirereader.h"
#include "xstat.h"

#include <cstdint>

namespace tpuscope::model::xspace {

/// The fields of an XEvent the timeline keeps.
struct EventFields
{
    int64_t metadataId = 0;
    int64_t offsetPs = 0;
    int64_t durationPs = 0;
    int64_t occurrences = 0;
    bool aggregated = false;
    int64_t deviceOffset = -1;
    int64_t deviceDuration = -1;
    int64_t stepNum = -1;
};

inline const char* chars(const uint8_t* p)
{
    return reinterpret_cast<const char*>(p);
}

/// Bounds-checked varint; false on truncation or more than 10 bytes (the caller then falls
/// back to the checked Reader, which reports the damage the way it always has).
[[gnu::always_inline]] inline bool fastVarint(const uint8_t*& p, const uint8_t* end, uint64_t& out)
{
    if (p < end && *p < 0x80) [[likely]] {
        out = *p++;
        return true;
    }
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (p >= end)
            return false;
        const uint8_t byte = *p++;
        result |= static_cast<uint64_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            out = result;
            return true;
        }
    }
    return false;
}

/// The general event decoder (any field order, wire type or repetition); true unless damaged.
inline bool parseEventChecked(wire::Reader r, const PlaneContext& ctx, bool deviceStatsApply, EventFields& f)
{
    while (r.next()) {
        switch (r.field()) {
        case 1:
            f.metadataId = r.i64();
            break;
        case 2:
            f.offsetPs = r.i64();
            break;
        case 3:
            f.durationPs = r.i64();
            break;
        case 5:
            f.occurrences = r.i64();
            f.aggregated = true;
            break;
        case 4:
            if (deviceStatsApply) {
                StatValue v;
                const StatKind statKind = ctx.kindOf(readStat(r.sub(), v));
                if (statKind == StatKind::DeviceOffsetPs)
                    f.deviceOffset = static_cast<int64_t>(ctx.unsignedValue(v));
                else if (statKind == StatKind::DeviceDurationPs)
                    f.deviceDuration = static_cast<int64_t>(ctx.unsignedValue(v));
                else if (statKind == StatKind::StepNum)
                    f.stepNum = static_cast<int64_t>(std::min<uint64_t>(ctx.unsignedValue(v), INT64_MAX));
            } else {
                r.skip();
            }
            break;
        default:
            r.skip();
            break;
        }
    }
    return !r.failed();
}

/// The common event shape: varint fields 1, 2, 3, 5 and stats whose fields are varints.
/// Returns false for anything else, and the caller decodes the event with parseEventChecked,
/// so both paths give the same result.
[[gnu::always_inline]] inline bool parseEventFast(
    const uint8_t* p, const uint8_t* end, const PlaneContext& ctx, bool deviceStatsApply, EventFields& f)
{
    while (p < end) {
        const uint8_t tag = *p++;
        uint64_t v = 0;
        switch (tag) {
        case 0x08:
            if (!fastVarint(p, end, v))
                return false;
            f.metadataId = static_cast<int64_t>(v);
            break;
        case 0x10:
            if (!fastVarint(p, end, v))
                return false;
            f.offsetPs = static_cast<int64_t>(v);
            break;
        case 0x18:
            if (!fastVarint(p, end, v))
                return false;
            f.durationPs = static_cast<int64_t>(v);
            break;
        case 0x28:
            if (!fastVarint(p, end, v))
                return false;
            f.occurrences = static_cast<int64_t>(v);
            f.aggregated = true;
            break;
        case 0x22: {
            uint64_t length = 0;
            if (!fastVarint(p, end, length) || length > static_cast<uint64_t>(end - p))
                return false;
            const uint8_t* statEnd = p + length;
            if (deviceStatsApply) {
                // Only the metadata id decides whether the value matters; the values are varints.
                int64_t statId = 0;
                const uint8_t* s = p;
                while (s < statEnd) {
                    const uint8_t statTag = *s++;
                    if (statTag != 0x08 && statTag != 0x18 && statTag != 0x20 && statTag != 0x38)
                        return false;
                    if (!fastVarint(s, statEnd, v))
                        return false;
                    if (statTag == 0x08)
                        statId = static_cast<int64_t>(v);
                }
                const StatKind kind = ctx.kindOf(statId);
                if (kind == StatKind::DeviceOffsetPs || kind == StatKind::DeviceDurationPs) {
                    StatValue value;
                    readStat(wire::Reader(chars(p), chars(statEnd), chars(p)), value);
                    (kind == StatKind::DeviceOffsetPs ? f.deviceOffset : f.deviceDuration)
                        = static_cast<int64_t>(ctx.unsignedValue(value));
                } else if (kind == StatKind::StepNum) {
                    StatValue value;
                    readStat(wire::Reader(chars(p), chars(statEnd), chars(p)), value);
                    f.stepNum = static_cast<int64_t>(std::min<uint64_t>(ctx.unsignedValue(value), INT64_MAX));
                }
            }
            p = statEnd;
            break;
        }
        default:
            return false;
        }
    }
    return true;
}

} // namespace tpuscope::model::xspace
