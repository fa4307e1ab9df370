// SPDX-License-Identifier: GPL-3.0-or-later
//
// XSpace decoding. The file is walked with a bounds-checked wire reader instead of being
// parsed into libprotobuf messages: a message parse allocates ~150 bytes per event, which is
// the cost that dominates large profiles (PERFORMANCE.md §4). Planes are visited in two
// passes because protobuf writes fields in number order: lines (3) come before the metadata
// maps (4, 5) they refer to.

#include "xspaceloader.h"

#include "hloconvert.h"
#include "wirereader.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <unordered_map>

namespace tpuscope::model {

namespace {

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
};

StatKind statKindFromName(std::string_view name)
{
    static const std::unordered_map<std::string_view, StatKind> kinds{
        {"hlo_category", StatKind::HloCategory},
        {"program_id", StatKind::ProgramId},
        {"flops", StatKind::Flops},
        {"model_flops", StatKind::ModelFlops},
        {"bytes_accessed", StatKind::BytesAccessed},
        {"memory_access_breakdown", StatKind::MemoryAccessBreakdown},
        {"shape_with_layout", StatKind::ShapeWithLayout},
        {"tf_op", StatKind::TfOp},
        {"source", StatKind::Source},
        {"deduplicated_name", StatKind::DeduplicatedName},
        {"device_offset_ps", StatKind::DeviceOffsetPs},
        {"device_duration_ps", StatKind::DeviceDurationPs},
        {"device_type_string", StatKind::DeviceTypeString},
        {"peak_teraflops_per_second", StatKind::PeakTflops},
        {"peak_hbm_bw_gigabytes_per_second", StatKind::PeakHbmGbps},
        {"Hlo Proto", StatKind::HloProto},
        {"HLO Proto", StatKind::HloProto},
    };
    auto it = kinds.find(name);
    return it == kinds.end() ? StatKind::Other : it->second;
}

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

