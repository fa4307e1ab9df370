// SPDX-License-Identifier: GPL-3.0-or-later
// The share-file reader (the schema is described in share/sharefile.cpp, beside the writer): a
// share file back into a ProfileBuilder, with its top ops, their HLO, memory and step windows.
#include "sharereader.h"

#include "../core/base64.h"
#include "../core/diagnostics.h"
#include "../core/hlo.h"
#include "../core/jsondom.h"
#include "gzip.h"
#include "sharehosttiming.h"
#include "shareschema.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace tpuscope::model {

namespace {

// A damaged or hand-edited share file may hold any number (1e33, NaN); casting such a double to an
// integer type is undefined behaviour (found by tests/fuzz/fuzz_sharefile), so clamp first.
template <typename T> T clampedNumber(double v)
{
    if (std::isnan(v))
        return 0;
    if (v <= static_cast<double>(std::numeric_limits<T>::min()))
        return std::numeric_limits<T>::min();
    if (v >= static_cast<double>(std::numeric_limits<T>::max()))
        return std::numeric_limits<T>::max();
    return static_cast<T>(v);
}

std::vector<int64_t> intList(const json::Value& v)
{
    std::vector<int64_t> out;
    out.reserve(v.size());
    for (const json::Value& x : v.array())
        out.push_back(clampedNumber<int64_t>(x.number()));
    return out;
}

hlo::Shape readShape(const json::Value& v, int depth = 0)
{
    hlo::Shape s;
    s.elementType = static_cast<hlo::PrimitiveType>(clampedNumber<int32_t>(v["t"].number()));
    s.dimensions = intList(v["d"]);
    if (const json::Value* l = v.find("l")) {
        s.hasLayout = true;
        s.layout.minorToMajor = intList(*l);
        for (const json::Value& t : v["T"].array())
            s.layout.tiles.push_back({intList(t)});
        s.layout.elementSizeInBits = clampedNumber<int64_t>(v["E"].number());
        s.layout.memorySpace = clampedNumber<int64_t>(v["S"].number());
        s.layout.tailPaddingAlignment = clampedNumber<int64_t>(v["L"].number());
    }
    if (depth < 32)
        for (const json::Value& e : v["u"].array())
            s.tupleShapes.push_back(readShape(e, depth + 1));
    return s;
}

hlo::Instruction readInstruction(const json::Value& v)
{
    hlo::Instruction in;
    in.id = clampedNumber<int64_t>(v["id"].number());
    in.name = v["n"].string();
    in.opcode = v["o"].string();
    in.shape = readShape(v["s"]);
    in.fusionKind = v["fk"].string();
    in.operandIds = intList(v["a"]);
    in.calledComputationIds = intList(v["c"]);
    for (const json::Value& s : v["os"].array())
        in.operandShapes.push_back(readShape(s));
    if (const json::Value* c = v.find("conv")) {
        in.hasConvolutionDimensions = true;
        hlo::ConvolutionDimensions& d = in.convolution;
        d.inputBatch = clampedNumber<int64_t>((*c)["ib"].number());
        d.inputFeature = clampedNumber<int64_t>((*c)["if"].number());
        d.inputSpatial = intList((*c)["is"]);
        d.kernelInputFeature = clampedNumber<int64_t>((*c)["kif"].number());
        d.kernelOutputFeature = clampedNumber<int64_t>((*c)["kof"].number());
        d.kernelSpatial = intList((*c)["ks"]);
        d.outputBatch = clampedNumber<int64_t>((*c)["ob"].number());
        d.outputFeature = clampedNumber<int64_t>((*c)["of"].number());
        d.outputSpatial = intList((*c)["os"]);
    }
    if (const json::Value* d = v.find("dot")) {
        in.hasDotDimensions = true;
        in.dot.lhsContracting = intList((*d)["lc"]);
        in.dot.rhsContracting = intList((*d)["rc"]);
        in.dot.lhsBatch = intList((*d)["lb"]);
        in.dot.rhsBatch = intList((*d)["rb"]);
    }
    in.featureGroupCount = clampedNumber<int64_t>(v["fgc"].number());
    in.batchGroupCount = clampedNumber<int64_t>(v["bgc"].number());
    in.parameterNumber = clampedNumber<int64_t>(v["pn"].number());
    in.customCallTarget = v["cct"].string();
    in.opType = v["ot"].string();
    in.opName = v["on"].string();
    in.sourceFile = v["sf"].string();
    in.sourceLine = clampedNumber<int32_t>(v["sl"].number());
    return in;
}

/// Rebuilds a buffer assignment with the same HBM peak, buffers at the peak and totals as the
/// original (see "memory" in the schema); the timeline is not kept.
std::shared_ptr<const hlo::BufferAssignment> readMemory(const json::Value& v)
{
    auto out = std::make_shared<hlo::BufferAssignment>();
    auto flagged = [](hlo::BufferAllocation& a, int64_t flags) {
        a.isEntryComputationParameter = flags & 1;
        a.maybeLiveOut = flags & 2;
        a.isThreadLocal = flags & 4;
        a.isConstant = flags & 8;
    };
    auto newBuffer = [&](int64_t size) -> hlo::LogicalBuffer& {
        hlo::LogicalBuffer& b = out->logicalBuffers.emplace_back();
        b.id = static_cast<int64_t>(out->logicalBuffers.size()) - 1;
        b.size = std::max<int64_t>(0, size);
        return b;
    };
    auto newAllocation = [&](int64_t size, int64_t bufferId) -> hlo::BufferAllocation& {
        hlo::BufferAllocation& a = out->allocations.emplace_back();
        a.index = static_cast<int64_t>(out->allocations.size()) - 1;
        a.size = std::max<int64_t>(0, size);
        if (bufferId >= 0)
            a.assigned.push_back({bufferId, 0, a.size});
        return a;
    };
    std::vector<int64_t> heapBuffers;
    for (const json::Value& b : v["buffers"].array()) {
        hlo::LogicalBuffer& buffer = newBuffer(clampedNumber<int64_t>(b["s"].number()));
        buffer.instructionId = clampedNumber<int64_t>(b["i"].number());
        for (const json::Value& x : b["x"].array())
            buffer.shapeIndex.push_back(clampedNumber<int64_t>(x.number()));
        const auto flags = clampedNumber<int64_t>(b["f"].number(-1));
        if (flags >= 0)
            flagged(newAllocation(buffer.size, buffer.id), flags);
        else
            heapBuffers.push_back(buffer.id);
    }
    for (const json::Value& g : v["groups"].array()) {
        hlo::LogicalBuffer& buffer = newBuffer(clampedNumber<int64_t>(g["s"].number()));
        buffer.unpaddedBytes = std::max<int64_t>(0, clampedNumber<int64_t>(g["u"].number()));
        buffer.instructionName = "(" + std::to_string(clampedNumber<int64_t>(g["n"].number())) + " allocations)";
        flagged(newAllocation(buffer.size, buffer.id), clampedNumber<int64_t>(g["f"].number()));
    }
    if (const json::Value* rest = v.find("rest")) {
        hlo::LogicalBuffer& buffer = newBuffer(clampedNumber<int64_t>((*rest)["s"].number()));
        buffer.unpaddedBytes = std::max<int64_t>(0, clampedNumber<int64_t>((*rest)["u"].number()));
        buffer.instructionName = "(" + std::to_string(clampedNumber<int64_t>((*rest)["n"].number())) + " buffers)";
        heapBuffers.push_back(buffer.id);
    }
    hlo::BufferAllocation& temporaries = newAllocation(clampedNumber<int64_t>(v["temporary_bytes"].number()), -1);
    for (int64_t id : heapBuffers)
        temporaries.assigned.push_back({id, 0, out->logicalBuffers[static_cast<size_t>(id)].size});
    if (v["trace"].boolean() && !heapBuffers.empty()) {
        hlo::HeapSimulatorTrace& trace = out->heapTraces.emplace_back();
        for (int64_t id : heapBuffers)
            trace.events.push_back({hlo::HeapEvent::Kind::Alloc, id, 0, {}});
    }
    out->warnings.push_back("from a share file: the peak, the buffers at the peak and the totals are kept, the "
                            "timeline over program order is not");
    out->buildIndex();
    return out;
}

std::shared_ptr<const hlo::Module> readModule(const json::Value& v)
{
    auto module = std::make_shared<hlo::Module>();
    module->name = v["name"].string();
    module->id = clampedNumber<int64_t>(v["id"].number());
    module->entryComputationId = clampedNumber<int64_t>(v["entry"].number());
    for (const json::Value& c : v["computations"].array()) {
        hlo::Computation computation;
        computation.id = clampedNumber<int64_t>(c["id"].number());
        computation.name = c["name"].string();
        computation.rootId = clampedNumber<int64_t>(c["root"].number());
        computation.isFusion = c["fusion"].boolean();
        for (const json::Value& in : c["instructions"].array())
            computation.instructions.push_back(readInstruction(in));
        module->computations.push_back(std::move(computation));
    }
    module->buildIndex();
    if (const json::Value* memory = v.find("memory"))
        module->bufferAssignment = readMemory(*memory);
    return module;
}

} // namespace

