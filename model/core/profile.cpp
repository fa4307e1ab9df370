// SPDX-License-Identifier: GPL-3.0-or-later
#include "profile.h"

#include "devicepeaks.h"
#include "diagnostics.h"
#include "hashcombine.h"
#include "parallel.h"
#include "stopcheck.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <thread>

namespace tpuscope::model {

const char* planeKindName(PlaneKind kind)
{
    switch (kind) {
    case PlaneKind::TpuCore:
        return "tpu-core";
    case PlaneKind::TpuNonCore:
        return "tpu-non-core";
    case PlaneKind::Gpu:
        return "gpu";
    case PlaneKind::Host:
        return "host";
    case PlaneKind::Metadata:
        return "metadata";
    case PlaneKind::Other:
        return "other";
    }
    return "other";
}

const char* trackKindName(TrackKind kind)
{
    switch (kind) {
    case TrackKind::Steps:
        return "steps";
    case TrackKind::XlaModules:
        return "xla-modules";
    case TrackKind::XlaOps:
        return "xla-ops";
    case TrackKind::AsyncXlaOps:
        return "async-xla-ops";
    case TrackKind::FrameworkOps:
        return "framework-ops";
    case TrackKind::HostThread:
        return "host-thread";
    case TrackKind::Other:
        return "other";
    }
    return "other";
}

TrackKind trackKindFromLineName(std::string_view name)
{
    if (name == "Steps")
        return TrackKind::Steps;
    if (name == "XLA Modules")
        return TrackKind::XlaModules;
    if (name == "XLA Ops")
        return TrackKind::XlaOps;
    if (name == "Async XLA Ops")
        return TrackKind::AsyncXlaOps;
    if (name == "Framework Ops" || name == "TensorFlow Ops")
        return TrackKind::FrameworkOps;
    return TrackKind::Other;
}

const char* peakSourceName(PeakSource source)
{
    switch (source) {
    case PeakSource::None:
        return "none";
    case PeakSource::PlaneStats:
        return "plane-stats";
    case PeakSource::GenerationTable:
        return "generation-table";
    case PeakSource::UserChoice:
        return "user-choice";
    }
    return "none";
}

size_t Profile::eventCount() const
{
    size_t n = 0;
    for (const auto& t : tracks)
        n += t.size() + t.aggregated.size();
    for (const auto& c : counters)
        n += c.time.size();
    return n;
}

const Program* Profile::program(uint64_t programId) const
{
    auto it = m_programIndex.find(programId);
    return it == m_programIndex.end() ? nullptr : &programs[it->second];
}

const hlo::Module* Profile::hloFor(const OpInfo& op) const
{
    if (op.program == kNone || !TPUSCOPE_CHECK(op.program < programs.size()))
        return nullptr;
    return programs[op.program].hlo.get();
}

const hlo::Instruction* Profile::instructionFor(const OpInfo& op) const
{
    const hlo::Module* module = hloFor(op);
    return module ? module->instruction(str(op.name)) : nullptr;
}

std::vector<PlaneId> Profile::tpuCorePlanes() const
{
    std::vector<PlaneId> result;
    for (PlaneId p = 0; p < planes.size(); ++p)
        if (planes[p].kind == PlaneKind::TpuCore)
            result.push_back(p);
    std::stable_sort(result.begin(), result.end(), [this](PlaneId a, PlaneId b) {
        if (planes[a].host != planes[b].host)
            return planes[a].host < planes[b].host;
        return planes[a].coreIndex < planes[b].coreIndex;
    });
    return result;
}

bool Profile::hasTpuOps() const
{
    for (const auto& t : tracks)
        if (t.kind == TrackKind::XlaOps && planes[t.plane].kind == PlaneKind::TpuCore
            && (t.size() || t.aggregated.size()))
            return true;
    return false;
}

ProfileBuilder::ProfileBuilder()
    : m_profile(std::make_unique<Profile>())
{
}

uint32_t ProfileBuilder::addHost(std::string name)
{
    m_profile->hosts.push_back(std::move(name));
    return static_cast<uint32_t>(m_profile->hosts.size() - 1);
}

namespace {
// Parses n from "<prefix>n" at the end of a plane name; -1 when absent.
int trailingIndex(std::string_view name, std::string_view prefix)
{
    auto pos = name.find(prefix);
    if (pos == std::string_view::npos)
        return -1;
    pos += prefix.size();
    int value = 0;
    bool any = false;
    while (pos < name.size() && name[pos] >= '0' && name[pos] <= '9' && value < 1'000'000) {
        value = value * 10 + (name[pos] - '0');
        ++pos;
        any = true;
    }
    // "/device:TPU:0 SparseCore 1" is not a TensorCore plane.
    if (!any || (pos < name.size() && name[pos] != ' '))
        return -1;
    if (pos < name.size() && name.substr(pos).find("SparseCore") != std::string_view::npos)
        return -2;
    return value;
}
} // namespace

PlaneKind planeKindFromName(std::string_view name)
{
    return planeKindAndCore(name).first;
}

std::pair<PlaneKind, int> planeKindAndCore(std::string_view name)
{
    if (int core = trailingIndex(name, "/device:TPU:"); core >= 0)
        return {PlaneKind::TpuCore, core};
    else if (core == -2 || name.starts_with("#Chip"))
        return {PlaneKind::TpuNonCore, -1};
    if (int gpu = trailingIndex(name, "/device:GPU:"); gpu >= 0)
        return {PlaneKind::Gpu, gpu};
    if (name == "/host:metadata")
        return {PlaneKind::Metadata, -1};
    if (name.starts_with("/host:"))
        return {PlaneKind::Host, -1};
    if (name.starts_with("TPU Core") || name.starts_with("TensorNode"))
        return {
            PlaneKind::TpuCore, std::max(0, trailingIndex(name, " "))}; // legacy names xprof still treats as TPU cores
    return {PlaneKind::Other, -1};
}

PlaneId ProfileBuilder::addPlane(std::string_view name, uint32_t host)
{
    Plane plane;
    plane.name = intern(name);
    plane.host = host;
    const auto [kind, core] = planeKindAndCore(name);
    plane.kind = kind;
    if (core >= 0)
        plane.coreIndex = core;
    m_profile->planes.push_back(std::move(plane));
    return static_cast<PlaneId>(m_profile->planes.size() - 1);
}

TrackId ProfileBuilder::addTrack(PlaneId plane, std::string_view name, TrackKind kind, int64_t lineId)
{
    Track track;
    track.name = intern(name);
    track.plane = plane;
    track.kind = kind;
    track.lineId = lineId;
    track.displayId = lineId;
    m_profile->tracks.push_back(std::move(track));
    const auto id = static_cast<TrackId>(m_profile->tracks.size() - 1);
    m_profile->planes[plane].tracks.push_back(id);
    return id;
}

uint32_t ProfileBuilder::addCounter(PlaneId plane, std::string_view name)
{
    CounterTrack counter;
    counter.name = intern(name);
    counter.plane = plane;
    m_profile->counters.push_back(std::move(counter));
    const auto id = static_cast<uint32_t>(m_profile->counters.size() - 1);
    m_profile->planes[plane].counters.push_back(id);
    return id;
}

size_t ProfileBuilder::OpKeyHash::operator()(const OpKey& k) const
{
    size_t h = std::hash<uint64_t> {}(k.programId);
    for (const size_t field : {size_t(k.name), size_t(k.longName), size_t(k.category), size_t(k.isXlaOp)})
        h = hashCombine(h, field);
    return h;
}

OpId ProfileBuilder::addOp(const OpInfo& op)
{
    const OpKey key {op.hasProgramId ? op.programId : 0, op.name, op.longName, op.category, op.isXlaOp};
    auto [it, inserted] = m_opIndex.emplace(key, static_cast<OpId>(m_profile->ops.size()));
    if (inserted) {
        m_profile->ops.push_back(op);
    } else {
        // The same op on another core: keep the richest description.
        OpInfo& existing = m_profile->ops[it->second];
        if (existing.flops == 0)
            existing.flops = op.flops;
        if (existing.modelFlops == 0)
            existing.modelFlops = op.modelFlops;
        if (existing.bytesAccessed == 0)
            existing.bytesAccessed = op.bytesAccessed;
        if (existing.hbmBytes < 0)
            existing.hbmBytes = op.hbmBytes;
        if (!existing.shapeWithLayout)
            existing.shapeWithLayout = op.shapeWithLayout;
        if (!existing.tfOp)
            existing.tfOp = op.tfOp;
        if (!existing.source)
            existing.source = op.source;
    }
    return it->second;
}

uint32_t ProfileBuilder::addProgram(uint64_t id, std::string name, std::shared_ptr<const hlo::Module> module)
{
    auto it = m_profile->m_programIndex.find(id);
    if (it != m_profile->m_programIndex.end()) {
        Program& existing = m_profile->programs[it->second];
        if (!existing.hlo)
            existing.hlo = std::move(module);
        return static_cast<uint32_t>(it->second);
    }
    m_profile->programs.push_back(Program {id, std::move(name), std::move(module)});
    const auto index = m_profile->programs.size() - 1;
    m_profile->m_programIndex.emplace(id, index);
    return static_cast<uint32_t>(index);
}

namespace {

constexpr uint16_t kMaxDepth = 512;
constexpr TimePs kTouchTolerancePs = 1000;

/// Nests the events of a track in start order (parents first): an event's depth is the number of
/// events still open around it. The stack and the counts are members, not a vector and a
/// reference: a local Nesting then lives in registers and a cache line of the stack, where the
/// vector's end and the counts were stored and reloaded per event (with the op bitmap filled in
/// the same loop, finish went from 27-30 to 19-21 ms of a 0.3 s 1e7-event summary).
class Nesting
{
public:
    int64_t partialOverlaps = 0;
    int64_t depthLimitHits = 0;

