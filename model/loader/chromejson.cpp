// SPDX-License-Identifier: GPL-3.0-or-later
// Chrome Trace Event JSON (trace.json[.gz], FORMATS.md §5), as written by jax.profiler / TSL.
//
// One streaming pass over the text with a hand-written pull tokenizer (jsontokenizer.h):
// every event object is read into a small reused record of views into the input
// (chromejsonevent.h) and turned into columnar track data straight away, so memory grows with
// the model, never with a DOM.
//
// Decisions worth knowing:
// * Times: `ts`/`dur` are decimal µs and are converted to integer ps from their text, exactly
//   (no double). TimePs keeps the file's own time base (originNs = 0) when the first timestamp
//   is below 1e12 µs (11.6 days, what TSL writes: µs since the profile start). Larger values
//   (epoch-based traces) are stored relative to the first timestamp floored to a whole
//   millisecond, which becomes Profile::originNs; earlier events simply get negative times.
// * Device timespans: TPU op args carry `device_duration_ps` and `device_offset_ps`, which the
//   XSpace loader prefers (as xprof's op stats do). `ts`/`dur` are the exporter's conversion to
//   the host clock: in the vLLM sample `dur` differs from device_duration_ps by up to ~2 % and
//   `ts` − device_offset_ps jumps by multiples of 75 ps between module runs. So we use the
//   device duration, and for the start the device offset: it is relative to the XLine start,
//   which the JSON does not record, so each track is anchored once at its first such event
//   (base = ts − device_offset_ps) — starts then stay within a few hundred ps of `ts` while
//   keeping the device timeline's own spacing, i.e. what the XSpace loader would show.
// * pid → plane, (pid, tid) → track, created lazily on first use so events that come before
//   their `M` records still land; a later process_name / thread_name renames and reclassifies
//   them (and ops that were registered with the wrong isXlaOp flag are re-registered at the end).
// * `B`/`E` nest per (pid, tid) stack. An `E` with nothing open counts as unmatchedEnds. A `B`
//   still open at the end counts as unmatchedBegins and is closed at the end of its track's
//   last event (at least its own start), so it stays visible instead of silently vanishing.
// * Phases other than X B E i I C M (flows s/t/f, async b/n/e, object snapshots, ...) are well
//   formed but not modelled: they are skipped and summarised in one LoadInfo warning with the
//   count per phase. malformedEvents counts events we could not read (no ts, bad numbers).
// * Damage: parsing stops at the first syntax error or at the end of data; the events read
//   before that are kept and a warning names the byte offset. With nothing read it is an error.
#include "chromejsonevent.h"
#include "chromejsonopcache.h"
#include "formats.h"
#include "inputsource.h"
#include "jsontokenizer.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace tpuscope::model {

namespace {

using namespace chromejson_detail;
using json::RawString;

struct IdKey
{
    uint64_t pid, tid;
    bool operator==(const IdKey&) const = default;
};

struct IdKeyHash
{
    size_t operator()(const IdKey& k) const { return std::hash<uint64_t>()(k.pid * 0x9e3779b97f4a7c15ull ^ k.tid); }
};

struct OpenSlice
{
    TimePs start;
    OpId op;
};

struct Process
{
    PlaneId plane = kNone;
    std::string idText; // for the placeholder name "pid N"
    std::vector<uint32_t> threads;
};

struct Thread
{
    uint32_t process = 0;
    TrackId track = kNone;
    StringId name = 0; // from thread_name (interned: stored once); 0 = placeholder
    bool xla = false;
    uint8_t opFlavours = 0; // bit 0: ops registered as non-XLA, bit 1: as XLA
    bool hasDeviceBase = false;
    TimePs deviceBase = 0; // TimePs of device_offset_ps 0 on this line
    std::vector<OpenSlice> open;
};

class ChromeJsonDecoder
{
public:
    ChromeJsonDecoder(std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress,
        std::stop_token stop, ByteSource* source)
        : m_bytes(bytes)
        , m_cursor(bytes)
        , m_source(source)
        , m_builder(builder)
        , m_profile(builder.profile())
        , m_host(host)
        , m_progress(progress)
        , m_stop(std::move(stop))
    {
        m_cursor.setSource(source);
        m_nextCheck = std::min<uint64_t>(m_nextCheck, builder.limits().maxEvents);
    }