bool shareFileJson(std::string_view bytes, std::string& json, std::string& error)
{
    if (!bytes.starts_with(kShareMagic)) {
        error = "not a tpuscope share file (it does not start with TPUSCOPE-SHARE)";
        return false;
    }
    const size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos || newline > 64) {
        error = "tpuscope share file header is damaged (no end of the first line)";
        return false;
    }
    std::string_view version = bytes.substr(kShareMagic.size(), newline - kShareMagic.size());
    while (!version.empty() && (version.front() == ' ' || version.back() == '\r')) {
        if (version.front() == ' ')
            version.remove_prefix(1);
        else
            version.remove_suffix(1);
    }
    if (version != std::to_string(kShareVersion)) {
        error = "tpuscope share file version '" + std::string(version) + "' is not supported (this build reads version "
            + std::to_string(kShareVersion) + ")";
        return false;
    }
    const std::string_view body = bytes.substr(newline + 1);
    if (body.empty()) {
        error = "tpuscope share file is truncated: no data after the header";
        return false;
    }
    if (!isGzip(body)) {
        error = "tpuscope share file is damaged: the data after the header is not gzip-compressed";
        return false;
    }
    std::string gzError;
    if (!gunzip(body, json, kMaxShareJsonBytes, gzError)) {
        // --max-decompressed-mb does not apply here: the share-file limit is fixed.
        error = json.size() >= kMaxShareJsonBytes
            ? "tpuscope share file inflates to more than " + std::to_string(kMaxShareJsonBytes >> 20)
                + " MiB, the limit for share files (real ones are a few hundred KB); it is damaged or was not "
                  "written by tpuscope"
            : "tpuscope share file is damaged or truncated: " + gzError;
        return false;
    }
    return true;
}