    uint16_t depthOf(TimePs begin, TimePs end)
    {
        while (m_openCount > 0 && m_open[m_openCount - 1] <= begin)
            --m_openCount;
        // Device timespans of consecutive ops overlap by a picosecond or so (rounding in the
        // runtime's clock conversion): treat up to 1 ns as touching, not as nesting.
        while (m_openCount > 0 && end > m_open[m_openCount - 1] && m_open[m_openCount - 1] - begin <= kTouchTolerancePs)
            --m_openCount;
        if (m_openCount > 0 && end > m_open[m_openCount - 1])
            ++partialOverlaps; // drawn one level down; self time is clipped in analysis
        size_t depth = m_openCount;
        if (depth >= kMaxDepth) {
            ++depthLimitHits;
            depth = kMaxDepth - 1;
        } else {
            m_open[m_openCount++] = end;
        }
        return static_cast<uint16_t>(depth);
    }

private:
    TimePs m_open[kMaxDepth]; // the ends of the events open at the last start, innermost last
    size_t m_openCount = 0;
};

/// The depth of every event of a sorted track; returns the latest end (0 for no event).
TimePs computeDepth(Track& track, ImportStats& stats)
{
    track.depth.resize(track.size());
    track.maxDepth = 0;
    TimePs lastEnd = track.size() ? track.end(0) : 0;
    Nesting nesting;
    for (size_t i = 0; i < track.size(); ++i) {
        const TimePs end = track.end(i);
        lastEnd = std::max(lastEnd, end);
        track.depth[i] = nesting.depthOf(track.start[i], end);
        track.maxDepth = std::max(track.maxDepth, track.depth[i]);
    }
    stats.partialOverlaps += nesting.partialOverlaps;
    stats.depthLimitHits += nesting.depthLimitHits;
    return lastEnd;
}

/// Each op id below `opCount` that `ops` holds, once. A bitmap over the ids for a long column, a
/// sorted copy for a short one: a pod's hundreds of host threads would each clear a bitmap of
/// every op.
class DistinctOps
{
public:
    DistinctOps(size_t columnSize, size_t opCount)
        : m_opCount(opCount)
        , m_bitmap(columnSize >= opCount / 8)
    {
        if (m_bitmap)
            m_seen.resize((opCount + 63) / 64);
    }
    /// Whether add() is to be called for each op of the column; otherwise take() reads it.
    bool bitmap() const { return m_bitmap; }
    void add(OpId op)
    {
        if (op >= m_opCount)
            return;
        uint64_t& word = m_seen[op / 64];
        const uint64_t bit = uint64_t(1) << (op % 64);
        if (!(word & bit)) {
            word |= bit;
            m_out.push_back(op);
        }
    }
    std::vector<OpId> take(const std::vector<OpId>& column)
    {
        if (m_bitmap)
            return std::move(m_out);
        std::vector<OpId> out = column;
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        while (!out.empty() && out.back() >= m_opCount)
            out.pop_back();
        return out;
    }

private:
    size_t m_opCount;
    bool m_bitmap;
    std::vector<uint64_t> m_seen;
    std::vector<OpId> m_out;
};

/// Clamps negative durations to 0 (counted), sorts the track by start, parents first, and nests
/// it; returns the latest end. Tracks almost always arrive sorted, so one pass does the clamp, the
/// order check and the nesting as if the order holds, and notes the track's ops in `ops`: each
/// pass over a track's columns costs ~0.1 s per 1e8 events. A track found out of order is sorted
/// and nested again.
TimePs sortAndNest(Track& track, ImportStats& stats, DistinctOps& ops)
{
    const size_t n = track.size();
    TimePs* const start = track.start.data();
    TimePs* const duration = track.duration.data();
    const OpId* const op = track.op.data();
    const bool noteOps = ops.bitmap();
    track.depth.resize(n); // written in order below, or by computeDepth after a sort
    uint16_t* const depthOut = track.depth.data();
    Nesting nesting;
    uint16_t maxDepth = 0;
    TimePs lastEnd = 0;
    bool sorted = true;
    for (size_t i = 0; i < n; ++i) {
        if (noteOps)
            ops.add(op[i]);
        if (duration[i] < 0) {
            ++stats.negativeDurations;
            duration[i] = 0;
        }
        sorted = sorted
            && (i == 0 || start[i - 1] < start[i] || (start[i - 1] == start[i] && duration[i - 1] >= duration[i]));
        if (!sorted)
            continue; // only the clamp is still needed
        const TimePs end = start[i] + duration[i];
        lastEnd = i == 0 ? end : std::max(lastEnd, end);
        const uint16_t depth = nesting.depthOf(start[i], end);
        depthOut[i] = depth;
        maxDepth = std::max(maxDepth, depth);
    }
    if (sorted) {
        stats.partialOverlaps += nesting.partialOverlaps;
        stats.depthLimitHits += nesting.depthLimitHits;
        track.maxDepth = maxDepth;
        // Columns grown by push_back keep up to half their capacity unused (JSON: ~8 B/event);
        // the copy costs ~20 ms per 1e7 events once, the slack would cost memory for good.
        auto fit = [](auto& column) {
            if (column.capacity() > column.size() + column.size() / 16 + 1024)
                column.shrink_to_fit();
        };
        fit(track.start);
        fit(track.duration);
        fit(track.op);
        return lastEnd;
    }
    std::vector<uint32_t> order(track.size());
    std::iota(order.begin(), order.end(), 0u);
    // Parents first when two events start together, so nesting comes out right.
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (track.start[a] != track.start[b])
            return track.start[a] < track.start[b];
        return track.duration[a] > track.duration[b];
    });
    auto permute = [&](auto& column) {
        std::remove_reference_t<decltype(column)> sortedColumn(column.size());
        for (size_t i = 0; i < order.size(); ++i)
            sortedColumn[i] = column[order[i]];
        column.swap(sortedColumn);
    };
    permute(track.start);
    permute(track.duration);
    permute(track.op);
    return computeDepth(track, stats);
}

