// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Pass 2 of the XSpace decoder over a plane cut into chunks, and the op numbering both pass-2 paths
// share. Internal to the XSpace decoder.
//
// A plane far larger than the others (a single-chip profile: one TPU core's XLA Ops line holds
// nearly every event) would leave all workers but one idle. Its lines are cut at the event offsets
// pass 1 recorded (LineHeader::chunkOffsets), and each chunk is decoded on its own worker straight
// into its slice of the line's columns, sized from pass 1's count, so no event is copied to merge
// them. A chunk writes metas indices, not ops: op numbers follow first use over the whole plane, so
// the worker that finishes the plane's last chunk numbers them in one pass in file order (and
// closes the gaps skipped events left), giving exactly the ops and columns of a sequential decode.

#include "xspaceplane.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tpuscope::model::xspace {

/// A line's start in ps from the origin; false for a damaged timestamp (~1e18 ns away from the
/// origin), whose ps would overflow.
inline bool lineStartPs(const LocalLine& line, int64_t originNs, TimePs& startPs)
{
    return !__builtin_sub_overflow(line.header.timestampNs, originNs, &startPs)
        && !__builtin_mul_overflow(startPs, 1000, &startPs);
}

/// The metas index of a metadata id the plane has no entry for: a placeholder named after the id,
/// made the first time the id is seen.
uint32_t unknownMeta(LocalPlane& local, int64_t id);

/// localOp's first event of a metas entry on its kind of line: numbers the new op.
uint32_t firstLocalOp(LocalPlane& local, uint32_t at, int xla);

/// The plane-local op of metas entry `at` on an XLA-op line (xla = 1) or another line: ops are
/// numbered in the order of their first event, which the merge keeps (mergeOps). Always inline,
/// the numbering out of line: it runs once per event, and a call cost a sixth of the decode.
[[gnu::always_inline]] inline uint32_t localOp(LocalPlane& local, uint32_t at, int xla)
{
    const size_t slot = 2 * size_t(at) + size_t(xla);
    if (slot < local.opOfMeta.size() && local.opOfMeta[slot] != kNone) [[likely]]
        return local.opOfMeta[slot];
    return firstLocalOp(local, at, xla);
}

/// Bit of a chunk's op-column code that marks an index into the chunk's own unknown ids.
inline constexpr uint32_t kUnknownCode = 1u << 31;

struct DecodeChunk
{
    size_t line = 0;
    size_t firstEvent = 0; // index in the line's columns of the chunk's first event
    size_t eventCount = 0; // events pass 1 counted in it: the slice the chunk may write
    size_t begin = 0, end = 0; // byte range in the line
    TimePs lineStart = 0;
    // Results, read by the plane's last worker:
    size_t written = 0;
    int64_t malformed = 0;
    std::vector<Track::Aggregated> aggregated; // op = code, as in the columns
    std::vector<size_t> aggregatedAfter; // events written before each aggregated one
    std::vector<int64_t> unknownIds; // code & ~kUnknownCode indexes these
    std::unordered_map<int64_t, uint32_t> unknownIndex;

    /// The code of a metadata id the plane has no entry for.
    uint32_t unknownCode(int64_t id);
};

struct ChunkedPlane
{
    std::vector<DecodeChunk> chunks; // in file order, a line's chunks together
    std::atomic<size_t> left {0}; // chunks not yet decoded
};

struct ChunkSize
{
    size_t events = size_t(1) << 18; // ~6 MB of wire: a few ms of work per chunk
    bool forced = false; // cut every device plane of over two chunks (tests)
};

/// The positive integer an environment variable holds, if it holds one (the decoder's tuning
/// knobs: TPUSCOPE_DECODE_THREADS, TPUSCOPE_DECODE_CHUNK_EVENTS, TPUSCOPE_XSPACE_READ_AHEAD).
std::optional<size_t> positiveFromEnvironment(const char* name);

/// Events per chunk: TPUSCOPE_DECODE_CHUNK_EVENTS=n overrides the default, and then every device
/// plane of over two chunks is cut, not only one larger than its share, so tests can compare a
/// chunked decode of a small file with a sequential one.
ChunkSize chunkSizeFromEnvironment();

/// Calling thread, before pass 2: the chunks of plane `local` (whose lines are sized for them), or
/// nothing when it is decoded whole: a device plane (no step markers) of over two chunks that
/// holds more than its share of all events over `threads` workers.
std::unique_ptr<ChunkedPlane> planChunks(LocalPlane& local, int64_t originNs, uint64_t planeEvents, uint64_t allEvents,
    unsigned threads, const ChunkSize& size);

/// Worker that finished a plane's last chunk: numbers its ops in file order (as the whole-plane
/// decode would, aggregated events in their place) and closes the gaps of skipped events.
void finishChunkedPlane(LocalPlane& local, ChunkedPlane& plane);

} // namespace tpuscope::model::xspace
