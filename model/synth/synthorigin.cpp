// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario: the origin story (ANCHORS.md §3.4/§3.5): a U-Net-like training step on a TPU v3-8,
// global batch 128 = 16 per core, whose last convolution (1 output channel) runs in an output
// fusion with batch in the 128-wide minor tile and feature in the 8-wide tile.
#include "synthinternal.h"

#include "analysis/layout.h"

#include <cmath>

namespace tpuscope::model::synth_detail {

namespace {

constexpr uint64_t kOriginProgramId = 9512765332485726481ull; // > INT64_MAX on purpose (signed keys)

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

} // namespace

bool writeOriginStory(const SynthOptions& options, const Sink& sink, std::string& error)
{
    if (options.cores < 1 || options.cores > 4096 || options.steps < 1 || options.steps > 100000) {
        error = "synth: origin-story needs 1..4096 cores and 1..100000 steps";
        return false;
    }
    if (!OriginRecompile::check(options, error))
        return false;
    OriginRecompile recompile(options); // the identity at the demo's own options (synthrecompile.cpp)
    const std::vector<CompSpec> computations = recompile.reshape(originComputations());
    BuiltModule module;
    if (!buildModule("cluster_train_step", 1, computations, module, error))
        return false;
    module.bufferAssignment.emplace();
    if (!originBufferAssignment(module, *module.bufferAssignment, error))
        return false;
    recompile.renumber(module);
    const std::string moduleEventName
        = "cluster_train_step(" + std::to_string(recompile.programId(kOriginProgramId)) + ")";
    const std::vector<OpSpec> ops = originOps();
    const DeviceSpec device;
    std::vector<OpCost> costs;
    for (const OpSpec& o : ops)
        costs.push_back(opCostFromShapes(originComputations(), "main.42", o.name));
    std::vector<double> durationsPs = originDurationsPs(ops, costs, device.peakHbmGbps);
    std::vector<std::string> opNames;
    for (size_t i = 0; i < ops.size(); ++i) {
        opNames.push_back(ops[i].name);
        costs[i] = opCostFromShapes(computations, "main.42", ops[i].name);
    }
    recompile.scaleDurations(durationsPs, originComputations(), computations, opNames, device);
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
            addOpMetadata(plane, stats, static_cast<int64_t>(2 + i), module.hloText[recompile.name(o.name)],
                recompile.name(o.name), o.category, recompile.programId(kOriginProgramId), 10 + i, costs[i].flops,
                costs[i].readBytes, costs[i].writeBytes, shapes[o.name], o.tfOp, o.source);
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
    return writeMetadataPlane(sink, 100, {{recompile.programId(kOriginProgramId), &module}});
}

} // namespace tpuscope::model::synth_detail
