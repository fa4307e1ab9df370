// SPDX-License-Identifier: GPL-3.0-or-later
//
// XSpace decoding. The file is walked with a bounds-checked wire reader instead of being
// parsed into libprotobuf messages: a message parse allocates ~150 bytes per event, which is
// the cost that dominates large profiles (PERFORMANCE.md §4). Planes are visited in two
// passes because protobuf writes fields in number order: lines (3) come before the metadata
// maps (4, 5) they refer to.
//
// Planes are independent, so both passes run on worker threads, one plane at a time per
// worker, into plane-local columns and metadata tables holding views into the input; a plane far
// larger than the others has its events decoded in chunks on several workers (xspacechunks.h).
// Only the merge touches the ProfileBuilder (which is not thread-safe): it interns and adds the
// ops events used, in the order a sequential decode would, so the result does not depend on the
// number of threads.
//
// A gzip file arrives while it is inflated on another thread: each plane whose bytes are whole
// before the rest has arrived runs both passes at once on the calling thread, so inflate and
// decode overlap; the rest go through the passes above (xspacearrival.h).

#include "xspaceloader.h"

#include "core/heaptrim.h"
#include "core/parallel.h"
#include "core/prefault.h"
#include "hloconvert.h"
#include "inputsource.h"
#include "wirereader.h"
#include "xspacearrival.h"
#include "xspacechunks.h"
#include "xspaceevent.h"
#include "xspacemerge.h"
#include "xspaceplane.h"
#include "xspacescan.h"
#include "xstat.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <system_error>
#include <thread>
#include <unordered_map>

namespace tpuscope::model {

namespace {

using wire::Reader;
using namespace xspace;

/// Events between the decoder's checks for a stop, its hand-backs of read bytes and its mapping
/// of the columns' next pages (populateAhead): a round's three columns, 1.25 MiB, stay in the
/// cache between being mapped and being written.
constexpr uint64_t kEventsPerRound = 65536;

/// Maps the pages the next round of events appended to `column` will take, within its capacity.
template <class T> void populateAhead(const std::vector<T>& column)
{
    const size_t until = std::min<size_t>(column.capacity(), column.size() + kEventsPerRound);
    populateForWriting(column.data() + column.size(), column.data() + until);
}

std::atomic<uint64_t> g_chunksDecoded {0};
std::atomic<uint64_t> g_planesDecodedOnArrival {0};
std::atomic<uint64_t> g_wholeRereads {0};

/// Decode threads: TPUSCOPE_DECODE_THREADS=n overrides the default (one per hardware thread).
/// It exists so tests can compare a parallel decode with a single-threaded one and so users can
/// keep a load off a busy machine; LoadOptions is shared API and stays free of tuning knobs.
unsigned decodeThreads()
{
    if (const std::optional<size_t> threads = positiveFromEnvironment("TPUSCOPE_DECODE_THREADS"))
        return static_cast<unsigned>(std::min<size_t>(*threads, 256));
    return std::max(1u, std::thread::hardware_concurrency());
}

class XSpaceDecoder
{
public:
    /// What the top level said besides planes (profiler messages, damage, the host name), kept
    /// until no second decode can be needed.
    void commitTopLevel()
    {
        auto& warnings = m_builder.profile().load.warnings;
        warnings.insert(warnings.end(), m_warnings.begin(), m_warnings.end());
        m_warnings.clear();
        // The host's own name wins over the file name a log dir gave it (the first one, when a
        // space names several); a space without one keeps that file name.
        if (m_hostname && m_builder.profile().hosts.size() > m_host)
            m_builder.profile().hosts[m_host] = std::string(m_hostname->substr(0, 256));
        m_hostname.reset();
    }

    XSpaceDecoder(std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress,
        std::stop_token stop, ByteSource* source, bool* rereadWhole)
        : m_input(bytes, source)
        , m_bytes(m_input.bytes())
        , m_source(source)
        , m_rereadWhole(rereadWhole)
        , m_builder(builder)
        , m_host(host)
        , m_progress(progress)
        , m_stop(stop)
    {
    }

