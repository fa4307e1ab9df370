// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario: pod — a data-parallel training step on H hosts × C TPU v5e chips. Every step runs
// four compute fusions, a small copy to host memory, then one all-reduce over every chip of the pod
// (the step's synchronizing collective), then an update fusion. Each host's clock is off by its
// own offset, and one host may be late: its input pipeline starts its chips late (`input`), one of
// its chips runs the same fusions slower (`slowchip`), or its chips wait on host transfers before
// the all-reduce (`hosttransfer`). Everyone else waits inside the all-reduce: every chip's
// all-reduce ends at the same true instant, the last arrival plus the transfer.
//
// The plan is computed once in true time (integer picoseconds), and both the files and the truth
// (what an analysis must find, SynthPodTruth) are read from it, so they agree by construction.
#include "synthinternal.h"

#include "core/atomicfile.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace tpuscope::model::synth_detail {

namespace {

constexpr uint64_t kPodProgramId = 7340032000000000001ull;
constexpr int kFusions = 4;
constexpr int64_t kUs = 1'000'000; // ps per µs

// Times of one step, in µs unless named otherwise (a v5e chip, 4 MiB f32 arrays).
constexpr int64_t kFirstStepPs = 10 * kUs; // the first step's start after the line's timestamp
constexpr int64_t kLaunchPs = 2 * kUs; // module start to its first op
constexpr int64_t kOpGapPs = 1 * kUs; // between consecutive ops
constexpr double kFusionUs[kFusions] = {300, 250, 200, 150};
constexpr double kFusionJitter = 0.005; // ± 0.5 % per op, so a normal host is never late by 2 % of a step
constexpr int64_t kCopyStartPs = 2 * kUs;
constexpr int64_t kCopyDonePs = 8 * kUs; // every host offloads one small array per step
constexpr int64_t kLateCopyDonePs = 300 * kUs; // the `hosttransfer` host waits this long for it
constexpr int64_t kAllReduceTransferPs = 40 * kUs; // the all-reduce itself, once everyone is there
constexpr double kUpdateUs = 30;
constexpr int64_t kModuleTailPs = 1 * kUs; // last op to module end
constexpr double kStepGapUs = 20; // host launch gap between steps, ± 10 %
constexpr double kInputDelayUs = 350; // the `input` host's chips start this much later, ± 5 %
constexpr double kSlowChipFactor = 1.5; // the `slowchip` host's slow chip runs each fusion this much longer

constexpr const char* kRunName = "2024_11_29_00_00_00";
constexpr const char* kArray = "f32[1024,1024]{1,0:T(8,128)}";
constexpr const char* kHostArray = "f32[1024,1024]{1,0:T(8,128)S(5)}";

// Event metadata ids on each chip plane.
constexpr int64_t kModuleMeta = 1;
constexpr int64_t kFusionMeta = 2; // 2..5
constexpr int64_t kCopyStartMeta = 6;
constexpr int64_t kCopyDoneMeta = 7;
constexpr int64_t kAllReduceMeta = 8;
constexpr int64_t kUpdateMeta = 9;

struct PodEvent
{
    int64_t meta;
    int64_t startPs; // true time
    int64_t durationPs;
};

/// One chip's step: its module run and its ops, in true time.
struct ChipStep
{
    int64_t moduleStartPs = 0;
    int64_t moduleEndPs = 0;
    std::vector<PodEvent> ops;
    int64_t arrivalPs = 0; // its all-reduce's start
    double computePs = 0, hostTransferPs = 0;
};

struct PodPlan
{
    std::vector<int64_t> offsetPs; // per host: written time − true time
    // [host][chip][step]
    std::vector<std::vector<std::vector<ChipStep>>> chips;
    std::vector<int64_t> allReduceEndPs; // per step, true time
};

std::string replicaGroups(int devices)
{
    std::string text = "replica_groups={{";
    for (int d = 0; d < devices; ++d)
        text += (d ? "," : "") + std::to_string(d);
    return text + "}}";
}

std::vector<CompSpec> podComputations(int devices)
{
    auto param = [](std::string name, std::string shape, int64_t n) {
        InstSpec s;
        s.name = std::move(name);
        s.opcode = "parameter";
        s.shape = std::move(shape);
        s.parameterNumber = n;
        return s;
    };
    auto op = [](std::string name, std::string opcode, std::string shape, std::vector<std::string> operands) {
        InstSpec s;
        s.name = std::move(name);
        s.opcode = std::move(opcode);
        s.shape = std::move(shape);
        s.operands = std::move(operands);
        return s;
    };
    std::vector<CompSpec> comps;
    comps.push_back({"region_add.1", false,
        {param("x.1", "f32[]", 0), param("y.2", "f32[]", 1), op("add.3", "add", "f32[]", {"x.1", "y.2"})}});
    for (int k = 1; k <= kFusions + 1; ++k) {
        const std::string n = std::to_string(k);
        comps.push_back({"fused_computation." + n, true,
            {param("param_0." + n, kArray, 0), param("param_1." + n, kArray, 1),
                op("multiply." + n, "multiply", kArray, {"param_0." + n, "param_1." + n})}});
    }
    CompSpec entry {"main.20", false, {}};
    auto& e = entry.instructions;
    e.push_back(param("Arg_0.1", kArray, 0));
    e.push_back(param("Arg_1.2", kArray, 1));
    std::string prev = "Arg_0.1";
    for (int k = 1; k <= kFusions; ++k) {
        InstSpec f = op("fusion." + std::to_string(k), "fusion", kArray, {prev, "Arg_1.2"});
        f.fusionKind = "kLoop";
        f.calls = "fused_computation." + std::to_string(k);
        e.push_back(f);
        prev = f.name;
    }
    e.push_back(op("copy-start.6", "copy-start", std::string("(") + kHostArray + ", " + kArray + ", u32[])", {prev}));
    e.push_back(op("copy-done.7", "copy-done", kHostArray, {"copy-start.6"}));
    InstSpec allReduce = op("all-reduce.8", "all-reduce", kArray, {prev});
    allReduce.attributes = "channel_id=1, " + replicaGroups(devices) + ", use_global_device_ids=true";
    allReduce.calls = "region_add.1";
    e.push_back(allReduce);
    InstSpec update = op("fusion.9", "fusion", kArray, {"all-reduce.8", "Arg_0.1"});
    update.fusionKind = "kLoop";
    update.calls = "fused_computation." + std::to_string(kFusions + 1);
    e.push_back(update);
    e.push_back(
        op("tuple.10", "tuple", std::string("(") + kArray + ", " + kHostArray + ")", {"fusion.9", "copy-done.7"}));
    comps.push_back(std::move(entry));
    return comps;
}

int64_t jittered(SplitMix& rng, double us, double jitter)
{
    return std::llround(us * static_cast<double>(kUs) * (1.0 + jitter * rng.symmetric()));
}

PodPlan planPod(const SynthOptions& o)
{
    PodPlan plan;
    SplitMix offsets(o.seed ^ 0x0FF5E7ull);
    for (int h = 0; h < o.hosts; ++h) {
        // Whole nanoseconds: a host's clock error shows in its lines' timestamp_ns.
        const int64_t ns = std::llround(static_cast<double>(o.podOffsetUs) * 1000.0 * offsets.symmetric());
        plan.offsetPs.push_back(ns * 1000);
    }
    plan.chips.assign(o.hosts, std::vector<std::vector<ChipStep>>(o.chips, std::vector<ChipStep>(o.steps)));
    SplitMix rng(o.seed);
    const int slowChip = o.chips - 1;
    std::vector<int64_t> hostEndPs(o.hosts, 0);
    for (int s = 0; s < o.steps; ++s) {
        int64_t lastArrival = 0;
        for (int h = 0; h < o.hosts; ++h) {
            // Late in latePercent of the steps, spread evenly (every step at 100).
            const bool late = h == o.lateHost && (s * o.latePercent) % 100 < o.latePercent;
            int64_t start = s == 0 ? kFirstStepPs : hostEndPs[h] + jittered(rng, kStepGapUs, 0.1);
            if (late && o.lateKind == "input")
                start += jittered(rng, kInputDelayUs, 0.05);
            for (int c = 0; c < o.chips; ++c) {
                ChipStep& cs = plan.chips[h][c][s];
                cs.moduleStartPs = start;
                int64_t t = start + kLaunchPs;
                const double factor = late && o.lateKind == "slowchip" && c == slowChip ? kSlowChipFactor : 1.0;
                for (int k = 0; k < kFusions; ++k) {
                    const int64_t d = jittered(rng, kFusionUs[k] * factor, kFusionJitter);
                    cs.ops.push_back({kFusionMeta + k, t, d});
                    cs.computePs += static_cast<double>(d);
                    t += d + kOpGapPs;
                }
                const int64_t copyDone = late && o.lateKind == "hosttransfer" ? kLateCopyDonePs : kCopyDonePs;
                cs.ops.push_back({kCopyStartMeta, t, kCopyStartPs});
                t += kCopyStartPs + kOpGapPs;
                cs.ops.push_back({kCopyDoneMeta, t, copyDone});
                t += copyDone + kOpGapPs;
                cs.hostTransferPs = static_cast<double>(kCopyStartPs + copyDone);
                cs.arrivalPs = t;
                lastArrival = std::max(lastArrival, t);
            }
        }
        const int64_t end = lastArrival + kAllReduceTransferPs;
        plan.allReduceEndPs.push_back(end);
        for (int h = 0; h < o.hosts; ++h) {
            hostEndPs[h] = 0;
            for (int c = 0; c < o.chips; ++c) {
                ChipStep& cs = plan.chips[h][c][s];
                cs.ops.push_back({kAllReduceMeta, cs.arrivalPs, end - cs.arrivalPs});
                const int64_t t = end + kOpGapPs;
                const int64_t d = jittered(rng, kUpdateUs, kFusionJitter);
                cs.ops.push_back({kUpdateMeta, t, d});
                cs.computePs += static_cast<double>(d);
                cs.moduleEndPs = t + d + kModuleTailPs;
                hostEndPs[h] = std::max(hostEndPs[h], cs.moduleEndPs);
            }
        }
    }
    return plan;
}

bool writePodHost(const SynthOptions& o, const PodPlan& plan, const BuiltModule& module, int host, const Sink& sink)
{
    const std::string moduleEventName = "jit_train_step(" + std::to_string(kPodProgramId) + ")";
    const char* const opNames[]
        = {"fusion.1", "fusion.2", "fusion.3", "fusion.4", "copy-start.6", "copy-done.7", "all-reduce.8", "fusion.9"};
    const char* const categories[] = {"loop fusion", "loop fusion", "loop fusion", "loop fusion", "copy-start",
        "copy-done", "all-reduce", "loop fusion"};
    const std::vector<CompSpec> computations = podComputations(o.hosts * o.chips);
    std::map<std::string, std::string> shapes;
    for (const InstSpec& i : computations.back().instructions)
        shapes[i.name] = i.shape;
    // v5e: one TensorCore per chip, peaks per core from the generation table (FORMATS.md §6.1).
    const DeviceSpec device {"TPU v5 lite", 197.0, 819.0};
    const int64_t timestampNs = kTimeBaseNs + plan.offsetPs[host] / 1000;
    for (int c = 0; c < o.chips; ++c) {
        tensorflow::profiler::XPlane plane;
        plane.set_id(2 + c);
        plane.set_name("/device:TPU:" + std::to_string(c));
        StatTable stats(plane);
        addDevicePlaneStats(plane, stats, device.deviceType, device.peakTflops, device.peakHbmGbps);
        auto& m = (*plane.mutable_event_metadata())[kModuleMeta];
        m.set_id(kModuleMeta);
        m.set_name(moduleEventName);
        for (int i = 0; i < 8; ++i) {
            const OpCost cost = opCostFromShapes(computations, "main.20", opNames[i]);
            addOpMetadata(plane, stats, kFusionMeta + i, module.hloText.at(opNames[i]), opNames[i], categories[i],
                kPodProgramId, 20 + i, cost.flops, cost.readBytes, cost.writeBytes, shapes[opNames[i]], "",
                "train.py:" + std::to_string(40 + i));
        }
        LineData modules, xlaOps;
        modules.header.set_id(2);
        modules.header.set_name("XLA Modules");
        xlaOps.header.set_id(3);
        xlaOps.header.set_name("XLA Ops");
        int64_t lastEnd = 0;
        for (const ChipStep& step : plan.chips[host][c]) {
            appendEvent(modules, kModuleMeta, step.moduleStartPs, step.moduleEndPs - step.moduleStartPs);
            for (const PodEvent& e : step.ops)
                appendEvent(xlaOps, e.meta, e.startPs, e.durationPs);
            lastEnd = step.moduleEndPs;
        }
        for (LineData* line : {&modules, &xlaOps}) {
            line->header.set_timestamp_ns(timestampNs);
            line->header.set_duration_ps(lastEnd);
        }
        if (!writePlane(sink, plane, {modules, xlaOps}))
            return false;
    }
    return writeMetadataPlane(sink, 100, {{kPodProgramId, &module}}) && writeSpaceHostname(sink, podHostname(host));
}

} // namespace

