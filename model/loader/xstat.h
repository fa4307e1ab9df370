// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the XStats of an XSpace mean: the stat names tpuscope reads (matched by name, since ids
// are per file), the value a stat holds whatever its wire type (xprof's "IntOrUint" and
// "StrOrRef" readings) and the op fields an XEventMetadata's stats give. Internal to the XSpace
// decoder (xspaceloader.cpp, xspacemerge.cpp); the hot readers are inline.

#include "core/profile.h"
#include "wirereader.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tpuscope::model::xspace {

using wire::Reader;

/// Stats we interpret; everything else is skipped. Matched by name (ids are per file).
enum class StatKind : uint8_t {
    Other,
    HloCategory,
    ProgramId,
    Flops,
    ModelFlops,
    BytesAccessed,
    MemoryAccessBreakdown,
    ShapeWithLayout,
    TfOp,
    Source,
    DeduplicatedName,
    DeviceOffsetPs,
    DeviceDurationPs,
    DeviceTypeString,
    PeakTflops,
    PeakHbmGbps,
    HloProto,
    StepNum, // StepTraceAnnotation's step number on a host event
};

StatKind statKindFromName(std::string_view name);

struct StatValue
{
    enum Type : uint8_t { None, Double, Uint, Int, Str, Bytes, Ref } type = None;
    double d = 0;
    uint64_t u = 0;
    int64_t i = 0;
    std::string_view s;
};

struct StatMeta
{
    std::string_view name;
    StatKind kind = StatKind::Other;
};

struct PlaneContext
{
    std::unordered_map<int64_t, StatMeta> statMeta;
    std::vector<StatKind> denseKinds; // ids are small in practice; this avoids a hash per event stat
    bool hasStepNum = false; // a step_num stat is defined: host events may be step markers
    bool hasDeviceSpan = false; // a device_offset_ps or device_duration_ps stat is defined

    void buildDenseKinds()
    {
        int64_t maxId = -1;
        for (const auto& [id, meta] : statMeta)
            if (id >= 0 && id < 65536)
                maxId = std::max(maxId, id);
        denseKinds.assign(static_cast<size_t>(maxId + 1), StatKind::Other);
        for (const auto& [id, meta] : statMeta)
            if (id >= 0 && id <= maxId)
                denseKinds[static_cast<size_t>(id)] = meta.kind;
    }

    /// Always inline (it runs once per event stat); ids beyond the dense table out of line.
    [[gnu::always_inline]] StatKind kindOf(int64_t id) const
    {
        if (id >= 0 && static_cast<uint64_t>(id) < denseKinds.size()) [[likely]]
            return denseKinds[static_cast<size_t>(id)];
        return sparseKindOf(id);
    }
    StatKind sparseKindOf(int64_t id) const;
    std::string_view nameOf(uint64_t id) const
    {
        auto it = statMeta.find(static_cast<int64_t>(id));
        return it == statMeta.end() ? std::string_view() : it->second.name;
    }
    // "IntOrUint" / "StrOrRef" readings from xprof: values are read whatever their wire type.
    double number(const StatValue& v) const
    {
        switch (v.type) {
        case StatValue::Double:
            return v.d;
        case StatValue::Uint:
            return static_cast<double>(v.u);
        case StatValue::Int:
            return static_cast<double>(v.i);
        case StatValue::Str: {
            double out = 0;
            std::from_chars(v.s.data(), v.s.data() + v.s.size(), out);
            return out;
        }
        default:
            return 0;
        }
    }
    uint64_t unsignedValue(const StatValue& v) const
    {
        switch (v.type) {
        case StatValue::Uint:
            return v.u;
        case StatValue::Int:
            return static_cast<uint64_t>(v.i);
        case StatValue::Double:
            // Saturating: casting a negative, huge or NaN double is undefined behaviour.
            if (!(v.d > 0))
                return 0;
            return v.d >= 18446744073709551615.0 ? UINT64_MAX : static_cast<uint64_t>(v.d);
        case StatValue::Str: {
            uint64_t out = 0;
            std::from_chars(v.s.data(), v.s.data() + v.s.size(), out);
            return out;
        }
        default:
            return 0;
        }
    }
    std::string_view text(const StatValue& v) const
    {
        if (v.type == StatValue::Str || v.type == StatValue::Bytes)
            return v.s;
        if (v.type == StatValue::Ref)
            return nameOf(v.u);
        return {};
    }
};

/// Reads one XStat message; returns its metadata id.
inline int64_t readStat(Reader r, StatValue& value)
{
    int64_t metadataId = 0;
    while (r.next()) {
        switch (r.field()) {
        case 1:
            metadataId = r.i64();
            break;
        case 2:
            value.type = StatValue::Double;
            value.d = r.f64();
            break;
        case 3:
            value.type = StatValue::Uint;
            value.u = r.u64();
            break;
        case 4:
            value.type = StatValue::Int;
            value.i = r.i64();
            break;
        case 5:
            value.type = StatValue::Str;
            value.s = r.bytes();
            break;
        case 6:
            value.type = StatValue::Bytes;
            value.s = r.bytes();
            break;
        case 7:
            value.type = StatValue::Ref;
            value.u = r.u64();
            break;
        default:
            r.skip();
            break;
        }
    }
    return metadataId;
}

/// HBM read+write bytes of a serialized MemoryAccessBreakdown (memory_space 1 = HBM); -1 if none.
double hbmBytesFromBreakdown(std::string_view bytes);

/// An XEventMetadata as read on a worker: strings stay views into the input and are interned
/// on the calling thread only for metadata that events use (ProfileBuilder is not thread-safe).
struct EventMeta
{
    std::string_view name;
    std::string_view displayName;
    std::string_view category;
    std::string_view shapeWithLayout;
    std::string_view tfOp;
    std::string_view source;
    std::string_view deduplicatedName;
    std::string_view hloProto;
    uint64_t programId = 0;
    bool hasProgramIdStat = false;
    double flops = 0;
    double modelFlops = 0;
    double bytesAccessed = 0;
    double hbmBytes = -1;
    bool flopsRecorded = false; // a flops or model_flops stat is present, zero or not
    bool bytesRecorded = false; // a bytes_accessed stat or a memory access breakdown
    int64_t unknownId = 0; // an id events referred to without metadata
    bool unknown = false;
};

/// Fills the op fields of an EventMeta from the stats of an XEventMetadata.
void readMetadataStats(const std::vector<std::string_view>& stats, const PlaneContext& ctx, EventMeta& meta);

} // namespace tpuscope::model::xspace
