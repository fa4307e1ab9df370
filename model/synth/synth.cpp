// SPDX-License-Identifier: GPL-3.0-or-later
#include "synth.h"

#include "analysis/layout.h"
#include "core/atomicfile.h"

#include "hlo.pb.h"
#include "xplane.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace tpuscope::model {

namespace {

using Sink = std::function<bool(std::string_view)>;

// Fixed time base (2024-11-29 UTC) so files are reproducible.
constexpr int64_t kTimeBaseNs = 1732900000000000000;

// Deterministic PRNG that is identical on every platform (std distributions are not).
class SplitMix
{
public:
    explicit SplitMix(uint64_t seed)
        : m_state(seed)
    {
    }
    uint64_t next()
    {
        uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [-1, 1).
    double symmetric() { return static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0; }

private:
    uint64_t m_state;
};

std::string serializeDeterministic(const google::protobuf::MessageLite& message)
{
    std::string out;
    {
        google::protobuf::io::StringOutputStream stream(&out);
        google::protobuf::io::CodedOutputStream coded(&stream);
        coded.SetSerializationDeterministic(true);
        message.SerializeToCodedStream(&coded);
    }
    return out;
}

void appendVarint(std::string& out, uint64_t v)
{
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7F) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
}

void appendField(std::string& out, uint32_t fieldNumber, std::string_view bytes)
{
    appendVarint(out, (fieldNumber << 3) | 2);
    appendVarint(out, bytes.size());
    out.append(bytes);
}

// Protobuf field numbers of the repeated messages written by hand (xplane.proto).
constexpr uint32_t kSpacePlanesField = 1;
constexpr uint32_t kPlaneLinesField = 3;
constexpr uint32_t kLineEventsField = 4;

/// One line whose events are already serialized (so big lines never exist as message objects).
struct LineData
{
    tensorflow::profiler::XLine header; // without events
    std::string events; // concatenated field-4 records
};

void appendEvent(LineData& line, int64_t metadataId, int64_t offsetPs, int64_t durationPs)
{
    tensorflow::profiler::XEvent event;
    event.set_metadata_id(metadataId);
    event.set_offset_ps(offsetPs);
    event.set_duration_ps(durationPs);
    appendField(line.events, kLineEventsField, event.SerializeAsString());
}

bool writePlane(const Sink& sink, const tensorflow::profiler::XPlane& header, const std::vector<LineData>& lines)
{
    std::string body = serializeDeterministic(header);
    for (const LineData& line : lines) {
        std::string lineBytes = serializeDeterministic(line.header);
        lineBytes += line.events;
        appendField(body, kPlaneLinesField, lineBytes);
    }
    std::string record;
    appendVarint(record, (kSpacePlanesField << 3) | 2);
    appendVarint(record, body.size());
    return sink(record) && sink(body);
}

// ---------------------------------------------------------------------------------------------
// Stat helpers: stat metadata ids are per plane, looked up by name like the real runtime does.

class StatTable
{
public:
    explicit StatTable(tensorflow::profiler::XPlane& plane)
        : m_plane(plane)
    {
    }
    int64_t id(const std::string& name)
    {
        auto it = m_ids.find(name);
        if (it != m_ids.end())
            return it->second;
        const int64_t id = static_cast<int64_t>(m_ids.size()) + 1;
        m_ids.emplace(name, id);
        auto& meta = (*m_plane.mutable_stat_metadata())[id];
        meta.set_id(id);
        meta.set_name(name);
        return id;
    }
    tensorflow::profiler::XStat* add(
        google::protobuf::RepeatedPtrField<tensorflow::profiler::XStat>* stats, const std::string& name)
    {
        auto* stat = stats->Add();
        stat->set_metadata_id(id(name));
        return stat;
    }

private:
    tensorflow::profiler::XPlane& m_plane;
    std::map<std::string, int64_t> m_ids;
};

void addDevicePlaneStats(tensorflow::profiler::XPlane& plane, StatTable& stats, const std::string& deviceType,
    double peakTflops, double peakHbmGbps)
{
    stats.add(plane.mutable_stats(), "device_type_string")->set_str_value(deviceType);
    stats.add(plane.mutable_stats(), "peak_teraflops_per_second")->set_double_value(peakTflops);
    stats.add(plane.mutable_stats(), "peak_hbm_bw_gigabytes_per_second")->set_double_value(peakHbmGbps);
}

// ---------------------------------------------------------------------------------------------
// HLO: modules are described as text-ish specs and converted to xla.HloProto, so that the HLO
// text in the op events and the proto agree by construction.

struct InstSpec
{
    std::string name;
    std::string opcode;
    std::string shape; // HLO text shape with layout
    std::vector<std::string> operands;
    std::string attributes; // printed after the operands, e.g. "dimensions={3}"
    std::string fusionKind;
    std::string calls; // called computation name (fusion, reduce, all-reduce)
    bool hasConv = false;
    // b, f, spatial... for input / kernel(i, o, spatial) / output
    int64_t inB = 0, inF = 0, kI = 0, kO = 0, outB = 0, outF = 0;
    std::vector<int64_t> inS, kS, outS;
    int64_t parameterNumber = -1;
    std::string opType, opName, sourceFile;
    int sourceLine = 0;
};

struct CompSpec
{
    std::string name;
    bool isFusion = false;
    std::vector<InstSpec> instructions; // the last one is the root
};

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

struct BuiltModule
{
    xla::HloProto proto;
    std::map<std::string, std::string> hloText; // entry instruction name -> HLO text line
    std::optional<xla::BufferAssignmentProto> bufferAssignment; // written as HloProto field 3
};

/// The HloProto bytes, with the buffer assignment appended as field 3 (proto/hlo.proto leaves it out).
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
// Op kinds on the device planes.

/// One XLA op of a scenario and how long it runs. Its FLOPs and bytes come from its HLO shapes
/// (opCostFromShapes); its time from those and one of: a share of the peak HBM bandwidth
/// (memory-bound ops), a fixed latency (tiny ops), or a share of the step's op time.
struct OpSpec
{
    std::string name; // HLO instruction name in the entry computation
    std::string category; // hlo_category
    double hbmUtilization = 0; // duration = HBM bytes / (this × peak HBM bandwidth)
    double latencyPs = 0; // duration when the op is too small for bandwidth to matter
    double opTimeShare = 0; // duration = this share of the step's op time
    std::string tfOp, source;
};

struct DeviceSpec
{
    std::string deviceType = "TPU v3";
    double peakTflops = 61.5; // per TensorCore (FORMATS.md §6.1: 123 per chip, 2 cores)
    double peakHbmGbps = 450; // per TensorCore (900 GB/s per chip)
};

std::string memoryBreakdown(double hbmReadBytes, double hbmWriteBytes)
{
    // MemoryAccessBreakdown: what the op reads from and writes to HBM (memory space 1). On-chip
    // traffic (VMEM) does not follow from the shapes, so none is recorded.
    tensorflow::profiler::MemoryAccessBreakdown breakdown;
    auto add = [&](int op, uint64_t space, double bytes) {
        auto* m = breakdown.add_memory_accessed();
        m->set_operation_type(op);
        m->set_memory_space(space);
        m->set_bytes_accessed(static_cast<uint64_t>(std::llround(bytes)));
    };
    add(1, 1, hbmReadBytes);
    add(2, 1, hbmWriteBytes);
    return serializeDeterministic(breakdown);
}

/// Adds the XEventMetadata of one XLA op (stats in the order the v6e runtime writes them).
void addOpMetadata(tensorflow::profiler::XPlane& plane, StatTable& stats, int64_t id, const std::string& hloText,
    const std::string& displayName, const std::string& category, uint64_t programId, uint64_t symbolId, double flops,
    double hbmReadBytes, double hbmWriteBytes, const std::string& shapeWithLayout, const std::string& tfOp,
    const std::string& source)
{
    const double bytesAccessed = hbmReadBytes + hbmWriteBytes;
    auto& meta = (*plane.mutable_event_metadata())[id];
    meta.set_id(id);
    meta.set_name(hloText);
    meta.set_display_name(displayName);
    auto* s = meta.mutable_stats();
    stats.add(s, "hlo_category")->set_str_value(category);
    stats.add(s, "program_id")->set_uint64_value(programId);
    stats.add(s, "symbol_id")->set_uint64_value(symbolId);
    stats.add(s, "flops")->set_int64_value(std::llround(flops));
    stats.add(s, "model_flops")->set_int64_value(std::llround(flops));
    stats.add(s, "bytes_accessed")->set_int64_value(std::llround(bytesAccessed));
    stats.add(s, "memory_access_breakdown")->set_bytes_value(memoryBreakdown(hbmReadBytes, hbmWriteBytes));
    if (!source.empty())
        stats.add(s, "source")->set_str_value(source);
    stats.add(s, "raw_bytes_accessed")->set_int64_value(std::llround(bytesAccessed));
    stats.add(s, "shape_with_layout")->set_str_value(shapeWithLayout);
    if (!tfOp.empty())
        stats.add(s, "tf_op")->set_str_value(tfOp);
}

bool writeMetadataPlane(
    const Sink& sink, int64_t planeId, const std::vector<std::pair<uint64_t, const BuiltModule*>>& modules)
{
    tensorflow::profiler::XPlane plane;
    plane.set_id(planeId);
    plane.set_name("/host:metadata");
    StatTable stats(plane);
    for (const auto& [programId, module] : modules) {
        // Real files key programs by the id's bits read as int64 (FORMATS.md §2.5).
        const int64_t key = static_cast<int64_t>(programId);
        auto& meta = (*plane.mutable_event_metadata())[key];
        meta.set_id(key);
        meta.set_name(module->proto.hlo_module().name() + "(" + std::to_string(programId) + ")");
        stats.add(meta.mutable_stats(), "Hlo Proto")->set_bytes_value(serializeModule(*module));
    }
    return writePlane(sink, plane, {});
}

// ---------------------------------------------------------------------------------------------
// Costs from HLO shapes, so that an op's FLOPs and bytes are what its own HLO says it does.

struct OpCost
{
    double flops = 0;
    double readBytes = 0; // operands, from HBM
    double writeBytes = 0; // result, to HBM
};

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

/// The cost of an entry instruction: its FLOPs (a fusion's are those of its fused
/// instructions) and the bytes of its operands and result.
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

// ---------------------------------------------------------------------------------------------
// Scenario: the origin story (ANCHORS.md §3.4/§3.5): a U-Net-like training step on a TPU v3-8,
// global batch 128 = 16 per core, whose last convolution (1 output channel) runs in an output
// fusion with batch in the 128-wide minor tile and feature in the 8-wide tile.

constexpr uint64_t kOriginProgramId = 9512765332485726481ull; // > INT64_MAX on purpose (signed keys)

std::vector<CompSpec> originComputations()
{
    const std::string act3 = "f32[16,128,128,3]{0,3,2,1:T(4,128)}";
    const std::string act32 = "f32[16,128,128,32]{0,3,2,1:T(8,128)}";
    const std::string act1 = "f32[16,128,128,1]{0,3,2,1:T(8,128)}";
    const std::string scalar = "f32[]{:T(128)}";
    auto param = [](std::string name, std::string shape, int64_t n) {
        InstSpec s;
        s.name = std::move(name);
        s.opcode = "parameter";
        s.shape = std::move(shape);
        s.parameterNumber = n;
        return s;
    };
    auto op = [](std::string name, std::string opcode, std::string shape, std::vector<std::string> operands,
                  std::string attributes = {}) {
        InstSpec s;
        s.name = std::move(name);
        s.opcode = std::move(opcode);
        s.shape = std::move(shape);
        s.operands = std::move(operands);
        s.attributes = std::move(attributes);
        return s;
    };
    auto meta = [](InstSpec s, std::string type, std::string name, int line) {
        s.opType = std::move(type);
        s.opName = std::move(name);
        s.sourceFile = "unet.py";
        s.sourceLine = line;
        return s;
    };
    // NHWC activations, conv "b01f_01io->b01f".
    auto forwardConv
        = [&](std::string name, std::string shape, std::vector<std::string> operands, const std::string& window) {
              InstSpec s = op(std::move(name), "convolution", std::move(shape), std::move(operands),
                  "window={" + window + "}, dim_labels=b01f_01io->b01f");
              s.hasConv = true;
              s.inB = 0, s.inF = 3, s.inS = {1, 2};
              s.kI = 2, s.kO = 3, s.kS = {0, 1};
              s.outB = 0, s.outF = 3, s.outS = {1, 2};
              return s;
          };

    std::vector<CompSpec> comps;
    comps.push_back({"region_add.1", false,
        {param("x.1", "f32[]", 0), param("y.2", "f32[]", 1), op("add.3", "add", "f32[]", {"x.1", "y.2"})}});

    // First conv 3 -> 32 with ReLU.
    comps.push_back({"fused_computation.7", true,
        {param("param_0.4", act3, 0), param("param_1.5", "f32[3,3,3,32]{3,2,1,0:T(8,128)}", 1),
            meta(forwardConv("convolution.41", act32, {"param_0.4", "param_1.5"}, "size=3x3 pad=1_1x1_1"), "Conv2D",
                "unet/conv2d_1/Conv2D", 41),
            op("constant.12", "constant", scalar, {}),
            op("broadcast.13", "broadcast", act32, {"constant.12"}, "dimensions={}"),
            meta(op("maximum.14", "maximum", act32, {"convolution.41", "broadcast.13"}), "Relu", "unet/conv2d_1/Relu",
                41)}});
    // Batch-norm style scale (loop fusion, HBM bound).
    comps.push_back({"fused_computation.12", true,
        {param("param_0.6", act32, 0), param("param_1.7", "f32[32]{0:T(128)}", 1),
            op("broadcast.15", "broadcast", act32, {"param_1.7"}, "dimensions={3}"),
            meta(op("multiply.16", "multiply", act32, {"param_0.6", "broadcast.15"}), "Mul",
                "unet/batch_normalization_1/mul", 44)}});
    // The origin-story fusion: last conv 32 -> 1 channel, bias, sigmoid.
    comps.push_back({"fused_computation.3", true,
        {param("param_0.1", act32, 0), param("param_1.2", "f32[17,17,32,1]{3,2,1,0:T(8,128)}", 1),
            param("param_2.3", "f32[1]{0:T(128)}", 2),
            meta(forwardConv("convolution.114", act1, {"param_0.1", "param_1.2"}, "size=17x17 pad=8_8x8_8"), "Conv2D",
                "unet/conv2d_18/Conv2D", 87),
            op("broadcast.8", "broadcast", act1, {"param_2.3"}, "dimensions={3}"),
            meta(op("add.9", "add", act1, {"convolution.114", "broadcast.8"}), "BiasAdd", "unet/conv2d_18/BiasAdd", 87),
            meta(op("logistic.10", "logistic", act1, {"add.9"}), "Sigmoid", "unet/conv2d_18/Sigmoid", 87)}});
    // Loss: per-example sum (input fusion around a reduce).
    {
        InstSpec reduce
            = op("reduce.22", "reduce", "f32[16]{0:T(128)}", {"param_0.10", "constant.21"}, "dimensions={1,2,3}");
        reduce.calls = "region_add.1";
        reduce = meta(reduce, "Sum", "loss/Sum", 102);
        comps.push_back({"fused_computation.20", true,
            {param("param_0.10", act1, 0), op("constant.21", "constant", scalar, {}), reduce}});
    }
    // Sigmoid gradient p * (1 - p) (loop fusion on the padded 1-channel array).
    comps.push_back({"fused_computation.15", true,
        {param("param_0.8", act1, 0), op("constant.17", "constant", scalar, {}),
            op("broadcast.18", "broadcast", act1, {"constant.17"}, "dimensions={}"),
            op("subtract.19", "subtract", act1, {"broadcast.18", "param_0.8"}),
            meta(op("multiply.20", "multiply", act1, {"param_0.8", "subtract.19"}), "SigmoidGrad",
                "gradients/unet/conv2d_18/Sigmoid_grad/SigmoidGrad", 87)}});

    CompSpec entry {"main.42", false, {}};
    auto& e = entry.instructions;
    e.push_back(param("Arg_0.1", "f32[16,128,128,3]{3,2,1,0:T(4,128)}", 0));
    e.push_back(param("Arg_1.2", "f32[3,3,3,32]{3,2,1,0:T(8,128)}", 1));
    e.push_back(param("Arg_2.3", "f32[32]{0:T(128)}", 2));
    e.push_back(param("Arg_3.4", "f32[17,17,32,1]{3,2,1,0:T(8,128)}", 3));
    e.push_back(param("Arg_4.5", "f32[1]{0:T(128)}", 4));
    e.push_back(meta(op("copy.5", "copy", act3, {"Arg_0.1"}), "Transpose", "unet/input_layout", 30));
    auto fusion = [&](std::string name, std::string shape, std::vector<std::string> operands, std::string kind,
                      std::string calls) {
        InstSpec s = op(std::move(name), "fusion", std::move(shape), std::move(operands));
        s.fusionKind = std::move(kind);
        s.calls = std::move(calls);
        return s;
    };
    e.push_back(meta(fusion("fusion.7", act32, {"copy.5", "Arg_1.2"}, "kOutput", "fused_computation.7"), "Conv2D",
        "unet/conv2d_1/Conv2D", 41));
    e.push_back(meta(fusion("fusion.12", act32, {"fusion.7", "Arg_2.3"}, "kLoop", "fused_computation.12"), "Mul",
        "unet/batch_normalization_1/mul", 44));
    e.push_back(meta(fusion("fusion.3", act1, {"fusion.12", "Arg_3.4", "Arg_4.5"}, "kOutput", "fused_computation.3"),
        "Conv2D", "unet/conv2d_18/Conv2D", 87));
    e.push_back(meta(fusion("fusion.20", "f32[16]{0:T(128)}", {"fusion.3"}, "kInput", "fused_computation.20"), "Sum",
        "loss/Sum", 102));
    e.push_back(meta(fusion("fusion.15", act1, {"fusion.3"}, "kLoop", "fused_computation.15"), "SigmoidGrad",
        "gradients/unet/conv2d_18/Sigmoid_grad/SigmoidGrad", 87));
    {
        // Kernel gradient ("gradient-update conv", ANCHORS §3.5): activations with batch as the
        // contracting feature, output [kh, kw, in, out].
        InstSpec s = op("convolution.33", "convolution", "f32[17,17,32,1]{3,2,1,0:T(8,128)}",
            {"fusion.12", "fusion.15"}, "window={size=128x128 pad=8_8x8_8}, dim_labels=f01b_i01o->01bf");
        s.hasConv = true;
        s.inB = 3, s.inF = 0, s.inS = {1, 2};
        s.kI = 0, s.kO = 3, s.kS = {1, 2};
        s.outB = 2, s.outF = 3, s.outS = {0, 1};
        e.push_back(meta(s, "Conv2DBackpropFilter", "gradients/unet/conv2d_18/Conv2D_grad/Conv2DBackpropFilter", 87));
    }
    {
        InstSpec s = op("all-reduce.1", "all-reduce", "f32[17,17,32,1]{3,2,1,0:T(8,128)}", {"convolution.33"},
            "channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}");
        s.calls = "region_add.1";
        e.push_back(meta(s, "CrossReplicaSum", "CrossReplicaSum", 120));
    }
    e.push_back(meta(
        op("transpose.2", "transpose", "f32[1,32,17,17]{3,2,1,0:T(8,128)}", {"all-reduce.1"}, "dimensions={3,2,0,1}"),
        "Transpose", "gradients/unet/conv2d_18/transpose", 121));
    e.push_back(op(
        "tuple.40", "tuple", "(f32[16]{0:T(128)}, f32[1,32,17,17]{3,2,1,0:T(8,128)})", {"fusion.20", "transpose.2"}));
    comps.push_back(std::move(entry));
    return comps;
}

std::vector<OpSpec> originOps()
{
    // Execution order of one step. Each op's FLOPs and bytes follow from its HLO shapes; its time
    // from those at the rate it plausibly reaches on a v3 core (450 GB/s of HBM, 61.5 TFLOP/s).
    // At per-core batch 16 most ops here are bound by memory: the 3x3 convolution does 13 FLOP per
    // byte against a ridge point of 137. fusion.3 is the op the story is about: a 17x17 convolution
    // 32 -> 1 channel (140 FLOP per byte, at the ridge), so at 58 % of the op time it runs at about
    // 12 % of the peak FLOP rate and 12 % of its roofline bound, because its output puts the batch
    // (16) in the 128-wide tile and the feature (1) in the 8-wide tile: 1.56 % of each tile holds
    // data. Its kernel gradient (convolution.33) has the same FLOPs and streams near HBM speed.
    return {
        // Changes the input's layout to batch-minor, below streaming speed.
        {"copy.5", "data formatting", 0.60, 0, 0, "unet/input_layout:Transpose", "unet.py:30"},
        // Writes the 32-channel activation: bound by HBM.
        {"fusion.7", "convolution fusion", 0.78, 0, 0, "unet/conv2d_1/Conv2D:Conv2D", "unet.py:41"},
        {"fusion.12", "loop fusion", 0.85, 0, 0, "unet/batch_normalization_1/mul:Mul", "unet.py:44"},
        {"fusion.3", "output fusion", 0, 0, 0.58, "unet/conv2d_18/Conv2D:Conv2D", "unet.py:87"},
        // Small arrays (1 MiB) with the batch in the lanes: far from streaming speed, and still
        // at least 1 % of the op time, like every op here (so a share file keeps each of them).
        {"fusion.20", "input fusion", 0.18, 0, 0, "loss/Sum:Sum", "unet.py:102"},
        {"fusion.15", "loop fusion", 0.35, 0, 0, "gradients/unet/conv2d_18/Sigmoid_grad/SigmoidGrad:SigmoidGrad",
            "unet.py:87"},
        // The kernel gradient streams fusion.12's activation once, near HBM speed (and near the
        // ridge point: 74 % of the peak FLOP rate).
        {"convolution.33", "convolution", 0.72, 0, 0,
            "gradients/unet/conv2d_18/Conv2D_grad/Conv2DBackpropFilter:Conv2DBackpropFilter", "unet.py:87"},
        // 36 KiB over 8 replicas, and a 36 KiB transpose: latency, not bandwidth.
        {"all-reduce.1", "all-reduce", 0, 14e6, 0, "CrossReplicaSum:CrossReplicaSum", "unet.py:120"},
        {"transpose.2", "data formatting", 0, 12.5e6, 0, "gradients/unet/conv2d_18/transpose:Transpose", "unet.py:121"},
    };
}

/// Each op's duration in one step (before jitter), from its cost and its OpSpec.
std::vector<double> originDurationsPs(
    const std::vector<OpSpec>& ops, const std::vector<OpCost>& costs, double peakHbmGbps)
{
    std::vector<double> durations(ops.size(), 0);
    double fixed = 0, shared = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].hbmUtilization > 0)
            durations[i]
                = (costs[i].readBytes + costs[i].writeBytes) / (ops[i].hbmUtilization * peakHbmGbps * 1e9) * 1e12;
        else
            durations[i] = ops[i].latencyPs;
        fixed += durations[i];
        shared += ops[i].opTimeShare;
    }
    // Ops with a share of the op time split what the others leave: share × total, total = fixed + shares.
    for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].opTimeShare > 0)
            durations[i] = fixed * ops[i].opTimeShare / (1 - shared);
    return durations;
}

