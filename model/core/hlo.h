// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace tpuscope::model::hlo {

/// xla::PrimitiveType values (FORMATS.md §3).
enum class PrimitiveType : int32_t {
    Invalid = 0, Pred = 1, S8 = 2, S16 = 3, S32 = 4, S64 = 5, U8 = 6, U16 = 7, U32 = 8, U64 = 9,
    F16 = 10, F32 = 11, F64 = 12, Tuple = 13, Opaque = 14, C64 = 15, BF16 = 16, Token = 17,
    C128 = 18, F8E5M2 = 19, F8E4M3FN = 20, S4 = 21, U4 = 22, F8E4M3B11FNUZ = 23, F8E5M2FNUZ = 24,
    F8E4M3FNUZ = 25, S2 = 26, U2 = 27, F8E4M3 = 28, F8E3M4 = 29, S1 = 30, U1 = 31, F4E2M1FN = 32,
    F8E8M0FNU = 33, Buffer = 34,
};

/// Lower-case HLO text name ("f32", "bf16", "pred", ...); "unknown" for anything else.
const char* primitiveTypeName(PrimitiveType type);
/// Parses the HLO text name of a type; returns Invalid when unknown.
PrimitiveType primitiveTypeFromName(std::string_view name);
/// Storage bits of one element on TPU (PRED counts as 32, as TPU stores it); 0 for tuple/token.
int primitiveTypeBits(PrimitiveType type);

struct Tile
{
    std::vector<int64_t> dimensions; // most-major first; -1 = combine with the next minor dim
};

struct Layout
{
    std::vector<int64_t> minorToMajor; // first = most minor logical dimension
    std::vector<Tile> tiles;           // applied in order
    int64_t elementSizeInBits = 0;     // 0 = natural size of the element type
    int64_t memorySpace = 0;           // S(n)
    int64_t tailPaddingAlignment = 0;  // in elements; 0 → 1
};

struct Shape
{
    PrimitiveType elementType = PrimitiveType::Invalid;
    std::vector<int64_t> dimensions;
    std::vector<Shape> tupleShapes;
    bool hasLayout = false;
    Layout layout;

    bool isTuple() const { return elementType == PrimitiveType::Tuple; }
};

struct ConvolutionDimensions
{
    int64_t inputBatch = 0, inputFeature = 0;
    std::vector<int64_t> inputSpatial;
    int64_t kernelInputFeature = 0, kernelOutputFeature = 0;
    std::vector<int64_t> kernelSpatial;
    int64_t outputBatch = 0, outputFeature = 0;
    std::vector<int64_t> outputSpatial;
};

struct DotDimensions
{
    std::vector<int64_t> lhsContracting, rhsContracting, lhsBatch, rhsBatch;
};

struct Instruction
{
    int64_t id = 0;
    std::string name;
    std::string opcode;
    Shape shape;
    std::string fusionKind; // kLoop, kInput, kOutput, kCustom
    std::vector<int64_t> operandIds;
    std::vector<int64_t> calledComputationIds;
    std::vector<Shape> operandShapes; // operand_shapes_with_layout, when present
    bool hasConvolutionDimensions = false;
    ConvolutionDimensions convolution;
    bool hasDotDimensions = false;
    DotDimensions dot;
    int64_t featureGroupCount = 0;
    int64_t batchGroupCount = 0;
    int64_t parameterNumber = 0;
    std::string customCallTarget;
    std::string opType, opName, sourceFile; // OpMetadata
    int32_t sourceLine = 0;
};

struct Computation
{
    int64_t id = 0;
    std::string name;
    int64_t rootId = 0;
    bool isFusion = false;
    std::vector<Instruction> instructions;

    const Instruction* findInstruction(int64_t id) const;
    const Instruction* root() const { return findInstruction(rootId); }
};

/// The compiler's buffer assignment of a module (xla.BufferAssignmentProto, HloProto field 3;
/// FORMATS.md §3.1): what the memory view reads. Sizes are in bytes, padded by the layout.
struct LogicalBuffer
{
    int64_t id = 0;
    int64_t size = 0;
    int64_t color = 0; // memory space; 0 = HBM on TPU
    int64_t instructionId = 0; // defined_at.instruction_id (HloInstructionProto.id)
    std::string instructionName; // defined_at.instruction_name (deprecated; old files only)
    std::vector<int64_t> shapeIndex; // into the defining instruction's (tuple) shape
    int64_t unpaddedBytes = -1; // recorded unpadded size for a buffer without an instruction (share files)
};