std::string categoryFromInstruction(const hlo::Instruction& instruction)
{
    const std::string& opcode = instruction.opcode;
    if (opcode == "fusion") {
        if (instruction.fusionKind == "kLoop")
            return "loop fusion";
        if (instruction.fusionKind == "kInput")
            return "input fusion";
        if (instruction.fusionKind == "kOutput")
            return "output fusion";
        if (instruction.fusionKind == "kCustom")
            return "custom fusion";
        return "fusion";
    }
    if (opcode == "copy" || opcode == "transpose" || opcode == "reshape")
        return "data formatting";
    return opcode;
}

/// A module run's name as XLA writes it, "jit_step_fun(5120112285394406626)": the program's name
/// and, when the name ends in one, its id (the XSpace loader reads program ids the same way).
struct ModuleRunName
{
    std::string_view program;
    std::optional<uint64_t> id;
};

ModuleRunName parseModuleRunName(std::string_view name)
{
    ModuleRunName result {name, std::nullopt};
    const size_t open = name.rfind('(');
    if (name.size() < 3 || name.back() != ')' || open == std::string_view::npos || open == 0 || open + 2 >= name.size())
        return result;
    const std::string_view digits = name.substr(open + 1, name.size() - open - 2);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return result;
    // Steps names a run's program the same way (steps.cpp withoutProgramId), so the two agree.
    result.program = name.substr(0, open);
    uint64_t id = 0;
    if (auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
        ec == std::errc() && end == digits.data() + digits.size())
        result.id = id;
    return result;
}

