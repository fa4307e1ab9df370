// SPDX-License-Identifier: GPL-3.0-or-later
// The scenario generator's HLO: modules built from specs into xla.HloProto, and the cost model that
// reads an op's FLOPs and bytes from the same specs' shapes.
#include "synthinternal.h"

#include "analysis/layout.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <functional>
#include <set>

namespace tpuscope::model::synth_detail {

// ---------------------------------------------------------------------------------------------
// HLO: modules are described as text-ish specs and converted to xla.HloProto, so that the HLO
// text in the op events and the proto agree by construction.

namespace {

bool shapeToProto(const std::string& text, xla::ShapeProto* out, std::string& error)
{
    layout::ShapeParseResult parsed = layout::parseShape(text);
    if (!parsed.ok()) {
        error = "synth: bad shape " + text + ": " + parsed.error;
        return false;
    }
    std::function<void(const hlo::Shape&, xla::ShapeProto*)> convert = [&](const hlo::Shape& s, xla::ShapeProto* p) {
        p->set_element_type(static_cast<xla::PrimitiveType>(s.elementType));
        for (int64_t d : s.dimensions)
            p->add_dimensions(d);
        for (const hlo::Shape& t : s.tupleShapes)
            convert(t, p->add_tuple_shapes());
        if (s.hasLayout && !s.isTuple()) {
            auto* l = p->mutable_layout();
            for (int64_t d : s.layout.minorToMajor)
                l->add_minor_to_major(d);
            for (const hlo::Tile& tile : s.layout.tiles) {
                auto* t = l->add_tiles();
                for (int64_t d : tile.dimensions)
                    t->add_dimensions(d);
            }
            l->set_element_size_in_bits(s.layout.elementSizeInBits);
            l->set_memory_space(s.layout.memorySpace);
            l->set_tail_padding_alignment_in_elements(s.layout.tailPaddingAlignment);
        }
    };
    convert(parsed.shape, out);
    return true;
}

} // namespace

std::string serializeModule(const BuiltModule& module)
{
    std::string out = serializeDeterministic(module.proto);
    if (module.bufferAssignment) {
        const std::string assignment = serializeDeterministic(*module.bufferAssignment);
        std::string header;
        {
            google::protobuf::io::StringOutputStream stream(&header);
            google::protobuf::io::CodedOutputStream coded(&stream);
            coded.WriteTag(google::protobuf::internal::WireFormatLite::MakeTag(
                3, google::protobuf::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
            coded.WriteVarint64(assignment.size());
        }
        out += header + assignment;
    }
    return out;
}

bool buildModule(const std::string& moduleName, int64_t moduleId, const std::vector<CompSpec>& computations,
    BuiltModule& built, std::string& error)
{
    auto* module = built.proto.mutable_hlo_module();
    module->set_name(moduleName);
    module->set_id(moduleId);
    std::map<std::string, int64_t> computationIds;
    int64_t nextInstructionId = 1;
    int64_t nextComputationId = 1;
    for (const CompSpec& spec : computations) {
        auto* comp = module->add_computations();
        const int64_t compId = nextComputationId++;
        comp->set_name(spec.name);
        comp->set_id(compId);
        comp->set_is_fusion_computation(spec.isFusion);
        computationIds[spec.name] = compId;
        std::map<std::string, std::pair<int64_t, std::string>> local; // name -> id, shape
        for (const InstSpec& is : spec.instructions) {
            auto* inst = comp->add_instructions();
            const int64_t id = nextInstructionId++;
            inst->set_id(id);
            inst->set_name(is.name);
            inst->set_opcode(is.opcode);
            if (!shapeToProto(is.shape, inst->mutable_shape(), error))
                return false;
            std::string text = "%" + is.name + " = " + is.shape + " " + is.opcode + "(";
            for (size_t i = 0; i < is.operands.size(); ++i) {
                auto it = local.find(is.operands[i]);
                if (it == local.end()) {
                    error = "synth: " + is.name + " uses unknown operand " + is.operands[i];
                    return false;
                }
                inst->add_operand_ids(it->second.first);
                if (!shapeToProto(it->second.second, inst->add_operand_shapes_with_layout(), error))
                    return false;
                text += std::string(i ? ", " : "") + it->second.second + " %" + is.operands[i];
            }
            if (is.parameterNumber >= 0) {
                inst->set_parameter_number(is.parameterNumber);
                text += std::to_string(is.parameterNumber);
            }
            if (is.opcode == "constant")
                text += "0";
            text += ")";
            if (!is.attributes.empty())
                text += ", " + is.attributes;
            if (!is.fusionKind.empty()) {
                inst->set_fusion_kind(is.fusionKind);
                text += ", kind=" + is.fusionKind;
            }
            if (!is.calls.empty()) {
                auto it = computationIds.find(is.calls);
                if (it == computationIds.end()) {
                    error = "synth: " + is.name + " calls unknown computation " + is.calls;
                    return false;
                }
                inst->add_called_computation_ids(it->second);
                text += (is.opcode == "fusion" ? ", calls=%" : ", to_apply=%") + is.calls;
            }
            if (is.hasConv) {
                auto* d = inst->mutable_convolution_dimension_numbers();
                d->set_input_batch_dimension(is.inB);
                d->set_input_feature_dimension(is.inF);
                for (int64_t s : is.inS)
                    d->add_input_spatial_dimensions(s);
                d->set_kernel_input_feature_dimension(is.kI);
                d->set_kernel_output_feature_dimension(is.kO);
                for (int64_t s : is.kS)
                    d->add_kernel_spatial_dimensions(s);
                d->set_output_batch_dimension(is.outB);
                d->set_output_feature_dimension(is.outF);
                for (int64_t s : is.outS)
                    d->add_output_spatial_dimensions(s);
                inst->set_feature_group_count(1);
                inst->set_batch_group_count(1);
            }
            if (!is.opType.empty() || !is.opName.empty()) {
                auto* m = inst->mutable_metadata();
                m->set_op_type(is.opType);
                m->set_op_name(is.opName);
                m->set_source_file(is.sourceFile);
                m->set_source_line(is.sourceLine);
            }
            local[is.name] = {id, is.shape};
            built.hloText[is.name] = text;
        }
        if (spec.instructions.empty()) {
            error = "synth: empty computation " + spec.name;
            return false;
        }
        comp->set_root_id(local[spec.instructions.back().name].first);
    }
    const auto& entry = computations.back();
    module->set_entry_computation_name(entry.name);
    module->set_entry_computation_id(computationIds[entry.name]);
    return true;
}

// ---------------------------------------------------------------------------------------------
// Costs from HLO shapes, so that an op's FLOPs and bytes are what its own HLO says it does.

namespace {

struct LogicalSize
{
    double elements = 0;
    double bytes = 0;
};

/// Elements and bytes of an array as its dimensions give them, without tile padding: that is
/// what XLA's cost analysis records as `bytes_accessed` on TPU (in the vLLM trace every copy,
/// broadcast and fusion with a padded layout, about 200 of them, records exactly its logical
/// operand + result bytes), so the FLOPs, bytes and HBM breakdown of an op use it alike.
LogicalSize logicalSize(const hlo::Shape& shape)
{
    LogicalSize size;
    if (shape.isTuple()) {
        for (const hlo::Shape& element : shape.tupleShapes) {
            const LogicalSize part = logicalSize(element);
            size.elements += part.elements;
            size.bytes += part.bytes;
        }
        return size;
    }
    size.elements = 1;
    for (int64_t d : shape.dimensions)
        size.elements *= static_cast<double>(d);
    size.bytes = size.elements * hlo::primitiveTypeBits(shape.elementType) / 8;
    return size;
}

hlo::Shape parsedShape(const std::string& text)
{
    return layout::parseShape(text).shape;
}

/// FLOPs of one instruction, as XLA's HloCostAnalysis counts them: a convolution
/// 2 × output elements × kernel spatial size × input features / feature groups (every tap of
/// the window, padding included; XLA skips the taps that fall on padding, 1 % fewer for a
/// 3×3 window with pad 1 on 128×128); an element-wise op one per output element; a reduce
/// one per input element it folds in (input − output elements); an all-reduce one per
/// element; data movement (copy, transpose, broadcast, parameter, constant, tuple) none.
double instructionFlops(const InstSpec& inst, const std::map<std::string, const InstSpec*>& byName,
    const std::map<std::string, const CompSpec*>& computations)
{
    auto operandShape = [&](size_t i) { return parsedShape(byName.at(inst.operands.at(i))->shape); };
    const double outputElements = logicalSize(parsedShape(inst.shape)).elements;
    if (inst.opcode == "fusion") {
        const CompSpec& called = *computations.at(inst.calls);
        std::map<std::string, const InstSpec*> inner;
        for (const InstSpec& i : called.instructions)
            inner[i.name] = &i;
        double flops = 0;
        for (const InstSpec& i : called.instructions)
            flops += instructionFlops(i, inner, computations);
        return flops;
    }
    if (inst.opcode == "convolution") {
        const hlo::Shape input = operandShape(0);
        const hlo::Shape kernel = operandShape(1);
        double kernelSpatial = 1;
        for (int64_t d : inst.kS)
            kernelSpatial *= static_cast<double>(kernel.dimensions.at(static_cast<size_t>(d)));
        const double inputFeatures = static_cast<double>(input.dimensions.at(static_cast<size_t>(inst.inF)));
        return 2 * outputElements * kernelSpatial * inputFeatures; // feature_group_count is 1
    }
    static const std::set<std::string> elementwise
        = {"add", "subtract", "multiply", "divide", "maximum", "minimum", "logistic", "exponential", "tanh"};
    if (elementwise.count(inst.opcode))
        return outputElements;
    if (inst.opcode == "reduce")
        return logicalSize(operandShape(0)).elements - outputElements;
    if (inst.opcode == "all-reduce")
        return outputElements;
    return 0;
}

} // namespace

OpCost opCostFromShapes(const std::vector<CompSpec>& computations, const std::string& entryName, const std::string& op)
{
    std::map<std::string, const CompSpec*> byComputation;
    for (const CompSpec& c : computations)
        byComputation[c.name] = &c;
    std::map<std::string, const InstSpec*> entry;
    for (const InstSpec& i : byComputation.at(entryName)->instructions)
        entry[i.name] = &i;
    const InstSpec& inst = *entry.at(op);
    OpCost cost;
    cost.flops = instructionFlops(inst, entry, byComputation);
    for (const std::string& operand : inst.operands)
        cost.readBytes += logicalSize(parsedShape(entry.at(operand)->shape)).bytes;
    cost.writeBytes = logicalSize(parsedShape(inst.shape)).bytes;
    return cost;
}

} // namespace tpuscope::model::synth_detail