struct BufferAllocation
{
    struct Assigned
    {
        int64_t logicalBufferId = 0;
        int64_t offset = 0;
        int64_t size = 0;
    };
    int64_t index = 0;
    int64_t size = 0;
    int64_t color = 0;
    int64_t parameterNumber = 0;
    bool isThreadLocal = false;
    bool isEntryComputationParameter = false;
    bool maybeLiveOut = false;
    bool isTuple = false;
    bool isConstant = false;
    std::vector<Assigned> assigned;

    /// Live for the whole program, outside the heap simulation (xprof's IsIndefinite).
    bool isIndefinite() const { return isThreadLocal || isEntryComputationParameter || isConstant || maybeLiveOut; }
};

struct HeapEvent
{
    enum class Kind : uint8_t { Alloc = 0, Free = 1, ShareWith = 2 };
    Kind kind = Kind::Alloc;
    int64_t bufferId = 0;
    int64_t shareWithCanonicalId = 0;
    std::string instructionName;
};

struct HeapSimulatorTrace
{
    std::vector<HeapEvent> events;
    bool wholeModuleSimulation = false;
    int64_t bufferAllocationIndex = 0; // as written; not reliable (FORMATS.md §3.1)
};

struct BufferAssignment
{
    std::vector<LogicalBuffer> logicalBuffers;
    std::vector<BufferAllocation> allocations;
    std::vector<HeapSimulatorTrace> heapTraces;
    std::vector<std::string> warnings; // decode problems that were skipped (unknown event kinds, ...)

    /// Must be called once after filling the vectors.
    void buildIndex();
    const LogicalBuffer* logicalBuffer(int64_t id) const;
    /// The allocation that holds a logical buffer (nullptr when none lists it).
    const BufferAllocation* allocationOf(int64_t logicalBufferId) const;

private:
    std::unordered_map<int64_t, size_t> m_bufferById;
    std::unordered_map<int64_t, size_t> m_allocationByBuffer;
};

/// One compiled program (xla.HloModuleProto), indexed for lookups by name and id.
class Module
{
public:
    std::string name;
    int64_t id = 0;
    int64_t entryComputationId = 0;
    std::vector<Computation> computations;

    /// Null when the HloProto carries no buffer assignment (or it could not be decoded, see below).
    std::shared_ptr<const BufferAssignment> bufferAssignment;
    std::string bufferAssignmentError; // why field 3 was present but not decoded

    /// Calls that closed a cycle (a computation calling itself, directly or through others), in
    /// words: buildIndex drops them, so every walk over called computations ends.
    std::vector<std::string> callCycles;

    /// Must be called once after filling `computations`. Also breaks call cycles (see above).
    void buildIndex();

    const Computation* computation(int64_t id) const;
    const Instruction* instruction(std::string_view name) const;
    /// The computation that holds the instruction with this name.
    const Computation* computationOf(std::string_view instructionName) const;
    const Instruction* instructionById(int64_t id) const;
    /// The instruction that defines a logical buffer (by defined_at.instruction_id, else by the
    /// deprecated instruction_name), and the buffer's (sub)shape; nullptr when not found.
    const Instruction* definingInstruction(const LogicalBuffer& buffer) const;
    const Shape* bufferShape(const LogicalBuffer& buffer) const;

private:
    void breakCallCycles();

    std::unordered_map<int64_t, size_t> m_computationById;
    std::unordered_map<std::string, std::pair<size_t, size_t>> m_instructionByName;
    std::unordered_map<int64_t, std::pair<size_t, size_t>> m_instructionById;
};

/// HLO text of a shape, e.g. "f32[16,1]{0,1:T(8,128)}"; tuples as "(a, b)".
std::string shapeToString(const Shape& shape);
std::string layoutToString(const Layout& layout);

} // namespace tpuscope::model::hlo