/// A stable id for a program whose runs carry no id: Profile::programs and share files key
/// programs by id, and a run name hashed (FNV-1a) keeps equal names together and others apart.
uint64_t programIdFromText(std::string_view text)
{
    uint64_t hash = 0xcbf29ce484222325ull;
    for (const char c : text)
        hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    return hash;
}

} // namespace

// An XLA op event belongs to the run of a program (an event on the XLA Modules line of the same
// plane) that contains it in time. Chrome traces and other exports without per-op program ids
// only say this through time, so here every op without a program id of its own gets that run's
// program; an op kind (same name, long name, category) seen in runs of several programs becomes
// one OpInfo per program. Tables, drill-downs, advice evidence and share files are keyed by
// program and name, so same-named ops of different programs stay apart (in the vLLM trace each of
// three programs has a `fusion`: an embedding gather, a small gather and the lm_head matmul). Ops
// with their own id (XSpace) are left as they are. Cost: one sweep per op line over its sorted events beside the sorted
// runs, one array read per event; programs are registered only for runs that contain such an op.
void ProfileBuilder::linkOpsToModuleRuns()
{
    Profile& p = *m_profile;
    // Per op: the first program its events were seen in (an index into programs), or a marker.
    constexpr uint32_t kUnseen = kNone;
    constexpr uint32_t kOwnProgram = kNone - 1;
    constexpr uint32_t kOutsideRuns = kNone - 2;
    const size_t opCount = p.ops.size();
    std::vector<uint32_t> firstProgram(opCount, kUnseen);
    bool anyWithoutProgram = false;
    for (size_t id = 0; id < opCount; ++id) {
        if (p.ops[id].hasProgramId || p.ops[id].program != kNone)
            firstProgram[id] = kOwnProgram;
        else
            anyWithoutProgram = true;
    }
    if (!anyWithoutProgram)
        return;

    std::unordered_map<OpId, uint32_t> programOfModuleOp;
    auto programOfRun = [&](OpId moduleOp) {
        if (auto it = programOfModuleOp.find(moduleOp); it != programOfModuleOp.end())
            return it->second;
        const OpInfo& module = p.ops[moduleOp];
        const ModuleRunName run = parseModuleRunName(p.str(module.name));
        uint32_t program = module.program;
        if (program == kNone && (module.hasProgramId || run.id)) {
            program = addProgram(module.hasProgramId ? module.programId : *run.id, std::string(run.program), nullptr);
        } else if (program == kNone) {
            for (size_t i = 0; i < p.programs.size() && program == kNone; ++i)
                if (p.programs[i].name == run.program)
                    program = static_cast<uint32_t>(i);
            if (program == kNone)
                program = addProgram(programIdFromText(p.str(module.name)), std::string(run.program), nullptr);
        }
        programOfModuleOp.emplace(moduleOp, program);
        return program;
    };

    // A further program an op kind runs in: a copy of its OpInfo, made once per (op, program).
    std::unordered_map<uint64_t, OpId> copies;
    auto copyFor = [&](OpId op, uint32_t program) {
        auto [it, inserted] = copies.emplace((uint64_t(op) << 32) | program, OpId(0));
        if (inserted) {
            OpInfo copy = p.ops[op];
            copy.program = program == kOutsideRuns ? kNone : program;
            copy.hasProgramId = program != kOutsideRuns;
            copy.programId = program == kOutsideRuns ? 0 : p.programs[program].id;
            p.ops.push_back(copy);
            it->second = static_cast<OpId>(p.ops.size() - 1);
        }
        return it->second;
    };

    struct Run
    {
        TimePs start, end;
        OpId op;
    };
    std::vector<Run> runs;
    for (const Plane& plane : p.planes) {
        runs.clear();
        size_t moduleLines = 0;
        for (TrackId id : plane.tracks) {
            const Track& track = p.tracks[id];
            if (track.kind != TrackKind::XlaModules)
                continue;
            ++moduleLines;
            for (size_t i = 0; i < track.size(); ++i)
                if (track.depth[i] == 0)
                    runs.push_back({track.start[i], track.end(i), track.op[i]});
        }
        if (runs.empty())
            continue;
        if (moduleLines > 1)
            std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.start < b.start; });
        for (TrackId id : plane.tracks) {
            Track& track = p.tracks[id];
            if (track.kind != TrackKind::XlaOps && track.kind != TrackKind::AsyncXlaOps)
                continue;
            size_t next = 0; // the first run that starts after the current event
            for (size_t i = 0; i < track.size(); ++i) {
                const OpId op = track.op[i];
                if (op >= opCount || firstProgram[op] == kOwnProgram)
                    continue;
                const TimePs start = track.start[i];
                while (next < runs.size() && runs[next].start <= start)
                    ++next;
                // Lines are anchored apart (Chrome JSON: each at its first device offset), so an op
                // may seem to start a few hundred ps before its run: up to 1 ns counts as inside.
                uint32_t program = kOutsideRuns;
                if (next > 0 && start < runs[next - 1].end)
                    program = programOfRun(runs[next - 1].op);
                else if (next < runs.size() && runs[next].start - start <= kTouchTolerancePs)
                    program = programOfRun(runs[next].op);
                uint32_t& first = firstProgram[op];
                if (first == kUnseen)
                    first = program;
                else if (first != program)
                    track.op[i] = copyFor(op, program);
            }
        }
    }
    for (size_t id = 0; id < opCount; ++id) {
        const uint32_t program = firstProgram[id];
        if (program == kUnseen || program == kOwnProgram || program == kOutsideRuns)
            continue;
        OpInfo& op = p.ops[id];
        op.program = program;
        op.programId = p.programs[program].id;
        op.hasProgramId = true;
    }
}