    StatKind kindOf(int64_t id) const
    {
        if (id >= 0 && static_cast<uint64_t>(id) < denseKinds.size())
            return denseKinds[static_cast<size_t>(id)];
        auto it = statMeta.find(id);
        return it == statMeta.end() ? StatKind::Other : it->second.kind;
    }
    std::string_view nameOf(uint64_t id) const
    {
        auto it = statMeta.find(static_cast<int64_t>(id));
        return it == statMeta.end() ? std::string_view() : it->second.name;
    }
    // "IntOrUint" / "StrOrRef" readings from xprof: values are read whatever their wire type.
    double number(const StatValue& v) const
    {
        switch (v.type) {
        case StatValue::Double: return v.d;
        case StatValue::Uint: return static_cast<double>(v.u);
        case StatValue::Int: return static_cast<double>(v.i);
        case StatValue::Str: {
            double out = 0;
            std::from_chars(v.s.data(), v.s.data() + v.s.size(), out);
            return out;
        }
        default: return 0;
        }
    }
    uint64_t unsignedValue(const StatValue& v) const
    {
        switch (v.type) {
        case StatValue::Uint: return v.u;
        case StatValue::Int: return static_cast<uint64_t>(v.i);
        case StatValue::Double: return static_cast<uint64_t>(v.d);
        case StatValue::Str: {
            uint64_t out = 0;
            std::from_chars(v.s.data(), v.s.data() + v.s.size(), out);
            return out;
        }
        default: return 0;
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
int64_t readStat(Reader r, StatValue& value)
{
    int64_t metadataId = 0;
    while (r.next()) {
        switch (r.field()) {
        case 1: metadataId = r.i64(); break;
        case 2: value.type = StatValue::Double; value.d = r.f64(); break;
        case 3: value.type = StatValue::Uint; value.u = r.u64(); break;
        case 4: value.type = StatValue::Int; value.i = r.i64(); break;
        case 5: value.type = StatValue::Str; value.s = r.bytes(); break;
        case 6: value.type = StatValue::Bytes; value.s = r.bytes(); break;
        case 7: value.type = StatValue::Ref; value.u = r.u64(); break;
        default: r.skip(); break;
        }
    }
    return metadataId;
}

/// HBM read+write bytes of a serialized MemoryAccessBreakdown (memory_space 1 = HBM); -1 if none.
double hbmBytesFromBreakdown(std::string_view bytes)
{
    Reader r(bytes);
    double hbm = 0;
    bool any = false;
    while (r.next()) {
        if (r.field() != 1 || r.type() != wire::Len) {
            r.skip();
            continue;
        }
        Reader entry = r.sub();
        uint64_t space = 0, accessed = 0;
        while (entry.next()) {
            if (entry.field() == 2)
                space = entry.u64();
            else if (entry.field() == 3)
                accessed = entry.u64();
            else
                entry.skip();
        }
        any = true;
        if (space == 1)
            hbm += static_cast<double>(accessed);
    }
    return any && !r.failed() ? hbm : -1;
}

struct EventMeta
{
    std::string_view name;
    std::string_view displayName;
    OpInfo op;                     // filled from the metadata stats
    std::string_view hloProto;
    bool hasProgramIdStat = false;
    OpId opId[2] = {kNone, kNone}; // [0] other lines, [1] XLA Ops lines of TPU cores
};

struct LineHeader
{
    int64_t id = 0;
    int64_t displayId = 0;
    std::string_view name;
    std::string_view displayName;
    int64_t timestampNs = 0;
    size_t eventCount = 0; // events are decoded in a second pass, straight from the line bytes
};

struct PlaneSpans
{
    int64_t id = 0;
    std::string_view name;
    std::vector<std::string_view> lines;
    std::vector<std::string_view> eventMetadata;
    std::vector<std::string_view> statMetadata;
    std::vector<std::string_view> stats;
};

std::string describe(const Reader& r, const char* where)
{
    return std::string("corrupt or truncated XSpace: ") + r.error() + " at byte offset " + std::to_string(r.errorOffset())
        + " (" + where + ")";
}

/// Fills an OpInfo from the stats of an XEventMetadata.
void readMetadataStats(const std::vector<std::string_view>& stats, const PlaneContext& ctx, ProfileBuilder& builder,
                       EventMeta& meta)
{
    for (std::string_view blob : stats) {
        StatValue v;
        const int64_t id = readStat(Reader(blob), v);
        switch (ctx.kindOf(id)) {
        case StatKind::HloCategory: meta.op.category = builder.intern(ctx.text(v)); break;
        case StatKind::ProgramId:
            meta.op.programId = ctx.unsignedValue(v);
            meta.op.hasProgramId = true;
            meta.hasProgramIdStat = true;
            break;
        case StatKind::Flops: meta.op.flops = ctx.number(v); break;
        case StatKind::ModelFlops: meta.op.modelFlops = ctx.number(v); break;
        case StatKind::BytesAccessed: meta.op.bytesAccessed = ctx.number(v); break;
        case StatKind::MemoryAccessBreakdown: meta.op.hbmBytes = hbmBytesFromBreakdown(v.s); break;
        case StatKind::ShapeWithLayout: meta.op.shapeWithLayout = builder.intern(ctx.text(v)); break;
        case StatKind::TfOp: meta.op.tfOp = builder.intern(ctx.text(v)); break;
        case StatKind::Source: meta.op.source = builder.intern(ctx.text(v)); break;
        case StatKind::DeduplicatedName: meta.op.deduplicatedName = builder.intern(ctx.text(v)); break;
        case StatKind::HloProto: meta.hloProto = v.s; break;
        default: break;
        }
    }
    // xprof: model_flops "can be 0, assume same as flops" and the reverse for JSON-era data.
    if (meta.op.modelFlops == 0)
        meta.op.modelFlops = meta.op.flops;
    if (meta.op.flops == 0)
        meta.op.flops = meta.op.modelFlops;
}

/// "jit_f(12190760917235803885)" → 12190760917235803885.
std::optional<uint64_t> programIdFromName(std::string_view name)
{
    if (name.empty() || name.back() != ')')
        return std::nullopt;
    const auto open = name.rfind('(');
    if (open == std::string_view::npos)
        return std::nullopt;
    uint64_t value = 0;
    const char* first = name.data() + open + 1;
    const char* last = name.data() + name.size() - 1;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last)
        return std::nullopt;
    return value;
}

class XSpaceDecoder
{
public:
    XSpaceDecoder(std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress,
                  std::stop_token stop)
        : m_bytes(bytes)
        , m_builder(builder)
        , m_host(host)
        , m_progress(progress)
        , m_stop(stop)
    {
    }

    std::string run()
    {
        std::vector<PlaneSpans> planes;
        Reader top(m_bytes);
        while (top.next()) {
            switch (top.field()) {
            case 1: {
                std::string_view blob = top.bytes();
                if (top.failed())
                    break;
                planes.push_back(scanPlane(blob));
                if (!m_error.empty())
                    return m_error;
                break;
            }
            case 2:
            case 3: {
                std::string_view text = top.bytes();
                m_builder.profile().load.warnings.emplace_back(std::string(top.field() == 2 ? "profiler error: " : "profiler warning: ")
                                                               + std::string(text.substr(0, 500)));
                break;
            }
            case 4: {
                std::string_view hostname = top.bytes();
                if (m_builder.profile().hosts.size() > m_host && m_builder.profile().hosts[m_host].empty())
                    m_builder.profile().hosts[m_host] = std::string(hostname);
                break;
            }
            default: top.skip(); break;
            }
        }
        if (top.failed()) {
            std::string message = describe(top, "top-level XSpace");
            if (planes.empty())
                return message;
            m_builder.profile().load.warnings.push_back(message + "; showing the " + std::to_string(planes.size())
                                                        + " planes read before the damage");
        }
        if (planes.empty())
            return "the file holds no XSpace planes";

        // The time origin is the earliest line start over every plane, so all times fit 64 bits.
        bool haveOrigin = false;
        int64_t origin = 0;
        for (const auto& plane : planes)
            for (std::string_view line : plane.lines) {
                LineHeader header = scanLineHeader(line);
                if (header.eventCount == 0)
                    continue;
                origin = haveOrigin ? std::min(origin, header.timestampNs) : header.timestampNs;
                haveOrigin = true;
            }
        Profile& profile = m_builder.profile();
        if (profile.originNs == 0 || (haveOrigin && origin < profile.originNs))
            profile.originNs = origin;
        m_originNs = profile.originNs;

        size_t totalBytes = 0;
        for (const auto& plane : planes)
            for (auto line : plane.lines)
                totalBytes += line.size();
        m_totalLineBytes = std::max<size_t>(totalBytes, 1);
        for (const auto& plane : planes) {
            decodePlane(plane);
            if (!m_error.empty())
                return m_error;
            if (m_stop.stop_requested())
                return "cancelled";
        }
        return {};
    }

private:
    PlaneSpans scanPlane(std::string_view blob)
    {
        PlaneSpans spans;
        Reader r(blob, m_bytes.data());
        while (r.next()) {
            switch (r.field()) {
            case 1: spans.id = r.i64(); break;
            case 2: spans.name = r.bytes(); break;
            case 3: spans.lines.push_back(r.bytes()); break;
            case 4: spans.eventMetadata.push_back(r.bytes()); break;
            case 5: spans.statMetadata.push_back(r.bytes()); break;
            case 6: spans.stats.push_back(r.bytes()); break;
            default: r.skip(); break;
            }
        }
        if (r.failed())
            m_error = describe(r, "plane");
        return spans;
    }

    LineHeader scanLineHeader(std::string_view blob) const
    {
        LineHeader header;
        Reader r(blob, m_bytes.data());
        while (r.next()) {
            switch (r.field()) {
            case 1: header.id = r.i64(); break;
            case 2: header.name = r.bytes(); break;
            case 3: header.timestampNs = r.i64(); break;
            case 4:
                r.skip();
                ++header.eventCount;
                break;
            case 10: header.displayId = r.i64(); break;
            case 11: header.displayName = r.bytes(); break;
            default: r.skip(); break;
            }
        }
        return header;
    }

    void decodePlane(const PlaneSpans& spans)
    {
        PlaneContext ctx;
        for (std::string_view entry : spans.statMetadata) {
            Reader r(entry, m_bytes.data());
            int64_t key = 0;
            StatMeta meta;
            while (r.next()) {
                if (r.field() == 1)
                    key = r.i64();
                else if (r.field() == 2 && r.type() == wire::Len) {
                    Reader value = r.sub();
                    int64_t id = key;
                    while (value.next()) {
                        if (value.field() == 1)
                            id = value.i64();
                        else if (value.field() == 2)
                            meta.name = value.bytes();
                        else
                            value.skip();
                    }
                    key = key ? key : id;
                } else
                    r.skip();
            }
            meta.kind = statKindFromName(meta.name);
            ctx.statMeta[key] = meta;
        }

        ctx.buildDenseKinds();
        const PlaneId planeId = m_builder.addPlane(spans.name, m_host);
        Plane& plane = m_builder.profile().planes[planeId];
        for (std::string_view blob : spans.stats) {
            StatValue v;
            const int64_t id = readStat(Reader(blob), v);
            switch (ctx.kindOf(id)) {
            case StatKind::DeviceTypeString: plane.deviceType = std::string(ctx.text(v)); break;
            case StatKind::PeakTflops: plane.peakTflops = ctx.number(v); break;
            case StatKind::PeakHbmGbps: plane.peakHbmGbps = ctx.number(v); break;
            default: break;
            }
        }

        // Event metadata: id → name, op costs, HLO proto (metadata plane).
        std::unordered_map<int64_t, EventMeta> metas;
        metas.reserve(spans.eventMetadata.size());
        for (std::string_view entry : spans.eventMetadata) {
            Reader r(entry, m_bytes.data());
            int64_t key = 0;
            EventMeta meta;
            std::vector<std::string_view> stats;
            while (r.next()) {
                if (r.field() == 1)
                    key = r.i64();
                else if (r.field() == 2 && r.type() == wire::Len) {
                    Reader value = r.sub();
                    while (value.next()) {
                        switch (value.field()) {
                        case 2: meta.name = value.bytes(); break;
                        case 4: meta.displayName = value.bytes(); break;
                        case 5: stats.push_back(value.bytes()); break;
                        default: value.skip(); break;
                        }
                    }
                } else
                    r.skip();
            }
            readMetadataStats(stats, ctx, m_builder, meta);
            const std::string_view shown = meta.displayName.empty() ? meta.name : meta.displayName;
            meta.op.name = m_builder.intern(shown);
            if (!meta.displayName.empty())
                meta.op.longName = m_builder.intern(meta.name);
            metas.emplace(key, std::move(meta));
        }

        if (plane.kind == PlaneKind::Metadata) {
            decodeHloPrograms(metas);
            return;
        }
        decodeLines(spans, planeId, ctx, metas);
    }

    void decodeHloPrograms(std::unordered_map<int64_t, EventMeta>& metas)
    {
        for (auto& [key, meta] : metas) {
            if (meta.hloProto.empty())
                continue; // XLA_HLO_MODULE_ID_MAP:..., XDB_COMPILER_METADATA:... entries
            // The key is the program id's 64 bits read as int64; the name suffix carries the
            // unsigned value; a program_id stat overrides both (FORMATS.md §2.5).
            uint64_t programId = static_cast<uint64_t>(key);
            if (auto fromName = programIdFromName(meta.name))
                programId = *fromName;
            if (meta.hasProgramIdStat)
                programId = meta.op.programId;
            std::string error;
            auto module = decodeHloProto(meta.hloProto, error);
            if (!module) {
                ++m_builder.profile().stats.hloDecodeFailures;
                m_builder.profile().load.warnings.push_back("program " + std::string(meta.name) + ": " + error);
            }
            std::string name(meta.name);
            if (auto paren = name.rfind('('); paren != std::string::npos && paren > 0)
                name.resize(paren);
            m_builder.addProgram(programId, module ? module->name : name, std::move(module));
        }
    }

    void decodeLines(const PlaneSpans& spans, PlaneId planeId, const PlaneContext& ctx,
                     std::unordered_map<int64_t, EventMeta>& metas)
    {
        // Metadata ids are small dense integers in real files: index them by vector so the
        // per-event lookup is one load instead of a hash.
        std::vector<EventMeta*> dense;
        {
            int64_t maxId = -1;
            for (auto& [id, meta] : metas)
                if (id >= 0 && id < static_cast<int64_t>(4 * metas.size() + 4096))
                    maxId = std::max(maxId, id);
            dense.assign(static_cast<size_t>(maxId + 1), nullptr);
            for (auto& [id, meta] : metas)
                if (id >= 0 && id <= maxId)
                    dense[static_cast<size_t>(id)] = &meta;
        }
        const PlaneKind planeKind = m_builder.profile().planes[planeId].kind;
        const bool deviceStatsApply = planeKind == PlaneKind::TpuCore || planeKind == PlaneKind::Gpu;
        Profile& profile = m_builder.profile();
        for (std::string_view lineBlob : spans.lines) {
            LineHeader header = scanLineHeader(lineBlob);
            const std::string_view name = header.displayName.empty() ? header.name : header.displayName;
            TrackKind kind = trackKindFromLineName(header.name);
            if (kind == TrackKind::Other && planeKind == PlaneKind::Host)
                kind = TrackKind::HostThread;
            const TrackId trackId = m_builder.addTrack(planeId, name, kind, header.id);
            profile.tracks[trackId].displayId = header.displayId ? header.displayId : header.id;
            const bool xlaOpLine = kind == TrackKind::XlaOps && planeKind == PlaneKind::TpuCore;
            const TimePs lineStartPs = (header.timestampNs - m_originNs) * 1000;
            Track& track = profile.tracks[trackId];
            track.start.reserve(header.eventCount);
            track.duration.reserve(header.eventCount);
            track.op.reserve(header.eventCount);

            Reader line(lineBlob, m_bytes.data());
            while (line.next()) {
                if (line.field() != 4 || line.type() != wire::Len) {
                    line.skip();
                    continue;
                }
                Reader r = line.sub();
                int64_t metadataId = 0, offsetPs = 0, durationPs = 0, occurrences = 0;
                bool aggregated = false;
                int64_t deviceOffset = -1, deviceDuration = -1;
                while (r.next()) {
                    switch (r.field()) {
                    case 1: metadataId = r.i64(); break;
                    case 2: offsetPs = r.i64(); break;
                    case 3: durationPs = r.i64(); break;
                    case 5:
                        occurrences = r.i64();
                        aggregated = true;
                        break;
                    case 4:
                        if (deviceStatsApply) {
                            StatValue v;
                            const StatKind statKind = ctx.kindOf(readStat(r.sub(), v));
                            if (statKind == StatKind::DeviceOffsetPs)
                                deviceOffset = static_cast<int64_t>(ctx.unsignedValue(v));
                            else if (statKind == StatKind::DeviceDurationPs)
                                deviceDuration = static_cast<int64_t>(ctx.unsignedValue(v));
                        } else {
                            r.skip();
                        }
                        break;
                    default: r.skip(); break;
                    }
                }
                if (r.failed()) {
                    ++profile.stats.malformedEvents;
                    continue;
                }
                EventMeta* found = metadataId >= 0 && static_cast<uint64_t>(metadataId) < dense.size()
                    ? dense[static_cast<size_t>(metadataId)]
                    : nullptr;
                if (!found) {
                    auto it = metas.find(metadataId);
                    if (it == metas.end()) {
                        ++profile.stats.unknownMetadataIds;
                        EventMeta unknown;
                        unknown.op.name = m_builder.intern("<unknown metadata " + std::to_string(metadataId) + ">");
                        it = metas.emplace(metadataId, unknown).first; // unordered_map keeps pointers stable
                    }
                    found = &it->second;
                }
                EventMeta& meta = *found;
                OpId& op = meta.opId[xlaOpLine ? 1 : 0];
                if (op == kNone) {
                    OpInfo info = meta.op;
                    info.isXlaOp = xlaOpLine;
                    op = m_builder.addOp(info);
                }
                TimePs start = lineStartPs + offsetPs;
                // xprof uses the device timespan when both stats exist (GetDeviceEventTimespan):
                // device_offset_ps is relative to the line start like offset_ps.
                if (deviceOffset >= 0 && deviceDuration >= 0) {
                    start = lineStartPs + deviceOffset;
                    durationPs = deviceDuration;
                }
                if (aggregated) {
                    track.aggregated.push_back({op, std::max<int64_t>(1, occurrences), durationPs});
                    continue;
                }
                track.start.push_back(start);
                track.duration.push_back(durationPs);
                track.op.push_back(op);
                if ((++m_eventsDecoded & 0xffff) == 0 && m_stop.stop_requested())
                    return;
            }
            m_bytesDone += lineBlob.size();
            if (m_progress)
                m_progress("decoding events", static_cast<double>(m_bytesDone) / m_totalLineBytes);
        }
    }

    std::string_view m_bytes;
    ProfileBuilder& m_builder;
    uint32_t m_host;
    const ProgressFn& m_progress;
    std::stop_token m_stop;
    std::string m_error;
    int64_t m_originNs = 0;
    size_t m_totalLineBytes = 1;
    size_t m_bytesDone = 0;
    uint64_t m_eventsDecoded = 0;
};

} // namespace

std::string decodeXSpace(std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress,
                         std::stop_token stop)
{
    XSpaceDecoder decoder(bytes, builder, host, progress, stop);
    return decoder.run();
}

bool looksLikeXSpace(std::string_view bytes)
{
    // First field: planes (1, LEN). Inside, a plane starts with id (1, varint), name (2, LEN,
    // printable) or lines (3, LEN). Only the bytes present are checked, so a truncated file is
    // still recognised and then reported as truncated by the decoder.
    Reader top(bytes);
    if (!top.next() || top.field() != 1 || top.type() != wire::Len)
        return false;
    uint64_t length = 0;
    if (!top.varint(length) || length == 0)
        return false;
    const size_t headerEnd = top.offset();
    std::string_view plane = bytes.substr(headerEnd, std::min<uint64_t>(length, bytes.size() - headerEnd));
    Reader r(plane);
    for (int fields = 0; fields < 4 && r.next(); ++fields) {
        if (r.field() == 1 && r.type() == wire::Varint) {
            uint64_t id;
            if (!r.varint(id))
                return fields > 0 || plane.size() < 11;
            continue;
        }
        if (r.field() == 2 && r.type() == wire::Len) {
            uint64_t nameLength = 0;
            if (!r.varint(nameLength) || nameLength > (1u << 20))
                return false;
            const std::string_view name = plane.substr(r.offset(), std::min<uint64_t>(nameLength, 256));
            return std::all_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x20; });
        }
        return r.field() == 3 && r.type() == wire::Len;
    }
    return false;
}

} // namespace tpuscope::model