    std::string run()
    {
        m_cursor.skipByteOrderMark();
        const char first = m_cursor.peek();
        if (first == '[') {
            readEventArray();
        } else if (first == '{') {
            readTopObject();
        } else {
            return "not a Chrome trace: expected '[' or '{' at the start";
        }
        if (m_cancelled)
            return "cancelled";
        if (!m_cursor.failed() && !m_sawTraceEvents)
            return "not a Chrome trace: the JSON object has no \"traceEvents\" array";
        if (!m_cursor.failed() && m_limitHit.empty() && !m_cursor.atEnd())
            m_profile.load.warnings.push_back("ignored data after the end of the JSON document (from byte "
                + std::to_string(m_cursor.offset()) + ")");
        if (!m_limitHit.empty()) {
            if (m_eventsRead == 0)
                return m_limitHit;
            m_profile.load.warnings.push_back(m_limitHit);
        } else if (m_cursor.failed()) {
            const std::string where
                = std::string(m_cursor.error()) + " at byte " + std::to_string(m_cursor.errorOffset());
            if (m_eventsRead == 0)
                return "cannot read the Chrome trace: " + where;
            m_profile.load.warnings.push_back(
                (m_cursor.truncated() ? "the file is truncated: " : "the file is damaged: ") + where + "; kept the "
                + std::to_string(m_eventsRead) + " events read before byte " + std::to_string(m_lastGoodOffset));
        }
        finishThreads();
        describeLimits();
        if (m_progress)
            m_progress("parsing JSON", 1.0);
        return {};
    }

private:
    // ---- top level -------------------------------------------------------------------

    void readTopObject()
    {
        m_cursor.expect('{', "expected '{'");
        if (m_cursor.consume('}'))
            return;
        do {
            RawString key;
            if (!m_cursor.string(key) || !m_cursor.expect(':', "expected ':' after a key"))
                return;
            if (key.raw == "traceEvents" && m_cursor.peek() == '[') {
                readEventArray();
                if (m_cursor.failed() || m_cancelled || !m_limitHit.empty())
                    return;
            } else if (!m_cursor.skipValue(1)) {
                return;
            }
        } while (m_cursor.consume(','));
        m_cursor.expect('}', "expected ',' or '}' in the top-level object");
    }

    void readEventArray()
    {
        m_sawTraceEvents = true;
        const size_t total = std::max<size_t>(m_bytes.size(), 1);
        const size_t progressStep = std::max<size_t>(total / 1000, 1 << 16);
        size_t nextProgress = progressStep;
        // Bytes before the current event are never read again (names are interned, the op
        // cache owns its keys), so a mapped or streamed input is handed back in steps.
        constexpr size_t kReleaseStep = 16u << 20;
        size_t released = 0;
        m_cursor.expect('[', "expected '['");
        if (m_cursor.consume(']'))
            return;
        do {
            if (m_cursor.peek() == ']')
                break; // tolerate a trailing comma
            if (!readAndHandleEvent())
                return;
            m_lastGoodOffset = m_cursor.offset();
            ++m_eventsRead;
            // Names, ops, tracks and counter series grow between the periodic checks, too (few
            // events with big or many unique names): a growth of 1 MiB brings the check forward.
            if (m_profile.strings.bytes() + m_builder.structureBytes() + m_counterSamples * 16 >= m_nextFootprintCheck
                && !checkLimits(0))
                return;
            if (m_eventsRead >= m_nextCheck) {
                if (m_stop.stop_requested()) {
                    m_cancelled = true;
                    return;
                }
                // At the event limit exactly, the limit only matters when another event follows.
                const bool anotherFollows = m_eventsRead >= m_builder.limits().maxEvents && m_cursor.peek() == ',';
                if (!checkLimits(anotherFollows ? 1 : 0))
                    return;
                m_builder.offerPreview();
                m_nextCheck = std::min<uint64_t>(m_eventsRead + 0x10000, m_builder.limits().maxEvents);
                if (m_nextCheck <= m_eventsRead)
                    m_nextCheck = UINT64_MAX; // at the limit with nothing after it
            }
            if (m_source && m_lastGoodOffset >= released + kReleaseStep) {
                m_source->release(m_bytes.data() + released, m_bytes.data() + m_lastGoodOffset);
                released = m_lastGoodOffset & ~size_t(4095);
            }
            if (m_progress && m_lastGoodOffset >= nextProgress) {
                m_progress("parsing JSON",
                    m_source ? m_source->fraction(m_cursor.position()) : static_cast<double>(m_lastGoodOffset) / total);
                nextProgress = m_lastGoodOffset + progressStep;
            }
        } while (m_cursor.consume(','));
        m_cursor.expect(']', "expected ',' or ']' between events");
    }

