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

#include "hlo.pb.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace tpuscope::model;

namespace {

void varint(std::string& out, uint64_t v)
{
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
}
void fieldVarint(std::string& out, uint32_t field, uint64_t v)
{
    varint(out, static_cast<uint64_t>(field) << 3);
    varint(out, v);
}
void fieldBytes(std::string& out, uint32_t field, const std::string& payload)
{
    varint(out, (static_cast<uint64_t>(field) << 3) | 2);
    varint(out, payload.size());
    out += payload;
}

std::string makeHloProto(int64_t n)
{
    xla::HloProto proto;
    auto* module = proto.mutable_hlo_module();
    module->set_name("jit_bench_memory");
    auto* computation = module->add_computations();
    computation->set_name("main");
    for (int64_t i = 0; i < n; ++i) {
        auto* in = computation->add_instructions();
        in->set_id(i + 1);
        in->set_name("fusion." + std::to_string(i));
        in->set_opcode("fusion");
        auto* shape = in->mutable_shape();
        shape->set_element_type(xla::PrimitiveType::BF16);
        shape->add_dimensions(16);
        shape->add_dimensions(64 + i % 512);
        shape->mutable_layout()->add_minor_to_major(0);
        shape->mutable_layout()->add_minor_to_major(1);
        shape->mutable_layout()->add_tiles()->add_dimensions(8);
        shape->mutable_layout()->mutable_tiles(0)->add_dimensions(128);
        in->mutable_metadata()->set_op_name("jit(step)/layer" + std::to_string(i % 97) + "/dot_general");
    }
    std::string assignment, temporary, events;
    for (int64_t i = 0; i < n; ++i) {
        std::string at, buffer;
        fieldVarint(at, 4, static_cast<uint64_t>(i + 1));
        fieldVarint(buffer, 1, static_cast<uint64_t>(i));
        fieldVarint(buffer, 2, static_cast<uint64_t>(4096 * (1 + i % 64)));
        fieldBytes(buffer, 3, at);
        fieldBytes(assignment, 1, buffer);
    }
    std::string parameter, assigned;
    fieldVarint(parameter, 1, 0);
    fieldVarint(parameter, 2, 4096);
    fieldVarint(parameter, 5, 1);
    fieldVarint(assigned, 1, 0);
    fieldBytes(parameter, 9, assigned);
    fieldBytes(assignment, 3, parameter);
    fieldVarint(temporary, 1, 1);
    fieldVarint(temporary, 2, static_cast<uint64_t>(n) * 4096 * 64);
    for (int64_t i = 1; i < n; ++i) {
        std::string a;
        fieldVarint(a, 1, static_cast<uint64_t>(i));
        fieldVarint(a, 2, static_cast<uint64_t>(4096 * i));
        fieldBytes(temporary, 9, a);
    }
    fieldBytes(assignment, 3, temporary);
    auto event = [&](uint64_t kind, int64_t buffer, int64_t canonical) {
        std::string e;
        fieldVarint(e, 1, kind);
        fieldVarint(e, 2, static_cast<uint64_t>(buffer));
        fieldBytes(e, 4, "fusion." + std::to_string(buffer));
        if (kind == 2)
            fieldVarint(e, 5, static_cast<uint64_t>(canonical));
        fieldBytes(events, 1, e);
    };
    // A sliding window of 64 live buffers: ALLOC (or SHARE_WITH the previous one), FREE 64 later.
    for (int64_t i = 1; i < n; ++i) {
        if (i % 4 == 0)
            event(2, i, i - 1);
        else
            event(0, i, 0);
        if (i > 64)
            event(1, i - 64, 0);
    }
    for (int64_t i = std::max<int64_t>(1, n - 64); i < n; ++i)
        event(1, i, 0);
    fieldVarint(events, 2, 1);
    fieldBytes(assignment, 4, events);
    std::string out = proto.SerializeAsString();
    fieldBytes(out, 3, assignment);
    return out;
}

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
        const std::string hloProto = makeHloProto(n);
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
