// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario: bench:N — N XLA Ops events spread over the cores, 50 ops per module execution.
#include "synthinternal.h"

#include <algorithm>

namespace tpuscope::model::synth_detail {

namespace {

constexpr uint64_t kBenchProgramId = 4242424242424242ull;

} // namespace

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

} // namespace tpuscope::model::synth_detail