    std::string run()
    {
        // A deque: planes decoded as they arrive point into it while more are added.
        std::deque<PlaneSpans> planes;
        std::vector<std::unique_ptr<LocalPlane>> arrived; // per plane: decoded on arrival, or null
        Reader top(m_bytes);
        uint64_t structureBytes = 0;
        uint64_t at = 0;
        bool damaged = false;
        while (!damaged) {
            // Each top-level field is read once it is whole, so the reader sees what it would see
            // in the complete input (a gzip file is still being inflated; see xspacearrival.h).
            m_input.awaitField(at, m_stop);
            m_bytes = m_input.bytes();
            top = Reader(m_bytes.data() + at, m_bytes.data() + m_bytes.size(), m_bytes.data());
            if (!top.next())
                break;
            switch (top.field()) {
            case 1: {
                std::string_view blob = top.bytes();
                if (top.failed())
                    break;
                planes.push_back(m_scanner.scanPlane(blob, m_error));
                arrived.emplace_back();
                if (!m_error.empty()) {
                    // Damage inside a plane: the planes before it are whole and still shown.
                    planes.pop_back();
                    arrived.pop_back();
                    if (planes.empty())
                        return m_error;
                    m_warnings.push_back(
                        m_error + "; showing the " + std::to_string(planes.size()) + " planes read before the damage");
                    m_error.clear();
                    damaged = true;
                    break;
                }
                // Planes, lines, stats and metadata cost memory before any event is read (a file of
                // empty lines is all structure): charged to the budget as they are found. An event
                // kind becomes an op kind once used, so it is charged as one.
                structureBytes += LoadLimits::kPeakBytesPerPlane
                    + planes.back().lines.size() * LoadLimits::kPeakBytesPerLine
                    + planes.back().eventMetadata.size() * LoadLimits::kPeakBytesPerOp
                    + (planes.back().statMetadata.size() + planes.back().stats.size())
                        * LoadLimits::kPeakBytesPerMetadataEntry;
                for (std::string_view entry : planes.back().eventMetadata)
                    structureBytes += entry.size() * LoadLimits::kPeakBytesPerMetadataByte; // names, HLO protos
                if (std::string over = m_builder.limits().check(
                        m_builder.profile().eventCount(), m_builder.profile().strings.bytes(), structureBytes);
                    !over.empty())
                    return "the XSpace's planes, lines and metadata alone (" + std::to_string(planes.size())
                        + " planes so far): " + over;
                if (m_decodeOnArrival && m_input.arriving() && m_input.decodingNowPays(blob.size()))
                    arrived.back() = decodeOnArrival(planes.back(), structureBytes);
                if (m_stop.stop_requested())
                    return "cancelled";
                break;
            }
            case 2:
            case 3: {
                std::string_view text = top.bytes();
                m_warnings.emplace_back(std::string(top.field() == 2 ? "profiler error: " : "profiler warning: ")
                    + std::string(text.substr(0, 500)));
                break;
            }
            case 4: {
                // The host's own name wins over the file name a log dir gave it (the first one, when
                // a space names several); a space without one keeps that file name.
                std::string_view hostname = top.bytes();
                if (!hostname.empty() && !m_hostname)
                    m_hostname = hostname;
                break;
            }
            default:
                top.skip();
                break;
            }
            if (top.failed())
                break;
            at = top.offset();
        }
        if (top.failed()) {
            std::string message = describeDamage(top, "top-level XSpace");
            if (planes.empty())
                return message;
            m_warnings.push_back(
                message + "; showing the " + std::to_string(planes.size()) + " planes read before the damage");
        }
        if (planes.empty())
            return "the file holds no XSpace planes";

        std::vector<LocalPlane> locals(planes.size());
        std::vector<size_t> weight(planes.size());
        size_t totalBytes = 0;
        for (size_t i = 0; i < planes.size(); ++i) {
            if (arrived[i])
                locals[i] = std::move(*arrived[i]);
            locals[i].spans = &planes[i];
            locals[i].kind = planeKindFromName(planes[i].name);
            for (auto line : planes[i].lines)
                weight[i] += line.size();
            weight[i] += planes[i].eventMetadata.size() * 64;
            totalBytes += weight[i];
        }
        m_totalLineBytes = std::max<size_t>(totalBytes, 1);
        // A mapped file's pages stay mapped from pass 1 to pass 2, which hands them back as it
        // decodes: the peak is then about the larger of the file and its columns (25 B per event at
        // 1e8 generated events, 2.5 GB) rather than the columns alone (22 B), but pass 2 no longer
        // faults every page in again, which cost 7 s of system time of an 18–24 s load at 1e8
        // events and 0.1 s at 1e7 (issue 24). A file over a quarter of the memory budget is still
        // handed back line by line in pass 1.
        const bool keepPass1Pages = m_bytes.size() <= m_builder.limits().memoryBudgetBytes / 4;
        // Read again in pass 2: only a mapped file can give the pages back meanwhile, and only one
        // too large to keep does.
        ByteSource* const passOneReleasesTo
            = m_source && m_source->rereadable() && !keepPass1Pages ? m_source : nullptr;
        const unsigned threads = decodeThreads();
        auto poll = [this] { reportProgress(); };

        // Pass 1: metadata, plane stats, line headers (event counts) and HLO programs.
        parallelFor(
            weight, threads,
            [&](size_t i) {
                if (!arrived[i])
                    m_scanner.scanPlaneContents(locals[i], passOneReleasesTo);
            },
            [] {});
        if (m_stop.stop_requested())
            return "cancelled";
        // The time origin is the earliest line start over every plane, so all times fit 64 bits.
        // Planes decoded on arrival are moved to it; if one cannot be, the caller decodes the
        // whole input again (nothing has reached the builder yet).
        const int64_t originNs = timeOrigin(locals);
        for (size_t i = 0; i < locals.size(); ++i)
            if (arrived[i] && !moveToOrigin(locals[i], originNs)) {
                *m_rereadWhole = true;
                g_wholeRereads.fetch_add(1, std::memory_order_relaxed);
                return {};
            }
        arrived.clear();
        commitTopLevel();
        // Planes are registered in file order, so plane ids do not depend on scheduling.
        for (size_t i = 0; i < locals.size(); ++i) {
            locals[i].planeId = m_builder.addPlane(planes[i].name, m_host);
            if (m_builder.profile().planes[locals[i].planeId].kind != locals[i].kind)
                return "internal error: plane kinds disagree";
        }
        uint64_t events = 0;
        std::vector<uint64_t> planeEvents(locals.size(), 0);
        for (size_t i = 0; i < locals.size(); ++i)
            for (const auto& line : locals[i].lines)
                planeEvents[i] += line.header.eventCount;
        for (uint64_t n : planeEvents)
            events += n;
        // HLO costs what its decoded instructions take, not its wire bytes (an empty instruction
        // is 2 bytes on the wire): charged with the events before either is decoded.
        uint64_t hloInstructions = 0;
        for (const auto& local : locals)
            hloInstructions += decodableHloInstructions(local);
        if (std::string over = checkBudget(events, hloInstructions, structureBytes); !over.empty())
            return "the XSpace holds " + std::to_string(events) + " events in " + std::to_string(locals.size())
                + " planes" + (hloInstructions ? " and " + std::to_string(hloInstructions) + " HLO instructions" : "")
                + " (counted before decoding them): " + over;

        m_builder.profile().originNs = originNs;
        m_originNs = originNs;

        // Pass 2: events, into plane-local columns. A plane is marked decoded once its worker is
        // done with it, so the calling thread may read it for a preview (poll runs there).
        std::vector<std::atomic<bool>> decoded(locals.size());
        // Work items: whole planes, and the chunks of a plane far larger than the others.
        struct Item
        {
            size_t plane;
            size_t chunk; // SIZE_MAX: the whole plane
        };
        std::vector<Item> items;
        std::vector<size_t> order;
        std::vector<std::unique_ptr<ChunkedPlane>> chunked(locals.size());
        for (size_t i = 0; i < locals.size(); ++i) {
            if (locals[i].arrivalOriginNs) {
                decoded[i].store(true, std::memory_order_relaxed);
                continue;
            }
            chunked[i] = planChunks(locals[i], m_originNs, planeEvents[i], events, threads, m_chunking);
            if (!chunked[i]) {
                // The metadata plane (HLO: the ops' categories, so a preview's colours) goes first.
                items.push_back({i, SIZE_MAX});
                order.push_back(locals[i].kind == PlaneKind::Metadata ? SIZE_MAX : weight[i]);
                continue;
            }
            for (size_t c = 0; c < chunked[i]->chunks.size(); ++c) {
                const DecodeChunk& chunk = chunked[i]->chunks[c];
                items.push_back({i, c});
                order.push_back(chunk.end - chunk.begin);
            }
            if (chunked[i]->chunks.empty())
                decoded[i].store(true, std::memory_order_relaxed);
        }
        parallelFor(
            order, threads,
            [&](size_t n) {
                const Item item = items[n];
                LocalPlane& local = locals[item.plane];
                if (item.chunk == SIZE_MAX) {
                    decodeLines(local);
                    decoded[item.plane].store(true, std::memory_order_release);
                    return;
                }
                ChunkedPlane& plane = *chunked[item.plane];
                if (!decodeChunk(local, plane.chunks[item.chunk]))
                    return; // cancelled: the plane is never finished, and the load says so
                // acq_rel: the last chunk's worker sees every other chunk's columns and results.
                if (plane.left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                    finishChunkedPlane(local, plane);
                    decoded[item.plane].store(true, std::memory_order_release);
                }
            },
            [&] {
                poll();
                offerPreview(locals, decoded);
            });
        if (m_stop.stop_requested())
            return "cancelled";
        reportProgress();
        // Merging, sorting and the analysis of a large file still take a while: a preview that came
        // due while the last planes were decoded is shown meanwhile.
        offerPreview(locals, decoded);

        // Merge: ops get global ids in the order a sequential decode would give them (plane by
        // plane, first use first), then op columns are remapped in parallel and moved in.
        std::vector<std::vector<OpId>> remaps(locals.size());
        for (size_t i = 0; i < locals.size(); ++i)
            remaps[i] = mergeOps(m_builder, locals[i]);
        parallelFor(
            weight, threads, [&](size_t i) { remapOps(locals[i], remaps[i]); }, [] {});
        for (auto& local : locals)
            mergePlane(m_builder, local);
        locals.clear();
        // Worker threads allocate from their own malloc arenas; the metadata tables freed above
        // would otherwise stay resident (~5 bytes per event at 1e6 events).
        if (threads > 1)
            returnFreedHeapToSystem();
        return {};
    }

private:
    /// Instructions of the plane's programs that will be decoded (within the per-module limit).
    static uint64_t decodableHloInstructions(const LocalPlane& local)
    {
        uint64_t instructions = 0;
        for (const HloResult& program : local.programs)
            if (!program.overLimit)
                instructions += program.instructions;
        return instructions;
    }

