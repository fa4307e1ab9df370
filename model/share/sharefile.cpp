// SPDX-License-Identifier: GPL-3.0-or-later
//
// Share file (*.tpuscope), version 1.
//
// Bytes: "TPUSCOPE-SHARE 1\n" followed by one gzip member holding a compact JSON document:
//
// {
//   "format": "tpuscope-share", "version": 1, "generator": "tpuscope",
//   "source": {"format": "xspace", "file": "name.xplane.pb" (absent with paths redaction),
//              "file_bytes": N, "limitations": [...]},
//   "redaction": {"paths": bool, "names": bool, "hash": bool},
//   "device": {"type", "generation", "cores", "peak_tflops_per_core", "peak_hbm_gbps_per_core",
//              "peak_source" (PeakSource enum value), "peak_note",
//              "hosts": [host names] ("host0".. with any redaction),
//              "core_planes": [{"host": i, "name": "/device:TPU:0"}, ...]},
//   "totals": {"ops": rows in the original op table, "kept": rows kept, "time_ps", "kept_time_fraction"},
//   "step_windows": {"kind": TrackKind (Steps, or XlaModules for program runs), "line", "program",
//            "dominant": the program with the most device time,
//            "cores": [{"plane", "start_ps": [...], "duration_ps": [...], "busy_ps": [...]}]}
//            each core's steps as computeSteps defines them (at most kMaxSteps in all);
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
//             "numbers": {...}, "gain_ps"}]
//             the advice computed on the original profile, for the record.
// }
//
// All names pass through one map, so with hash redaction an op keeps the same hash in the op
// list, the HLO, the HLO text and the advice text.

#include "sharefile.h"

#include "../core/atomicfile.h"

#include "../analysis/advice.h"
#include "../analysis/memory.h"
#include "../analysis/opbreakdown.h"
#include "../analysis/steps.h"
#include "../core/jsondom.h"
#include "../loader/decoder.h"
#include "../loader/gzip.h"
#include "../report/jsonwriter.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>

namespace tpuscope::model {

namespace {

// Buffers at a module's HBM peak kept one by one in a share file; the rest are summed.
constexpr size_t kShareMemoryBuffers = 48;

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

constexpr size_t kMaxSteps = 20000;
// Ops at or above this share of op time are always kept: advice rules look at ops from 1 %.
constexpr double kAlwaysKeepShare = 0.01;
// Grouped leftovers stay below the 1 % evidence threshold of the advice rules.
constexpr double kOtherChunkShare = 0.0099;

// ---------------------------------------------------------------------------------------------
// Names and redaction

bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

std::string replaceAll(std::string text, const std::string& what, const std::string& with)
{
    for (size_t at = text.find(what); !what.empty() && at != std::string::npos; at = text.find(what, at + with.size()))
        text.replace(at, what.size(), with);
    return text;
}

class NameMap
{
public:
    explicit NameMap(bool enabled)
        : m_enabled(enabled)
    {
    }

    void add(const std::string& name, std::string_view prefix)
    {
        if (!m_enabled || name.empty() || m_map.count(name))
            return;
        std::string hashed = redactedName(name, prefix);
        for (int salt = 1; m_used.count(hashed); ++salt)
            hashed = redactedName(name + "#" + std::to_string(salt), prefix);
        m_used.insert(hashed);
        m_map.emplace(name, std::move(hashed));
    }

    std::string name(const std::string& original) const
    {
        if (!m_enabled)
            return original;
        if (auto it = m_map.find(original); it != m_map.end())
            return it->second;
        return text(original);
    }