bool shareFileFromText(std::string_view text, std::string& shareBytes, std::string& error)
{
    std::string_view block = text;
    const size_t fence = text.find("```tpuscope");
    if (fence != std::string_view::npos) {
        const size_t start = text.find('\n', fence);
        if (start == std::string_view::npos) {
            error = "the ```tpuscope block is empty";
            return false;
        }
        const size_t end = text.find("```", start);
        if (end == std::string_view::npos) {
            error = "the ```tpuscope block has no closing ``` (the text is cut off)";
            return false;
        }
        block = text.substr(start + 1, end - start - 1);
    }
    // Keep base64 only: whitespace and forum quote markers ("> ") at line starts are dropped.
    std::string clean;
    bool lineStart = true;
    for (char c : block) {
        if (c == '\n' || c == '\r') {
            lineStart = true;
            continue;
        }
        if (c == ' ' || c == '\t' || (lineStart && c == '>'))
            continue;
        lineStart = false;
        clean += c;
    }
    if (clean.empty()) {
        error = "no share text found (expected a ```tpuscope block)";
        return false;
    }
    std::string bytes, b64Error;
    if (!base64Decode(clean, bytes, b64Error)) {
        error = "share text is damaged: " + b64Error;
        return false;
    }
    if (!bytes.starts_with(kShareMagic)) {
        error = "share text does not hold a tpuscope share file";
        return false;
    }
    std::string json, jsonError;
    if (!shareFileJson(bytes, json, jsonError)) {
        error = "share text is incomplete or damaged: " + jsonError;
        return false;
    }
    shareBytes = std::move(bytes);
    return true;
}

bool looksLikeShareFile(std::string_view bytes)
{
    return bytes.starts_with(kShareMagic);
}