    /// The budget's verdict on `events` more events and `hloInstructions` HLO instructions, with
    /// `structureBytes` of planes, lines and metadata: empty when they fit. HLO costs what its
    /// decoded instructions take, not its wire bytes (an empty instruction is 2 bytes on the wire).
    std::string checkBudget(uint64_t events, uint64_t hloInstructions, uint64_t structureBytes) const
    {
        const uint64_t hloBytes = hloInstructions >= UINT64_MAX / LoadLimits::kPeakBytesPerHloInstruction
            ? UINT64_MAX / 2
            : hloInstructions * LoadLimits::kPeakBytesPerHloInstruction;
        return m_builder.limits().check(m_builder.profile().eventCount() + events, m_builder.profile().strings.bytes(),
            std::min(structureBytes + hloBytes, UINT64_MAX / 2));
    }

    /// The earliest start of a line with events, over `planes`.
    template <class Planes> static std::optional<int64_t> earliestLineStart(const Planes& planes)
    {
        std::optional<int64_t> earliest;
        for (const LocalPlane& local : planes)
            for (const auto& line : local.lines)
                if (line.header.eventCount != 0)
                    earliest = std::min(earliest.value_or(line.header.timestampNs), line.header.timestampNs);
        return earliest;
    }

    /// The origin times are counted from: the profile's, unless this space starts earlier (a log
    /// dir's hosts share one origin).
    int64_t originAfter(std::optional<int64_t> earliest) const
    {
        const int64_t current = m_builder.profile().originNs;
        return current == 0 || (earliest && *earliest < current) ? earliest.value_or(0) : current;
    }

