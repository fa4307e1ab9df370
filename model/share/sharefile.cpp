// SPDX-License-Identifier: GPL-3.0-or-later
//
// Share file (*.tpuscope), version 1.
//
// Bytes: "TPUSCOPE-SHARE 1\n" followed by one gzip member holding a compact JSON document:
//
// {
//   "format": "tpuscope-share", "version": 1, "generator": "tpuscope",
//   "source": {"format": "xspace", "file": "name.xplane.pb" (absent with paths redaction, host names
//              replaced with any),
//              "file_bytes": N, "warnings": [...] (the load's, when any), "limitations": [...]},
//   "redaction": {"paths": bool, "names": bool, "hash": bool},
//   "device": {"type", "generation", "cores", "peak_tflops_per_core", "peak_hbm_gbps_per_core",
//              "peak_source" (PeakSource enum value), "peak_note",
//              "hosts": [host names] ("host0".. with any redaction),
//              "core_planes": [{"host": i, "name": "/device:TPU:0" (just the core with any redaction)}, ...]},
//   "totals": {"ops": rows in the original op table, "kept": rows kept, "time_ps", "kept_time_fraction"},
//   "step_windows": {"kind": TrackKind (Steps, or XlaModules for program runs), "line", "program",
//            "dominant": the program with the most device time,
//            "cores": [{"plane", "start_ps": [...], "duration_ps": [...], "busy_ps": [...]}]}
//            each core's steps as computeSteps defines them (the first shareStepWindowsPerCore of
//            each core: every core the same steps, kMaxShareStepWindows in all);
//   "host_timing": each core's timing at the step's synchronizing collective per step and the time
//            base of the step windows (sharehosts.h), for the hosts analysis and the straggler rule;
//   "program_runs": [{"plane", "program", "runs", "time_ps"}] per core and program (XLA Modules);
//   "step_time": {"source", "steps_per_core", "avg_ps", "compute_ps", "collective_ps",
//            "host_transfer_ps", "infeed_ps", "idle_ps", "warmup_idle_ps", "steady_idle_ps",
//            "tail_idle_ps"} the average step and where it goes, for the record;
//   (files written before step windows carry "steps" (the first core's step line durations) and
//   "idle" (per core runs/span/gaps of a line) instead; the reader still reads them);
//   "programs": [{"id", "name", "hlo": module or absent}],
//       module: {"name", "id", "entry", "computations": [{"id", "name", "root", "fusion",
//                "instructions": [instruction]}]} with only the instructions the kept ops need:
//                the op itself, its operands (without their own operands) and every computation it
//                calls (fused computations), transitively;
//       module "memory" (HBM, when the module has a buffer assignment): {"buffers": [{"i" instruction id,
//                "x" shape index, "s" size, "f" allocation flags}] the largest buffers at the peak (their
//                instructions are kept as stubs), "groups": [{"f", "s", "u" unpadded, "n"}] the other
//                indefinite allocations per flags, "rest": {"s", "u", "n"} the other heap buffers at the
//                peak, "temporary_bytes", "trace" (whether the peak came from a heap simulation)};
//                flags: 1 entry parameter, 2 maybe live-out, 4 thread-local, 8 constant;
//       instruction: {"id", "n" name, "o" opcode, "s" shape, "fk" fusion kind, "a" operand ids,
//                "c" called computation ids, "os" operand shapes, "conv" {...}, "dot" {...},
//                "fgc", "bgc", "pn", "cct", "ot" op_type, "on" op_name, "sf", "sl"};
//       shape: {"t" PrimitiveType, "d" dims, "l" minor_to_major, "T" tiles [[..]], "E", "S", "L",
//               "u" tuple element shapes} ("l" present = has layout);
//   "ops": [{"name", "program_id", "category", "occurrences", "time_ps", "self_time_ps", "flops",
//            "model_flops", "bytes", "hbm_bytes" (-1 = not recorded), "hlo" (HLO text), "shape",
//            "tf_op", "source", "dedup", "layout": [[size, alignment, semantics]]}]
//            totals over all cores and occurrences, by descending time;
//   "other": [{"category", "ops", "occurrences", "time_ps", "flops", "model_flops", "bytes",
//             "hbm_bytes"}] the ops not kept, summed per category in chunks below 1 % of op time
//             (so no advice rule, which needs >= 1 %, mistakes a chunk for an op);
//   "advice": [{"rule", "severity", "title", "ops": [names], "evidence": [{"op", "framework_op" (absent with
//             names/hash redaction), "source" (absent with paths redaction), "time_fraction"}],
//             "numbers": {...}, "gain_ps_per_step" | "gain_ps_over_capture" + "gain_op_time_fraction"
//             (per core; absent without a time gain, e.g. a throughput gain: numbers.throughput_factor)}]
//             the advice computed on the original profile, for the record.
// }
//
// All names pass through one map, so with hash redaction an op keeps the same hash in the op
// list, the HLO, the HLO text and the advice text. Every other string passes through one text
// redactor (TextRedactor): with any redaction host names become host0.., and HLO text loses its
// metadata, backend_config and frontend_attributes; with paths redaction every path-like token
// becomes "[path]" and the user names of home folders "[user]", in whichever field they are quoted.
//
// The redaction is in shareredaction.{h,cpp}, the reduced HLO modules in hloreducer.{h,cpp}; this file
// chooses what a share file keeps and writes its sections.