    /// False (and the reason kept) when the events read so far hit the event limit or the
    /// memory budget; the events before stay, with a warning that says where reading stopped.
    bool checkLimits(uint64_t following)
    {
        // Counter samples (one per numeric arg of a 'C' event) cost what an event costs; they
        // are not counted against the event limit.
        const std::string over
            = m_builder.checkBudget(m_eventsRead + following, m_counterSamples * LoadLimits::kPeakBytesPerEvent);
        m_nextFootprintCheck
            = m_profile.strings.bytes() + m_builder.structureBytes() + m_counterSamples * 16 + (1u << 20);
        if (over.empty())
            return true;
        m_limitHit = "stopped reading at byte " + std::to_string(m_lastGoodOffset) + " of the JSON: " + over
            + "; showing the " + std::to_string(m_eventsRead) + " events before it";
        return false;
    }

    // ---- one event -------------------------------------------------------------------

    bool readAndHandleEvent()
    {
        if (!readEvent(m_cursor, m_event))
            return false;
        handleEvent(m_event); // ignores the empty {} TSL writes last (no phase, name or ts)
        return true;
    }

    // ---- conversions -----------------------------------------------------------------

    // µs text → ps relative to the origin; false when it is not a number or out of range.
    bool timeFromText(std::string_view text, TimePs& out)
    {
        __int128 ps = 0;
        if (!json::decimalToScaledInt(text, 6, ps))
            return false;
        if (!m_originChosen) {
            m_originChosen = true;
            constexpr __int128 kSmall = static_cast<__int128>(1'000'000'000'000) * 1'000'000; // 1e12 µs in ps
            if (ps >= kSmall || ps <= -kSmall) {
                constexpr __int128 kMsPs = 1'000'000'000;
                __int128 origin = ps / kMsPs * kMsPs;
                if (ps < 0 && origin != ps)
                    origin -= kMsPs;
                m_originPs = origin;
                m_profile.originNs = static_cast<int64_t>(origin / 1000);
            }
        }
        const __int128 relative = ps - m_originPs;
        if (relative > INT64_MAX || relative < INT64_MIN)
            return false;
        out = static_cast<TimePs>(relative);
        return true;
    }

    static bool durationFromText(std::string_view text, TimePs& out)
    {
        __int128 ps = 0;
        if (!json::decimalToScaledInt(text, 6, ps) || ps > INT64_MAX || ps < INT64_MIN)
            return false;
        out = static_cast<TimePs>(ps);
        return true;
    }

    std::string_view decoded(const RawString& s)
    {
        if (!s.escaped)
            return s.raw;
        json::decodeEscapes(s.raw, m_scratch);
        return m_scratch;
    }