    int64_t timeOrigin(const std::vector<LocalPlane>& locals) const { return originAfter(earliestLineStart(locals)); }

    /// A plane whose bytes are whole while the rest of the input still arrives: its pass 1 and
    /// pass 2 run now, on this thread, while the inflate thread goes on (xspacearrival.h). Null
    /// when the planes so far do not fit the budget: the whole-file path then reads it again
    /// and says why. Touches nothing outside the returned plane.
    std::unique_ptr<LocalPlane> decodeOnArrival(const PlaneSpans& spans, uint64_t structureBytes)
    {
        auto local = std::make_unique<LocalPlane>();
        local->spans = &spans;
        local->kind = planeKindFromName(spans.name);
        m_scanner.scanPlaneContents(*local, nullptr); // an inflated line is read again in pass 2
        for (const auto& line : local->lines)
            m_arrivedEvents += line.header.eventCount;
        m_arrivedHloInstructions += decodableHloInstructions(*local);
        if (!checkBudget(m_arrivedEvents, m_arrivedHloInstructions, structureBytes).empty()) {
            m_decodeOnArrival = false;
            return nullptr;
        }
        const std::optional<int64_t> earliest = earliestLineStart(std::span(local.get(), 1));
        if (earliest)
            m_arrivedEarliestNs = std::min(m_arrivedEarliestNs.value_or(*earliest), *earliest);
        m_originNs = originAfter(m_arrivedEarliestNs);
        local->arrivalOriginNs = m_originNs;
        decodeLines(*local);
        g_planesDecodedOnArrival.fetch_add(1, std::memory_order_relaxed);
        if (m_progress && m_source)
            m_progress("decoding events", m_source->fraction(nullptr));
        return local;
    }

