// SPDX-License-Identifier: GPL-3.0-or-later
//
// The dimension semantics of layout.h (FORMATS.md §4.2, §4.3): which output and operand dims of a
// convolution, a dot or a fusion built around one are batch, feature, spatial or contracting.

#include "layout.h"
#include "layoutconstants.h"

#include <algorithm>
#include <unordered_set>

namespace tpuscope::model::layout {

using detail::kMaxNesting;
using hlo::Instruction;
using hlo::PrimitiveType;

const char* semanticsName(DimSemantics semantics)
{
    switch (semantics) {
    case DimSemantics::Batch:
        return "batch";
    case DimSemantics::Feature:
        return "feature";
    case DimSemantics::Spatial:
        return "spatial";
    case DimSemantics::Contracting:
        return "contracting";
    case DimSemantics::NonContracting:
        return "non-contracting";
    case DimSemantics::Unknown:
        break;
    }
    return "unknown";
}

namespace {

bool isComputeCore(const Instruction& instruction)
{
    return instruction.opcode == "convolution" || instruction.opcode == "dot";
}

bool callsComputation(const Instruction& instruction)
{
    return (instruction.opcode == "fusion" || instruction.opcode == "call")
        && !instruction.calledComputationIds.empty();
}

// Ops whose output dim i is operand dim i (bitcast/reshape only where sizes match, see mapAcross): the path
// from a fusion root back to its convolution usually goes through these (bias add, activation, convert).
bool isShapePreserving(std::string_view opcode)
{
    // clang-format off
    static const std::unordered_set<std::string_view> kOps = {
        "abs", "add", "and", "atan2", "bitcast", "bitcast-convert", "cbrt", "ceil", "clamp", "compare", "convert",
        "copy", "cosine", "divide", "erf", "exponential", "exponential-minus-one", "floor", "imag", "is-finite",
        "log", "log-plus-one", "logistic", "maximum", "minimum", "multiply", "negate", "not", "or", "popcnt",
        "power", "real", "reduce-precision", "remainder", "reshape", "round-nearest-afz", "round-nearest-even",
        "rsqrt", "select", "shift-left", "shift-right-arithmetic", "shift-right-logical", "sign", "sine", "sqrt",
        "subtract", "tan", "tanh", "xor", "optimization-barrier",
    };
    // clang-format on
    return kOps.count(opcode) != 0;
}

const Instruction* operandOf(
    const hlo::Module& module, const hlo::Computation* computation, const Instruction& instruction, size_t index)
{
    if (index >= instruction.operandIds.size())
        return nullptr;
    const int64_t id = instruction.operandIds[index];
    if (computation) {
        if (const Instruction* found = computation->findInstruction(id))
            return found;
    }
    return module.instructionById(id);
}

std::optional<size_t> operandRank(
    const hlo::Module& module, const hlo::Computation* computation, const Instruction& instruction, size_t index)
{
    if (index < instruction.operandShapes.size() && !instruction.operandShapes[index].isTuple()
        && instruction.operandShapes[index].elementType != PrimitiveType::Invalid)
        return instruction.operandShapes[index].dimensions.size();
    if (const Instruction* operand = operandOf(module, computation, instruction, index)) {
        if (!operand->shape.isTuple())
            return operand->shape.dimensions.size();
    }
    return std::nullopt;
}

void label(std::vector<DimSemantics>& out, int64_t dim, DimSemantics semantics)
{
    if (dim >= 0 && static_cast<size_t>(dim) < out.size())
        out[static_cast<size_t>(dim)] = semantics;
}

/// The shape of operand `index`, from the instruction's own operand shapes or the operand itself.
const hlo::Shape* operandShape(
    const hlo::Module& module, const hlo::Computation* computation, const Instruction& instruction, size_t index)
{
    if (index < instruction.operandShapes.size() && !instruction.operandShapes[index].isTuple()
        && instruction.operandShapes[index].elementType != PrimitiveType::Invalid)
        return &instruction.operandShapes[index];
    const Instruction* operand = operandOf(module, computation, instruction, index);
    return operand && !operand->shape.isTuple() ? &operand->shape : nullptr;
}

bool filterGradient(const hlo::Module& module, const hlo::Computation* computation, const Instruction& conv)
{
    if (conv.opcode != "convolution" || !conv.hasConvolutionDimensions || conv.shape.isTuple())
        return false;
    const auto& numbers = conv.convolution;
    const hlo::Shape* kernel = operandShape(module, computation, conv, 1);
    if (!kernel || numbers.kernelSpatial.empty() || numbers.kernelSpatial.size() != numbers.outputSpatial.size())
        return false;
    const auto size = [](const hlo::Shape& shape, int64_t dim) {
        return dim >= 0 && static_cast<size_t>(dim) < shape.dimensions.size() ? shape.dimensions[dim] : int64_t(-1);
    };
    for (size_t i = 0; i < numbers.kernelSpatial.size(); ++i) {
        const int64_t k = size(*kernel, numbers.kernelSpatial[i]), o = size(conv.shape, numbers.outputSpatial[i]);
        if (k < 0 || o < 0 || k <= o)
            return false;
    }
    return true;
}

std::vector<DimSemantics> directOutputSemantics(const hlo::Module& module, const Instruction& instruction)
{
    if (instruction.shape.isTuple())
        return {};
    std::vector<DimSemantics> out(instruction.shape.dimensions.size(), DimSemantics::Unknown);
    if (instruction.opcode == "convolution") {
        if (!instruction.hasConvolutionDimensions)
            return {};
        const auto& numbers = instruction.convolution;
        // A filter gradient's output is a kernel: the convolution's "batch" is the kernel's input feature.
        const bool kernel = filterGradient(module, nullptr, instruction);
        label(out, numbers.outputBatch, kernel ? DimSemantics::Contracting : DimSemantics::Batch);
        label(out, numbers.outputFeature, DimSemantics::Feature);
        for (int64_t d : numbers.outputSpatial)
            label(out, d, DimSemantics::Spatial);
        return out;
    }
    if (instruction.opcode == "dot") {
        // Dot output order is fixed: batch dims, then lhs non-contracting, then rhs non-contracting.
        const size_t batch = instruction.dot.lhsBatch.size();
        for (size_t i = 0; i < out.size(); ++i)
            out[i] = i < batch ? DimSemantics::Batch : DimSemantics::NonContracting;
        return out;
    }
    return {};
}

// Carries labels across an op whose operand has shape `from` and result has shape `to`.
std::optional<std::vector<DimSemantics>> mapAcross(
    const std::vector<DimSemantics>& semantics, const hlo::Shape& from, const hlo::Shape& to)
{
    if (from.isTuple() || to.isTuple() || from.dimensions.size() != to.dimensions.size()
        || semantics.size() != from.dimensions.size())
        return std::nullopt;
    std::vector<DimSemantics> out = semantics;
    for (size_t i = 0; i < out.size(); ++i) {
        if (from.dimensions[i] != to.dimensions[i])
            out[i] = DimSemantics::Unknown;
    }
    return out;
}

std::vector<DimSemantics> directOperandSemantics(
    const hlo::Module& module, const hlo::Computation* computation, const Instruction& instruction, size_t index)
{
    auto rank = operandRank(module, computation, instruction, index);
    if (!rank || index > 1)
        return {};
    std::vector<DimSemantics> out(*rank, DimSemantics::Unknown);
    if (instruction.opcode == "convolution") {
        if (!instruction.hasConvolutionDimensions)
            return {};
        const auto& numbers = instruction.convolution;
        // A filter gradient contracts the model's batch: its input's and output gradient's
        // convolution "feature" is the batch, and the input's convolution "batch" is its channels.
        const bool gradient = filterGradient(module, computation, instruction);
        if (index == 0) {
            label(out, numbers.inputBatch, gradient ? DimSemantics::Feature : DimSemantics::Batch);
            label(out, numbers.inputFeature, gradient ? DimSemantics::Batch : DimSemantics::Feature);
            for (int64_t d : numbers.inputSpatial)
                label(out, d, DimSemantics::Spatial);
        } else {
            label(out, numbers.kernelInputFeature, gradient ? DimSemantics::Batch : DimSemantics::Contracting);
            label(out, numbers.kernelOutputFeature, DimSemantics::Feature);
            for (int64_t d : numbers.kernelSpatial)
                label(out, d, DimSemantics::Spatial);
        }
        return out;
    }
    if (instruction.opcode == "dot") {
        const auto& batch = index == 0 ? instruction.dot.lhsBatch : instruction.dot.rhsBatch;
        const auto& contracting = index == 0 ? instruction.dot.lhsContracting : instruction.dot.rhsContracting;
        std::fill(out.begin(), out.end(), DimSemantics::NonContracting);
        for (int64_t d : batch)
            label(out, d, DimSemantics::Batch);
        for (int64_t d : contracting)
            label(out, d, DimSemantics::Contracting);
        return out;
    }
    return {};
}

// Walks HLO graphs that come from files: a visited set keeps malformed (cyclic) or highly shared
// graphs linear, the depth limit keeps the stack bounded.
class Walker
{
public:
    explicit Walker(const hlo::Module& module)
        : m_module(module)
    {
    }