    static bool intArg(const ArgValue& v, int64_t& out)
    {
        return v.present && !v.value.escaped && json::parseInt64(v.value.raw, out);
    }

    static bool numberArg(const ArgValue& v, double& out)
    {
        if (!v.present || v.value.escaped)
            return false;
        return json::parseDouble(v.value.raw, out);
    }

    // pid / tid → 64-bit key. Integers (including ones above INT64_MAX) map to their bits;
    // anything else (quoted names, fractions) to a hash of the text.
    static uint64_t idFromValue(const ArgValue& v)
    {
        if (!v.present)
            return 0;
        int64_t s = 0;
        if (json::parseInt64(v.value.raw, s))
            return static_cast<uint64_t>(s);
        uint64_t u = 0;
        if (json::parseUint64(v.value.raw, u))
            return u;
        return std::hash<std::string_view>()(v.value.raw) | (uint64_t(1) << 63);
    }

    // ---- planes and tracks -----------------------------------------------------------

    uint32_t processFor(const RawEvent& ev)
    {
        const uint64_t pid = idFromValue(ev.pid);
        if (m_lastProcess != UINT32_MAX && m_lastPid == pid)
            return m_lastProcess;
        auto [it, inserted] = m_processIndex.emplace(pid, static_cast<uint32_t>(m_processes.size()));
        if (inserted) {
            Process proc;
            proc.idText = ev.hasPid ? std::string(decoded(ev.pid.value)) : std::string("0");
            proc.plane = m_builder.addPlane("pid " + proc.idText, m_host);
            m_processes.push_back(std::move(proc));
        }
        m_lastPid = pid;
        m_lastProcess = it->second;
        return it->second;
    }

    Thread& threadFor(const RawEvent& ev)
    {
        const IdKey key {idFromValue(ev.pid), idFromValue(ev.tid)};
        if (m_lastThread != UINT32_MAX && m_lastThreadKey == key)
            return m_threads[m_lastThread];
        auto [it, inserted] = m_threadIndex.emplace(key, static_cast<uint32_t>(m_threads.size()));
        if (inserted) {
            const uint32_t process = processFor(ev);
            Thread thread;
            thread.process = process;
            const std::string tidText = ev.hasTid ? std::string(decoded(ev.tid.value)) : std::string("0");
            const PlaneId plane = m_processes[process].plane;
            const bool host = m_profile.planes[plane].kind == PlaneKind::Host;
            thread.track = m_builder.addTrack(plane, "tid " + tidText, host ? TrackKind::HostThread : TrackKind::Other,
                ev.hasTid ? static_cast<int64_t>(key.tid) : 0);
            m_threads.push_back(std::move(thread));
            m_processes[process].threads.push_back(it->second);
        }
        m_lastThreadKey = key;
        m_lastThread = it->second;
        return m_threads[it->second];
    }

    // Track kind and XLA flag follow the thread name and the plane kind, both of which can
    // arrive after the first events.
    void classify(Thread& thread)
    {
        Track& track = m_profile.tracks[thread.track];
        const PlaneKind planeKind = m_profile.planes[track.plane].kind;
        TrackKind kind = thread.name == 0 ? TrackKind::Other : trackKindFromLineName(m_profile.str(thread.name));
        if (kind == TrackKind::Other && planeKind == PlaneKind::Host)
            kind = TrackKind::HostThread;
        track.kind = kind;
        thread.xla = kind == TrackKind::XlaOps && planeKind == PlaneKind::TpuCore;
    }

    void renameProcess(uint32_t process, std::string_view name)
    {
        // addPlane owns the name → kind rules (TPU core, host, ...); borrow them through a
        // temporary plane and move the result onto the existing one.
        const PlaneId temp = m_builder.addPlane(name, m_host);
        Plane fresh = std::move(m_profile.planes[temp]);
        m_profile.planes.pop_back();
        Plane& plane = m_profile.planes[m_processes[process].plane];
        plane.name = fresh.name;
        plane.kind = fresh.kind;
        plane.coreIndex = fresh.coreIndex;
        for (uint32_t t : m_processes[process].threads)
            classify(m_threads[t]);
    }