    /// Replaces every known name that appears as a whole token (HLO names use [A-Za-z0-9_.-]).
    std::string text(std::string_view in) const
    {
        if (!m_enabled)
            return std::string(in);
        std::string out;
        out.reserve(in.size());
        size_t i = 0;
        while (i < in.size()) {
            if (!isNameChar(in[i])) {
                out += in[i++];
                continue;
            }
            size_t end = i;
            while (end < in.size() && isNameChar(in[end]))
                ++end;
            // A sentence may end right after a name ("... in fusion.3."): try shorter tokens.
            size_t len = end - i;
            bool replaced = false;
            while (len > 0) {
                auto it = m_map.find(std::string(in.substr(i, len)));
                if (it != m_map.end()) {
                    out += it->second;
                    out.append(in.substr(i + len, end - i - len));
                    replaced = true;
                    break;
                }
                const char last = in[i + len - 1];
                if (last != '.' && last != '-')
                    break;
                --len;
            }
            if (!replaced)
                out.append(in.substr(i, end - i));
            i = end;
        }
        return out;
    }

private:
    bool m_enabled;
    std::unordered_map<std::string, std::string> m_map;
    std::unordered_set<std::string> m_used;
};

/// Removes ", metadata={...}" clauses (op_type, op_name, source_file, source_line) from HLO text.
std::string stripHloMetadata(std::string_view text)
{
    std::string out;
    size_t i = 0;
    while (true) {
        const size_t at = text.find("metadata={", i);
        if (at == std::string_view::npos) {
            out.append(text.substr(i));
            return out;
        }
        size_t cut = at;
        while (cut > i && (text[cut - 1] == ' ' || text[cut - 1] == ','))
            --cut;
        out.append(text.substr(i, cut - i));
        size_t j = at + std::strlen("metadata={");
        int depth = 1;
        bool quoted = false;
        for (; j < text.size() && depth > 0; ++j) {
            const char c = text[j];
            if (quoted) {
                if (c == '\\')
                    ++j;
                else if (c == '"')
                    quoted = false;
            } else if (c == '"') {
                quoted = true;
            } else if (c == '{') {
                ++depth;
            } else if (c == '}') {
                --depth;
            }
        }
        i = j;
    }
}

// ---------------------------------------------------------------------------------------------
// HLO (reduced module) to and from JSON

void writeShape(JsonWriter& w, const hlo::Shape& s)
{
    w.beginObject();
    w.field("t", static_cast<int64_t>(s.elementType));
    if (!s.dimensions.empty()) {
        w.key("d").beginArray();
        for (int64_t d : s.dimensions)
            w.value(d);
        w.endArray();
    }
    if (s.hasLayout) {
        w.key("l").beginArray();
        for (int64_t d : s.layout.minorToMajor)
            w.value(d);
        w.endArray();
        if (!s.layout.tiles.empty()) {
            w.key("T").beginArray();
            for (const hlo::Tile& t : s.layout.tiles) {
                w.beginArray();
                for (int64_t d : t.dimensions)
                    w.value(d);
                w.endArray();
            }
            w.endArray();
        }
        if (s.layout.elementSizeInBits)
            w.field("E", s.layout.elementSizeInBits);
        if (s.layout.memorySpace)
            w.field("S", s.layout.memorySpace);
        if (s.layout.tailPaddingAlignment)
            w.field("L", s.layout.tailPaddingAlignment);
    }
    if (!s.tupleShapes.empty()) {
        w.key("u").beginArray();
        for (const hlo::Shape& e : s.tupleShapes)
            writeShape(w, e);
        w.endArray();
    }
    w.endObject();
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

void writeInts(JsonWriter& w, std::string_view key, const std::vector<int64_t>& v)
{
    if (v.empty())
        return;
    w.key(key).beginArray();
    for (int64_t x : v)
        w.value(x);
    w.endArray();
}

void writeInstruction(
    JsonWriter& w, const hlo::Instruction& in, bool stub, const NameMap& names, const ShareRedaction& redaction)
{
    w.beginObject();
    w.field("id", in.id).field("n", names.name(in.name)).field("o", in.opcode);
    w.key("s");
    writeShape(w, in.shape);
    if (!in.fusionKind.empty())
        w.field("fk", in.fusionKind);
    if (!stub) {
        writeInts(w, "a", in.operandIds);
        writeInts(w, "c", in.calledComputationIds);
        if (!in.operandShapes.empty()) {
            w.key("os").beginArray();
            for (const hlo::Shape& s : in.operandShapes)
                writeShape(w, s);
            w.endArray();
        }
    }
    if (in.hasConvolutionDimensions) {
        const hlo::ConvolutionDimensions& c = in.convolution;
        w.key("conv").beginObject();
        w.field("ib", c.inputBatch).field("if", c.inputFeature);
        writeInts(w, "is", c.inputSpatial);
        w.field("kif", c.kernelInputFeature).field("kof", c.kernelOutputFeature);
        writeInts(w, "ks", c.kernelSpatial);
        w.field("ob", c.outputBatch).field("of", c.outputFeature);
        writeInts(w, "os", c.outputSpatial);
        w.endObject();
    }
    if (in.hasDotDimensions) {
        w.key("dot").beginObject();
        writeInts(w, "lc", in.dot.lhsContracting);
        writeInts(w, "rc", in.dot.rhsContracting);
        writeInts(w, "lb", in.dot.lhsBatch);
        writeInts(w, "rb", in.dot.rhsBatch);
        w.endObject();
    }
    if (in.featureGroupCount)
        w.field("fgc", in.featureGroupCount);
    if (in.batchGroupCount)
        w.field("bgc", in.batchGroupCount);
    if (in.opcode == "parameter")
        w.field("pn", in.parameterNumber);
    if (!in.customCallTarget.empty())
        w.field("cct", in.customCallTarget);
    if (!redaction.names && !redaction.hashNames) {
        if (!in.opType.empty())
            w.field("ot", in.opType);
        if (!in.opName.empty())
            w.field("on", in.opName);
    }
    if (!redaction.paths && !in.sourceFile.empty()) {
        w.field("sf", in.sourceFile);
        if (in.sourceLine)
            w.field("sl", static_cast<int64_t>(in.sourceLine));
    }
    w.endObject();
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

/// Which instructions of one module the kept ops need.
class ModuleReducer
{
public:
    explicit ModuleReducer(const hlo::Module& module)
        : m_module(module)
    {
    }

    void addOp(const hlo::Instruction& instruction)
    {
        const hlo::Computation* computation = m_module.computationOf(instruction.name);
        if (!computation)
            return;
        m_full[computation->id].insert(instruction.id);
        for (int64_t operand : instruction.operandIds)
            if (const hlo::Instruction* o = m_module.instructionById(operand))
                if (!m_full[computation->id].count(o->id))
                    m_stub[computation->id].insert(o->id);
        for (int64_t called : instruction.calledComputationIds)
            addComputation(called, 0);
    }

    /// Keeps the module's HBM peak: its largest buffers (their instructions as stubs) and the rest summed.
    void addMemory(const ModuleMemory& memory)
    {
        m_memory = &memory;
        for (size_t i = 0; i < memory.buffersAtPeak.size() && i < kShareMemoryBuffers; ++i) {
            const hlo::Instruction* in = memory.buffersAtPeak[i].instruction;
            if (!in)
                continue;
            if (const hlo::Computation* computation = m_module.computationOf(in->name))
                if (!m_full[computation->id].count(in->id))
                    m_stub[computation->id].insert(in->id);
        }
    }

    size_t instructionCount() const
    {
        size_t n = 0;
        for (const auto& [c, ids] : m_full)
            n += ids.size();
        for (const auto& [c, ids] : m_stub)
            n += ids.size();
        return n;
    }

    void collectNames(NameMap& names) const
    {
        names.add(m_module.name, "prog_");
        for (const hlo::Computation& c : m_module.computations) {
            if (!m_full.count(c.id) && !m_stub.count(c.id))
                continue;
            names.add(c.name, "comp_");
            for (const hlo::Instruction& in : c.instructions)
                if (included(c.id, in.id))
                    names.add(in.name, "op_");
        }
    }

    void write(JsonWriter& w, const NameMap& names, const ShareRedaction& redaction) const
    {
        w.beginObject();
        w.field("name", names.name(m_module.name)).field("id", m_module.id).field("entry", m_module.entryComputationId);
        w.key("computations").beginArray();
        for (const hlo::Computation& c : m_module.computations) {
            auto full = m_full.find(c.id);
            auto stub = m_stub.find(c.id);
            if (full == m_full.end() && stub == m_stub.end())
                continue;
            w.beginObject();
            w.field("id", c.id).field("name", names.name(c.name)).field("root", c.rootId);
            if (c.isFusion)
                w.field("fusion", true);
            w.key("instructions").beginArray();
            for (const hlo::Instruction& in : c.instructions) {
                const bool isFull = full != m_full.end() && full->second.count(in.id);
                const bool isStub = !isFull && stub != m_stub.end() && stub->second.count(in.id);
                if (isFull || isStub)
                    writeInstruction(w, in, isStub, names, redaction);
            }
            w.endArray();
            w.endObject();
        }
        w.endArray();
        if (m_memory)
            writeMemory(w);
        w.endObject();
    }

private:
    static int flagsOf(const hlo::BufferAllocation& a)
    {
        return (a.isEntryComputationParameter ? 1 : 0) | (a.maybeLiveOut ? 2 : 0) | (a.isThreadLocal ? 4 : 0)
            | (a.isConstant ? 8 : 0);
    }

    void writeMemory(JsonWriter& w) const
    {
        const ModuleMemory& m = *m_memory;
        const hlo::BufferAssignment& assignment = *m_module.bufferAssignment;
        w.key("memory").beginObject();
        w.key("buffers").beginArray();
        std::set<int64_t> listedAllocations;
        int64_t restSize = 0, restUnpadded = 0, restCount = 0;
        for (size_t i = 0; i < m.buffersAtPeak.size(); ++i) {
            const BufferAtPeak& b = m.buffersAtPeak[i];
            const hlo::LogicalBuffer* logical = assignment.logicalBuffer(b.logicalBufferId);
            if (i >= kShareMemoryBuffers || !b.instruction || !logical) {
                if (!b.indefinite) {
                    restSize += b.sizeBytes;
                    restUnpadded += b.unpaddedBytes;
                    ++restCount;
                }
                continue;
            }
            if (b.indefinite)
                listedAllocations.insert(b.allocationIndex);
            w.beginObject().field("i", b.instruction->id);
            writeInts(w, "x", logical->shapeIndex);
            const hlo::BufferAllocation* allocation = assignment.allocationOf(b.logicalBufferId);
            w.field("s", b.sizeBytes).field("f", b.indefinite && allocation ? flagsOf(*allocation) : -1).endObject();
        }
        w.endArray();
        // Every indefinite allocation not listed, summed per flags (with its largest buffer's unpadded size).
        std::map<int, std::array<int64_t, 3>> groups; // flags -> size, unpadded, count
        std::map<int64_t, const BufferAtPeak*> representative;
        for (const auto& b : m.buffersAtPeak)
            if (b.indefinite)
                representative[b.allocationIndex] = &b;
        for (const auto& a : assignment.allocations) {
            if (a.color != m.color || !a.isIndefinite() || listedAllocations.count(a.index))
                continue;
            auto& g = groups[flagsOf(a)];
            auto it = representative.find(a.index);
            g[0] += a.size;
            g[1] += it == representative.end() ? a.size : it->second->unpaddedBytes;
            g[2] += 1;
        }
        w.key("groups").beginArray();
        for (const auto& [flags, g] : groups)
            w.beginObject().field("f", flags).field("s", g[0]).field("u", g[1]).field("n", g[2]).endObject();
        w.endArray();
        if (restCount > 0)
            w.key("rest").beginObject().field("s", restSize).field("u", restUnpadded).field("n", restCount).endObject();
        w.field("temporary_bytes", m.totalAllocationBytes - m.indefiniteBytes).field("trace", m.heapTrace >= 0);
        w.endObject();
    }

    bool included(int64_t computation, int64_t instruction) const
    {
        if (auto it = m_full.find(computation); it != m_full.end() && it->second.count(instruction))
            return true;
        auto it = m_stub.find(computation);
        return it != m_stub.end() && it->second.count(instruction);
    }

    void addComputation(int64_t id, int depth)
    {
        if (depth > 16 || m_fullComputations.count(id))
            return;
        const hlo::Computation* c = m_module.computation(id);
        if (!c)
            return;
        m_fullComputations.insert(id);
        for (const hlo::Instruction& in : c->instructions) {
            m_full[id].insert(in.id);
            for (int64_t called : in.calledComputationIds)
                addComputation(called, depth + 1);
        }
    }

    const hlo::Module& m_module;
    const ModuleMemory* m_memory = nullptr;
    std::map<int64_t, std::set<int64_t>> m_full;
    std::map<int64_t, std::set<int64_t>> m_stub;
    std::set<int64_t> m_fullComputations;
};

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

// ---------------------------------------------------------------------------------------------
// Per-op totals (what computeOpBreakdown sums per row, kept per op kind here)

struct OpTotals
{
    int64_t occurrences = 0;
    double time = 0;
    double self = 0;
};

std::vector<OpTotals> opTotals(const Profile& profile)
{
    std::vector<OpTotals> totals(profile.ops.size());
    for (PlaneId plane : profile.tpuCorePlanes())
        for (TrackId trackId : profile.planes[plane].tracks) {
            const Track& track = profile.tracks[trackId];
            if (track.kind != TrackKind::XlaOps)
                continue;
            // Self time = duration − direct children on the same line, clipped to the parent.
            std::vector<TimePs> childTime(track.size(), 0);
            std::vector<uint32_t> lastAtDepth(static_cast<size_t>(track.maxDepth) + 1, 0);
            for (size_t i = 0; i < track.size(); ++i) {
                const uint16_t depth = track.depth[i];
                if (depth > 0) {
                    const uint32_t parent = lastAtDepth[depth - 1];
                    childTime[parent]
                        += std::max<TimePs>(0, std::min(track.end(i), track.end(parent)) - track.start[i]);
                }
                lastAtDepth[depth] = static_cast<uint32_t>(i);
            }
            for (size_t i = 0; i < track.size(); ++i) {
                OpTotals& t = totals[track.op[i]];
                t.occurrences += 1;
                t.time += static_cast<double>(track.duration[i]);
                t.self += static_cast<double>(std::max<TimePs>(0, track.duration[i] - childTime[i]));
            }
            for (const auto& a : track.aggregated) {
                OpTotals& t = totals[a.op];
                t.occurrences += a.occurrences;
                t.time += static_cast<double>(a.duration);
                t.self += static_cast<double>(a.duration);
            }
        }
    return totals;
}

/// The program column of the op table (opbreakdown.cpp programName).
std::string rowProgram(const Profile& profile, const OpInfo& op)
{
    if (op.program != kNone)
        return profile.programs[op.program].name;
    if (op.hasProgramId)
        return "program " + std::to_string(op.programId);
    return {};
}

/// Categories whose ops the data-formatting and collectives advice counts one by one (see
/// isCopyCategory / isCollectiveCategory in advice.cpp): their small ops are kept individually.
bool countedOneByOne(const std::string& c)
{
    if (c == "data formatting" || c == "copy" || c == "transpose" || c == "copy-start" || c == "copy-done"
        || c == "reshape")
        return true;
    for (const char* p : {"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute"})
        if (c.rfind(p, 0) == 0)
            return true;
    return false;
}

// ---------------------------------------------------------------------------------------------
// base64

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64Encode(std::string_view in)
{
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        const uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
        out += kBase64[v >> 18];
        out += kBase64[(v >> 12) & 63];
        out += kBase64[(v >> 6) & 63];
        out += kBase64[v & 63];
    }
    if (i < in.size()) {
        uint32_t v = uint8_t(in[i]) << 16;
        if (i + 1 < in.size())
            v |= uint8_t(in[i + 1]) << 8;
        out += kBase64[v >> 18];
        out += kBase64[(v >> 12) & 63];
        out += i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

int base64Value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

bool base64Decode(std::string_view in, std::string& out, std::string& error)
{
    out.clear();
    uint32_t acc = 0;
    int bits = 0;
    size_t padding = 0, chars = 0;
    for (size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (c == '=') {
            ++padding;
            continue;
        }
        const int v = base64Value(c);
        if (v < 0 || padding) {
            // Control and non-ASCII bytes are named by value: printed raw they garble the terminal.
            char shown[16];
            if (c > 0x20 && c < 0x7f)
                std::snprintf(shown, sizeof shown, "'%c'", c);
            else
                std::snprintf(shown, sizeof shown, "byte 0x%02X", static_cast<unsigned char>(c));
            error = "invalid character " + std::string(shown) + " at position " + std::to_string(i)
                + " of the base64 text";
            return false;
        }
        ++chars;
        acc = (acc << 6) | uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xff);
        }
    }
    if ((chars + padding) % 4 != 0 && padding) {
        error = "the base64 text has the wrong length (a line may be missing)";
        return false;
    }
    if (chars % 4 == 1) {
        error = "the base64 text ends in the middle of a byte (it is truncated)";
        return false;
    }
    return true;
}

std::string fileName(const std::string& path)
{
    const auto slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

// ---------------------------------------------------------------------------------------------

std::string redactedName(std::string_view name, std::string_view prefix)
{
    // FNV-1a, 64 bit: stable across runs and platforms (std::hash is neither).
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : name) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%08x", static_cast<unsigned>((h >> 32) ^ (h & 0xffffffffu)));
    return std::string(prefix) + buffer;
}

bool parseShareRedaction(std::string_view list, ShareRedaction& out, std::string& error)
{
    out = {};
    size_t i = 0;
    while (i <= list.size()) {
        size_t comma = list.find(',', i);
        if (comma == std::string_view::npos)
            comma = list.size();
        std::string_view item = list.substr(i, comma - i);
        while (!item.empty() && item.front() == ' ')
            item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ')
            item.remove_suffix(1);
        if (item == "paths")
            out.paths = true;
        else if (item == "names")
            out.names = true;
        else if (item == "hash")
            out.hashNames = true;
        else if (item == "all")
            out = {true, true, true};
        else if (!item.empty()) {
            error = "unknown redaction '" + std::string(item) + "' (use paths, names, hash or all)";
            return false;
        }
        i = comma + 1;
    }
    return true;
}

ShareResult buildShareFile(const Profile& profile, const ShareOptions& options)
{
    ShareResult result;
    const ShareRedaction& redact = options.redaction;
    const OpBreakdown breakdown = computeOpBreakdown(profile);
    if (breakdown.rows.empty() || breakdown.totalTimePs <= 0) {
        result.error = "nothing to share: the profile has no XLA ops with time on TPU cores";
        return result;
    }

    // Which rows to keep.
    size_t kept = 0;
    double covered = 0;
    for (const OpRow& row : breakdown.rows) {
        const bool needed = covered < options.timeCoverage && kept < std::max<size_t>(1, options.maxOps);
        if (!needed && row.timeFraction < kAlwaysKeepShare)
            break;
        covered += row.timeFraction;
        ++kept;
    }
    result.stats.keptOps = kept;
    result.stats.totalOps = breakdown.rows.size();
    result.stats.keptTimeFraction = covered;

    const std::vector<OpTotals> totals = opTotals(profile);
    std::unordered_map<std::string, size_t> keptRow;
    for (size_t i = 0; i < kept; ++i)
        keptRow.emplace(breakdown.rows[i].program + '\x1f' + breakdown.rows[i].name, i);
    // An async half travels with its other half: the pair's rate needs both (its bytes over the
    // start→done span), so a kept start whose small done half fell below the cut keeps it too.
    std::unordered_map<std::string, size_t> rowByKey;
    for (size_t i = kept; i < breakdown.rows.size(); ++i)
        rowByKey.emplace(breakdown.rows[i].program + '\x1f' + breakdown.rows[i].name, i);
    for (size_t i = 0; i < kept; ++i) {
        const OpRow& row = breakdown.rows[i];
        if (row.asyncPartner.empty())
            continue;
        auto it = rowByKey.find(row.program + '\x1f' + row.asyncPartner);
        if (it != rowByKey.end() && keptRow.emplace(it->first, it->second).second)
            ++result.stats.keptAsyncPartners;
    }
    std::vector<std::pair<size_t, OpId>> keptOps; // (row, op)
    std::vector<OpId> briefOps, restOps;
    for (OpId id = 0; id < profile.ops.size(); ++id) {
        if (totals[id].occurrences == 0)
            continue;
        const OpInfo& op = profile.ops[id];
        if (auto it = keptRow.find(rowProgram(profile, op) + '\x1f' + profile.str(op.name)); it != keptRow.end())
            keptOps.emplace_back(it->second, id);
        else if (countedOneByOne(profile.str(op.category))
            || profile.str(op.name).rfind("async-collective-", 0) == 0) // collectives advice counts these too
            briefOps.push_back(id);
        else
            restOps.push_back(id);
    }
    std::stable_sort(keptOps.begin(), keptOps.end());

    // Reduced HLO per program, and the names that need hashing.
    NameMap names(redact.hashNames);
    std::map<uint32_t, ModuleReducer> reducers;
    for (const OpId id : briefOps)
        names.add(profile.str(profile.ops[id].name), "op_");
    for (const auto& [row, id] : keptOps) {
        const OpInfo& op = profile.ops[id];
        names.add(profile.str(op.name), "op_");
        if (op.program != kNone)
            names.add(profile.programs[op.program].name, "prog_");
        const hlo::Module* module = profile.hloFor(op);
        const hlo::Instruction* instruction = profile.instructionFor(op);
        if (!module || !instruction)
            continue;
        auto it = reducers.try_emplace(op.program, *module).first;
        it->second.addOp(*instruction);
    }
    const MemoryReport memory = analyzeMemory(profile);
    for (auto& [program, reducer] : reducers)
        for (const ModuleMemory& m : memory.modules)
            if (m.module == profile.programs[program].hlo.get())
                reducer.addMemory(m);
    for (const auto& [program, reducer] : reducers) {
        reducer.collectNames(names);
        result.stats.hloInstructions += reducer.instructionCount();
    }
    result.stats.programsWithHlo = reducers.size();
    const bool stripMetadata = redact.any();
    auto hloText = [&](const std::string& text) { return names.text(stripMetadata ? stripHloMetadata(text) : text); };

    JsonWriter w(false);
    w.beginObject();
    w.field("format", "tpuscope-share").field("version", kShareVersion).field("generator", "tpuscope");
    w.key("source").beginObject();
    w.field("format", profile.load.format);
    if (!redact.paths && !profile.load.path.empty())
        w.field("file", fileName(profile.load.path));
    w.field("file_bytes", profile.load.fileBytes);
    if (!redact.any()) {
        w.key("limitations").beginArray();
        for (const std::string& l : profile.load.limitations)
            w.value(l);
        w.endArray();
    }
    w.endObject();
    w.key("redaction").beginObject();
    w.field("paths", redact.paths).field("names", redact.names).field("hash", redact.hashNames);
    w.endObject();

    // Device and core planes.
    const std::vector<PlaneId> cores = profile.tpuCorePlanes();
    const DeviceInfo& device = profile.device;
    w.key("device").beginObject();
    w.field("type", device.type).field("generation", device.generation).field("cores", device.cores);
    w.field("peak_tflops_per_core", device.peakTflopsPerCore)
        .field("peak_hbm_gbps_per_core", device.peakHbmGbpsPerCore);
    w.field("peak_source", static_cast<int64_t>(device.peakSource)).field("peak_note", device.peakNote);
    w.key("hosts").beginArray();
    for (size_t h = 0; h < std::max<size_t>(1, profile.hosts.size()); ++h)
        w.value(redact.any() || h >= profile.hosts.size() ? "host" + std::to_string(h) : profile.hosts[h]);
    w.endArray();
    w.key("core_planes").beginArray();
    for (PlaneId p : cores) {
        w.beginObject();
        w.field("host", static_cast<int64_t>(profile.planes[p].host))
            .field("name", profile.str(profile.planes[p].name));
        w.endObject();
    }
    w.endArray();
    w.endObject();

    w.key("totals").beginObject();
    w.field("ops", static_cast<uint64_t>(breakdown.rows.size())).field("kept", static_cast<uint64_t>(kept + result.stats.keptAsyncPartners));
    w.field("time_ps", breakdown.totalTimePs).field("kept_time_fraction", covered);
    w.field("span_ps", static_cast<int64_t>(profile.spanEnd - profile.spanBegin));
    w.endObject();

    // Steps as computeSteps defines them: each core's step windows with their busy time, and the
    // program runs of each core, so the reader rebuilds lines that give the same steps.
    const StepAnalysis steps = computeSteps(profile);
    if (!steps.coreSteps.empty() && steps.stepsPerCore > 0) {
        const bool runs = steps.source == StepSource::ProgramRuns;
        w.key("step_windows").beginObject();
        w.field("kind", static_cast<int64_t>(runs ? TrackKind::XlaModules : TrackKind::Steps));
        w.field("line", steps.sourceLine).field("program", names.name(steps.program));
        w.field("dominant", steps.dominant() ? names.name(steps.dominant()->name) : std::string());
        w.key("cores").beginArray();
        size_t written = 0;
        for (size_t c = 0; c < steps.coreSteps.size(); ++c) {
            w.beginObject();
            w.field("plane", static_cast<uint64_t>(c));
            w.key("start_ps").beginArray();
            const size_t n = std::min(steps.coreSteps[c].size(), kMaxSteps - std::min(kMaxSteps, written));
            for (size_t i = 0; i < n; ++i)
                w.value(static_cast<int64_t>(steps.coreSteps[c][i].begin - profile.spanBegin));
            w.endArray();
            w.key("duration_ps").beginArray();
            for (size_t i = 0; i < n; ++i)
                w.value(static_cast<int64_t>(steps.coreSteps[c][i].end - steps.coreSteps[c][i].begin));
            w.endArray();
            w.key("busy_ps").beginArray();
            for (size_t i = 0; i < n; ++i)
                w.value(static_cast<int64_t>(std::llround(steps.coreSteps[c][i].time.busyPs())));
            w.endArray();
            w.endObject();
            written += n;
        }
        w.endArray();
        w.endObject();
        w.key("program_runs").beginArray();
        for (const ProgramRunStats& p : steps.programs)
            for (size_t c = 0; c < p.runsByCore.size(); ++c) {
                if (p.runsByCore[c] == 0)
                    continue;
                w.beginObject();
                w.field("plane", static_cast<uint64_t>(c)).field("program", names.name(p.name));
                w.field("runs", p.runsByCore[c]).field("time_ps", p.timeByCore[c]);
                w.endObject();
            }
        w.endArray();
        // The step time and where it goes, for the record (the reader rebuilds it from the above,
        // with all busy time as compute).
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

    // Programs.
    w.key("programs").beginArray();
    std::set<uint32_t> programs;
    for (const auto& [row, id] : keptOps)
        if (uint32_t p = profile.ops[id].program; p != kNone)
            programs.insert(p);
    for (const OpId id : briefOps)
        if (uint32_t p = profile.ops[id].program; p != kNone)
            programs.insert(p);
    for (uint32_t p : programs) {
        w.beginObject();
        w.field("id", profile.programs[p].id).field("name", names.name(profile.programs[p].name));
        if (auto it = reducers.find(p); it != reducers.end()) {
            w.key("hlo");
            it->second.write(w, names, redact);
        }
        w.endObject();
    }
    w.endArray();

    // Ops: one entry per op kind (OpInfo) of the kept rows, so a row that merges kinds with
    // different categories splits the same way in the category view. Per-occurrence costs.
    // Brief entries drop their HLO text, except where two kinds would then look the same to
    // ProfileBuilder::addOp (same program, name and category) and merge with one kind's costs.
    std::map<std::string, int> briefKeys;
    auto briefKey = [&](const OpInfo& op) {
        return rowProgram(profile, op) + '\x1f' + profile.str(op.name) + '\x1f' + profile.str(op.category);
    };
    for (const OpId id : briefOps)
        ++briefKeys[briefKey(profile.ops[id])];
    auto writeOp = [&](OpId id, bool brief) {
        const OpInfo& op = profile.ops[id];
        const OpTotals& t = totals[id];
        w.beginObject();
        w.field("name", names.name(profile.str(op.name)));
        if (op.program != kNone)
            w.field("program_id", profile.programs[op.program].id);
        else if (op.hasProgramId)
            w.field("program_id", op.programId);
        w.field("category", profile.str(op.category)).field("occurrences", t.occurrences);
        w.field("time_ps", t.time).field("self_time_ps", t.self);
        w.field("flops", op.flops).field("model_flops", op.modelFlops).field("bytes", op.bytesAccessed);
        w.field("hbm_bytes", op.hbmBytes);
        const std::string& longName = profile.str(op.longName);
        const std::string& shape = profile.str(op.shapeWithLayout);
        if (!shape.empty())
            w.field("shape", shape);
        // Brief entries (small copies and collectives) keep their HLO text only when it is the
        // evidence of host offloading (memory space S(5)) that the data-formatting advice counts.
        if (!longName.empty()
            && (!brief || briefKeys[briefKey(op)] > 1
                || (shape.empty() && longName.find("S(5)}") != std::string::npos)))
            w.field("hlo", hloText(longName));
        if (brief) {
            w.endObject();
            return;
        }
        if (const std::string& d = profile.str(op.deduplicatedName); !d.empty())
            w.field("dedup", names.text(d));
        if (!redact.names && !redact.hashNames)
            if (const std::string& t = profile.str(op.tfOp); !t.empty())
                w.field("tf_op", t);
        if (!redact.paths)
            if (const std::string& s = profile.str(op.source); !s.empty())
                w.field("source", s);
        if (auto hint = profile.layoutHints.find(id); hint != profile.layoutHints.end()) {
            w.key("layout").beginArray();
            for (const LayoutDimensionHint& d : hint->second) {
                w.beginArray();
                w.value(d.size).value(d.alignment).value(d.semantics);
                w.endArray();
            }
            w.endArray();
        }
        w.endObject();
    };
    w.key("ops").beginArray();
    for (const auto& [row, id] : keptOps)
        writeOp(id, false);
    w.endArray();
    w.key("brief_ops").beginArray();
    for (const OpId id : briefOps)
        writeOp(id, true);
    w.endArray();

    // Everything else, per category, in chunks below the advice rules' 1 % evidence threshold.
    struct Other
    {
        std::string category;
        int64_t ops = 0, occurrences = 0;
        double time = 0, flops = 0, modelFlops = 0, bytes = 0, hbm = 0;
    };
    std::vector<Other> others;
    std::map<std::string, size_t> open;
    // Chunks also stay below the smallest kept op, so the op table still starts with real ops.
    const double chunkLimit = std::min(kOtherChunkShare, breakdown.rows[kept - 1].timeFraction) * breakdown.totalTimePs;
    std::stable_sort(restOps.begin(), restOps.end(), [&](OpId a, OpId b) { return totals[a].self > totals[b].self; });
    for (const OpId id : restOps) {
        const OpInfo& op = profile.ops[id];
        const OpTotals& t = totals[id];
        const std::string& category = profile.str(op.category);
        auto it = open.find(category);
        if (it == open.end() || others[it->second].time + t.self > chunkLimit) {
            others.push_back({category});
            it = open.insert_or_assign(category, others.size() - 1).first;
        }
        Other& o = others[it->second];
        const double n = static_cast<double>(t.occurrences);
        ++o.ops;
        o.occurrences += t.occurrences;
        o.time += t.self; // self time: what the op adds to the op-time total
        o.flops += op.flops * n;
        o.modelFlops += op.modelFlops * n;
        o.bytes += op.bytesAccessed * n;
        o.hbm += (op.hbmBytes >= 0 ? op.hbmBytes : op.bytesAccessed) * n;
    }
    w.key("other").beginArray();
    for (const Other& o : others) {
        w.beginObject();
        w.field("category", o.category).field("ops", o.ops).field("occurrences", o.occurrences);
        w.field("time_ps", o.time).field("flops", o.flops).field("model_flops", o.modelFlops);
        w.field("bytes", o.bytes).field("hbm_bytes", o.hbm);
        w.endObject();
    }
    w.endArray();

    // The advice as computed on the original (the loaded file recomputes it from the data above).
    const AdviceReport advice = computeAdvice(profile, breakdown);
    w.key("advice").beginArray();
    const bool dropFrameworkOps = redact.names || redact.hashNames;
    for (const Advice& a : advice.advice) {
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
        w.field("rule", a.rule).field("severity", severityName(a.severity)).field("title", names.text(title));
        w.key("ops").beginArray();
        for (const std::string& n : a.opNames)
            w.value(names.name(n));
        w.endArray();
        w.key("evidence").beginArray();
        for (const AdviceEvidence& e : a.evidence) {
            w.beginObject();
            w.field("op", names.name(e.name));
            if (!dropFrameworkOps && !e.frameworkOp.empty())
                w.field("framework_op", e.frameworkOp);
            if (!redact.paths && !e.source.empty())
                w.field("source", e.source);
            w.field("time_fraction", e.timeFraction);
            w.endObject();
        }
        w.endArray();
        w.key("numbers");
        writeAdviceValue(w, a.numbers, [&names](std::string_view s) { return names.text(s); });
        w.field("gain_ps", a.gainPs);
        w.endObject();
    }
    w.endArray();
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

bool writeFileAtomically(const std::string& path, std::string_view bytes, std::string& error)
{
    return saveFileAtomically(path, bytes, error);
}

// ---------------------------------------------------------------------------------------------
// Loader side

bool looksLikeShareFile(std::string_view bytes)
{
    return bytes.starts_with(kShareMagic);
}

namespace {

/// Rebuilds each core's step windows (a Steps line, or the step program's runs starting at the
/// windows' starts) with one program run per step holding its busy time, and the other programs'
/// runs before the first step (after the last when they do not fit), so computeSteps gives the
/// original's steps, step times, steady-state idle and runs per program.
void readStepWindows(ProfileBuilder& builder, const json::Value& doc, const std::vector<PlaneId>& planes, OpId stepOp)
{
    static constexpr TimePs kMaxSharePs = TimePs(1) << 60; // keeps damaged times from overflowing
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

} // namespace

std::string decodeShareFile(
    std::string_view bytes, ProfileBuilder& builder, const ProgressFn& progress, std::stop_token stop)
{
    if (progress)
        progress("reading share file", 0.0);
    std::string text, error;
    if (!shareFileJson(bytes, text, error))
        return error;
    json::Value doc;
    json::ParseError parseError;
    if (!json::parse(text, doc, parseError))
        return "tpuscope share file is damaged: " + parseError.describe();
    if (doc["format"].string() != "tpuscope-share")
        return "tpuscope share file is damaged: the document is not a tpuscope-share document";
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
    for (const json::Value& p : device["core_planes"].array()) {
        const uint32_t host = clampedNumber<uint32_t>(p["host"].number());
        if (host >= profile.hosts.size())
            return "tpuscope share file is damaged: a core plane names host " + std::to_string(host);
        planes.push_back(builder.addPlane(p["name"].string(), host));
    }
    if (planes.empty())
        planes.push_back(builder.addPlane("/device:TPU:0", 0));
    for (PlaneId p : planes)
        profile.planes[p].deviceType = device["type"].string();
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
            const int64_t occurrences = std::max<int64_t>(1, clampedNumber<int64_t>(o["occurrences"].number()));
            const double time = o["time_ps"].number(-1);
            if (!(time >= 0) || !std::isfinite(time) || o["name"].string().empty())
                return "tpuscope share file is damaged: op '" + o["name"].string() + "' has no valid name or time";
            const OpId id = builder.addOp(op);
            profile.tracks[opsTrack].aggregated.push_back({id, occurrences, static_cast<TimePs>(std::llround(time))});
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
    } else {
        // Files written before step windows: the first core's step line and each core's idle line.
        const json::Value& steps = doc["steps"];
        // Times are capped (steps in total, each span and offset) at 2^60 ps (~13 days) so the event
        // times built below (offset + busy + gaps) cannot overflow on a damaged file.
        constexpr TimePs kMaxSharePs = TimePs(1) << 60;
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
            if (index >= planes.size())
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
    char line[256];
    std::snprintf(line, sizeof line,
        "tpuscope share file: the top %zu of %llu ops (%.1f %% of op time) with their HLO; the other %lld ops are "
        "summed per category in '(N other ... ops)' rows",
        static_cast<size_t>(totals["kept"].uint64(topOps)), static_cast<unsigned long long>(totals["ops"].uint64(0)),
        100.0 * totals["kept_time_fraction"].number(), static_cast<long long>(otherOps));
    limitations.push_back(line);
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
    if (progress)
        progress("reading share file", 1.0);
    return {};
}

} // namespace tpuscope::model
