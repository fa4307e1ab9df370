// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One XEvent's fields as pass 2 of the XSpace decoder reads them: a fast path for the common shape
// and the general, checked decoder it falls back to. Internal to the XSpace decoder; inline
// because the fast path runs once per event.

#include "wirereader.h"
#include "xstat.h"

#include <cstdint>
#include <cstring>

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

/// A stat [p, statEnd) of kind `kind` into the fields the timeline keeps, when it is one of them.
[[gnu::always_inline]] inline void applyStat(
    StatKind kind, const uint8_t* p, const uint8_t* statEnd, const PlaneContext& ctx, EventFields& f)
{
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

/// One stat of an event, [p, statEnd), whose fields are all varints: the values the timeline
/// keeps (device offset and duration, step number) into `f`. False for a stat with another
/// field, which the caller then decodes with parseEventChecked.
[[gnu::always_inline]] inline bool readEventStat(
    const uint8_t* p, const uint8_t* statEnd, const PlaneContext& ctx, EventFields& f)
{
    // Only the metadata id decides whether the value matters; the values are varints.
    int64_t statId = 0;
    uint64_t v = 0;
    for (const uint8_t* s = p; s < statEnd;) {
        const uint8_t statTag = *s++;
        if (statTag != 0x08 && statTag != 0x18 && statTag != 0x20 && statTag != 0x38)
            return false;
        if (!fastVarint(s, statEnd, v))
            return false;
        if (statTag == 0x08)
            statId = static_cast<int64_t>(v);
    }
    applyStat(ctx.kindOf(statId), p, statEnd, ctx, f);
    return true;
}

/// A varint of at most 8 bytes, read with one 8-byte load: its end is the first byte whose high
/// bit is clear, and its seven-bit groups are packed together in three steps. The 8 bytes at p
/// must be readable. False for a longer varint.
[[gnu::always_inline]] inline bool wordVarint(const uint8_t*& p, uint64_t& out)
{
    uint64_t x = 0;
    std::memcpy(&x, p, sizeof x);
    const uint64_t ends = ~x & 0x8080808080808080ull;
    if (ends == 0) [[unlikely]]
        return false;
    const int bits = __builtin_ctzll(ends) + 1; // through the last byte of the varint
    x &= ~0ull >> (64 - bits);
    x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
    x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
    x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
    out = x;
    p += bits / 8;
    return true;
}

/// The stat shape protobuf writes, [p, statEnd): its metadata id below 128, then at most one
/// varint value (uint64, int64 or ref) that ends at the stat's end. The stat's 8 bytes past its
/// third must be readable. False for anything else, which readEventStat then reads.
[[gnu::always_inline]] inline bool readStatInOrder(
    const uint8_t* p, const uint8_t* statEnd, const PlaneContext& ctx, EventFields& f)
{
    if (statEnd - p < 2 || p[0] != 0x08 || p[1] >= 0x80)
        return false;
    if (statEnd - p > 2) {
        if (p[2] != 0x18 && p[2] != 0x20 && p[2] != 0x38)
            return false;
        const uint8_t* valueEnd = p + 3;
        uint64_t value = 0; // read where it matters, by applyStat
        if (!wordVarint(valueEnd, value) || valueEnd != statEnd)
            return false; // the value does not end at the stat's last byte
    }
    applyStat(ctx.kindOf(p[1]), p, statEnd, ctx, f);
    return true;
}

/// The event shape protobuf writes: metadata id, offset and duration (each at most once, in
/// that order, any of them left out when zero), then stats whose fields are varints. Straight
/// through where parseEventFast loops over a switch and a byte at a time: an event is one chain
/// of dependent steps, each field's place depending on the length of the one before, and the
/// processor overlaps few events, so a shorter chain is a faster decode (a fifth less time on the
/// bench file). The 8 bytes past `end` must be readable (wordVarint). Returns false for anything else
/// (an aggregated event, other fields or order, a varint of more than 8 bytes), and the caller
/// decodes the event with parseEventFast, so every path gives the same result.
[[gnu::always_inline]] inline bool parseEventInOrder(
    const uint8_t* p, const uint8_t* end, const PlaneContext& ctx, bool deviceStatsApply, EventFields& f)
{
    uint64_t v = 0;
    if (p < end && *p == 0x08) {
        ++p;
        if (!wordVarint(p, v))
            return false;
        f.metadataId = static_cast<int64_t>(v);
    }
    if (p < end && *p == 0x10) {
        ++p;
        if (!wordVarint(p, v))
            return false;
        f.offsetPs = static_cast<int64_t>(v);
    }
    if (p < end && *p == 0x18) {
        ++p;
        if (!wordVarint(p, v))
            return false;
        f.durationPs = static_cast<int64_t>(v);
    }
    while (p < end) {
        // A stat shorter than 128 bytes; p[1] is readable, as the 8 bytes past `end` are.
        if (p[0] != 0x22 || p[1] >= 0x80 || 2 + p[1] > end - p)
            return false;
        const uint8_t* statEnd = p + 2 + p[1];
        if (deviceStatsApply && !readStatInOrder(p + 2, statEnd, ctx, f))
            return false;
        p = statEnd;
    }
    return p == end; // a varint that ran past the event's end leaves p beyond it
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
            if (deviceStatsApply && !readEventStat(p, statEnd, ctx, f))
                return false;
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