bool checkPodOptions(const SynthOptions& o, std::string& error)
{
    if (o.hosts < 1 || o.hosts > 256 || o.chips < 1 || o.chips > 16 || o.steps < 1 || o.steps > 10000
        || o.podOffsetUs < 0 || o.podOffsetUs > 100000 || o.lateHost >= o.hosts || o.latePercent < 1
        || o.latePercent > 100 || int64_t(o.hosts) * o.chips * o.steps > 4'000'000) {
        error = "synth: pod needs 1..256 hosts, 1..16 chips, 1..10000 steps, offset_us 0..100000, a late host "
                "below hosts, late_pct 1..100, and at most 4M chip-steps";
        return false;
    }
    if (o.lateKind != "none" && o.lateKind != "input" && o.lateKind != "slowchip" && o.lateKind != "hosttransfer") {
        error = "synth: pod late=HOST:KIND needs KIND input, slowchip, hosttransfer or none";
        return false;
    }
    return true;
}

std::string podHostname(int host)
{
    return "t1v-n-pod-w-" + std::to_string(host);
}

bool writePod(const SynthOptions& options, const std::string& directory, std::string& error)
{
    if (!checkPodOptions(options, error))
        return false;
    BuiltModule module;
    if (!buildModule("jit_train_step", 1, podComputations(options.hosts * options.chips), module, error))
        return false;
    const PodPlan plan = planPod(options);
    const std::filesystem::path run = std::filesystem::path(directory) / "plugins" / "profile" / kRunName;
    std::error_code ec;
    std::filesystem::create_directories(run, ec);
    if (ec) {
        error = "synth: cannot create " + run.string() + ": " + ec.message();
        return false;
    }
    for (int h = 0; h < options.hosts; ++h) {
        const std::string path = (run / (podHostname(h) + ".xplane.pb")).string();
        AtomicFile out;
        std::string writeError;
        if (!out.open(path, {}, writeError)) {
            error = "synth: " + writeError;
            return false;
        }
        const Sink sink = [&](std::string_view bytes) { return out.write(bytes, writeError); };
        if (!writePodHost(options, plan, module, h, sink) || !out.commit(writeError)) {
            error = "synth: " + (writeError.empty() ? "cannot write " + path : writeError);
            return false;
        }
    }
    return true;
}