// The memory side of the origin story: the compiler's buffer assignment of one step. Every
// activation has batch 16 in the 128-wide minor tile, so it takes 8x its bytes (the 1-channel ones
// 64x: feature 1 also fills an 8-wide tile); those activations dominate the HBM peak. Sizes are the
// padded sizes of the layouts, as XLA writes them.
bool originBufferAssignment(const BuiltModule& module, xla::BufferAssignmentProto& out, std::string& error)
{
    const xla::HloComputationProto* entry = nullptr;
    for (const auto& c : module.proto.hlo_module().computations())
        if (c.name() == "main.42")
            entry = &c;
    if (!entry) {
        error = "synth: origin-story has no entry computation";
        return false;
    }
    std::map<std::string, const xla::HloInstructionProto*> byName;
    for (const auto& in : entry->instructions())
        byName[in.name()] = &in;
    std::map<std::string, int64_t> bufferOf;
    // Buffer sizes from the layouts (tuples: one 8-byte pointer per element).
    auto paddedSize = [&](const xla::HloInstructionProto& in) -> int64_t {
        if (in.shape().element_type() == xla::PrimitiveType::TUPLE)
            return 8 * in.shape().tuple_shapes_size();
        hlo::Shape shape;
        shape.elementType = static_cast<hlo::PrimitiveType>(in.shape().element_type());
        shape.dimensions.assign(in.shape().dimensions().begin(), in.shape().dimensions().end());
        shape.hasLayout = in.shape().has_layout();
        shape.layout.minorToMajor.assign(
            in.shape().layout().minor_to_major().begin(), in.shape().layout().minor_to_major().end());
        for (const auto& tile : in.shape().layout().tiles())
            shape.layout.tiles.push_back(hlo::Tile {{tile.dimensions().begin(), tile.dimensions().end()}});
        return layout::computePadding(shape).paddedBytes;
    };
    int64_t nextBuffer = 0;
    auto logical = [&](const std::string& name) {
        const xla::HloInstructionProto& in = *byName.at(name);
        auto* b = out.add_logical_buffers();
        b->set_id(nextBuffer++);
        b->set_size(paddedSize(in));
        b->mutable_defined_at()->set_instruction_id(in.id());
        bufferOf[name] = b->id();
    };
    for (const char* name : {"Arg_0.1", "Arg_1.2", "Arg_2.3", "Arg_3.4", "Arg_4.5", "copy.5", "fusion.7", "fusion.12",
             "fusion.3", "fusion.20", "fusion.15", "convolution.33", "all-reduce.1", "transpose.2", "tuple.40"}) {
        if (!byName.count(name)) {
            error = std::string("synth: origin-story has no instruction ") + name;
            return false;
        }
        logical(name);
    }
    auto allocation = [&](const std::vector<std::string>& names) {
        auto* a = out.add_buffer_allocations();
        a->set_index(out.buffer_allocations_size() - 1);
        int64_t size = 0;
        for (const auto& name : names) {
            auto* assigned = a->add_assigned();
            assigned->set_logical_buffer_id(bufferOf.at(name));
            assigned->set_size(out.logical_buffers(static_cast<int>(bufferOf.at(name))).size());
            size = std::max(size, assigned->size());
        }
        a->set_size(size);
        return a;
    };
    const char* const params[] = {"Arg_0.1", "Arg_1.2", "Arg_2.3", "Arg_3.4", "Arg_4.5"};
    for (int p = 0; p < 5; ++p) {
        auto* a = allocation({params[p]});
        a->set_is_entry_computation_parameter(true);
        a->set_parameter_number(p);
    }
    auto* output = allocation({"tuple.40"});
    output->set_maybe_live_out(true);
    output->set_is_tuple(true);
    allocation({"fusion.20"})->set_maybe_live_out(true);
    allocation({"transpose.2"})->set_maybe_live_out(true);

    // The temporaries share one allocation; the heap simulator's trace runs in schedule order.
    const std::vector<std::pair<xla::HeapSimulatorTrace::Event::Kind, std::string>> schedule = {
        {xla::HeapSimulatorTrace::Event::ALLOC, "copy.5"},
        {xla::HeapSimulatorTrace::Event::ALLOC, "fusion.7"},
        {xla::HeapSimulatorTrace::Event::FREE, "copy.5"},
        {xla::HeapSimulatorTrace::Event::ALLOC, "fusion.12"},
        {xla::HeapSimulatorTrace::Event::FREE, "fusion.7"},
        {xla::HeapSimulatorTrace::Event::ALLOC, "fusion.3"},
        {xla::HeapSimulatorTrace::Event::ALLOC, "fusion.15"},
        {xla::HeapSimulatorTrace::Event::FREE, "fusion.3"},
        {xla::HeapSimulatorTrace::Event::ALLOC, "convolution.33"},
        {xla::HeapSimulatorTrace::Event::FREE, "fusion.12"},
        {xla::HeapSimulatorTrace::Event::FREE, "fusion.15"},
        {xla::HeapSimulatorTrace::Event::ALLOC, "all-reduce.1"},
        {xla::HeapSimulatorTrace::Event::FREE, "convolution.33"},
        {xla::HeapSimulatorTrace::Event::FREE, "all-reduce.1"},
    };
    std::vector<std::string> temporaries;
    for (const auto& [kind, name] : schedule)
        if (kind == xla::HeapSimulatorTrace::Event::ALLOC)
            temporaries.push_back(name);
    auto* temp = allocation(temporaries);
    // Offsets as a heap simulator would place them: one after the other while alive together.
    int64_t live = 0, peak = 0;
    std::map<std::string, int64_t> offsets;
    for (const auto& [kind, name] : schedule) {
        const int64_t size = out.logical_buffers(static_cast<int>(bufferOf.at(name))).size();
        if (kind == xla::HeapSimulatorTrace::Event::ALLOC) {
            offsets[name] = live;
            live += size;
            peak = std::max(peak, live);
        } else
            live -= size;
    }
    for (auto& assigned : *temp->mutable_assigned())
        for (const auto& [name, id] : bufferOf)
            if (id == assigned.logical_buffer_id())
                assigned.set_offset(offsets[name]);
    temp->set_size(peak);
    auto* trace = out.add_heap_simulator_traces();
    for (const auto& [kind, name] : schedule) {
        auto* event = trace->add_events();
        event->set_kind(kind);
        event->set_buffer_id(bufferOf.at(name));
        event->set_computation_name("main.42");
        event->set_instruction_name(name);
    }
    trace->set_whole_module_simulation(true);
    trace->set_buffer_allocation_index(temp->index());
    return true;
}