namespace {

constexpr TimePs kMaxSharePs = kMaxShareTimePs; // keeps damaged times from overflowing

/// Rebuilds each core's step windows (a Steps line, or the step program's runs starting at the
/// windows' starts) with one program run per step holding its busy time, and the other programs'
/// runs before the first step (after the last when they do not fit), so computeSteps gives the
/// original's steps, step times, steady-state idle and runs per program.
void readStepWindows(ProfileBuilder& builder, const json::Value& doc, const std::vector<PlaneId>& planes, OpId stepOp)
{
    auto time
        = [](const json::Value& v) { return std::clamp<TimePs>(clampedNumber<TimePs>(v.number()), 0, kMaxSharePs); };
    const json::Value& windows = doc["step_windows"];
    const bool runs = clampedNumber<int>(windows["kind"].number()) == static_cast<int>(TrackKind::XlaModules);
    std::map<std::string, OpId> programOps;
    auto programOp = [&](const std::string& name) {
        auto it = programOps.find(name);
        if (it == programOps.end()) {
            OpInfo op;
            op.name = builder.intern(name);
            it = programOps.emplace(name, builder.addOp(op)).first;
        }
        return it->second;
    };
    const std::string stepProgram = windows["dominant"].string();
    std::vector<TrackId> moduleTracks(planes.size(), kNone);
    std::vector<TimePs> firstStart(planes.size(), kMaxSharePs), lastEnd(planes.size(), 0);
    auto modules = [&](size_t index) {
        if (moduleTracks[index] == kNone)
            moduleTracks[index] = builder.addTrack(planes[index], "XLA Modules", TrackKind::XlaModules);
        return moduleTracks[index];
    };
    for (const json::Value& core : windows["cores"].array()) {
        const size_t index = clampedNumber<size_t>(core["plane"].number());
        const size_t n = std::min({core["start_ps"].size(), core["duration_ps"].size(), core["busy_ps"].size()});
        if (index >= planes.size() || n == 0)
            continue;
        const TrackId steps
            = runs ? kNone : builder.addTrack(planes[index], windows["line"].string(), TrackKind::Steps);
        const TrackId track = modules(index);
        const OpId op = programOp(stepProgram);
        for (size_t i = 0; i < n; ++i) {
            const TimePs start = time(core["start_ps"].at(i));
            const TimePs duration = time(core["duration_ps"].at(i));
            const TimePs busy = std::min(duration, time(core["busy_ps"].at(i)));
            if (steps != kNone)
                builder.addEvent(steps, start, duration, stepOp);
            // A run starts each window; the last window of program runs is its run.
            builder.addEvent(track, start, runs && i + 1 == n ? duration : busy, op);
            firstStart[index] = std::min(firstStart[index], start);
            lastEnd[index] = std::max(lastEnd[index], start + duration);
        }
    }
    std::vector<TimePs> before(planes.size(), 0);
    // A damaged or hostile file may list many entries: the runs rebuilt are bounded in all.
    int64_t runsLeft = 1'000'000;
    for (const json::Value& p : doc["program_runs"].array()) {
        const size_t index = clampedNumber<size_t>(p["plane"].number());
        const std::string name = p["program"].string();
        const int64_t count = std::clamp<int64_t>(clampedNumber<int64_t>(p["runs"].number()), 0, runsLeft);
        runsLeft -= count;
        if (index >= planes.size() || count == 0 || name == stepProgram)
            continue;
        const TimePs total = time(p["time_ps"]);
        const TimePs each = total / count;
        const bool fits = before[index] + total <= std::min(firstStart[index], kMaxSharePs);
        TimePs t = fits ? before[index] : lastEnd[index];
        for (int64_t i = 0; i < count; ++i, t += each)
            builder.addEvent(modules(index), t, each, programOp(name));
        (fits ? before[index] : lastEnd[index]) = t;
    }
}

/// The op model's decision the writer recorded ("class", "collective", ...); empty when absent or
/// unknown (an older file: the reader's own op model decides).
std::optional<RecordedOpKind> readOpKind(const json::Value& o)
{
    const std::optional<OpClass> opClass = opClassFromName(o["class"].string());
    if (!opClass)
        return std::nullopt;
    RecordedOpKind kind;
    kind.opClass = *opClass;
    kind.collective = collectiveKindFromName(o["collective"].string()).value_or(CollectiveKind::None);
    kind.direction = transferDirectionFromName(o["direction"].string()).value_or(TransferDirection::None);
    kind.memorySpace
        = static_cast<int8_t>(std::clamp<int64_t>(clampedNumber<int64_t>(o["memory_space"].number(-1)), -1, 127));
    const double bytes = o["transfer_bytes"].number(0);
    kind.transferBytes = std::isfinite(bytes) && bytes > 0 ? bytes : 0;
    return kind;
}

StepTimeSplit readSplit(const json::Value& v)
{
    auto part = [&](const char* key) {
        const double x = v[key].number(0);
        return std::isfinite(x) && x > 0 ? x : 0.0;
    };
    return {part("compute_ps"), part("collective_ps"), part("host_transfer_ps"), part("infeed_ps"), part("idle_ps")};
}

/// Where each step's time went, as the original measured it: the same windows readStepWindows
/// rebuilt, with their split (computeSteps takes it when the windows match).
void readStepSplits(const json::Value& windows, size_t planes, RecordedTimeline& recorded)
{
    auto time
        = [](const json::Value& v) { return std::clamp<TimePs>(clampedNumber<TimePs>(v.number()), 0, kMaxSharePs); };
    recorded.coreSteps.assign(planes, {});
    for (const json::Value& core : windows["cores"].array()) {
        const size_t index = clampedNumber<size_t>(core["plane"].number());
        if (index >= planes || core["compute_ps"].size() == 0)
            continue;
        const size_t n = std::min({core["start_ps"].size(), core["duration_ps"].size(), core["busy_ps"].size()});
        std::vector<CoreStep>& steps = recorded.coreSteps[index];
        steps.clear();
        for (size_t i = 0; i < n; ++i) {
            CoreStep step;
            step.begin = time(core["start_ps"].at(i));
            step.end = step.begin + time(core["duration_ps"].at(i));
            auto part = [&](const char* key) {
                const double x = core[key].at(i).number(0);
                return std::isfinite(x) && x > 0 ? x : 0.0;
            };
            step.time = {part("compute_ps"), part("collective_ps"), part("host_transfer_ps"), part("infeed_ps"), 0};
            // The parts never exceed the window; the rest of it is idle.
            const double window = static_cast<double>(step.end - step.begin);
            if (const double busy = step.time.busyPs(); busy > window && busy > 0)
                step.time = step.time.scaled(window / busy);
            step.time.idlePs = std::max(0.0, window - step.time.busyPs());
            steps.push_back(step);
        }
    }
    recorded.warmup.assign(planes, readSplit(windows["warmup"]));
    recorded.tail.assign(planes, readSplit(windows["tail"]));
    const double busy = windows["busy_fraction"].number(-1);
    recorded.busyFraction = std::isfinite(busy) && busy >= 0 ? std::min(busy, 1.0) : -1;
}

/// The host link as the original's analysis measured it; its wait ops by name and program.
void readHostLink(const json::Value& v, const Profile& profile, RecordedTimeline& recorded)
{
    auto number = [](const json::Value& x) {
        const double n = x.number(0);
        return std::isfinite(n) && n > 0 ? n : 0.0;
    };
    HostLinkStats& link = recorded.hostLink;
    for (auto [key, d] : {std::pair {"to_device", &link.toDevice}, std::pair {"to_host", &link.toHost}}) {
        const json::Value& x = v[key];
        d->transfers = std::max<int64_t>(0, clampedNumber<int64_t>(x["transfers"].number()));
        d->bytes = number(x["bytes"]);
        d->busyPs = number(x["busy_ps"]);
    }
    link.eitherBusyPs = number(v["either_busy_ps"]);
    link.bothBusyPs = number(v["both_busy_ps"]);
    link.program = v["program"].string();
    link.runs = number(v["runs"]);
    link.runPs = number(v["run_ps"]);
    link.computePsPerRun = number(v["compute_ps_per_run"]);
    link.waitPsPerRun = number(v["wait_ps_per_run"]);
    link.toDeviceBytesPerRun = number(v["to_device_bytes_per_run"]);
    link.toHostBytesPerRun = number(v["to_host_bytes_per_run"]);
    link.toDeviceBusyPsPerRun = number(v["to_device_busy_ps_per_run"]);
    link.toHostBusyPsPerRun = number(v["to_host_busy_ps_per_run"]);
    link.eitherBusyPsPerRun = number(v["either_busy_ps_per_run"]);
    link.bothBusyPsPerRun = number(v["both_busy_ps_per_run"]);
    link.toDeviceIdleWhileWaitingPsPerRun = number(v["to_device_idle_while_waiting_ps_per_run"]);
    link.toHostIdleWhileWaitingPsPerRun = number(v["to_host_idle_while_waiting_ps_per_run"]);
    for (const json::Value& w : v["wait_ops"].array()) {
        const std::string& name = w["name"].string();
        const bool hasProgram = w.find("program_id") != nullptr;
        const uint64_t program = w["program_id"].uint64(0);
        for (OpId id = 0; id < profile.ops.size(); ++id) {
            const OpInfo& op = profile.ops[id];
            if (op.isXlaOp && profile.str(op.name) == name && op.hasProgramId == hasProgram
                && (!hasProgram || op.programId == program)) {
                link.waitOps.push_back(id);
                break;
            }
        }
    }
    recorded.hasHostLink = true;
}

} // namespace