    // Worker, pass 2: the programs within the limits, decoded.
    void decodeHloPrograms(LocalPlane& local) const
    {
        for (HloResult& result : local.programs)
            if (!result.overLimit)
                result.module = decodeHloProto(local.metas[result.meta].hloProto, result.error);
    }

    /// Hands a line's pages back once they are read: a mapped file reads them again if touched,
    /// an inflated buffer loses them, so pass 2 (the last reader of event bytes) may always call
    /// this and pass 1 only for a mapped file.
    void releaseInput(std::string_view bytes) const
    {
        if (m_source)
            m_source->release(bytes.data(), bytes.data() + bytes.size());
    }

    /// One event of pass 2, checked and placed in time. `at` is its metas index, or kNone for a
    /// metadata id the plane has no entry for (the sink names it).
    struct PlacedEvent
    {
        TimePs start;
        TimePs duration;
        int64_t metadataId;
        uint32_t at;
        bool aggregated;
        int64_t occurrences;
        int64_t stepNum;
    };

    /// Worker: decodes the events in `bytes` (a line, or a chunk of one starting at an event) and
    /// hands each to `sink`, which returns false to stop. Calls `ahead` before the first event and
    /// after every kEventsPerRound. Counts what it skips in `malformed`, hands the bytes back as it
    /// goes and counts them as done. False when the load was cancelled.
    template <class Sink, class Ahead = void (*)()>
    bool decodeEvents(
        const LocalPlane& local, std::string_view bytes, TimePs lineStart, Sink& sink, int64_t& malformed,
        bool& nearTimeLimits, Ahead ahead = [] {})
    {
        ahead();
        // Whether a time this decode checked lies near the int64 limits (see moveToOrigin).
        auto far = [](TimePs t) { return t >= -kSafeShiftPs && t <= kSafeShiftPs; };
        nearTimeLimits |= !far(lineStart);
        const bool deviceStatsApply = local.kind == PlaneKind::TpuCore || local.kind == PlaneKind::Gpu;
        const PlaneContext& ctx = local.ctx;
        // Stats are read where one can matter: on device planes that define a device offset or
        // duration, and on host planes that define step_num (step markers). A stat's kind comes
        // from the plane's stat metadata, so elsewhere no event stat changes a field; reading them
        // anyway took an eighth of the decode.
        const bool statsApply
            = deviceStatsApply ? ctx.hasDeviceSpan : (local.kind == PlaneKind::Host && ctx.hasStepNum);
        uint64_t eventsDecoded = 0;
        // Events are almost always tag 0x22 with a short length: that case is walked with raw
        // pointers; anything else (other fields, damage) takes the checked Reader.
        const uint8_t* p = reinterpret_cast<const uint8_t*>(bytes.data());
        const uint8_t* const end = p + bytes.size();
        const char* released = bytes.data();
        bool done = false;
        while (!done && p < end) {
            __builtin_prefetch(p + 1024); // as in PlaneScanner::scanLineHeader
            EventFields f;
            bool ok = true;
            uint64_t length = 0;
            const uint8_t* q = p + 1;
            if (*p == 0x22 && fastVarint(q, end, length) && length <= static_cast<uint64_t>(end - q)) {
                const uint8_t* eventEnd = q + length;
                // Three readings, each for fewer events than the one before and each giving the
                // same fields where it applies. The first reads up to 8 bytes past the event.
                bool parsed = end - eventEnd >= 8 && parseEventInOrder(q, eventEnd, ctx, statsApply, f);
                if (!parsed) {
                    f = EventFields();
                    parsed = parseEventFast(q, eventEnd, ctx, statsApply, f);
                }
                if (!parsed) {
                    f = EventFields();
                    ok = parseEventChecked(Reader(chars(q), chars(eventEnd), chars(q)), ctx, statsApply, f);
                }
                p = eventEnd;
            } else {
                Reader reader(chars(p), chars(end), chars(p));
                if (!reader.next())
                    break;
                if (reader.field() != 4 || reader.type() != wire::Len) {
                    reader.skip();
                    if (reader.failed())
                        break;
                    p += reader.offset();
                    continue;
                }
                ok = parseEventChecked(reader.sub(), ctx, statsApply, f);
                if (reader.failed())
                    done = true; // the event ran past the line: counted below, then stop
                else
                    p += reader.offset();
            }
            if (!ok) {
                ++malformed;
                continue;
            }
            PlacedEvent e;
            e.metadataId = f.metadataId;
            e.duration = f.durationPs;
            const int64_t offsetPs = f.offsetPs;
            const int64_t deviceOffset = deviceStatsApply ? f.deviceOffset : -1;
            const int64_t deviceDuration = deviceStatsApply ? f.deviceDuration : -1;
            TimePs atOffset = 0, atDeviceOffset = 0;
            if (__builtin_add_overflow(lineStart, offsetPs, &atOffset)
                || __builtin_add_overflow(lineStart, deviceOffset, &atDeviceOffset)) {
                ++malformed; // offset beyond the representable time range
                nearTimeLimits = true;
                continue;
            }
            // xprof uses the device timespan when both stats exist (GetDeviceEventTimespan):
            // device_offset_ps is relative to the line start like offset_ps.
            const bool deviceSpan = deviceOffset >= 0 && deviceDuration >= 0;
            const int64_t spanDuration = deviceSpan ? deviceDuration : e.duration;
            TimePs spanEnd = 0;
            if (spanDuration > kMaxEventDurationPs
                || __builtin_add_overflow(lineStart + (deviceSpan ? deviceOffset : offsetPs), spanDuration, &spanEnd)) {
                ++malformed; // an INT64_MAX duration would outlast the profile's span
                nearTimeLimits |= spanDuration <= kMaxEventDurationPs;
                continue;
            }
            nearTimeLimits |= !far(atOffset) || !far(atDeviceOffset) || !far(spanEnd);
            e.start = lineStart + (deviceSpan ? deviceOffset : offsetPs);
            e.duration = spanDuration;
            e.at = e.metadataId >= 0 && static_cast<uint64_t>(e.metadataId) < local.dense.size()
                ? local.dense[static_cast<size_t>(e.metadataId)]
                : kNone;
            if (e.at == kNone)
                if (auto it = local.index.find(e.metadataId); it != local.index.end())
                    e.at = it->second;
            e.aggregated = f.aggregated;
            e.occurrences = std::max<int64_t>(1, f.occurrences);
            e.stepNum = deviceStatsApply ? -1 : f.stepNum;
            if (!sink(e)) {
                ++malformed; // more events than pass 1 counted: not stored
                break;
            }
            if (++eventsDecoded % kEventsPerRound == 0) {
                if (m_stop.stop_requested())
                    return false;
                ahead();
                releaseInput(std::string_view(released, static_cast<size_t>(chars(p) - released)));
                released = chars(p);
            }
        }
        releaseInput(std::string_view(released, static_cast<size_t>(bytes.data() + bytes.size() - released)));
        m_bytesDone.fetch_add(bytes.size(), std::memory_order_relaxed);
        return true;
    }