std::shared_ptr<const Profile> ProfileBuilder::finish(std::string_view deviceOverride, int coresOverride)
{
    Profile& p = *m_profile;
    if (p.hosts.empty())
        p.hosts.emplace_back();
    // Said once per program of the finished profile (a log dir's hosts are merged unfinished).
    for (const Program& program : p.programs)
        if (program.hlo && !program.hlo->callCycles.empty())
            p.load.warnings.push_back("program " + program.name
                + ": its HLO has calls in a cycle, not followed: " + program.hlo->callCycles.front()
                + (program.hlo->callCycles.size() > 1
                        ? " (and " + std::to_string(program.hlo->callCycles.size() - 1) + " more)"
                        : std::string()));

    bool anyEvent = false;
    TimePs spanBegin = 0, spanEnd = 0;
    for (OpInfo& op : p.ops)
        op.firstTrack = kNone; // a snapshot's copy may carry an earlier finish's
    // Each track is sorted and nested on its own, side by side on the shared pool (a tenth of a
    // 1e7-event load on one thread); the counters are summed afterwards in track order.
    struct FinishedTrack
    {
        ImportStats stats;
        std::vector<OpId> ops; // each op the track has, once
    };
    std::vector<FinishedTrack> finished(p.tracks.size());
    std::vector<size_t> trackWeight(p.tracks.size());
    for (TrackId id = 0; id < p.tracks.size(); ++id)
        trackWeight[id] = p.tracks[id].size();
    parallelFor(
        trackWeight, std::max(1u, std::thread::hardware_concurrency()),
        [&](size_t id) {
            Track& track = p.tracks[id];
            DistinctOps ops(track.size(), p.ops.size());
            track.lastEnd = sortAndNest(track, finished[id].stats, ops);
            finished[id].ops = ops.take(track.op);
        },
        [] {});
    for (TrackId id = 0; id < p.tracks.size(); ++id) {
        Track& track = p.tracks[id];
        for (const OpId op : finished[id].ops) // each op's first track, in track order
            if (p.ops[op].firstTrack == kNone)
                p.ops[op].firstTrack = id;
        const ImportStats& counted = finished[id].stats;
        p.stats.negativeDurations += counted.negativeDurations;
        p.stats.partialOverlaps += counted.partialOverlaps;
        p.stats.depthLimitHits += counted.depthLimitHits;
        if (track.size()) {
            if (!anyEvent) {
                spanBegin = track.start.front();
                spanEnd = track.lastEnd;
                anyEvent = true;
            } else {
                spanBegin = std::min(spanBegin, track.start.front());
                spanEnd = std::max(spanEnd, track.lastEnd);
            }
        }
        p.stats.aggregatedEvents += static_cast<int64_t>(track.aggregated.size());
    }
    for (const auto& counter : p.counters) {
        if (counter.time.empty())
            continue;
        const auto [lo, hi] = std::minmax_element(counter.time.begin(), counter.time.end());
        spanBegin = anyEvent ? std::min(spanBegin, *lo) : *lo;
        spanEnd = anyEvent ? std::max(spanEnd, *hi) : *hi;
        anyEvent = true;
    }
    p.spanBegin = spanBegin;
    p.spanEnd = spanEnd;
    std::stable_sort(p.stepMarkers.begin(), p.stepMarkers.end(),
        [](const StepMarker& a, const StepMarker& b) { return a.start < b.start; });

    linkOpsToModuleRuns();
    // Link ops to their programs and fill missing categories from the HLO.
    for (auto& op : p.ops) {
        if (op.hasProgramId && op.program == kNone) {
            auto it = p.m_programIndex.find(op.programId);
            if (it != p.m_programIndex.end())
                op.program = static_cast<uint32_t>(it->second);
        }
        if (op.isXlaOp && op.category == 0) {
            if (const hlo::Instruction* instruction = p.instructionFor(op))
                op.category = p.strings.intern(categoryFromInstruction(*instruction));
            else
                op.category = p.strings.intern("unknown");
        }
    }

    p.fileDevice = deviceFromFile(p);
    DeviceChoice choice = chooseDevice(p.fileDevice, deviceOverride, coresOverride);
    p.device = std::move(choice.device);
    p.load.deviceRefusal = std::move(choice.refusal);
    // The last thing before the profile becomes immutable: the load's own time, finish included.
    if (m_loadStart)
        p.load.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - *m_loadStart).count();
    return std::shared_ptr<const Profile>(m_profile.release());
}