    // ---- event handling --------------------------------------------------------------

    OpId opFor(Thread& thread, const RawEvent& ev)
    {
        const OpKey key {thread.xla, ev.name.raw,
            ev.slots[kArgLongName].present ? ev.slots[kArgLongName].value.raw : "",
            ev.slots[kArgHloCategory].present ? ev.slots[kArgHloCategory].value.raw : "",
            ev.slots[kArgProgramId].present ? ev.slots[kArgProgramId].value.raw : ""};
        thread.opFlavours |= thread.xla ? 2 : 1;
        const uint64_t hash = OpCache::hash(key);
        if (const OpId* cached = m_opCache.find(key, hash))
            return *cached;
        OpInfo info;
        info.name = m_builder.intern(decoded(ev.name));
        auto stringSlot = [&](ArgSlot slot) -> StringId {
            const ArgValue& v = ev.slots[slot];
            return v.present ? m_builder.intern(decoded(v.value)) : 0;
        };
        info.longName = stringSlot(kArgLongName);
        info.category = stringSlot(kArgHloCategory);
        info.shapeWithLayout = stringSlot(kArgShapeWithLayout);
        info.tfOp = stringSlot(kArgTfOp);
        info.source = stringSlot(kArgSource);
        info.deduplicatedName = stringSlot(kArgDeduplicatedName);
        double value = 0;
        // The TSL export drops the device-normalized `flops`; model_flops stands in for both.
        if (numberArg(ev.slots[kArgModelFlops], value))
            info.flops = info.modelFlops = value;
        if (numberArg(ev.slots[kArgFlops], value))
            info.flops = value;
        if (numberArg(ev.slots[kArgBytesAccessed], value))
            info.bytesAccessed = value;
        info.flopsRecorded = ev.slots[kArgModelFlops].present || ev.slots[kArgFlops].present;
        info.bytesRecorded = ev.slots[kArgBytesAccessed].present;
        uint64_t programId = 0;
        if (ev.slots[kArgProgramId].present && json::parseUint64(ev.slots[kArgProgramId].value.raw, programId)) {
            info.programId = programId;
            info.hasProgramId = true;
        }
        info.isXlaOp = thread.xla;
        const OpId op = m_builder.addOp(info);
        auto interned = [&](StringId id, std::string_view raw) {
            const std::string& text = m_profile.strings.str(id);
            return text == raw ? std::string_view(text) : std::string_view();
        };
        m_opCache.insert(key, hash, op,
            {interned(info.name, key.name), interned(info.longName, key.longName),
                interned(info.category, key.category)});
        return op;
    }