#include "sharefile.h"

#include "hloreducer.h"
#include "sharehosts.h"
#include "shareredaction.h"

#include "../core/atomicfile.h"
#include "../core/base64.h"
#include "../core/stopcheck.h"

#include "../analysis/memory.h"
#include "../analysis/opmodel.h"
#include "../analysis/profileanalysis.h"
#include "../loader/gzip.h"
#include "../report/advicereport.h"
#include "../report/jsonwriter.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tpuscope::model {

namespace {

using share_detail::ModuleReducer;
using share_detail::NameMap;
using share_detail::TextRedactor;

// Ops at or above this share of op time are always kept: advice rules look at ops from 1 %.
constexpr double kAlwaysKeepShare = 0.01;
// Grouped leftovers stay below the 1 % evidence threshold of the advice rules.
constexpr double kOtherChunkShare = 0.0099;

std::string replaceAll(std::string text, const std::string& what, const std::string& with)
{
    for (size_t at = text.find(what); !what.empty() && at != std::string::npos; at = text.find(what, at + with.size()))
        text.replace(at, what.size(), with);
    return text;
}

std::string fileName(const std::string& path)
{
    const auto slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// ---------------------------------------------------------------------------------------------
// What to keep

/// A breakdown row's (program, name), the key an op kind finds its row by.
std::string rowKey(const std::string& program, const std::string& name)
{
    return program + '\x1f' + name;
}

/// The breakdown rows a share file keeps.
struct KeptRows
{
    size_t top = 0; // the first rows of the breakdown (by descending time)
    double covered = 0; // their share of op time
    size_t asyncPartners = 0; // rows below the top ones, kept as the other half of a kept async op
    std::unordered_map<std::string, size_t> byKey; // rowKey → row, for every kept row
};

KeptRows chooseRows(const OpBreakdown& breakdown, const ShareOptions& options)
{
    KeptRows kept;
    for (const OpRow& row : breakdown.rows) {
        const bool needed = kept.covered < options.timeCoverage && kept.top < std::max<size_t>(1, options.maxOps);
        if (!needed && row.timeFraction < kAlwaysKeepShare)
            break;
        kept.covered += row.timeFraction;
        ++kept.top;
    }
    for (size_t i = 0; i < kept.top; ++i)
        kept.byKey.emplace(rowKey(breakdown.rows[i].program, breakdown.rows[i].name), i);
    // An async half travels with its other half: the pair's rate needs both (its bytes over the
    // start→done span), so a kept start whose small done half fell below the cut keeps it too.
    std::unordered_map<std::string, size_t> rowByKey;
    for (size_t i = kept.top; i < breakdown.rows.size(); ++i)
        rowByKey.emplace(rowKey(breakdown.rows[i].program, breakdown.rows[i].name), i);
    for (size_t i = 0; i < kept.top; ++i) {
        const OpRow& row = breakdown.rows[i];
        if (row.asyncPartner.empty())
            continue;
        auto it = rowByKey.find(rowKey(row.program, row.asyncPartner));
        if (it != rowByKey.end() && kept.byKey.emplace(it->first, it->second).second)
            ++kept.asyncPartners;
    }
    return kept;
}

/// Every op kind that ran, by how the share file writes it.
struct OpSelection
{
    std::vector<std::pair<size_t, OpId>> kept; // (row, op) of the kept rows, by row
    std::vector<OpId> brief; // copies and collectives not kept, written with less detail
    std::vector<OpId> rest; // everything else, summed per category in "other"
};

/// Empty when the job was stopped (superseded: the session discards it).
std::optional<OpSelection> selectOps(const ProfileAnalysis& analysis, const KeptRows& rows, std::stop_token stop)
{
    const Profile& profile = *analysis.profile;
    // Per op kind, the totals of the analysis' one pass over the events.
    const std::vector<OpTotals>& totals = analysis.breakdown.perOp;
    const OpModel& model = analysis.opModel;
    OpSelection ops;
    StopCheck stopCheck(std::move(stop));
    for (OpId id = 0; id < profile.ops.size(); ++id) {
        if (stopCheck.stopped())
            return std::nullopt;
        if (totals[id].occurrences == 0)
            continue;
        const OpInfo& op = profile.ops[id];
        if (auto it = rows.byKey.find(rowKey(opProgramLabel(profile, op), profile.str(op.name)));
            it != rows.byKey.end())
            ops.kept.emplace_back(it->second, id);
        else if (model[id].movesData() || model[id].isCollective()) // the advice counts these one by one
            ops.brief.push_back(id);
        else
            ops.rest.push_back(id);
    }
    std::stable_sort(ops.kept.begin(), ops.kept.end());
    return ops;
}

using Reducers = std::map<uint32_t, ModuleReducer>; // by program

/// Reduced HLO per program of the kept ops, with the module's HBM peak.
Reducers reduceModules(const ProfileAnalysis& analysis, const OpSelection& ops)
{
    const Profile& profile = *analysis.profile;
    Reducers reducers;
    for (const auto& [row, id] : ops.kept) {
        const OpInfo& op = profile.ops[id];
        const hlo::Module* module = profile.hloFor(op);
        const hlo::Instruction* instruction = profile.instructionFor(op);
        if (!module || !instruction)
            continue;
        auto it = reducers.try_emplace(op.program, *module).first;
        it->second.addOp(*instruction);
    }
    const MemoryReport& memory = analysis.memory; // computed once per analysis, shared with the Memory view
    for (auto& [program, reducer] : reducers)
        for (const ModuleMemory& m : memory.modules)
            if (m.module == profile.programs[program].hlo.get())
                reducer.addMemory(m);
    return reducers;
}

/// Every name the file writes, in one map. A hash that collides gets a salt in the order the names
/// are added, so this order is part of the file: it must not change.
NameMap collectNames(const ProfileAnalysis& analysis, const OpSelection& ops, const Reducers& reducers, bool hash)
{
    const Profile& profile = *analysis.profile;
    NameMap names(hash);
    for (const OpId id : ops.brief)
        names.add(profile.str(profile.ops[id].name), "op_");
    for (const auto& [row, id] : ops.kept) {
        const OpInfo& op = profile.ops[id];
        names.add(profile.str(op.name), "op_");
        if (op.program != kNone)
            names.add(profile.programs[op.program].name, "prog_");
    }
    for (const auto& [program, reducer] : reducers)
        reducer.collectNames(names);
    // The names written beside the kept ops are hashed too: the step program and the program runs
    // (any program), the host link's waits and the advice's ops (which need not be kept ones).
    for (const Program& p : profile.programs)
        names.add(p.name, "prog_");
    for (OpId op : analysis.hostLink.waitOps)
        names.add(profile.str(profile.ops[op].name), "op_");
    for (const Advice& a : analysis.advice.advice) {
        for (const std::string& n : a.opNames)
            names.add(n, "op_");
        for (const AdviceEvidence& e : a.evidence)
            names.add(e.name, "op_");
    }
    if (!analysis.hosts.syncCollective.empty()) // last: names added before keep their salts
        names.add(analysis.hosts.syncCollective, "op_");
    return names;
}

// ---------------------------------------------------------------------------------------------
// The sections

/// What every section writer reads: the analysis, the redaction with its one name map and text
/// redactor, and the one JSON writer the sections append to.
struct ShareContext
{
    const ProfileAnalysis& analysis;
    const Profile& profile;
    const ShareRedaction& redact;
    const NameMap& names;
    const TextRedactor& texts;
    JsonWriter& w;
    /// Step windows (and host timing) written per core: the same first steps on every core.
    std::vector<size_t> windowsPerCore;

    std::string hloText(const std::string& text) const
    {
        return texts.text(redact.any() ? share_detail::stripHloAttributes(text) : text);
    }
};

void writeSource(const ShareContext& s)
{
    JsonWriter& w = s.w;
    const Profile& profile = s.profile;
    w.key("source").beginObject();
    w.field("format", profile.load.format);
    // The file name is a host's name in xprof's runs (HOST.xplane.pb): host names go with any redaction.
    if (!s.redact.paths && !profile.load.path.empty())
        w.field("file", s.texts.scrub(fileName(profile.load.path)));
    w.field("file_bytes", profile.load.fileBytes);
    // The load's warnings (truncation, corruption, limits hit) travel with the numbers they
    // qualify: a reopened share file says them as the original did. Names and op names in them
    // (ops a skipped host had, a cut-off line) are redacted as any other text.
    if (!profile.load.warnings.empty()) {
        w.key("warnings").beginArray();
        for (const std::string& warning : profile.load.warnings)
            w.value(s.texts.text(warning));
        w.endArray();
    }
    if (!s.redact.any()) {
        w.key("limitations").beginArray();
        for (const std::string& l : profile.load.limitations)
            w.value(l);
        w.endArray();
    }
    w.endObject();
}

void writeRedaction(const ShareContext& s)
{
    JsonWriter& w = s.w;
    w.key("redaction").beginObject();
    w.field("paths", s.redact.paths).field("names", s.redact.names).field("hash", s.redact.hashNames);
    w.endObject();
}

void writeCorePlanes(const ShareContext& s)
{
    JsonWriter& w = s.w;
    const Profile& profile = s.profile;
    w.key("core_planes").beginArray();
    for (PlaneId p : profile.tpuCorePlanes()) {
        w.beginObject();
        // A plane's name is the core it is once redacted: producers put process and host names there.
        const Plane& plane = profile.planes[p];
        w.field("host", static_cast<int64_t>(plane.host))
            .field("name",
                s.redact.any() ? "/device:TPU:" + std::to_string(std::max(0, plane.coreIndex))
                               : profile.str(plane.name));
        if (profile.planes[p].aggregate)
            w.field("aggregate", true);
        w.endObject();
    }
    w.endArray();
}

void writeDevice(const ShareContext& s)
{
    JsonWriter& w = s.w;
    const Profile& profile = s.profile;
    const DeviceInfo& device = profile.device;
    w.key("device").beginObject();
    w.field("type", s.texts.scrub(device.type)).field("generation", device.generation).field("cores", device.cores);
    w.field("cores_source", coreCountSourceName(device.coresSource))
        .field("cores_at_least", device.coresAtLeast)
        .field("cores_note", s.texts.scrub(device.coresNote));
    w.field("peak_tflops_per_core", device.peakTflopsPerCore)
        .field("peak_hbm_gbps_per_core", device.peakHbmGbpsPerCore)
        .field("ici_gbps_per_core", device.iciGbpsPerCore);
    w.field("peak_source", static_cast<int64_t>(device.peakSource)).field("peak_note", s.texts.scrub(device.peakNote));
    if (profile.fileRootUtilization.flops)
        w.field("root_flops_utilization", *profile.fileRootUtilization.flops);
    if (profile.fileRootUtilization.hbm)
        w.field("root_hbm_utilization", *profile.fileRootUtilization.hbm);
    if (profile.bytesNotRecorded)
        w.field("bytes_not_recorded", true);
    w.key("hosts").beginArray();
    for (size_t h = 0; h < std::max<size_t>(1, profile.hosts.size()); ++h) {
        // A host without an XSpace hostname keeps the name the hosts table gives it (its file's),
        // so that per-host share files of one run merge with distinct names.
        const HostRow* row = s.analysis.hosts.row(static_cast<uint32_t>(h));
        const std::string name = h < profile.hosts.size() && !profile.hosts[h].empty() ? profile.hosts[h]
            : row                                                                      ? row->name
                                                                                       : std::string();
        w.value(s.redact.any() || name.empty() ? "host" + std::to_string(h) : name);
    }
    w.endArray();
    writeCorePlanes(s);
    w.endObject();
}

void writeTotals(const ShareContext& s, const KeptRows& kept)
{
    JsonWriter& w = s.w;
    const OpBreakdown& breakdown = s.analysis.breakdown;
    w.key("totals").beginObject();
    w.field("ops", static_cast<uint64_t>(breakdown.rows.size()))
        .field("kept", static_cast<uint64_t>(kept.top + kept.asyncPartners));
    w.field("time_ps", breakdown.totalTimePs).field("kept_time_fraction", kept.covered);
    w.field("span_ps", static_cast<int64_t>(s.profile.spanEnd - s.profile.spanBegin));
    w.endObject();
}

void writeStepSplit(JsonWriter& w, const char* key, const StepTimeSplit& t)
{
    w.key(key).beginObject();
    w.field("compute_ps", t.computePs)
        .field("collective_ps", t.collectivePs)
        .field("host_transfer_ps", t.hostTransferPs)
        .field("infeed_ps", t.infeedPs)
        .field("idle_ps", t.idlePs);
    w.endObject();
}

/// The first `n` step windows of one core.
void writeCoreSteps(JsonWriter& w, const std::vector<CoreStep>& windows, size_t n, TimePs spanBegin)
{
    w.key("start_ps").beginArray();
    for (size_t i = 0; i < n; ++i)
        w.value(static_cast<int64_t>(windows[i].begin - spanBegin));
    w.endArray();
    w.key("duration_ps").beginArray();
    for (size_t i = 0; i < n; ++i)
        w.value(static_cast<int64_t>(windows[i].end - windows[i].begin));
    w.endArray();
    w.key("busy_ps").beginArray();
    for (size_t i = 0; i < n; ++i)
        w.value(static_cast<int64_t>(std::llround(windows[i].time.busyPs())));
    w.endArray();
    // Where each step's busy time went (the rest of the window is idle), as measured.
    for (auto [key, part] :
        {std::pair {"compute_ps", &StepTimeSplit::computePs}, std::pair {"collective_ps", &StepTimeSplit::collectivePs},
            std::pair {"host_transfer_ps", &StepTimeSplit::hostTransferPs},
            std::pair {"infeed_ps", &StepTimeSplit::infeedPs}}) {
        w.key(key).beginArray();
        for (size_t i = 0; i < n; ++i)
            w.value(windows[i].time.*part);
        w.endArray();
    }
}

void writeStepWindows(const ShareContext& s)
{
    JsonWriter& w = s.w;
    const StepAnalysis& steps = s.analysis.steps;
    const bool runs = steps.source == StepSource::ProgramRuns;
    w.key("step_windows").beginObject();
    w.field("kind", static_cast<int64_t>(runs ? TrackKind::XlaModules : TrackKind::Steps));
    w.field("line", s.texts.scrub(steps.sourceLine)).field("program", s.names.name(steps.program));
    w.field("dominant", steps.dominant() ? s.names.name(steps.dominant()->name) : std::string());
    w.key("cores").beginArray();
    for (size_t c = 0; c < steps.coreSteps.size(); ++c) {
        w.beginObject();
        w.field("plane", static_cast<uint64_t>(c));
        writeCoreSteps(w, steps.coreSteps[c], s.windowsPerCore[c], s.profile.spanBegin);
        w.endObject();
    }
    w.endArray();
    writeStepSplit(w, "warmup", steps.warmup);
    writeStepSplit(w, "tail", steps.tail);
    w.field("busy_fraction", steps.busyFraction);
    w.endObject();
}

void writeProgramRuns(const ShareContext& s)
{
    JsonWriter& w = s.w;
    w.key("program_runs").beginArray();
    for (const ProgramRunStats& p : s.analysis.steps.programs)
        for (size_t c = 0; c < p.runsByCore.size(); ++c) {
            if (p.runsByCore[c] == 0)
                continue;
            w.beginObject();
            w.field("plane", static_cast<uint64_t>(c)).field("program", s.names.name(p.name));
            w.field("runs", p.runsByCore[c]).field("time_ps", p.timeByCore[c]);
            w.endObject();
        }
    w.endArray();
}

// The step time and where it goes, for the record (the reader rebuilds it from the step windows,
// with all busy time as compute).
void writeStepTime(const ShareContext& s)
{
    JsonWriter& w = s.w;
    const StepAnalysis& steps = s.analysis.steps;
    const StepTimeSplit a = steps.averageStep();
    w.key("step_time").beginObject();
    w.field("source", stepSourceName(steps.source)).field("steps_per_core", steps.stepsPerCore);
    w.field("avg_ps", steps.avgStepPs)
        .field("compute_ps", a.computePs)
        .field("collective_ps", a.collectivePs)
        .field("host_transfer_ps", a.hostTransferPs)
        .field("infeed_ps", a.infeedPs)
        .field("idle_ps", a.idlePs);
    w.field("warmup_idle_ps", steps.warmup.idlePs)
        .field("steady_idle_ps", steps.steady.idlePs)
        .field("tail_idle_ps", steps.tail.idlePs);
    w.endObject();
}

// Steps as computeSteps defines them: each core's step windows with their busy time, and the
// program runs of each core, so the reader rebuilds lines that give the same steps.
void writeSteps(const ShareContext& s)
{
    const StepAnalysis& steps = s.analysis.steps;
    if (steps.coreSteps.empty() || steps.stepsPerCore <= 0)
        return;
    writeStepWindows(s);
    writeProgramRuns(s);
    writeStepTime(s);
    const std::string& sync = s.analysis.hosts.syncCollective;
    share_detail::writeHostTiming(s.w, s.analysis, s.windowsPerCore, sync.empty() ? sync : s.names.name(sync));
}

// The host link as the analysis measured it from the timeline (hostlink.h).
void writeHostLink(const ShareContext& s)
{
    const HostLinkStats& link = s.analysis.hostLink;
    if (!link.any())
        return;
    JsonWriter& w = s.w;
    const Profile& profile = s.profile;
    w.key("host_link").beginObject();
    for (auto [key, d] : {std::pair {"to_device", &link.toDevice}, std::pair {"to_host", &link.toHost}}) {
        w.key(key).beginObject();
        w.field("transfers", d->transfers).field("bytes", d->bytes).field("busy_ps", d->busyPs);
        w.endObject();
    }
    w.field("either_busy_ps", link.eitherBusyPs).field("both_busy_ps", link.bothBusyPs);
    w.field("program", s.names.name(link.program)).field("runs", link.runs).field("run_ps", link.runPs);
    w.field("compute_ps_per_run", link.computePsPerRun).field("wait_ps_per_run", link.waitPsPerRun);
    w.field("to_device_bytes_per_run", link.toDeviceBytesPerRun).field("to_host_bytes_per_run", link.toHostBytesPerRun);
    w.field("to_device_busy_ps_per_run", link.toDeviceBusyPsPerRun)
        .field("to_host_busy_ps_per_run", link.toHostBusyPsPerRun);
    w.field("either_busy_ps_per_run", link.eitherBusyPsPerRun).field("both_busy_ps_per_run", link.bothBusyPsPerRun);
    w.field("to_device_idle_while_waiting_ps_per_run", link.toDeviceIdleWhileWaitingPsPerRun)
        .field("to_host_idle_while_waiting_ps_per_run", link.toHostIdleWhileWaitingPsPerRun);
    w.key("wait_ops").beginArray();
    for (OpId op : link.waitOps) {
        w.beginObject().field("name", s.names.name(profile.str(profile.ops[op].name)));
        if (profile.ops[op].hasProgramId)
            w.field("program_id", profile.ops[op].programId);
        w.endObject();
    }
    w.endArray();
    w.endObject();
}

/// The programs of the kept and brief ops, each with its reduced HLO module when it has one.
void writePrograms(const ShareContext& s, const OpSelection& ops, const Reducers& reducers)
{
    JsonWriter& w = s.w;
    const Profile& profile = s.profile;
    w.key("programs").beginArray();
    std::set<uint32_t> programs;
    for (const auto& [row, id] : ops.kept)
        if (uint32_t p = profile.ops[id].program; p != kNone)
            programs.insert(p);
    for (const OpId id : ops.brief)
        if (uint32_t p = profile.ops[id].program; p != kNone)
            programs.insert(p);
    for (uint32_t p : programs) {
        w.beginObject();
        w.field("id", profile.programs[p].id).field("name", s.names.name(profile.programs[p].name));
        if (auto it = reducers.find(p); it != reducers.end()) {
            w.key("hlo");
            it->second.write(w, s.names, s.texts, s.redact);
        }
        w.endObject();
    }
    w.endArray();
}

/// One entry of "ops" (kept) or "brief_ops": one op kind's totals and per-occurrence costs; a brief
/// entry stops after its HLO text, which it has only with `keepHloText`.
void writeOp(const ShareContext& s, OpId id, bool brief, bool keepHloText)
{
    JsonWriter& w = s.w;
    const Profile& profile = s.profile;
    const OpInfo& op = profile.ops[id];
    const OpTotals& t = s.analysis.breakdown.perOp[id];
    w.beginObject();
    w.field("name", s.names.name(profile.str(op.name)));
    if (op.program != kNone)
        w.field("program_id", profile.programs[op.program].id);
    else if (op.hasProgramId)
        w.field("program_id", op.programId);
    w.field("category", s.texts.scrub(profile.str(op.category))).field("occurrences", t.occurrences);
    w.field("time_ps", t.time).field("self_time_ps", t.self);
    if (t.pairsTimed > 0)
        w.field("pair_span_ps", t.pairSpan).field("pairs_timed", t.pairsTimed);
    w.field("flops", op.flops).field("model_flops", op.modelFlops).field("bytes", op.bytesAccessed);
    w.field("hbm_bytes", op.hbmBytes)
        .field("flops_recorded", op.flopsRecorded)
        .field("bytes_recorded", op.bytesRecorded);
    // The op model's decision, so that the reader need not decide again from the part of the
    // evidence (HLO text, shapes) a share file keeps.
    const OpTraits& kind = s.analysis.opModel[id];
    w.field("class", opClassName(kind.opClass));
    if (kind.collective != CollectiveKind::None)
        w.field("collective", collectiveKindName(kind.collective));
    if (kind.direction != TransferDirection::None)
        w.field("direction", transferDirectionName(kind.direction));
    if (kind.memorySpace >= 0)
        w.field("memory_space", static_cast<int64_t>(kind.memorySpace));
    if (kind.transferBytes > 0)
        w.field("transfer_bytes", kind.transferBytes);
    const std::string& longName = profile.str(op.longName);
    if (const std::string& shape = profile.str(op.shapeWithLayout); !shape.empty())
        w.field("shape", s.texts.scrub(shape));
    if (!longName.empty() && keepHloText)
        w.field("hlo", s.hloText(longName));
    if (brief) {
        w.endObject();
        return;
    }
    if (const std::string& d = profile.str(op.deduplicatedName); !d.empty())
        w.field("dedup", s.texts.text(d));
    if (!s.redact.names && !s.redact.hashNames)
        if (const std::string& tfOp = profile.str(op.tfOp); !tfOp.empty())
            w.field("tf_op", s.texts.scrub(tfOp));
    if (!s.redact.paths)
        if (const std::string& source = profile.str(op.source); !source.empty())
            w.field("source", s.texts.scrub(source));
    if (auto hint = profile.layoutHints.find(id); hint != profile.layoutHints.end()) {
        w.key("layout").beginArray();
        for (const LayoutDimensionHint& d : hint->second) {
            w.beginArray();
            w.value(d.size).value(d.alignment).value(s.texts.scrub(d.semantics));
            w.endArray();
        }
        w.endArray();
    }
    w.endObject();
}

// Ops: one entry per op kind (OpInfo) of the kept rows, so a row that merges kinds with
// different categories splits the same way in the category view. Per-occurrence costs.
// Brief entries drop their HLO text, except where two kinds would then look the same to
// ProfileBuilder::addOp (same program, name and category) and merge with one kind's costs.
void writeOps(const ShareContext& s, const OpSelection& ops)
{
    JsonWriter& w = s.w;
    const Profile& profile = s.profile;
    std::map<std::string, int> briefKeys;
    auto briefKey = [&](const OpInfo& op) {
        return opProgramLabel(profile, op) + '\x1f' + profile.str(op.name) + '\x1f' + profile.str(op.category);
    };
    for (const OpId id : ops.brief)
        ++briefKeys[briefKey(profile.ops[id])];
    w.key("ops").beginArray();
    for (const auto& [row, id] : ops.kept)
        writeOp(s, id, false, true);
    w.endArray();
    w.key("brief_ops").beginArray();
    for (const OpId id : ops.brief) {
        const OpInfo& op = profile.ops[id];
        // Brief entries (small copies and collectives) keep their HLO text only when it is the
        // evidence of host offloading (memory space S(5)) that the data-formatting advice counts.
        const bool offloadEvidence
            = profile.str(op.shapeWithLayout).empty() && profile.str(op.longName).find("S(5)}") != std::string::npos;
        writeOp(s, id, true, briefKeys[briefKey(op)] > 1 || offloadEvidence);
    }
    w.endArray();
}

/// One chunk of "other": ops not kept, of one category, summed.
struct OtherChunk
{
    std::string category;
    int64_t ops = 0, occurrences = 0;
    double time = 0, flops = 0, modelFlops = 0, bytes = 0, hbm = 0;
    bool flopsKnown = false, bytesKnown = false;
};

/// Everything else, per category, in chunks below the advice rules' 1 % evidence threshold and
/// below `chunkLimitPs`.
std::vector<OtherChunk> groupOtherOps(const ProfileAnalysis& analysis, std::vector<OpId> rest, double chunkLimitPs)
{
    const Profile& profile = *analysis.profile;
    const std::vector<OpTotals>& totals = analysis.breakdown.perOp;
    const OpModel& model = analysis.opModel;
    std::vector<OtherChunk> others;
    std::map<std::string, size_t> open;
    std::stable_sort(rest.begin(), rest.end(), [&](OpId a, OpId b) { return totals[a].self > totals[b].self; });
    for (const OpId id : rest) {
        const OpInfo& op = profile.ops[id];
        const OpTotals& t = totals[id];
        const std::string& category = profile.str(op.category);
        auto it = open.find(category);
        if (it == open.end() || others[it->second].time + t.self > chunkLimitPs) {
            others.push_back({category});
            it = open.insert_or_assign(category, others.size() - 1).first;
        }
        OtherChunk& o = others[it->second];
        const double n = static_cast<double>(t.occurrences);
        ++o.ops;
        o.occurrences += t.occurrences;
        o.time += t.self; // self time: what the op adds to the op-time total
        o.flops += flopsPerOccurrence(op, model[id]) * n;
        o.modelFlops += op.modelFlops * n;
        o.bytes += op.bytesAccessed * n;
        o.hbm += hbmBytesPerOccurrence(op, model[id]) * n;
        o.flopsKnown = o.flopsKnown || model[id].flopsKnown;
        o.bytesKnown = o.bytesKnown || model[id].bytesKnown;
    }
    return others;
}

void writeOther(const ShareContext& s, const std::vector<OtherChunk>& others)
{
    JsonWriter& w = s.w;
    w.key("other").beginArray();
    for (const OtherChunk& o : others) {
        w.beginObject();
        w.field("category", s.texts.scrub(o.category)).field("ops", o.ops).field("occurrences", o.occurrences);
        w.field("time_ps", o.time).field("flops", o.flops).field("model_flops", o.modelFlops);
        w.field("bytes", o.bytes).field("hbm_bytes", o.hbm);
        w.field("flops_recorded", o.flopsKnown).field("bytes_recorded", o.bytesKnown);
        w.endObject();
    }
    w.endArray();
}

// The advice as computed on the original (the loaded file recomputes it from the data above).
void writeAdvice(const ShareContext& s)
{
    JsonWriter& w = s.w;
    const ShareRedaction& redact = s.redact;
    const TextRedactor& texts = s.texts;
    w.key("advice").beginArray();
    const bool dropFrameworkOps = redact.names || redact.hashNames;
    for (const Advice& a : s.analysis.advice.advice) {
        // Whose code the evidence is: kept unless the redaction covers framework names or paths,
        // and then also cut out of the title.
        std::string title = a.title;
        for (const AdviceEvidence& e : a.evidence) {
            if (dropFrameworkOps && !e.frameworkOp.empty())
                title = replaceAll(title, e.frameworkOp, "[framework op]");
            if (redact.paths && !e.source.empty())
                title = replaceAll(title, e.source, "[source]");
        }
        w.beginObject();
        w.field("rule", a.rule).field("severity", severityName(a.severity)).field("title", texts.text(title));
        w.key("ops").beginArray();
        for (const std::string& n : a.opNames)
            w.value(s.names.name(n));
        w.endArray();
        w.key("evidence").beginArray();
        for (const AdviceEvidence& e : a.evidence) {
            w.beginObject();
            w.field("op", s.names.name(e.name));
            if (!dropFrameworkOps && !e.frameworkOp.empty())
                w.field("framework_op", texts.scrub(e.frameworkOp));
            if (!redact.paths && !e.source.empty())
                w.field("source", texts.scrub(e.source));
            w.field("time_fraction", e.timeFraction);
            w.endObject();
        }
        w.endArray();
        w.key("numbers");
        writeAdviceValue(w, a.numbers, [&texts](std::string_view t) { return texts.text(t); });
        writeAdviceGain(w, s.analysis.advice, a);
        w.key("fix"); // read back by the share reader (Profile::recordedAdvice)
        writeAdviceFix(w, a.fix, [&texts](std::string_view t) { return texts.text(t); });
        w.endObject();
    }
    w.endArray();
}

} // namespace

// ---------------------------------------------------------------------------------------------

ShareResult buildShareFile(const ProfileAnalysis& analysis, const ShareOptions& options)
{
    ShareResult result;
    const Profile& profile = *analysis.profile;
    const OpBreakdown& breakdown = analysis.breakdown;
    if (breakdown.rows.empty() || breakdown.totalTimePs <= 0) {
        result.error = "nothing to share: the profile has no XLA ops with time on TPU cores";
        return result;
    }

    const KeptRows kept = chooseRows(breakdown, options);
    result.stats.keptOps = kept.top;
    result.stats.keptAsyncPartners = kept.asyncPartners;
    result.stats.totalOps = breakdown.rows.size();
    result.stats.keptTimeFraction = kept.covered;
    const std::optional<OpSelection> ops = selectOps(analysis, kept, options.stop);
    if (!ops)
        return ShareResult {.error = "stopped"}; // superseded: the session discards it

    const Reducers reducers = reduceModules(analysis, *ops);
    for (const auto& [program, reducer] : reducers)
        result.stats.hloInstructions += reducer.instructionCount();
    result.stats.programsWithHlo = reducers.size();
    if (options.stop.stop_requested())
        return ShareResult {.error = "stopped"};
    const NameMap names = collectNames(analysis, *ops, reducers, options.redaction.hashNames);
    const TextRedactor texts(profile, options.redaction, names);

    JsonWriter w(false);
    const StepAnalysis& steps = analysis.steps;
    std::vector<size_t> windowsPerCore(steps.coreSteps.size());
    for (size_t c = 0; c < steps.coreSteps.size(); ++c)
        windowsPerCore[c] = std::min(steps.coreSteps[c].size(), shareStepWindowsPerCore(steps.coreSteps.size()));
    const ShareContext s {analysis, profile, options.redaction, names, texts, w, std::move(windowsPerCore)};
    w.beginObject();
    w.field("format", "tpuscope-share").field("version", kShareVersion).field("generator", "tpuscope");
    writeSource(s);
    writeRedaction(s);
    writeDevice(s);
    writeTotals(s, kept);
    writeSteps(s);
    writeHostLink(s);
    writePrograms(s, *ops, reducers);
    writeOps(s, *ops);
    // Chunks also stay below the smallest kept op, so the op table still starts with real ops.
    const double chunkLimitPs
        = std::min(kOtherChunkShare, breakdown.rows[kept.top - 1].timeFraction) * breakdown.totalTimePs;
    writeOther(s, groupOtherOps(analysis, ops->rest, chunkLimitPs));
    writeAdvice(s);
    w.endObject();

    result.json = w.str();
    std::string compressed;
    if (!gzipCompress(result.json, compressed, result.error))
        return result;
    result.bytes = std::string(kShareMagic) + " " + std::to_string(kShareVersion) + "\n" + compressed;
    result.stats.jsonBytes = result.json.size();
    result.stats.fileBytes = result.bytes.size();
    return result;
}

std::string shareFileToText(std::string_view shareBytes)
{
    const std::string encoded = base64Encode(shareBytes);
    std::string out = "```tpuscope\n";
    for (size_t i = 0; i < encoded.size(); i += 76) {
        out.append(encoded, i, 76);
        out += '\n';
    }
    out += "```\n";
    return out;
}

bool writeFileAtomically(const std::string& path, std::string_view bytes, std::string& error)
{
    return saveFileAtomically(path, bytes, error);
}

} // namespace tpuscope::model