    // Worker: decodes the events of every line of one plane into plane-local columns.
    void decodeLines(LocalPlane& local)
    {
        if (local.kind == PlaneKind::Metadata) {
            decodeHloPrograms(local);
            return;
        }
        for (LocalLine& line : local.lines) {
            TimePs lineStart = 0;
            if (!lineStartPs(line, m_originNs, lineStart)) {
                ++local.malformedEvents;
                continue;
            }
            const int xla = line.xlaOpLine ? 1 : 0;
            line.start.reserve(line.header.eventCount);
            line.duration.reserve(line.header.eventCount);
            line.op.reserve(line.header.eventCount);
            auto sink = [&](const PlacedEvent& e) {
                const uint32_t at = e.at != kNone ? e.at : unknownMeta(local, e.metadataId);
                const uint32_t op = localOp(local, at, xla);
                if (e.aggregated) {
                    line.aggregated.push_back({op, e.occurrences, e.duration});
                    return true;
                }
                line.start.push_back(e.start);
                line.duration.push_back(e.duration);
                line.op.push_back(op);
                if (e.stepNum >= 0)
                    local.stepMarkers.push_back({e.start, e.duration, e.stepNum, at});
                return true;
            };
            // The pages the round's events will take are mapped in a batch just before it: on the
            // 1e7-event file, 19k page faults instead of 67k and 10-20 ms less CPU for summary.
            auto ahead = [&] {
                populateAhead(line.start);
                populateAhead(line.duration);
                populateAhead(line.op);
            };
            if (!decodeEvents(local, line.bytes, lineStart, sink, local.malformedEvents, local.nearTimeLimits, ahead))
                return;
        }
    }