bool podTruth(const SynthOptions& o, SynthPodTruth& truth, std::string& error)
{
    if (!checkPodOptions(o, error))
        return false;
    const PodPlan plan = planPod(o);
    truth = {};
    truth.lateHost = o.lateHost;
    truth.lateKind = o.lateKind;
    truth.slowChip = o.lateKind == "slowchip" ? o.chips - 1 : -1;
    const size_t steps = static_cast<size_t>(o.steps);
    auto grid = [&] { return std::vector<std::vector<double>>(o.hosts, std::vector<double>(steps, 0)); };
    truth.stepPs = truth.computePs = truth.collectivePs = truth.collectiveWaitPs = truth.idlePs = truth.hostTransferPs
        = grid();
    truth.arrivalPs.assign(o.hosts, std::vector<int64_t>(steps, 0));
    for (int h = 0; h < o.hosts; ++h) {
        truth.hostnames.push_back(podHostname(h));
        truth.clockOffsetPs.push_back(plan.offsetPs[h]);
        const double chips = o.chips;
        for (size_t s = 0; s < steps; ++s) {
            int64_t lastArrival = 0;
            for (int hh = 0; hh < o.hosts; ++hh)
                for (int c = 0; c < o.chips; ++c)
                    lastArrival = std::max(lastArrival, plan.chips[hh][c][s].arrivalPs);
            for (int c = 0; c < o.chips; ++c) {
                const auto& chip = plan.chips[h][c];
                // A step lasts from its module start to the next one's (the last: to its module end).
                const int64_t end = s + 1 < steps ? chip[s + 1].moduleStartPs : chip[s].moduleEndPs;
                const double window = static_cast<double>(end - chip[s].moduleStartPs);
                const double collective = static_cast<double>(plan.allReduceEndPs[s] - chip[s].arrivalPs);
                truth.stepPs[h][s] += window / chips;
                truth.computePs[h][s] += chip[s].computePs / chips;
                truth.hostTransferPs[h][s] += chip[s].hostTransferPs / chips;
                truth.collectivePs[h][s] += collective / chips;
                // The transfer is the shortest all-reduce (the last arrival's); the rest is waiting.
                truth.collectiveWaitPs[h][s] += static_cast<double>(lastArrival - chip[s].arrivalPs) / chips;
                truth.idlePs[h][s] += (window - chip[s].computePs - chip[s].hostTransferPs - collective) / chips;
                truth.arrivalPs[h][s] = std::max(truth.arrivalPs[h][s], chip[s].arrivalPs);
            }
        }
    }
    return true;
}

} // namespace tpuscope::model::synth_detail
