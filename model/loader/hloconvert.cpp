// SPDX-License-Identifier: GPL-3.0-or-later
#include "hloconvert.h"

#include "bufferassignment.h"
#include "wirereader.h"

#include "hlo.pb.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>

namespace tpuscope::model {

namespace {

hlo::Shape convertShape(const xla::ShapeProto& proto, int depth = 0)
{
    hlo::Shape shape;
    shape.elementType = static_cast<hlo::PrimitiveType>(proto.element_type());
    shape.dimensions.assign(proto.dimensions().begin(), proto.dimensions().end());
    if (depth < 64)
        for (const auto& element : proto.tuple_shapes())
            shape.tupleShapes.push_back(convertShape(element, depth + 1));
    if (proto.has_layout()) {
        shape.hasLayout = true;
        const auto& layout = proto.layout();
        shape.layout.minorToMajor.assign(layout.minor_to_major().begin(), layout.minor_to_major().end());
        for (const auto& tile : layout.tiles())
            shape.layout.tiles.push_back(hlo::Tile {{tile.dimensions().begin(), tile.dimensions().end()}});
        shape.layout.elementSizeInBits = layout.element_size_in_bits();
        shape.layout.memorySpace = layout.memory_space();
        shape.layout.tailPaddingAlignment = layout.tail_padding_alignment_in_elements();
    }
    return shape;
}

hlo::Instruction convertInstruction(const xla::HloInstructionProto& proto)
{
    hlo::Instruction in;
    in.id = proto.id();
    in.name = proto.name();
    in.opcode = proto.opcode();
    in.shape = convertShape(proto.shape());
    in.fusionKind = proto.fusion_kind();
    in.operandIds.assign(proto.operand_ids().begin(), proto.operand_ids().end());
    in.calledComputationIds.assign(proto.called_computation_ids().begin(), proto.called_computation_ids().end());
    for (const auto& operand : proto.operand_shapes_with_layout())
        in.operandShapes.push_back(convertShape(operand));
    if (proto.has_convolution_dimension_numbers()) {
        const auto& c = proto.convolution_dimension_numbers();
        in.hasConvolutionDimensions = true;
        in.convolution.inputBatch = c.input_batch_dimension();
        in.convolution.inputFeature = c.input_feature_dimension();
        in.convolution.inputSpatial.assign(c.input_spatial_dimensions().begin(), c.input_spatial_dimensions().end());
        in.convolution.kernelInputFeature = c.kernel_input_feature_dimension();
        in.convolution.kernelOutputFeature = c.kernel_output_feature_dimension();
        in.convolution.kernelSpatial.assign(c.kernel_spatial_dimensions().begin(), c.kernel_spatial_dimensions().end());
        in.convolution.outputBatch = c.output_batch_dimension();
        in.convolution.outputFeature = c.output_feature_dimension();
        in.convolution.outputSpatial.assign(c.output_spatial_dimensions().begin(), c.output_spatial_dimensions().end());
    }
    if (proto.has_dot_dimension_numbers()) {
        const auto& d = proto.dot_dimension_numbers();
        in.hasDotDimensions = true;
        in.dot.lhsContracting.assign(d.lhs_contracting_dimensions().begin(), d.lhs_contracting_dimensions().end());
        in.dot.rhsContracting.assign(d.rhs_contracting_dimensions().begin(), d.rhs_contracting_dimensions().end());
        in.dot.lhsBatch.assign(d.lhs_batch_dimensions().begin(), d.lhs_batch_dimensions().end());
        in.dot.rhsBatch.assign(d.rhs_batch_dimensions().begin(), d.rhs_batch_dimensions().end());
    }
    in.featureGroupCount = proto.feature_group_count();
    in.batchGroupCount = proto.batch_group_count();
    in.parameterNumber = proto.parameter_number();
    in.customCallTarget = proto.custom_call_target();
    if (proto.has_metadata()) {
        in.opType = proto.metadata().op_type();
        in.opName = proto.metadata().op_name();
        in.sourceFile = proto.metadata().source_file();
        in.sourceLine = proto.metadata().source_line();
    }
    return in;
}

/// Counts the repeated field `field` of the message `bytes`, or descends: `path` names the
/// length-delimited fields on the way (HloProto.hlo_module 1 → HloModuleProto.computations 3 →
/// HloComputationProto.instructions 2; FORMATS.md §3).
uint64_t countOnWire(std::string_view bytes, const uint32_t* path, size_t depth)
{
    uint64_t count = 0;
    wire::Reader reader(bytes);
    while (reader.next()) {
        if (reader.field() != path[0] || reader.type() != wire::Len) {
            reader.skip();
            continue;
        }
        const std::string_view inner = reader.bytes();
        count += depth == 1 ? 1 : countOnWire(inner, path + 1, depth - 1);
    }
    return count;
}

} // namespace

uint64_t countHloInstructions(std::string_view bytes)
{
    static constexpr uint32_t kPath[] = {1, 3, 2};
    return countOnWire(bytes, kPath, 3);
}

std::shared_ptr<const hlo::Module> decodeHloProto(std::string_view bytes, std::string& error)
{
    google::protobuf::Arena arena;
    auto* proto = google::protobuf::Arena::CreateMessage<xla::HloProto>(&arena);
    google::protobuf::io::CodedInputStream stream(
        reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(std::min<size_t>(bytes.size(), INT32_MAX)));
    stream.SetRecursionLimit(64);
    if (!proto->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
        error = "the embedded HLO proto could not be decoded (corrupt, truncated, or messages nested deeper than 64 "
                "levels)";
        return nullptr;
    }
    auto module = std::make_shared<hlo::Module>();
    const auto& m = proto->hlo_module();
    module->name = m.name();
    module->id = m.id();
    module->entryComputationId = m.entry_computation_id();
    module->computations.reserve(m.computations_size());
    for (const auto& c : m.computations()) {
        hlo::Computation computation;
        computation.id = c.id();
        computation.name = c.name();
        computation.rootId = c.root_id();
        computation.isFusion = c.is_fusion_computation();
        computation.instructions.reserve(c.instructions_size());
        for (const auto& instruction : c.instructions())
            computation.instructions.push_back(convertInstruction(instruction));
        module->computations.push_back(std::move(computation));
    }
    module->buildIndex();
    // Field 3 is not in proto/hlo.proto: it is read from the wire, bounds-checked, so that a corrupt
    // buffer assignment leaves the module usable.
    module->bufferAssignment = decodeHloProtoBufferAssignment(bytes, module->bufferAssignmentError);
    return module;
}

} // namespace tpuscope::model