    /// Worker: one chunk's events into its slice of the line's columns.
    bool decodeChunk(LocalPlane& local, DecodeChunk& chunk)
    {
        LocalLine& line = local.lines[chunk.line];
        size_t next = chunk.firstEvent;
        const size_t limit = chunk.firstEvent + chunk.eventCount;
        auto sink = [&](const PlacedEvent& e) {
            const uint32_t code = e.at != kNone ? e.at : chunk.unknownCode(e.metadataId);
            if (e.aggregated) {
                chunk.aggregated.push_back({code, e.occurrences, e.duration});
                chunk.aggregatedAfter.push_back(chunk.written);
                return true;
            }
            if (next == limit)
                return false;
            line.start[next] = e.start;
            line.duration[next] = e.duration;
            line.op[next] = code;
            ++next;
            ++chunk.written;
            return true;
        };
        g_chunksDecoded.fetch_add(1, std::memory_order_relaxed);
        bool nearTimeLimits = false; // chunks are decoded once the origin is final
        return decodeEvents(local, line.bytes.substr(chunk.begin, chunk.end - chunk.begin), chunk.lineStart, sink,
            chunk.malformed, nearTimeLimits);
    }

    /// The preview of a large file, once it is due (see offerXSpacePreview). Calling thread only.
    void offerPreview(const std::vector<LocalPlane>& locals, const std::vector<std::atomic<bool>>& decoded)
    {
        if (m_builder.previewDue() && !m_stop.stop_requested())
            offerXSpacePreview(m_builder, locals, decoded);
    }