bool writeOriginStory(const SynthOptions& options, const Sink& sink, std::string& error)
{
    if (options.cores < 1 || options.cores > 4096 || options.steps < 1 || options.steps > 100000) {
        error = "synth: origin-story needs 1..4096 cores and 1..100000 steps";
        return false;
    }
    BuiltModule module;
    if (!buildModule("cluster_train_step", 1, originComputations(), module, error))
        return false;
    module.bufferAssignment.emplace();
    if (!originBufferAssignment(module, *module.bufferAssignment, error))
        return false;
    const std::string moduleEventName = "cluster_train_step(" + std::to_string(kOriginProgramId) + ")";
    const std::vector<OpSpec> ops = originOps();
    const DeviceSpec device;
    const std::vector<CompSpec> computations = originComputations();
    std::vector<OpCost> costs;
    for (const OpSpec& o : ops)
        costs.push_back(opCostFromShapes(computations, "main.42", o.name));
    const std::vector<double> durationsPs = originDurationsPs(ops, costs, device.peakHbmGbps);
    // One step: about 1.11 ms of ops + ~30 µs idle between steps (2.8 %: below the idle-gap threshold).
    const double gapPs = 30e6;
    SplitMix rng(options.seed);

    // Shapes from the entry computation, for the shape_with_layout stat.
    std::map<std::string, std::string> shapes;
    for (const CompSpec& c : computations)
        for (const InstSpec& i : c.instructions)
            shapes[i.name] = i.shape;

    for (int core = 0; core < options.cores; ++core) {
        tensorflow::profiler::XPlane plane;
        plane.set_id(2 + core);
        plane.set_name("/device:TPU:" + std::to_string(core));
        StatTable stats(plane);
        addDevicePlaneStats(plane, stats, device.deviceType, device.peakTflops, device.peakHbmGbps);
        // Event metadata: 1 = module, 2.. = ops, then one per step number.
        {
            auto& m = (*plane.mutable_event_metadata())[1];
            m.set_id(1);
            m.set_name(moduleEventName);
        }
        for (size_t i = 0; i < ops.size(); ++i) {
            const OpSpec& o = ops[i];
            addOpMetadata(plane, stats, static_cast<int64_t>(2 + i), module.hloText[o.name], o.name, o.category,
                kOriginProgramId, 10 + i, costs[i].flops, costs[i].readBytes, costs[i].writeBytes, shapes[o.name],
                o.tfOp, o.source);
        }
        const int64_t stepMetaBase = 2 + static_cast<int64_t>(ops.size());
        for (int s = 0; s < options.steps; ++s) {
            auto& m = (*plane.mutable_event_metadata())[stepMetaBase + s];
            m.set_id(stepMetaBase + s);
            m.set_name(std::to_string(s));
        }

        LineData steps, modules, xlaOps;
        steps.header.set_id(1);
        steps.header.set_name("Steps");
        modules.header.set_id(2);
        modules.header.set_name("XLA Modules");
        xlaOps.header.set_id(3);
        xlaOps.header.set_name("XLA Ops");
        // Integer picoseconds throughout, so that adjacent events never overlap by a rounding error.
        int64_t t = 1300000 * int64_t(core); // cores start a few µs apart
        std::vector<int64_t> stepStarts;
        for (int s = 0; s < options.steps; ++s) {
            const int64_t stepStart = t;
            stepStarts.push_back(stepStart);
            int64_t opStart = t + 200000; // launch latency inside the module
            for (size_t i = 0; i < ops.size(); ++i) {
                const int64_t d = std::llround(durationsPs[i] * (1.0 + 0.02 * rng.symmetric()));
                appendEvent(xlaOps, 2 + static_cast<int64_t>(i), opStart, d);
                opStart += d + 100000;
            }
            const int64_t moduleEnd = opStart + 100000;
            appendEvent(modules, 1, stepStart, moduleEnd - stepStart);
            t = moduleEnd + std::llround(gapPs * (1.0 + 0.2 * rng.symmetric()));
        }
        // Steps span from one step start to the next (a step includes the idle time before the next one).
        for (int s = 0; s < options.steps; ++s) {
            const int64_t end = s + 1 < options.steps ? stepStarts[s + 1] : t;
            appendEvent(steps, stepMetaBase + s, stepStarts[s], end - stepStarts[s]);
        }
        for (LineData* line : {&steps, &modules, &xlaOps}) {
            line->header.set_timestamp_ns(kTimeBaseNs);
            line->header.set_duration_ps(t);
        }
        if (!writePlane(sink, plane, {steps, modules, xlaOps}))
            return false;
    }
    return writeMetadataPlane(sink, 100, {{kOriginProgramId, &module}});
}