    void handleEvent(const RawEvent& ev)
    {
        switch (ev.ph) {
        case 'X': {
            TimePs start = 0, duration = 0;
            if (!ev.hasTs || !timeFromText(ev.ts, start) || (ev.hasDur && !durationFromText(ev.dur, duration))) {
                ++m_profile.stats.malformedEvents;
                return;
            }
            Thread& thread = threadFor(ev);
            int64_t deviceDuration = 0, deviceOffset = 0;
            if (intArg(ev.slots[kArgDeviceDuration], deviceDuration)) {
                duration = deviceDuration;
                if (intArg(ev.slots[kArgDeviceOffset], deviceOffset)) {
                    if (!thread.hasDeviceBase) {
                        thread.hasDeviceBase = true;
                        thread.deviceBase = start - deviceOffset;
                    }
                    start = thread.deviceBase + deviceOffset;
                }
            }
            const OpId op = opFor(thread, ev);
            m_builder.addEvent(thread.track, start, duration, op);
            if (int64_t step = 0; ev.slots[kArgStepNum].present && intArg(ev.slots[kArgStepNum], step) && step >= 0) {
                const PlaneId plane = m_profile.tracks[thread.track].plane;
                if (m_profile.planes[plane].kind == PlaneKind::Host)
                    m_builder.addStepMarker({start, duration, step, m_profile.ops[op].name, plane});
            }
            return;
        }
        case 'B': {
            TimePs start = 0;
            if (!ev.hasTs || !timeFromText(ev.ts, start)) {
                ++m_profile.stats.malformedEvents;
                return;
            }
            Thread& thread = threadFor(ev);
            thread.open.push_back({start, opFor(thread, ev)});
            return;
        }
        case 'E': {
            TimePs end = 0;
            if (!ev.hasTs || !timeFromText(ev.ts, end)) {
                ++m_profile.stats.malformedEvents;
                return;
            }
            Thread& thread = threadFor(ev);
            if (thread.open.empty()) {
                ++m_profile.stats.unmatchedEnds;
                return;
            }
            const OpenSlice slice = thread.open.back();
            thread.open.pop_back();
            m_builder.addEvent(thread.track, slice.start, end - slice.start, slice.op);
            return;
        }
        case 'i':
        case 'I': {
            TimePs start = 0;
            if (!ev.hasTs || !timeFromText(ev.ts, start)) {
                ++m_profile.stats.malformedEvents;
                return;
            }
            Thread& thread = threadFor(ev);
            m_builder.addEvent(thread.track, start, 0, opFor(thread, ev));
            return;
        }
        case 'C':
            handleCounter(ev);
            return;
        case 'M':
            handleMetadata(ev);
            return;
        case 0:
            if (ev.hasName || ev.hasTs)
                ++m_profile.stats.malformedEvents; // an event without a phase
            return;
        default:
            ++m_skippedPhases[ev.ph];
            return;
        }
    }

    void handleCounter(const RawEvent& ev)
    {
        TimePs time = 0;
        if (!ev.hasTs || !timeFromText(ev.ts, time)) {
            ++m_profile.stats.malformedEvents;
            return;
        }
        const uint32_t process = processFor(ev);
        const std::string name(decoded(ev.name));
        for (const GenericArg& arg : ev.args) {
            double value = 0;
            if (!numberArg(arg.value, value))
                continue; // not a number series
            const std::string_view series = decoded(arg.key);
            std::string key = std::to_string(process);
            key += '\x1f';
            key += name;
            key += '\x1f';
            key += series;
            auto [it, inserted] = m_counterIndex.emplace(std::move(key), 0u);
            if (inserted)
                it->second = m_builder.addCounter(m_processes[process].plane, name + " " + std::string(series));
            CounterTrack& counter = m_profile.counters[it->second];
            counter.time.push_back(time);
            counter.value.push_back(value);
            ++m_counterSamples;
        }
    }

    void handleMetadata(const RawEvent& ev)
    {
        const std::string_view what = ev.name.raw;
        const ArgValue& nameArg = ev.slots[kArgName];
        double sortIndex = 0;
        // Clamped first: converting an out-of-range or NaN double to int is undefined behaviour.
        const bool hasSort = numberArg(ev.slots[kArgSortIndex], sortIndex) && sortIndex == sortIndex;
        sortIndex = std::clamp(sortIndex, double(INT32_MIN), double(INT32_MAX));
        if (what == "process_name") {
            if (nameArg.present && nameArg.isString)
                renameProcess(processFor(ev), decoded(nameArg.value));
        } else if (what == "thread_name") {
            if (nameArg.present && nameArg.isString) {
                Thread& thread = threadFor(ev);
                thread.name = m_builder.intern(decoded(nameArg.value));
                m_profile.tracks[thread.track].name = thread.name;
                classify(thread);
            }
        } else if (what == "process_sort_index") {
            if (hasSort)
                m_profile.planes[m_processes[processFor(ev)].plane].sortIndex = static_cast<int32_t>(sortIndex);
        } else if (what == "thread_sort_index") {
            if (hasSort)
                m_profile.tracks[threadFor(ev).track].sortIndex = static_cast<int32_t>(sortIndex);
        }
        // process_labels, process_uptime_seconds, num_cpus, ...: nothing to show.
    }