    void reportProgress()
    {
        if (!m_progress)
            return;
        const double fraction
            = std::min(1.0, static_cast<double>(m_bytesDone.load(std::memory_order_relaxed)) / m_totalLineBytes);
        if (fraction != m_lastReported) {
            m_lastReported = fraction;
            m_progress("decoding events", fraction);
        }
    }

    ArrivingBytes m_input;
    std::string_view m_bytes; // m_input's bytes when the planes were read
    ByteSource* m_source;
    bool* m_rereadWhole; // null: no plane is decoded before the input is whole
    bool m_decodeOnArrival = m_rereadWhole != nullptr;
    uint64_t m_arrivedEvents = 0;
    uint64_t m_arrivedHloInstructions = 0;
    std::optional<int64_t> m_arrivedEarliestNs;
    std::vector<std::string> m_warnings; // until commitTopLevel
    std::optional<std::string_view> m_hostname;
    ProfileBuilder& m_builder;
    uint32_t m_host;
    const ProgressFn& m_progress;
    std::stop_token m_stop;
    std::string m_error;
    int64_t m_originNs = 0;
    size_t m_totalLineBytes = 1;
    std::atomic<size_t> m_bytesDone {0};
    double m_lastReported = -1;
    const ChunkSize m_chunking = chunkSizeFromEnvironment();
    const PlaneScanner m_scanner {m_bytes.data(), m_builder.limits(), m_chunking};
};

} // namespace

std::string decodeXSpace(std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress,
    std::stop_token stop, ByteSource* source, bool* rereadWhole)
{
    if (rereadWhole)
        *rereadWhole = false;
    XSpaceDecoder decoder(bytes, builder, host, progress, stop, source, rereadWhole);
    std::string error = decoder.run();
    if (!rereadWhole || !*rereadWhole)
        decoder.commitTopLevel(); // a load that stopped early says what it read before
    return error;
}

uint64_t xspaceChunksDecoded()
{
    return g_chunksDecoded.load(std::memory_order_relaxed);
}

uint64_t xspacePlanesDecodedOnArrival()
{
    return g_planesDecodedOnArrival.load(std::memory_order_relaxed);
}

uint64_t xspaceWholeRereads()
{
    return g_wholeRereads.load(std::memory_order_relaxed);
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