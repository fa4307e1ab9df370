// SPDX-License-Identifier: GPL-3.0-or-later
#include "hlo.h"

#include <array>
#include <string_view>

namespace tpuscope::model::hlo {

namespace {
struct TypeEntry
{
    PrimitiveType type;
    const char* name;
    int bits;
};
// PRED is stored as 32 bits on TPU (FORMATS.md §6.2), so padding math uses 32.
constexpr std::array<TypeEntry, 34> kTypes{{
    {PrimitiveType::Pred, "pred", 32},       {PrimitiveType::S8, "s8", 8},
    {PrimitiveType::S16, "s16", 16},         {PrimitiveType::S32, "s32", 32},
    {PrimitiveType::S64, "s64", 64},         {PrimitiveType::U8, "u8", 8},
    {PrimitiveType::U16, "u16", 16},         {PrimitiveType::U32, "u32", 32},
    {PrimitiveType::U64, "u64", 64},         {PrimitiveType::F16, "f16", 16},
    {PrimitiveType::F32, "f32", 32},         {PrimitiveType::F64, "f64", 64},
    {PrimitiveType::Tuple, "tuple", 0},      {PrimitiveType::Opaque, "opaque", 0},
    {PrimitiveType::C64, "c64", 64},         {PrimitiveType::BF16, "bf16", 16},
    {PrimitiveType::Token, "token", 0},      {PrimitiveType::C128, "c128", 128},
    {PrimitiveType::F8E5M2, "f8e5m2", 8},    {PrimitiveType::F8E4M3FN, "f8e4m3fn", 8},
    {PrimitiveType::S4, "s4", 4},            {PrimitiveType::U4, "u4", 4},
    {PrimitiveType::F8E4M3B11FNUZ, "f8e4m3b11fnuz", 8}, {PrimitiveType::F8E5M2FNUZ, "f8e5m2fnuz", 8},
    {PrimitiveType::F8E4M3FNUZ, "f8e4m3fnuz", 8}, {PrimitiveType::S2, "s2", 2},
    {PrimitiveType::U2, "u2", 2},            {PrimitiveType::F8E4M3, "f8e4m3", 8},
    {PrimitiveType::F8E3M4, "f8e3m4", 8},    {PrimitiveType::S1, "s1", 1},
    {PrimitiveType::U1, "u1", 1},            {PrimitiveType::F4E2M1FN, "f4e2m1fn", 4},
    {PrimitiveType::F8E8M0FNU, "f8e8m0fnu", 8}, {PrimitiveType::Buffer, "buffer", 0},
}};
} // namespace

const char* primitiveTypeName(PrimitiveType type)
{
    for (const auto& e : kTypes)
        if (e.type == type)
            return e.name;
    return "unknown";
}

PrimitiveType primitiveTypeFromName(std::string_view name)
{
    for (const auto& e : kTypes)
        if (name == e.name)
            return e.type;
    return PrimitiveType::Invalid;
}

int primitiveTypeBits(PrimitiveType type)
{
    for (const auto& e : kTypes)
        if (e.type == type)
            return e.bits;
    return 0;
}

const Instruction* Computation::findInstruction(int64_t wanted) const
{
    for (const auto& instruction : instructions)
        if (instruction.id == wanted)
            return &instruction;
    return nullptr;
}

void Module::buildIndex()
{
    m_computationById.clear();
    m_instructionByName.clear();
    m_instructionById.clear();
    for (size_t c = 0; c < computations.size(); ++c) {
        m_computationById.emplace(computations[c].id, c);
        for (size_t i = 0; i < computations[c].instructions.size(); ++i) {
            const auto& instruction = computations[c].instructions[i];
            m_instructionByName.emplace(instruction.name, std::make_pair(c, i));
            m_instructionById.emplace(instruction.id, std::make_pair(c, i));
        }
    }
    breakCallCycles();
}

void Module::breakCallCycles()
{
    // Depth-first over the call graph without recursion (a hostile module may chain a million
    // computations): a call to a computation still on the path closes a cycle and is dropped.
    enum class Mark : uint8_t { Unvisited, OnPath, Done };
    std::vector<Mark> mark(computations.size(), Mark::Unvisited);
    struct Frame
    {
        size_t computation;
        size_t instruction = 0;
        size_t call = 0;
    };
    std::vector<Frame> path;
    callCycles.clear();
    for (size_t start = 0; start < computations.size(); ++start) {
        if (mark[start] != Mark::Unvisited)
            continue;
        path.push_back({start});
        mark[start] = Mark::OnPath;
        while (!path.empty()) {
            Frame& frame = path.back();
            std::vector<Instruction>& instructions = computations[frame.computation].instructions;
            if (frame.instruction >= instructions.size()) {
                mark[frame.computation] = Mark::Done;
                path.pop_back();
                continue;
            }
            Instruction& caller = instructions[frame.instruction];
            if (frame.call >= caller.calledComputationIds.size()) {
                ++frame.instruction;
                frame.call = 0;
                continue;
            }
            const int64_t calleeId = caller.calledComputationIds[frame.call];
            const auto callee = m_computationById.find(calleeId);
            if (callee == m_computationById.end() || mark[callee->second] == Mark::Done) {
                ++frame.call;
                continue;
            }
            if (mark[callee->second] == Mark::OnPath) {
                callCycles.push_back(caller.name + " in " + computations[frame.computation].name + " calls "
                    + computations[callee->second].name + ", which is already on its call path");
                caller.calledComputationIds.erase(
                    caller.calledComputationIds.begin() + static_cast<ptrdiff_t>(frame.call));
                continue;
            }
            ++frame.call;
            mark[callee->second] = Mark::OnPath;
            path.push_back({callee->second}); // `frame` is not used after this
        }
    }
}

const Computation* Module::computation(int64_t wanted) const
{
    auto it = m_computationById.find(wanted);
    return it == m_computationById.end() ? nullptr : &computations[it->second];
}

const Instruction* Module::instruction(std::string_view wanted) const
{
    auto it = m_instructionByName.find(std::string(wanted));
    if (it == m_instructionByName.end())
        return nullptr;
    return &computations[it->second.first].instructions[it->second.second];
}

const Computation* Module::computationOf(std::string_view instructionName) const
{
    auto it = m_instructionByName.find(std::string(instructionName));
    return it == m_instructionByName.end() ? nullptr : &computations[it->second.first];
}

const Instruction* Module::instructionById(int64_t wanted) const
{
    auto it = m_instructionById.find(wanted);
    if (it == m_instructionById.end())
        return nullptr;
    return &computations[it->second.first].instructions[it->second.second];
}

const Instruction* Module::definingInstruction(const LogicalBuffer& buffer) const
{
    // Old files name the instruction and leave the id at 0; newer ones leave the name empty.
    if (!buffer.instructionName.empty())
        return instruction(buffer.instructionName);
    return instructionById(buffer.instructionId);
}

const Shape* Module::bufferShape(const LogicalBuffer& buffer) const
{
    const Instruction* defining = definingInstruction(buffer);
    if (!defining)
        return nullptr;
    // The full shape index path; xprof resolves only its last element, which differs for nested tuples.
    const Shape* shape = &defining->shape;
    for (int64_t index : buffer.shapeIndex) {
        if (index < 0 || static_cast<size_t>(index) >= shape->tupleShapes.size())
            return nullptr;
        shape = &shape->tupleShapes[static_cast<size_t>(index)];
    }
    return shape;
}

void BufferAssignment::buildIndex()
{
    m_bufferById.clear();
    m_allocationByBuffer.clear();
    m_bufferById.reserve(logicalBuffers.size());
    for (size_t i = 0; i < logicalBuffers.size(); ++i)
        m_bufferById.emplace(logicalBuffers[i].id, i);
    m_allocationByBuffer.reserve(logicalBuffers.size());
    for (size_t a = 0; a < allocations.size(); ++a)
        for (const auto& assigned : allocations[a].assigned)
            m_allocationByBuffer[assigned.logicalBufferId] = a; // the last one wins, as in xprof
}

const LogicalBuffer* BufferAssignment::logicalBuffer(int64_t id) const
{
    auto it = m_bufferById.find(id);
    return it == m_bufferById.end() ? nullptr : &logicalBuffers[it->second];
}

const BufferAllocation* BufferAssignment::allocationOf(int64_t logicalBufferId) const
{
    auto it = m_allocationByBuffer.find(logicalBufferId);
    return it == m_allocationByBuffer.end() ? nullptr : &allocations[it->second];
}

std::string layoutToString(const Layout& layout)
{
    std::string out = "{";
    for (size_t i = 0; i < layout.minorToMajor.size(); ++i) {
        if (i)
            out += ',';
        out += std::to_string(layout.minorToMajor[i]);
    }
    if (!layout.tiles.empty() || layout.memorySpace != 0 || layout.elementSizeInBits != 0) {
        out += ':';
        for (const auto& tile : layout.tiles) {
            out += tile.dimensions.empty() ? "T(" : (&tile == &layout.tiles.front() ? "T(" : "(");
            for (size_t i = 0; i < tile.dimensions.size(); ++i) {
                if (i)
                    out += ',';
                out += tile.dimensions[i] < 0 ? std::string("*") : std::to_string(tile.dimensions[i]);
            }
            out += ')';
        }
        if (layout.elementSizeInBits != 0)
            out += "E(" + std::to_string(layout.elementSizeInBits) + ")";
        if (layout.memorySpace != 0)
            out += "S(" + std::to_string(layout.memorySpace) + ")";
    }
    out += '}';
    return out;
}

std::string shapeToString(const Shape& shape)
{
    if (shape.isTuple()) {
        std::string out = "(";
        for (size_t i = 0; i < shape.tupleShapes.size(); ++i) {
            if (i)
                out += ", ";
            out += shapeToString(shape.tupleShapes[i]);
        }
        return out + ")";
    }
    std::string out = primitiveTypeName(shape.elementType);
    out += '[';
    for (size_t i = 0; i < shape.dimensions.size(); ++i) {
        if (i)
            out += ',';
        out += std::to_string(shape.dimensions[i]);
    }
    out += ']';
    if (shape.hasLayout)
        out += layoutToString(shape.layout);
    return out;
}

} // namespace tpuscope::model::hlo