    std::vector<DimSemantics> outputSemantics(const Instruction& instruction, int depth)
    {
        if (instruction.shape.isTuple() || depth > kMaxNesting)
            return {};
        if (isComputeCore(instruction))
            return directOutputSemantics(m_module, instruction);
        if (!callsComputation(instruction))
            return {};
        const hlo::Computation* computation = m_module.computation(instruction.calledComputationIds.front());
        const Instruction* root = computation ? computation->root() : nullptr;
        if (!root)
            return {};
        auto semantics = semanticsThrough(*computation, *root, depth + 1);
        if (!semantics || semantics->size() != instruction.shape.dimensions.size())
            return {};
        return *semantics;
    }

    const Instruction* findCore(const Instruction& instruction, int depth)
    {
        if (depth > kMaxNesting)
            return nullptr;
        if (isComputeCore(instruction))
            return &instruction;
        if (!callsComputation(instruction))
            return nullptr;
        const hlo::Computation* computation = m_module.computation(instruction.calledComputationIds.front());
        const Instruction* root = computation ? computation->root() : nullptr;
        return root ? coreBelow(*computation, *root, depth + 1) : nullptr;
    }

    // Walks from a core operand down to fused parameter `parameter`, carrying labels across each op.
    std::optional<std::vector<DimSemantics>> labelsAtParameter(const hlo::Computation& computation,
        const Instruction& instruction, const std::vector<DimSemantics>& semantics, int64_t parameter, int depth)
    {
        if (instruction.opcode == "parameter")
            return instruction.parameterNumber == parameter ? std::optional(semantics) : std::nullopt;
        if (depth > kMaxNesting || !isShapePreserving(instruction.opcode) || !firstVisit(instruction))
            return std::nullopt;
        for (size_t i = 0; i < instruction.operandIds.size(); ++i) {
            const Instruction* operand = operandOf(m_module, &computation, instruction, i);
            if (!operand)
                continue;
            auto mapped = mapAcross(semantics, instruction.shape, operand->shape);
            if (!mapped)
                continue;
            if (auto found = labelsAtParameter(computation, *operand, *mapped, parameter, depth + 1))
                return found;
        }
        return std::nullopt;
    }

private:
    bool firstVisit(const Instruction& instruction) { return m_visited.insert(&instruction).second; }