// ---------------------------------------------------------------------------------------------
// Scenario: bench:N — N XLA Ops events spread over the cores, 50 ops per module execution.

constexpr uint64_t kBenchProgramId = 4242424242424242ull;

bool writeBench(const SynthOptions& options, const Sink& sink, std::string& error)
{
    if (options.benchEvents < 1 || options.cores < 1 || options.cores > 4096) {
        error = "synth: bench needs N >= 1 events and 1..4096 cores";
        return false;
    }
    constexpr int kOpKinds = 16;
    constexpr int kOpsPerModule = 50;
    const std::string shape = "f32[1024,1024]{1,0:T(8,128)}";
    CompSpec entry {"main.1", false, {}};
    {
        InstSpec p;
        p.name = "Arg_0.1";
        p.opcode = "parameter";
        p.shape = shape;
        p.parameterNumber = 0;
        entry.instructions.push_back(p);
        std::string prev = p.name;
        for (int i = 0; i < kOpKinds; ++i) {
            InstSpec s;
            s.name = "add." + std::to_string(i + 2);
            s.opcode = "add";
            s.shape = shape;
            s.operands = {prev, prev};
            entry.instructions.push_back(s);
            prev = s.name;
        }
    }
    BuiltModule module;
    if (!buildModule("jit_bench", 1, {entry}, module, error))
        return false;
    const std::string moduleEventName = "jit_bench(" + std::to_string(kBenchProgramId) + ")";
    const DeviceSpec device;
    SplitMix rng(options.seed);
    for (int core = 0; core < options.cores; ++core) {
        const int64_t events = options.benchEvents / options.cores + (core < options.benchEvents % options.cores);
        tensorflow::profiler::XPlane plane;
        plane.set_id(2 + core);
        plane.set_name("/device:TPU:" + std::to_string(core));
        StatTable stats(plane);
        addDevicePlaneStats(plane, stats, device.deviceType, device.peakTflops, device.peakHbmGbps);
        auto& m = (*plane.mutable_event_metadata())[1];
        m.set_id(1);
        m.set_name(moduleEventName);
        for (int i = 0; i < kOpKinds; ++i) {
            const std::string name = "add." + std::to_string(i + 2);
            addOpMetadata(plane, stats, 2 + i, module.hloText[name], name, "non-fusion elementwise", kBenchProgramId,
                2 + i, 1024.0 * 1024, 2 * 4 * 1024.0 * 1024, 4 * 1024.0 * 1024, shape, "", "");
        }
        LineData modules, xlaOps;
        modules.header.set_id(2);
        modules.header.set_name("XLA Modules");
        xlaOps.header.set_id(3);
        xlaOps.header.set_name("XLA Ops");
        xlaOps.events.reserve(static_cast<size_t>(events) * 14);
        int64_t t = 1000 * core;
        for (int64_t done = 0; done < events;) {
            const int64_t moduleStart = t;
            t += 1000;
            const int64_t n = std::min<int64_t>(kOpsPerModule, events - done);
            for (int64_t k = 0; k < n; ++k, ++done) {
                const int64_t d = 50000 + static_cast<int64_t>(rng.next() % 100000);
                appendEvent(xlaOps, 2 + static_cast<int64_t>((done + core) % kOpKinds), t, d);
                t += d + 1000;
            }
            appendEvent(modules, 1, moduleStart, t - moduleStart);
            t += 20000;
        }
        for (LineData* line : {&modules, &xlaOps}) {
            line->header.set_timestamp_ns(kTimeBaseNs);
            line->header.set_duration_ps(t);
        }
        std::vector<LineData> lines;
        lines.push_back(std::move(modules));
        lines.push_back(std::move(xlaOps));
        if (!writePlane(sink, plane, lines))
            return false;
    }
    return writeMetadataPlane(sink, 100, {{kBenchProgramId, &module}});
}