std::string decodeShareFile(
    std::string_view bytes, ProfileBuilder& builder, const ProgressFn& progress, std::stop_token stop)
{
    if (progress)
        progress("reading share file", 0.0);
    std::string text, error;
    if (!shareFileJson(bytes, text, error))
        return error;
    // The tree costs ~48 times the text for "[0,0,...]": its values are limited to what the
    // budget holds, and every count in it is checked against the schema before anything is built.
    json::Value doc;
    json::ParseError parseError;
    const json::ParseOptions parseOptions = shareParseOptions(builder.limits(), text.size());
    if (!json::parse(text, doc, parseError, parseOptions)) {
        if (parseError.tooManyValues) {
            const LoadLimits& limits = builder.limits();
            return "tpuscope share file holds more than " + std::to_string(parseOptions.maxValues)
                + " JSON values, which would take more than the memory budget of "
                + std::to_string(limits.memoryBudgetBytes >> 20) + " MiB (real share files hold a few thousand)"
                + (limits.budgetHint.empty() ? "" : "; " + limits.budgetHint);
        }
        return "tpuscope share file is damaged: " + parseError.describe();
    }
    if (doc["format"].string() != "tpuscope-share")
        return "tpuscope share file is damaged: the document is not a tpuscope-share document";
    if (std::string e = checkShareClaims(doc, bytes.size(), builder); !e.empty())
        return e;
    if (stop.stop_requested())
        return "cancelled";

    Profile& profile = builder.profile();
    const json::Value& device = doc["device"];
    for (size_t h = 0; h < device["hosts"].size(); ++h) {
        if (h < profile.hosts.size())
            profile.hosts[h] = device["hosts"].at(h).string();
        else
            builder.addHost(device["hosts"].at(h).string());
    }
    if (profile.hosts.empty())
        builder.addHost("host0");
    std::vector<PlaneId> planes;
    // checkShareClaims made sure every core plane names a listed host.
    for (const json::Value& p : device["core_planes"].array())
        planes.push_back(builder.addPlane(p["name"].string(), clampedNumber<uint32_t>(p["host"].number())));
    if (planes.empty())
        planes.push_back(builder.addPlane("/device:TPU:0", 0));
    for (PlaneId p : planes)
        profile.planes[p].deviceType = device["type"].string();
    {
        size_t i = 0;
        for (const json::Value& p : device["core_planes"].array())
            if (i < planes.size())
                profile.planes[planes[i++]].aggregate = p["aggregate"].boolean();
    }
    // The original's core count and how it was chosen (one plane each, or the replica groups' bound
    // of a file that summed all cores on one plane); finish() keeps them.
    const std::string coresSource = device["cores_source"].string();
    const int recordedCores = std::clamp<int>(clampedNumber<int>(device["cores"].number()), 0, 1 << 20);
    // "none": the original assumed a count it could not know; finish() assumes it again alike.
    if (!coresSource.empty() && coresSource != coreCountSourceName(CoreCountSource::None) && recordedCores > 0) {
        for (CoreCountSource source : {CoreCountSource::Planes, CoreCountSource::ReplicaGroups,
                 CoreCountSource::UserChoice, CoreCountSource::None})
            if (coresSource == coreCountSourceName(source))
                profile.device.coresSource = source;
        if (profile.device.coresSource == CoreCountSource::Planes && recordedCores != static_cast<int>(planes.size()))
            return "tpuscope share file is damaged: it records " + std::to_string(recordedCores)
                + " cores with one plane each, but lists " + std::to_string(planes.size()) + " core planes";
        profile.device.cores = recordedCores;
        profile.device.coresAtLeast
            = std::clamp<int>(clampedNumber<int>(device["cores_at_least"].number()), 0, recordedCores);
        profile.device.coresNote = device["cores_note"].string();
    }
    if (const json::Value* root = device.find("root_flops_utilization"))
        profile.fileRootUtilization.flops = root->number();
    if (const json::Value* root = device.find("root_hbm_utilization"))
        profile.fileRootUtilization.hbm = root->number();
    profile.bytesNotRecorded = device["bytes_not_recorded"].boolean();
    // The original's peaks and where they came from; finish() keeps them (a --device choice still wins).
    const int peakSource = clampedNumber<int>(device["peak_source"].number());
    if (device["peak_tflops_per_core"].number() > 0 && peakSource > 0
        && peakSource <= static_cast<int>(PeakSource::UserChoice)) {
        profile.device.peakTflopsPerCore = device["peak_tflops_per_core"].number();
        profile.device.peakHbmGbpsPerCore = device["peak_hbm_gbps_per_core"].number();
        profile.device.peakSource = static_cast<PeakSource>(peakSource);
        profile.device.peakNote = device["peak_note"].string();
    }

    // Programs with their reduced HLO.
    for (const json::Value& p : doc["programs"].array()) {
        std::shared_ptr<const hlo::Module> module;
        if (const json::Value* h = p.find("hlo"))
            module = readModule(*h);
        builder.addProgram(p["id"].uint64(0), p["name"].string(), std::move(module));
    }

    const PlaneId first = planes.front();
    const TrackId opsTrack = builder.addTrack(first, "XLA Ops", TrackKind::XlaOps);
    auto recorded = std::make_shared<RecordedTimeline>();
    // What the original's timeline gave per op: its self time and its async pairs' spans.
    auto recordTiming = [&](OpId id, const json::Value& o, double time) {
        if (recorded->opTimes.size() <= id)
            recorded->opTimes.resize(id + 1);
        RecordedOpTiming& t = recorded->opTimes[id];
        const double self = o["self_time_ps"].number(-1);
        t.selfPs = std::isfinite(self) && self >= 0 ? std::min(self, time) : -1;
        const double span = o["pair_span_ps"].number(0);
        t.pairSpanPs = std::isfinite(span) && span > 0 ? span : 0;
        t.pairsTimed = std::max<int64_t>(0, clampedNumber<int64_t>(o["pairs_timed"].number()));
    };
    auto perOccurrence = [](double total, int64_t occurrences) {
        return total / static_cast<double>(std::max<int64_t>(1, occurrences));
    };
    size_t keptOps = 0;
    auto addOps = [&](const json::Value& list) -> std::string {
        for (const json::Value& o : list.array()) {
            OpInfo op;
            op.isXlaOp = true;
            op.name = builder.intern(o["name"].string());
            op.longName = builder.intern(o["hlo"].string());
            op.category = builder.intern(o["category"].string());
            op.shapeWithLayout = builder.intern(o["shape"].string());
            op.tfOp = builder.intern(o["tf_op"].string());
            op.source = builder.intern(o["source"].string());
            op.deduplicatedName = builder.intern(o["dedup"].string());
            if (const json::Value* id = o.find("program_id")) {
                op.programId = id->uint64(0);
                op.hasProgramId = true;
            }
            op.flops = o["flops"].number();
            op.modelFlops = o["model_flops"].number();
            op.bytesAccessed = o["bytes"].number();
            op.hbmBytes = o["hbm_bytes"].number(-1);
            op.flopsRecorded = o["flops_recorded"].boolean();
            op.bytesRecorded = o["bytes_recorded"].boolean();
            if (std::optional<RecordedOpKind> kind = readOpKind(o); kind)
                op.recordedKind = kind;
            const int64_t occurrences = std::max<int64_t>(1, clampedNumber<int64_t>(o["occurrences"].number()));
            const double time = o["time_ps"].number(-1);
            if (!(time >= 0) || !std::isfinite(time) || o["name"].string().empty())
                return "tpuscope share file is damaged: op '" + o["name"].string() + "' has no valid name or time";
            const OpId id = builder.addOp(op);
            profile.tracks[opsTrack].aggregated.push_back({id, occurrences, static_cast<TimePs>(std::llround(time))});
            recordTiming(id, o, time);
            if (const json::Value* layout = o.find("layout")) {
                std::vector<LayoutDimensionHint> hints;
                for (const json::Value& d : layout->array())
                    hints.push_back({clampedNumber<int64_t>(d.at(0).number()), clampedNumber<int64_t>(d.at(1).number()),
                        d.at(2).string()});
                profile.layoutHints[id] = std::move(hints);
            }
            ++keptOps;
        }
        return {};
    };
    if (std::string e = addOps(doc["ops"]); !e.empty())
        return e;
    const size_t topOps = keptOps;
    if (std::string e = addOps(doc["brief_ops"]); !e.empty())
        return e;
    if (keptOps == 0)
        return "tpuscope share file is damaged: it holds no ops";

    // Grouped leftovers: numbered per category so each chunk is its own row.
    std::map<std::string, int> chunkCount, chunkIndex;
    for (const json::Value& o : doc["other"].array())
        ++chunkCount[o["category"].string()];
    int64_t otherOps = 0;
    for (const json::Value& o : doc["other"].array()) {
        const std::string& category = o["category"].string();
        const int64_t n = clampedNumber<int64_t>(o["ops"].number());
        otherOps += n;
        std::string name
            = "(" + std::to_string(n) + " other " + (category.empty() ? "" : category + " ") + (n == 1 ? "op" : "ops");
        if (chunkCount[category] > 1)
            name += ", part " + std::to_string(++chunkIndex[category]);
        name += ")";
        OpInfo op;
        op.isXlaOp = true;
        op.name = builder.intern(name);
        op.category = builder.intern(category);
        const int64_t occurrences = std::max<int64_t>(1, clampedNumber<int64_t>(o["occurrences"].number()));
        op.flops = perOccurrence(o["flops"].number(), occurrences);
        op.modelFlops = perOccurrence(o["model_flops"].number(), occurrences);
        op.bytesAccessed = perOccurrence(o["bytes"].number(), occurrences);
        op.hbmBytes = perOccurrence(o["hbm_bytes"].number(), occurrences);
        op.flopsRecorded = o["flops_recorded"].boolean();
        op.bytesRecorded = o["bytes_recorded"].boolean();
        const OpId id = builder.addOp(op);
        profile.tracks[opsTrack].aggregated.push_back(
            {id, occurrences, static_cast<TimePs>(std::llround(o["time_ps"].number()))});
    }

    // Steps and idle lines: rebuilt from their statistics so step stats and the idle-gaps rule
    // give the original's numbers. Run times are not the original's: events are spaced evenly.
    const OpId stepOp = builder.addOp([&] {
        OpInfo op;
        op.name = builder.intern("(step)");
        return op;
    }());
    const OpId runOp = builder.addOp([&] {
        OpInfo op;
        op.name = builder.intern("(program run, reconstructed)");
        return op;
    }());
    auto kindOf = [](const json::Value& v) {
        const int k = clampedNumber<int>(v.number());
        return k >= 0 && k <= static_cast<int>(TrackKind::Other) ? static_cast<TrackKind>(k) : TrackKind::Other;
    };
    const json::Value& windows = doc["step_windows"];
    if (windows.isObject()) {
        readStepWindows(builder, doc, planes, stepOp);
        readStepSplits(windows, planes.size(), *recorded);
        readHostTiming(doc, planes.size(), *recorded);
    } else {
        // Files written before step windows: the first core's step line and each core's idle line.
        const json::Value& steps = doc["steps"];
        // Times are capped (steps in total, each span and offset) at 2^60 ps (~13 days) so the event
        // times built below (offset + busy + gaps) cannot overflow on a damaged file.
        std::vector<TimePs> stepDurations;
        TimePs stepTotal = 0;
        for (const json::Value& d : steps["duration_ps"].array()) {
            stepDurations.push_back(std::clamp<TimePs>(clampedNumber<TimePs>(d.number()), 0, kMaxSharePs - stepTotal));
            stepTotal += stepDurations.back();
        }
        const TrackKind stepKind = kindOf(steps["kind"]);
        bool stepTrackDone = stepDurations.empty();
        for (const json::Value& idle : doc["idle"].array()) {
            const size_t index = clampedNumber<size_t>(idle["plane"].number());
            if (!TPUSCOPE_CHECK(index < planes.size())) // shareschema.cpp checked every plane index
                continue;
            const TrackKind kind = kindOf(idle["kind"]);
            const int64_t runs = std::clamp<int64_t>(clampedNumber<int64_t>(idle["runs"].number()), 0, 1'000'000);
            const TimePs span = std::clamp<TimePs>(clampedNumber<TimePs>(idle["span_ps"].number()), 0, kMaxSharePs);
            const TimePs gaps = std::clamp<TimePs>(clampedNumber<TimePs>(idle["gap_ps"].number()), 0, span);
            if (runs < 2)
                continue;
            std::vector<TimePs> durations;
            if (index == 0 && kind == stepKind && !stepTrackDone
                && static_cast<int64_t>(stepDurations.size()) == runs) {
                durations = stepDurations; // the step line is the idle line: keep the real durations
                stepTrackDone = true;
            } else {
                const TimePs busy = span - gaps;
                for (int64_t i = 0; i < runs; ++i)
                    durations.push_back(busy / runs + (i < busy % runs ? 1 : 0));
            }
            const TrackId track = builder.addTrack(planes[index], idle["line"].string(), kind);
            const OpId op = kind == TrackKind::Steps ? stepOp : runOp;
            TimePs t = std::clamp<TimePs>(clampedNumber<TimePs>(idle["offset_ps"].number()), 0, kMaxSharePs);
            for (int64_t i = 0; i < runs; ++i) {
                builder.addEvent(track, t, durations[i], op);
                t += durations[i];
                if (i + 1 < runs)
                    t += gaps / (runs - 1) + (i < gaps % (runs - 1) ? 1 : 0);
            }
        }
        if (!stepTrackDone) {
            const TrackId track = builder.addTrack(first, steps["source"].string(), stepKind);
            TimePs t = 0;
            for (TimePs d : stepDurations) {
                builder.addEvent(track, t, d, stepKind == TrackKind::Steps ? stepOp : runOp);
                t += d;
            }
        }
    }

    if (const json::Value* link = doc.find("host_link"))
        readHostLink(*link, profile, *recorded);
    // The original's fixes (files written before fixes have none: "fix" absent reads as empty).
    for (const json::Value& a : doc["advice"].array()) {
        const json::Value& fix = a["fix"];
        RecordedAdviceFix& r = recorded->adviceFixes.emplace_back();
        r.rule = a["rule"].string();
        r.action = fix["action"].string();
        r.perCoreBatch = std::max<int64_t>(0, clampedNumber<int64_t>(fix["per_core_batch"].number()));
        r.globalBatch = std::max<int64_t>(0, clampedNumber<int64_t>(fix["global_batch"].number()));
        for (const json::Value& key : fix["devices"].array())
            if (r.devices.size() < 64) // more than there are generations: a damaged list
                r.devices.push_back(key.string());
    }
    profile.recorded = std::move(recorded);

    // The original profile's extent, so span and busy fraction match it.
    if (const TimePs span = clampedNumber<TimePs>(doc["totals"]["span_ps"].number()); span > 0) {
        const TrackId track = builder.addTrack(first, "Profile span", TrackKind::Other);
        builder.addEvent(track, 0, span, builder.addOp([&] {
            OpInfo op;
            op.name = builder.intern("(profile span)");
            return op;
        }()));
    }

    // What the user should know about this profile.
    auto& limitations = profile.load.limitations;
    const json::Value& totals = doc["totals"];
    // The three parts add up to the original's op count: kept with HLO, brief, summed.
    const size_t briefOps = keptOps - topOps;
    char line[160];
    std::snprintf(line, sizeof line, "tpuscope share file: the top %zu of %llu ops (%.1f %% of op time) with their HLO",
        static_cast<size_t>(totals["kept"].uint64(topOps)), static_cast<unsigned long long>(totals["ops"].uint64(0)),
        100.0 * totals["kept_time_fraction"].number());
    std::string kept = line;
    if (briefOps)
        kept += ", " + std::to_string(briefOps) + " more copies and collectives in brief";
    if (otherOps)
        kept += "; the other " + std::to_string(otherOps) + (otherOps == 1 ? " op is" : " ops are")
            + " summed per category in '(N other ... ops)' rows";
    limitations.push_back(kept);
    limitations.push_back("no timeline: op totals are per profile; step and program-run lines are rebuilt from their "
                          "statistics (count, durations, idle time), not their original times");
    const json::Value& redaction = doc["redaction"];
    if (redaction["paths"].boolean() || redaction["names"].boolean() || redaction["hash"].boolean())
        limitations.push_back(std::string("redacted when shared:")
            + (redaction["paths"].boolean() ? " source paths" : "")
            + (redaction["names"].boolean() ? " framework op names" : "")
            + (redaction["hash"].boolean() ? " op names hashed" : ""));
    const json::Value& source = doc["source"];
    if (!source["format"].string().empty())
        limitations.push_back("shared from a " + source["format"].string() + " profile"
            + (source["file"].string().empty() ? std::string() : " (" + source["file"].string() + ")"));
    for (const json::Value& l : source["limitations"].array())
        limitations.push_back("original: " + l.string());
    for (const json::Value& warning : source["warnings"].array())
        profile.load.warnings.push_back("original: " + warning.string());
    if (progress)
        progress("reading share file", 1.0);
    return {};
}

} // namespace tpuscope::model
