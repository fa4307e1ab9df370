// SPDX-License-Identifier: GPL-3.0-or-later
//
// The reduced HLO module of a share file, as JSON: the instructions the kept ops need (full or as
// stubs), and the module's HBM peak. The schema ("module", "instruction", "shape") is in sharefile.cpp.

#include "hloreducer.h"

#include "../report/jsonwriter.h"

#include <array>
#include <string_view>
#include <vector>

namespace tpuscope::model::share_detail {

namespace {

// Buffers at a module's HBM peak kept one by one in a share file; the rest are summed.
constexpr size_t kShareMemoryBuffers = 48;

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

void writeInts(JsonWriter& w, std::string_view key, const std::vector<int64_t>& v)
{
    if (v.empty())
        return;
    w.key(key).beginArray();
    for (int64_t x : v)
        w.value(x);
    w.endArray();
}

void writeInstruction(JsonWriter& w, const hlo::Instruction& in, bool stub, const NameMap& names,
    const TextRedactor& texts, const ShareRedaction& redaction)
{
    w.beginObject();
    w.field("id", in.id).field("n", names.name(in.name)).field("o", texts.scrub(in.opcode));
    w.key("s");
    writeShape(w, in.shape);
    if (!in.fusionKind.empty())
        w.field("fk", texts.scrub(in.fusionKind));
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
        w.field("cct", texts.scrub(in.customCallTarget));
    if (!redaction.names && !redaction.hashNames) {
        if (!in.opType.empty())
            w.field("ot", texts.scrub(in.opType));
        if (!in.opName.empty())
            w.field("on", texts.scrub(in.opName));
    }
    if (!redaction.paths && !in.sourceFile.empty()) {
        w.field("sf", texts.scrub(in.sourceFile));
        if (in.sourceLine)
            w.field("sl", static_cast<int64_t>(in.sourceLine));
    }
    w.endObject();
}

int flagsOf(const hlo::BufferAllocation& a)
{
    return (a.isEntryComputationParameter ? 1 : 0) | (a.maybeLiveOut ? 2 : 0) | (a.isThreadLocal ? 4 : 0)
        | (a.isConstant ? 8 : 0);
}

} // namespace

void ModuleReducer::addOp(const hlo::Instruction& instruction)
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

void ModuleReducer::addMemory(const ModuleMemory& memory)
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

size_t ModuleReducer::instructionCount() const
{
    size_t n = 0;
    for (const auto& [c, ids] : m_full)
        n += ids.size();
    for (const auto& [c, ids] : m_stub)
        n += ids.size();
    return n;
}

void ModuleReducer::collectNames(NameMap& names) const
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

void ModuleReducer::write(
    JsonWriter& w, const NameMap& names, const TextRedactor& texts, const ShareRedaction& redaction) const
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
                writeInstruction(w, in, isStub, names, texts, redaction);
        }
        w.endArray();
        w.endObject();
    }
    w.endArray();
    if (m_memory)
        writeMemory(w);
    w.endObject();
}

void ModuleReducer::writeMemory(JsonWriter& w) const
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

bool ModuleReducer::included(int64_t computation, int64_t instruction) const
{
    if (auto it = m_full.find(computation); it != m_full.end() && it->second.count(instruction))
        return true;
    auto it = m_stub.find(computation);
    return it != m_stub.end() && it->second.count(instruction);
}

void ModuleReducer::addComputation(int64_t id, int depth)
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

} // namespace tpuscope::model::share_detail