OpOccurrences findOccurrences(const Profile& profile, OpId op, std::stop_token stop)
{
    OpOccurrences out(profile.tracks.size());
    if (op >= profile.ops.size())
        return out;
    StopCheck check(std::move(stop));
    for (TrackId t = profile.ops[op].firstTrack; t < profile.tracks.size(); ++t) {
        const std::vector<OpId>& ops = profile.tracks[t].op;
        for (size_t i = 0; i < ops.size(); ++i) {
            if (check.stopped())
                return {};
            if (ops[i] == op)
                out[t].push_back(static_cast<uint32_t>(i));
        }
    }
    return out;
}

SharedLoadBudget::SharedLoadBudget(size_t loads)
    : m_slots(loads)
{
}

SharedLoadBudget::Totals SharedLoadBudget::update(
    size_t slot, uint64_t events, uint64_t stringBytes, uint64_t structureBytes)
{
    // Unsigned arithmetic wraps: adding (new - old) modulo 2^64 moves each sum by the difference.
    auto move = [](std::atomic<uint64_t>& sum, std::atomic<uint64_t>& mine, uint64_t value) {
        const uint64_t old = mine.exchange(value, std::memory_order_relaxed);
        return sum.fetch_add(value - old, std::memory_order_relaxed) + (value - old);
    };
    if (!TPUSCOPE_CHECK(slot < m_slots.size()))
        return {};
    Slot& mine = m_slots[slot];
    return {move(m_events, mine.events, events), move(m_stringBytes, mine.stringBytes, stringBytes),
        move(m_structureBytes, mine.structureBytes, structureBytes)};
}

