// SPDX-License-Identifier: GPL-3.0-or-later
#include "xspacechunks.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace tpuscope::model::xspace {

uint32_t unknownMeta(LocalPlane& local, int64_t id)
{
    auto it = local.index.find(id);
    if (it == local.index.end()) {
        ++local.unknownMetadataIds;
        EventMeta unknown;
        unknown.unknown = true;
        unknown.unknownId = id;
        it = local.index.emplace(id, static_cast<uint32_t>(local.metas.size())).first;
        local.metas.push_back(unknown);
    }
    return it->second;
}

uint32_t firstLocalOp(LocalPlane& local, uint32_t at, int xla)
{
    const size_t slot = 2 * size_t(at) + size_t(xla);
    if (slot >= local.opOfMeta.size())
        local.opOfMeta.resize(std::max(slot + 1, 2 * local.metas.size()), kNone);
    uint32_t& op = local.opOfMeta[slot];
    if (op == kNone) {
        op = static_cast<uint32_t>(local.usedOps.size());
        local.usedOps.emplace_back(at, xla != 0);
    }
    return op;
}

uint32_t DecodeChunk::unknownCode(int64_t id)
{
    auto [it, added] = unknownIndex.emplace(id, static_cast<uint32_t>(unknownIds.size()));
    if (added)
        unknownIds.push_back(id);
    return kUnknownCode | it->second;
}

std::optional<size_t> positiveFromEnvironment(const char* name)
{
    const char* env = std::getenv(name);
    if (!env || !*env)
        return std::nullopt;
    size_t value = 0;
    auto [ptr, ec] = std::from_chars(env, env + std::strlen(env), value);
    if (ec != std::errc() || value == 0)
        return std::nullopt;
    return value;
}

ChunkSize chunkSizeFromEnvironment()
{
    ChunkSize size;
    if (const std::optional<size_t> events = positiveFromEnvironment("TPUSCOPE_DECODE_CHUNK_EVENTS")) {
        size.events = *events;
        size.forced = true;
    }
    return size;
}

std::unique_ptr<ChunkedPlane> planChunks(LocalPlane& local, int64_t originNs, uint64_t planeEvents, uint64_t allEvents,
    unsigned threads, const ChunkSize& size)
{
    const bool device = local.kind == PlaneKind::TpuCore || local.kind == PlaneKind::Gpu;
    if (threads <= 1 || !device || planeEvents < 2 * size.events || local.metas.size() >= kUnknownCode / 2
        || (!size.forced && planeEvents * threads <= allEvents))
        return nullptr;
    auto plane = std::make_unique<ChunkedPlane>();
    for (size_t l = 0; l < local.lines.size(); ++l) {
        LocalLine& line = local.lines[l];
        const size_t n = line.header.eventCount;
        TimePs lineStart = 0;
        if (!lineStartPs(line, originNs, lineStart)) {
            ++local.malformedEvents; // as the whole-plane decode counts a line it cannot place
            continue;
        }
        if (n == 0)
            continue;
        line.start.resize(n);
        line.duration.resize(n);
        line.op.resize(n);
        const std::vector<size_t>& offsets = line.header.chunkOffsets;
        for (size_t k = 0; k <= offsets.size(); ++k) {
            DecodeChunk chunk;
            chunk.line = l;
            chunk.firstEvent = k * size.events;
            chunk.eventCount = std::min(size.events, n - std::min(n, chunk.firstEvent));
            chunk.begin = k == 0 ? 0 : offsets[k - 1];
            chunk.end = k < offsets.size() ? offsets[k] : line.bytes.size();
            chunk.lineStart = lineStart;
            plane->chunks.push_back(std::move(chunk));
        }
    }
    plane->left.store(plane->chunks.size(), std::memory_order_relaxed);
    return plane;
}

void finishChunkedPlane(LocalPlane& local, ChunkedPlane& plane)
{
    std::vector<size_t> kept(local.lines.size(), 0);
    std::vector<bool> chunked(local.lines.size(), false);
    for (DecodeChunk& chunk : plane.chunks) {
        LocalLine& line = local.lines[chunk.line];
        const int xla = line.xlaOpLine ? 1 : 0;
        chunked[chunk.line] = true;
        local.malformedEvents += chunk.malformed;
        auto opOf = [&](uint32_t code) {
            const uint32_t at = code & kUnknownCode ? unknownMeta(local, chunk.unknownIds[code & ~kUnknownCode]) : code;
            return localOp(local, at, xla);
        };
        size_t& out = kept[chunk.line];
        size_t k = 0;
        auto aggregatedUpTo = [&](size_t written) {
            for (; k < chunk.aggregated.size() && chunk.aggregatedAfter[k] <= written; ++k) {
                Track::Aggregated a = chunk.aggregated[k];
                a.op = opOf(a.op);
                line.aggregated.push_back(a);
            }
        };
        for (size_t i = 0; i < chunk.written; ++i) {
            aggregatedUpTo(i);
            const size_t from = chunk.firstEvent + i;
            line.op[out] = opOf(line.op[from]);
            if (out != from) {
                line.start[out] = line.start[from];
                line.duration[out] = line.duration[from];
            }
            ++out;
        }
        aggregatedUpTo(SIZE_MAX);
        chunk = DecodeChunk(); // its tables are not needed any more
    }
    for (size_t l = 0; l < local.lines.size(); ++l) {
        if (!chunked[l] || kept[l] == local.lines[l].start.size())
            continue;
        local.lines[l].start.resize(kept[l]);
        local.lines[l].duration.resize(kept[l]);
        local.lines[l].op.resize(kept[l]);
    }
}

} // namespace tpuscope::model::xspace