    std::optional<std::vector<DimSemantics>> semanticsThrough(
        const hlo::Computation& computation, const Instruction& instruction, int depth)
    {
        if (depth > kMaxNesting || !firstVisit(instruction))
            return std::nullopt;
        if (isComputeCore(instruction) || callsComputation(instruction)) {
            auto direct = outputSemantics(instruction, depth + 1);
            if (direct.empty())
                return std::nullopt;
            return direct;
        }
        if (!isShapePreserving(instruction.opcode))
            return std::nullopt;
        for (size_t i = 0; i < instruction.operandIds.size(); ++i) {
            const Instruction* operand = operandOf(m_module, &computation, instruction, i);
            if (!operand)
                continue;
            auto below = semanticsThrough(computation, *operand, depth + 1);
            if (!below)
                continue;
            if (auto mapped = mapAcross(*below, operand->shape, instruction.shape))
                return mapped;
        }
        return std::nullopt;
    }

    const Instruction* coreBelow(const hlo::Computation& computation, const Instruction& instruction, int depth)
    {
        if (depth > kMaxNesting || !firstVisit(instruction))
            return nullptr;
        if (isComputeCore(instruction) || callsComputation(instruction))
            return findCore(instruction, depth + 1);
        // Multi-output fusions return a tuple of the core's result and its users.
        if (!isShapePreserving(instruction.opcode) && instruction.opcode != "tuple")
            return nullptr;
        for (size_t i = 0; i < instruction.operandIds.size(); ++i) {
            if (const Instruction* operand = operandOf(m_module, &computation, instruction, i)) {
                if (const Instruction* core = coreBelow(computation, *operand, depth + 1))
                    return core;
            }
        }
        return nullptr;
    }

    const hlo::Module& m_module;
    std::unordered_set<const Instruction*> m_visited;
};

} // namespace

bool isFilterGradient(const hlo::Module& module, const Instruction& convolution)
{
    return filterGradient(module, nullptr, convolution);
}

std::vector<DimSemantics> inferOutputSemantics(const hlo::Module& module, const Instruction& instruction)
{
    return Walker(module).outputSemantics(instruction, 0);
}

const Instruction* findComputeCore(const hlo::Module& module, const Instruction& instruction)
{
    return Walker(module).findCore(instruction, 0);
}

std::vector<DimSemantics> inferOperandSemantics(
    const hlo::Module& module, const Instruction& instruction, size_t operandIndex)
{
    if (isComputeCore(instruction))
        return directOperandSemantics(module, nullptr, instruction, operandIndex);
    if (!callsComputation(instruction))
        return {};
    const hlo::Computation* computation = module.computation(instruction.calledComputationIds.front());
    const Instruction* core = findComputeCore(module, instruction);
    // A core inside a nested fusion would need a second parameter mapping; not worth it.
    if (!computation || !core || computation->findInstruction(core->id) != core)
        return {};
    for (size_t i = 0; i < core->operandIds.size(); ++i) {
        Walker walker(module);
        const Instruction* operand = operandOf(module, computation, *core, i);
        auto semantics = directOperandSemantics(module, computation, *core, i);
        if (!operand || semantics.empty())
            continue;
        if (auto found
            = walker.labelsAtParameter(*computation, *operand, semantics, static_cast<int64_t>(operandIndex), 0))
            return *found;
    }
    return {};
}

} // namespace tpuscope::model::layout