bool writeScenario(const SynthOptions& options, const Sink& sink, std::string& error)
{
    if (options.scenario == "origin-story")
        return writeOriginStory(options, sink, error);
    if (options.scenario == "bench")
        return writeBench(options, sink, error);
    error = "synth: unknown scenario '" + options.scenario + "' (use origin-story or bench:N)";
    return false;
}

} // namespace

std::vector<std::pair<std::string, std::string>> synthScenarios()
{
    return {{"origin-story", "U-Net training step on a TPU v3-8, global batch 128 (16 per core): the bundled demo"},
        {"bench:N", "N XLA Ops events over 8 TPU cores with a tiny HLO module (benchmarks; k/M suffixes)"}};
}

bool parseSynthScenario(std::string_view text, SynthOptions& options, std::string& error)
{
    if (text == "origin-story") {
        options.scenario = "origin-story";
        return true;
    }
    if (text.substr(0, 6) == "bench:") {
        std::string_view n = text.substr(6);
        uint64_t multiplier = 1;
        if (!n.empty() && (n.back() == 'k' || n.back() == 'K'))
            multiplier = 1000, n.remove_suffix(1);
        else if (!n.empty() && n.back() == 'M')
            multiplier = 1000000, n.remove_suffix(1);
        int64_t value = 0;
        auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), value);
        if (ec == std::errc() && ptr == n.data() + n.size() && value > 0 && value <= 2000000000 / int64_t(multiplier)) {
            options.scenario = "bench";
            options.benchEvents = value * static_cast<int64_t>(multiplier);
            return true;
        }
        error = "synth: bench:N needs a positive event count up to 2e9 (e.g. bench:1000000 or bench:10M), got '"
            + std::string(text) + "'";
        return false;
    }
    error = "synth: unknown scenario '" + std::string(text) + "'; scenarios: origin-story, bench:N";
    return false;
}

bool writeSyntheticXSpace(const SynthOptions& options, const std::string& path, std::string& error)
{
    AtomicFile out;
    if (!out.open(path, {}, error)) {
        error = "synth: " + error;
        return false;
    }
    std::string writeError;
    const Sink sink = [&](std::string_view bytes) { return out.write(bytes, writeError); };
    if (!writeScenario(options, sink, error) || !out.commit(writeError)) {
        if (!writeError.empty() || error.empty())
            error = "synth: " + (writeError.empty() ? "cannot write " + path : writeError);
        return false;
    }
    return true;
}

bool syntheticXSpaceBytes(const SynthOptions& options, std::string& out, std::string& error)
{
    out.clear();
    const Sink sink = [&](std::string_view bytes) {
        out.append(bytes);
        return true;
    };
    return writeScenario(options, sink, error);
}

} // namespace tpuscope::model
