// SPDX-License-Identifier: GPL-3.0-or-later
// Buffer-assignment benchmark (issue 15: "the decode of a module with 1e5 logical buffers takes
// well under a second"). Builds an HloProto in memory with N instructions, N logical buffers in
// one temporary allocation plus a parameter, and a heap-simulator trace where every buffer is
// allocated and freed (every fourth one shares with its predecessor), then times
//   decode:   decodeBufferAssignment of field 3 alone,
//   hlo:      decodeHloProto of the whole proto (instructions + field 3),
//   analysis: analyzeModuleMemory (heap simulation, buffers at peak, padding).
// Each figure is the best of 5 runs.
//
// usage: bench_memory [N ...]   (default 1e5; prints one JSON line per N)
#include "analysis/memory.h"
#include "loader/bufferassignment.h"
#include "loader/hloconvert.h"

#include "synth/benchinputs.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace tpuscope::model;

namespace {

double bestOf(int runs, const std::function<void()>& fn)
{
    double best = 1e30;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<int64_t> sizes;
    for (int i = 1; i < argc; ++i)
        sizes.push_back(static_cast<int64_t>(std::strtod(argv[i], nullptr)));
    if (sizes.empty())
        sizes = {100'000};
    for (int64_t n : sizes) {
        const std::string hloProto = benchHloProto(n);
        std::string error;
        std::shared_ptr<const hlo::Module> module;
        const double hloSeconds = bestOf(5, [&] { module = decodeHloProto(hloProto, error); });
        if (!module || !module->bufferAssignment) {
            std::fprintf(
                stderr, "bench_memory: %s%s\n", error.c_str(), module ? module->bufferAssignmentError.c_str() : "");
            return 1;
        }
        std::shared_ptr<const hlo::BufferAssignment> assignment;
        const double decodeSeconds = bestOf(5, [&] { assignment = decodeHloProtoBufferAssignment(hloProto, error); });
        ModuleMemory memory;
        const double analysisSeconds = bestOf(5, [&] { memory = analyzeModuleMemory(*module); });
        size_t events = 0;
        for (const auto& trace : assignment->heapTraces)
            events += trace.events.size();
        std::printf(
            "{\"case\":\"buffer_assignment\",\"logical_buffers\":%zu,\"heap_events\":%zu,\"hlo_proto_bytes\":%zu,"
            "\"decode_seconds\":%.4f,\"hlo_decode_seconds\":%.4f,\"analysis_seconds\":%.4f,"
            "\"buffers_at_peak\":%zu,\"peak_heap_bytes\":%lld}\n",
            assignment->logicalBuffers.size(), events, hloProto.size(), decodeSeconds, hloSeconds, analysisSeconds,
            memory.buffersAtPeak.size(), static_cast<long long>(memory.peakHeapBytes));
    }
    return 0;
}
