// SPDX-License-Identifier: GPL-3.0-or-later
#include "xspacescan.h"

#include "hloconvert.h"
#include "inputsource.h"
#include "wirereader.h"
#include "xspaceevent.h"
#include "xstat.h"

#include <algorithm>
#include <charconv>
#include <system_error>

namespace tpuscope::model::xspace {

using wire::Reader;

namespace {

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

} // namespace

std::string describeDamage(const wire::Reader& r, const char* where)
{
    return std::string("corrupt or truncated XSpace: ") + r.error() + " at byte offset "
        + std::to_string(r.errorOffset()) + " (" + where + ")";
}

PlaneScanner::PlaneScanner(const char* base, const LoadLimits& limits, ChunkSize chunking)
    : m_base(base)
    , m_limits(limits)
    , m_chunking(chunking)
{
}

PlaneSpans PlaneScanner::scanPlane(std::string_view blob, std::string& error) const
{
    PlaneSpans spans;
    Reader r(blob, m_base);
    while (r.next()) {
        switch (r.field()) {
        case 1:
            spans.id = r.i64();
            break;
        case 2:
            spans.name = r.bytes();
            break;
        case 3:
            spans.lines.push_back(r.bytes());
            break;
        case 4:
            spans.eventMetadata.push_back(r.bytes());
            break;
        case 5:
            spans.statMetadata.push_back(r.bytes());
            break;
        case 6:
            spans.stats.push_back(r.bytes());
            break;
        default:
            r.skip();
            break;
        }
    }
    if (r.failed())
        error = describeDamage(r, "plane");
    return spans;
}

LineHeader PlaneScanner::scanLineHeader(std::string_view blob) const
{
    LineHeader header;
    // Events (tag 0x22) are only counted here and skipped with raw pointers; other fields
    // (and damage) take one step of the checked Reader each.
    const uint8_t* const begin = reinterpret_cast<const uint8_t*>(blob.data());
    const uint8_t* p = begin;
    const uint8_t* const end = p + blob.size();
    // Called where an event starts, before it is counted. A countdown instead of a division by
    // the chunk size per event.
    uint64_t untilChunk = m_chunking.events;
    auto countEvent = [&] {
        if (untilChunk == 0) {
            header.chunkOffsets.push_back(static_cast<size_t>(p - begin));
            untilChunk = m_chunking.events;
        }
        --untilChunk;
        ++header.eventCount;
    };
    while (p < end) {
        // The next event's place depends on this one's length, so the processor cannot run ahead
        // of the walk on its own: without the hint most of the scan waited for memory.
        __builtin_prefetch(p + 1024);
        if (*p == 0x22) {
            const uint8_t* q = p + 1;
            uint64_t length = 0;
            if (fastVarint(q, end, length) && length <= static_cast<uint64_t>(end - q)) {
                countEvent();
                p = q + length;
                continue;
            }
        }
        Reader r(chars(p), chars(end), m_base);
        if (!r.next())
            break;
        switch (r.field()) {
        case 1:
            header.id = r.i64();
            break;
        case 2:
            header.name = r.bytes();
            break;
        case 3:
            header.timestampNs = r.i64();
            break;
        case 4:
            r.skip();
            countEvent();
            break;
        case 10:
            header.displayId = r.i64();
            break;
        case 11:
            header.displayName = r.bytes();
            break;
        default:
            r.skip();
            break;
        }
        if (r.failed())
            break;
        p = reinterpret_cast<const uint8_t*>(m_base) + r.offset();
    }
    return header;
}

void PlaneScanner::scanPlaneContents(LocalPlane& local, ByteSource* releaseLinesTo) const
{
    const PlaneSpans& spans = *local.spans;
    PlaneContext& ctx = local.ctx;
    for (std::string_view entry : spans.statMetadata) {
        Reader r(entry, m_base);
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
        ctx.hasStepNum |= meta.kind == StatKind::StepNum;
        ctx.hasDeviceSpan |= meta.kind == StatKind::DeviceOffsetPs || meta.kind == StatKind::DeviceDurationPs;
        ctx.statMeta[key] = meta;
    }
    ctx.buildDenseKinds();

    for (std::string_view blob : spans.stats) {
        StatValue v;
        const int64_t id = readStat(Reader(blob), v);
        switch (ctx.kindOf(id)) {
        case StatKind::DeviceTypeString:
            local.deviceType = ctx.text(v);
            break;
        case StatKind::PeakTflops:
            local.peakTflops = ctx.number(v);
            break;
        case StatKind::PeakHbmGbps:
            local.peakHbmGbps = ctx.number(v);
            break;
        default:
            break;
        }
    }

    // Event metadata: id → name, op costs, HLO proto (metadata plane).
    local.metas.reserve(spans.eventMetadata.size());
    local.index.reserve(spans.eventMetadata.size());
    std::vector<std::string_view> stats;
    for (std::string_view entry : spans.eventMetadata) {
        Reader r(entry, m_base);
        int64_t key = 0;
        EventMeta meta;
        stats.clear();
        while (r.next()) {
            if (r.field() == 1)
                key = r.i64();
            else if (r.field() == 2 && r.type() == wire::Len) {
                Reader value = r.sub();
                while (value.next()) {
                    switch (value.field()) {
                    case 2:
                        meta.name = value.bytes();
                        break;
                    case 4:
                        meta.displayName = value.bytes();
                        break;
                    case 5:
                        stats.push_back(value.bytes());
                        break;
                    default:
                        value.skip();
                        break;
                    }
                }
            } else
                r.skip();
        }
        if (local.index.emplace(key, static_cast<uint32_t>(local.metas.size())).second) {
            readMetadataStats(stats, ctx, meta);
            local.metas.push_back(meta);
        }
    }

    // Line headers of every plane, the metadata plane's too: they all count for the time
    // origin, as they always have (metadata-plane lines get no track).
    local.lines.resize(spans.lines.size());
    for (size_t l = 0; l < spans.lines.size(); ++l) {
        LocalLine& line = local.lines[l];
        line.bytes = spans.lines[l];
        line.header = scanLineHeader(line.bytes);
        if (releaseLinesTo)
            releaseLinesTo->release(line.bytes.data(), line.bytes.data() + line.bytes.size());
        line.kind = trackKindFromLineName(line.header.name);
        if (line.kind == TrackKind::Other && local.kind == PlaneKind::Host)
            line.kind = TrackKind::HostThread;
        line.xlaOpLine = line.kind == TrackKind::XlaOps && local.kind == PlaneKind::TpuCore;
    }

    if (local.kind == PlaneKind::Metadata) {
        collectHloPrograms(local);
        return;
    }

    // Metadata ids are small dense integers in real files: index them by vector so the
    // per-event lookup is one load instead of a hash.
    int64_t maxId = -1;
    for (const auto& [id, at] : local.index)
        if (id >= 0 && id < static_cast<int64_t>(4 * local.index.size() + 4096))
            maxId = std::max(maxId, id);
    local.dense.assign(static_cast<size_t>(maxId + 1), kNone);
    for (const auto& [id, at] : local.index)
        if (id >= 0 && id <= maxId)
            local.dense[static_cast<size_t>(id)] = at;
}

// The programs with their instruction counts, so the calling thread budgets the HLO before any
// of it is decoded. Iterates the map like the sequential decoder did so programs keep their order.
void PlaneScanner::collectHloPrograms(LocalPlane& local) const
{
    for (const auto& [key, at] : local.index) {
        const EventMeta& meta = local.metas[at];
        if (meta.hloProto.empty())
            continue; // XLA_HLO_MODULE_ID_MAP:..., XDB_COMPILER_METADATA:... entries
        // The key is the program id's 64 bits read as int64; the name suffix carries the
        // unsigned value; a program_id stat overrides both (FORMATS.md §2.5).
        HloResult result;
        result.meta = at;
        result.programId = static_cast<uint64_t>(key);
        if (auto fromName = programIdFromName(meta.name))
            result.programId = *fromName;
        if (meta.hasProgramIdStat)
            result.programId = meta.programId;
        result.instructions = countHloInstructions(meta.hloProto);
        const LoadLimits& limits = m_limits;
        if (result.instructions > limits.maxHloInstructions) {
            result.overLimit = true;
            result.error = "its HLO holds " + std::to_string(result.instructions)
                + " instructions, more than the limit of " + std::to_string(limits.maxHloInstructions)
                + " per module, so its ops are shown without HLO"
                + (limits.hloHint.empty() ? "" : "; " + limits.hloHint);
        }
        local.programs.push_back(std::move(result));
    }
}

} // namespace tpuscope::model::xspace