    // ---- end of input ----------------------------------------------------------------

    void finishThreads()
    {
        std::unordered_map<OpId, OpId> remapped;
        for (Thread& thread : m_threads) {
            Track& track = m_profile.tracks[thread.track];
            if (!thread.open.empty()) {
                TimePs lastEnd = thread.open.front().start;
                for (size_t i = 0; i < track.size(); ++i)
                    lastEnd = std::max(lastEnd, track.end(i));
                for (const OpenSlice& slice : thread.open) {
                    ++m_profile.stats.unmatchedBegins;
                    m_builder.addEvent(thread.track, slice.start, std::max<TimePs>(0, lastEnd - slice.start), slice.op);
                }
                thread.open.clear();
            }
            // Ops registered before thread_name / process_name said what the track is.
            const uint8_t wrong = thread.xla ? 1 : 2;
            if (!(thread.opFlavours & wrong))
                continue;
            remapped.clear();
            for (OpId& op : m_profile.tracks[thread.track].op) {
                if (m_profile.ops[op].isXlaOp == thread.xla)
                    continue;
                auto [it, inserted] = remapped.emplace(op, 0);
                if (inserted) {
                    OpInfo info = m_profile.ops[op];
                    info.isXlaOp = thread.xla;
                    it->second = m_builder.addOp(info);
                }
                op = it->second;
            }
        }
    }

    void describeLimits()
    {
        auto& load = m_profile.load;
        load.limitations.push_back("Chrome trace JSON: the TPU generation is not recorded; peaks come from --device / "
                                   "the GUI setting");
        load.limitations.push_back("Chrome trace JSON: no HLO and no per-op program ids: an op's program is the "
                                   "XLA Modules run it runs in, ops are not linked to their HLO, and `flops` is "
                                   "model_flops (the export drops device-normalized flops)");
        if (!m_skippedPhases.empty()) {
            std::string text = "skipped events of phases the viewer does not model:";
            for (const auto& [ph, count] : m_skippedPhases)
                text += std::string(" '") + ph + "' ×" + std::to_string(count);
            load.warnings.push_back(text);
        }
    }

    std::string_view m_bytes;
    json::Cursor m_cursor;
    ByteSource* m_source;
    std::string m_limitHit;
    ProfileBuilder& m_builder;
    Profile& m_profile;
    uint32_t m_host;
    const ProgressFn& m_progress;
    std::stop_token m_stop;

    RawEvent m_event;
    std::string m_scratch;
    bool m_sawTraceEvents = false;
    bool m_cancelled = false;
    uint64_t m_eventsRead = 0;
    uint64_t m_nextCheck = 0x10000;
    uint64_t m_counterSamples = 0;
    uint64_t m_nextFootprintCheck = 1u << 20; // strings + structures + samples, in bytes
    size_t m_lastGoodOffset = 0;
    bool m_originChosen = false;
    __int128 m_originPs = 0;

    std::vector<Process> m_processes;
    std::unordered_map<uint64_t, uint32_t> m_processIndex;
    uint64_t m_lastPid = 0;
    uint32_t m_lastProcess = UINT32_MAX;
    std::vector<Thread> m_threads;
    std::unordered_map<IdKey, uint32_t, IdKeyHash> m_threadIndex;
    IdKey m_lastThreadKey {0, 0};
    uint32_t m_lastThread = UINT32_MAX;
    OpCache m_opCache;
    std::unordered_map<std::string, uint32_t> m_counterIndex;
    std::map<char, int64_t> m_skippedPhases;
};

} // namespace

std::string decodeChromeJson(std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress,
    std::stop_token stop, ByteSource* source)
{
    ChromeJsonDecoder decoder(bytes, builder, host, progress, std::move(stop), source);
    return decoder.run();
}

} // namespace tpuscope::model