std::string LoadLimits::check(uint64_t events, uint64_t stringBytes, uint64_t structureBytes) const
{
    auto mib = [](uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20); };
    // The hosts of a run load at once: what the others hold counts against the same limits.
    std::string together;
    if (shared && shared->loads() > 1) {
        const auto saturated = [](uint64_t v) { return std::min<uint64_t>(v, UINT64_MAX >> 9); };
        const SharedLoadBudget::Totals totals
            = shared->update(sharedSlot, saturated(events), saturated(stringBytes), saturated(structureBytes));
        events = totals.events;
        stringBytes = totals.stringBytes;
        structureBytes = totals.structureBytes;
        together = " (the " + std::to_string(shared->loads()) + " hosts of the run together)";
    }
    if (events > maxEvents)
        return "more than " + std::to_string(maxEvents) + " events, the event limit" + together
            + (eventsHint.empty() ? "" : "; " + eventsHint);
    // Events, names and containers together, at their peak cost while building.
    const uint64_t needed
        = events >= (UINT64_MAX >> 8) || stringBytes >= (UINT64_MAX >> 8) || structureBytes >= (UINT64_MAX >> 8)
        ? UINT64_MAX
        : events * kPeakBytesPerEvent + stringBytes * 2 + structureBytes;
    if (needed > memoryBudgetBytes)
        return "loading needs about " + mib(needed) + " MiB (" + std::to_string(events) + " events"
            + (structureBytes ? ", " + mib(structureBytes) + " MiB of planes, lines and metadata" : std::string()) + ")"
            + together + ", over the memory budget of " + mib(memoryBudgetBytes) + " MiB"
            + (budgetHint.empty() ? "" : "; " + budgetHint);
    return {};
}

std::shared_ptr<const Profile> ProfileBuilder::snapshot(std::string_view deviceOverride, int coresOverride) const
{
    ProfileBuilder copy;
    *copy.m_profile = *m_profile; // HLO modules are immutable and shared, not copied
    return copy.finish(deviceOverride, coresOverride);
}

void ProfileBuilder::setPreview(PreviewFn preview, double seconds, std::string deviceOverride)
{
    m_preview = std::move(preview);
    m_previewDue = std::chrono::steady_clock::now()
        + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    m_previewDevice = std::move(deviceOverride);
}

void ProfileBuilder::sendPreview()
{
    PreviewFn preview = std::move(m_preview);
    m_preview = nullptr; // once per load
    preview(snapshot(m_previewDevice));
}

void ProfileBuilder::sendPreview(const std::function<void(ProfileBuilder&)>& fill)
{
    if (!m_preview)
        return;
    PreviewFn preview = std::move(m_preview);
    m_preview = nullptr; // once per load
    ProfileBuilder copy;
    *copy.m_profile = *m_profile;
    copy.m_opIndex = m_opIndex;
    copy.m_limits = m_limits;
    fill(copy);
    preview(copy.finish(m_previewDevice));
}

} // namespace tpuscope::model
