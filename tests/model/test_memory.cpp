// SPDX-License-Identifier: GPL-3.0-or-later
// The HBM memory view: buffer-assignment decode (HloProto field 3), xprof's peak heap, the
// buffers at the peak and their padding. Hand-made assignments are written as wire bytes so the
// decoder and the heap simulation are tested together.
#include "analysis/profileanalysis.h"
#include "analysis/advice.h"
#include "analysis/memory.h"
#include "core/jsondom.h"
#include "core/profile.h"
#include "loader/bufferassignment.h"
#include "loader/hloconvert.h"
#include "loader/loader.h"
#include "report/memoryreport.h"
#include "share/sharefile.h"
#include "synth/synth.h"

#include "hlo.pb.h"

#include "testutil.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

/// A protobuf message written field by field (just what the buffer assignment needs).
class Message
{
public:
    Message& varint(uint32_t field, uint64_t value)
    {
        tag(field, 0);
        raw(value);
        return *this;
    }
    Message& bytes(uint32_t field, const std::string& payload)
    {
        tag(field, 2);
        raw(payload.size());
        m_bytes += payload;
        return *this;
    }
    Message& message(uint32_t field, const Message& sub) { return bytes(field, sub.str()); }
    Message& packed(uint32_t field, const std::vector<int64_t>& values)
    {
        Message body;
        for (int64_t v : values)
            body.raw(static_cast<uint64_t>(v));
        return bytes(field, body.str());
    }
    const std::string& str() const { return m_bytes; }

private:
    void tag(uint32_t field, uint32_t type) { raw((static_cast<uint64_t>(field) << 3) | type); }
    void raw(uint64_t v)
    {
        while (v >= 0x80) {
            m_bytes += static_cast<char>((v & 0x7f) | 0x80);
            v >>= 7;
        }
        m_bytes += static_cast<char>(v);
    }
    std::string m_bytes;
};

Message logicalBuffer(
    int64_t id, int64_t size, int64_t instructionId, std::vector<int64_t> shapeIndex = {}, int64_t color = 0)
{
    Message at;
    at.varint(4, static_cast<uint64_t>(instructionId));
    if (!shapeIndex.empty())
        at.packed(3, shapeIndex);
    Message b;
    b.varint(1, static_cast<uint64_t>(id)).varint(2, static_cast<uint64_t>(size)).message(3, at);
    if (color)
        b.varint(4, static_cast<uint64_t>(color));
    return b;
}

struct AllocationSpec
{
    int64_t index = 0;
    int64_t size = 0;
    std::vector<int64_t> buffers {};
    bool parameter = false, liveOut = false, threadLocal = false, constant = false;
    int64_t color = 0;
};

Message allocation(const AllocationSpec& spec)
{
    Message a;
    a.varint(1, static_cast<uint64_t>(spec.index)).varint(2, static_cast<uint64_t>(spec.size));
    if (spec.threadLocal)
        a.varint(3, 1);
    if (spec.parameter)
        a.varint(5, 1);
    if (spec.liveOut)
        a.varint(7, 1);
    if (spec.color)
        a.varint(8, static_cast<uint64_t>(spec.color));
    for (int64_t id : spec.buffers)
        a.message(9, Message().varint(1, static_cast<uint64_t>(id)));
    if (spec.constant)
        a.varint(12, 1);
    return a;
}

enum Kind : uint64_t { kAlloc = 0, kFree = 1, kShare = 2 };
Message event(Kind kind, int64_t buffer, int64_t canonical = 0)
{
    Message e;
    e.varint(1, kind).varint(2, static_cast<uint64_t>(buffer)).bytes(4, "op" + std::to_string(buffer));
    if (kind == kShare)
        e.varint(5, static_cast<uint64_t>(canonical));
    return e;
}

Message trace(const std::vector<Message>& events)
{
    Message t;
    for (const auto& e : events)
        t.message(1, e);
    return t.varint(2, 1);
}

xla::ShapeProto arrayShape(int type, std::vector<int64_t> dims, std::vector<int64_t> minorToMajor,
    std::vector<std::vector<int64_t>> tiles = {})
{
    xla::ShapeProto s;
    s.set_element_type(static_cast<xla::PrimitiveType>(type));
    for (int64_t d : dims)
        s.add_dimensions(d);
    for (int64_t m : minorToMajor)
        s.mutable_layout()->add_minor_to_major(m);
    for (const auto& tile : tiles) {
        auto* t = s.mutable_layout()->add_tiles();
        for (int64_t d : tile)
            t->add_dimensions(d);
    }
    return s;
}

constexpr int kF32 = 11, kBF16 = 16, kTuple = 13;

/// A module whose instructions 1..n are f32[256,128] (no padding), except those given.
std::string hloProtoWith(
    const Message& assignment, std::vector<std::pair<int64_t, xla::ShapeProto>> shapes = {}, int instructions = 8)
{
    xla::HloProto proto;
    auto* module = proto.mutable_hlo_module();
    module->set_name("jit_memory_test");
    auto* computation = module->add_computations();
    computation->set_name("main");
    for (int i = 1; i <= instructions; ++i) {
        auto* in = computation->add_instructions();
        in->set_id(i);
        in->set_name("op" + std::to_string(i));
        in->set_opcode("fusion");
        *in->mutable_shape() = arrayShape(kF32, {256, 128}, {1, 0}, {{8, 128}});
        in->mutable_metadata()->set_op_name("jit(f)/op" + std::to_string(i));
        for (const auto& [id, shape] : shapes)
            if (id == i)
                *in->mutable_shape() = shape;
    }
    return proto.SerializeAsString() + Message().message(3, assignment).str();
}

std::shared_ptr<const hlo::Module> decode(const std::string& bytes)
{
    std::string error;
    auto module = decodeHloProto(bytes, error);
    EXPECT_TRUE(module) << error;
    return module;
}

constexpr int64_t kMiB = 1 << 20; // the size of an f32[256,128] buffer is 128 KiB; sizes here are free to choose

} // namespace

// The real v6e sample: every module's figures equal the independent python decode
// (tests/tools/memory_golden.py over tests/tools/schema; ctest golden_tool.v6e_memory).
TEST(MemoryView, V6eModulesMatchTheIndependentDecode)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v6e_inference.xplane.pb");
    LoadResult loaded = loadProfile(samplePath("tpu_v6e_inference.xplane.pb"));
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const MemoryReport report = analyzeMemory(*loaded.profile);

    json::Value golden;
    json::ParseError error;
    ASSERT_TRUE(json::parse(readFile(dataPath("v6e_memory.golden.json")), golden, error)) << error.describe();
    ASSERT_EQ(golden["modules"].size(), 4u);
    ASSERT_EQ(report.modules.size(), 4u);
    for (const auto& expected : golden["modules"].array()) {
        const ModuleMemory* m = report.find(expected["name"].string());
        ASSERT_NE(m, nullptr) << expected["name"].string();
        SCOPED_TRACE(m->name);
        EXPECT_EQ(static_cast<uint64_t>(m->peakHeapBytes), expected["peak_heap_bytes"].uint64());
        EXPECT_EQ(static_cast<uint64_t>(m->totalAllocationBytes), expected["total_allocation_bytes"].uint64());
        EXPECT_EQ(static_cast<uint64_t>(m->indefiniteBytes), expected["indefinite_bytes"].uint64());
        EXPECT_EQ(static_cast<uint64_t>(m->entryParameterBytes), expected["entry_parameter_bytes"].uint64());
        EXPECT_EQ(static_cast<uint64_t>(m->maybeLiveOutBytes), expected["maybe_live_out_bytes"].uint64());
        EXPECT_TRUE(m->warnings.empty()) << m->warnings.front();
        // The buffers listed at the peak add up to it: nothing counted is left out of the table.
        int64_t listed = 0, padding = 0;
        for (const auto& b : m->buffersAtPeak) {
            listed += b.sizeBytes;
            padding += b.paddingBytes();
        }
        EXPECT_EQ(listed, m->peakHeapBytes);
        EXPECT_EQ(padding, m->peakPaddingBytes);
    }
    // v6e: 32 GB per chip; jit_f peaks at 20 GiB + 32 B.
    EXPECT_DOUBLE_EQ(report.hbmCapacityBytes, 32e9);
    EXPECT_NEAR(report.capacityFraction(*report.find("jit_f")), 21474836512.0 / 32e9, 1e-12);
    // jit_f's peak is reached after the fourth event: three copy-starts and a fusion of 5 GiB each.
    const ModuleMemory& f = *report.find("jit_f");
    EXPECT_EQ(f.peakPosition, 4);
    EXPECT_EQ(f.timeline[4].heapBytes, f.peakHeapBytes);
    EXPECT_EQ(f.timeline.size(), 13u); // 12 events + the state before them
    EXPECT_EQ(f.timeline.back().heapBytes, f.indefiniteBytes);
    // An f32 scalar in a T(128) tile is 4 bytes of 512.
    const ModuleMemory& convert = *report.find("jit_convert_element_type");
    ASSERT_EQ(convert.buffersAtPeak.size(), 2u);
    EXPECT_EQ(convert.buffersAtPeak[0].unpaddedBytes, 4);
    ASSERT_EQ(convert.buffersAtPeak[0].paddedDims.size(), 1u);
    EXPECT_EQ(convert.buffersAtPeak[0].paddedDims[0].text(), "scalar padded to 128 elements by tile T(128)");
    EXPECT_EQ(convert.peakPaddingBytes, 2 * (512 - 4));
}

TEST(MemoryView, ShareWithChainsKeepTheCanonicalAliveUntilTheLastReference)
{
    Message ba;
    ba.message(1, logicalBuffer(10, 4 * kMiB, 1)).message(1, logicalBuffer(11, 4 * kMiB, 2));
    ba.message(1, logicalBuffer(12, 4 * kMiB, 3)).message(1, logicalBuffer(13, 1 * kMiB, 4));
    ba.message(3, allocation({.index = 0, .size = 16 * kMiB, .buffers = {10, 11, 12, 13}}));
    // A, then B shares A, C shares B (a chain): freeing A and B keeps the bytes; C's FREE releases them.
    ba.message(4,
        trace({event(kAlloc, 10), event(kShare, 11, 10), event(kShare, 12, 11), event(kFree, 10), event(kFree, 11),
            event(kAlloc, 13), event(kFree, 12), event(kFree, 13)}));
    auto module = decode(hloProtoWith(ba));
    const ModuleMemory m = analyzeModuleMemory(*module);
    EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
    EXPECT_EQ(m.peakHeapBytes, 5 * kMiB);
    EXPECT_EQ(m.peakPosition, 6);
    std::vector<int64_t> heap;
    for (const auto& p : m.timeline)
        heap.push_back(p.heapBytes / kMiB);
    EXPECT_EQ(heap, (std::vector<int64_t> {0, 4, 4, 4, 4, 4, 5, 1, 0}));
    ASSERT_EQ(m.buffersAtPeak.size(), 2u);
    EXPECT_EQ(m.buffersAtPeak[0].instructionName, "op1");
    EXPECT_EQ(m.buffersAtPeak[1].instructionName, "op4");
}

TEST(MemoryView, AShareAfterTheCanonicalWasFreedRevivesItsBytes)
{
    Message ba;
    ba.message(1, logicalBuffer(1, 8 * kMiB, 1)).message(1, logicalBuffer(2, 8 * kMiB, 2));
    ba.message(1, logicalBuffer(3, 2 * kMiB, 3));
    ba.message(3, allocation({.index = 0, .size = 16 * kMiB, .buffers = {1, 2, 3}}));
    ba.message(4,
        trace({event(kAlloc, 1), event(kFree, 1), event(kAlloc, 3), event(kShare, 2, 1), event(kFree, 3),
            event(kFree, 2)}));
    const ModuleMemory m = analyzeModuleMemory(*decode(hloProtoWith(ba)));
    EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
    EXPECT_EQ(m.peakHeapBytes, 10 * kMiB); // 2 MiB of buffer 3 + buffer 1's 8 MiB brought back by the share
    EXPECT_EQ(m.peakPosition, 4);
    ASSERT_EQ(m.buffersAtPeak.size(), 2u);
    EXPECT_EQ(m.buffersAtPeak[0].logicalBufferId, 1);
    EXPECT_EQ(m.timeline.back().heapBytes, 0);
}

TEST(MemoryView, AModuleWithoutAHeapTracePeaksAtItsIndefiniteAllocations)
{
    Message ba;
    ba.message(1, logicalBuffer(0, 3 * kMiB, 1)).message(1, logicalBuffer(1, 5 * kMiB, 2));
    ba.message(1, logicalBuffer(2, 7 * kMiB, 3, {}, 1));
    ba.message(3, allocation({.index = 0, .size = 3 * kMiB, .buffers = {0}, .parameter = true}));
    ba.message(3, allocation({.index = 1, .size = 5 * kMiB, .buffers = {1}, .liveOut = true}));
    ba.message(3, allocation({.index = 2, .size = 7 * kMiB, .buffers = {2}, .color = 1})); // not HBM
    const ModuleMemory m = analyzeModuleMemory(*decode(hloProtoWith(ba)));
    EXPECT_EQ(m.heapTrace, -1);
    EXPECT_EQ(m.peakHeapBytes, 8 * kMiB);
    EXPECT_EQ(m.indefiniteBytes, 8 * kMiB);
    EXPECT_EQ(m.entryParameterBytes, 3 * kMiB);
    EXPECT_EQ(m.maybeLiveOutBytes, 5 * kMiB);
    EXPECT_EQ(m.totalAllocationBytes, 8 * kMiB);
    ASSERT_EQ(m.timeline.size(), 1u);
    EXPECT_EQ(m.timeline[0].heapBytes, 8 * kMiB);
    ASSERT_EQ(m.buffersAtPeak.size(), 2u);
    EXPECT_EQ(m.buffersAtPeak[0].kind, BufferKind::Output);
    EXPECT_EQ(m.buffersAtPeak[1].kind, BufferKind::Parameter);
    // The other colour is its own memory.
    const ModuleMemory other = analyzeModuleMemory(*decode(hloProtoWith(ba)), 1);
    EXPECT_EQ(other.totalAllocationBytes, 7 * kMiB);
    EXPECT_EQ(other.peakHeapBytes, 0);
}

TEST(MemoryView, ABufferFreedTwiceIsAWarningNotACrash)
{
    Message ba;
    ba.message(1, logicalBuffer(1, 4 * kMiB, 1)).message(1, logicalBuffer(2, 2 * kMiB, 2));
    ba.message(3, allocation({.index = 0, .size = 8 * kMiB, .buffers = {1, 2}}));
    ba.message(4, trace({event(kAlloc, 1), event(kFree, 1), event(kFree, 1), event(kAlloc, 2), event(kFree, 2)}));
    const ModuleMemory m = analyzeModuleMemory(*decode(hloProtoWith(ba)));
    ASSERT_EQ(m.warnings.size(), 1u);
    EXPECT_NE(
        m.warnings[0].find("release a buffer that is not allocated, first buffer 1 (event 2, op1)"), std::string::npos)
        << m.warnings[0];
    EXPECT_EQ(m.peakHeapBytes, 4 * kMiB);
    EXPECT_EQ(m.timeline.back().heapBytes, 0);
}

TEST(MemoryView, TupleShapesResolveTheShapeIndexAndPaddingIsPerDimension)
{
    xla::ShapeProto tuple;
    tuple.set_element_type(static_cast<xla::PrimitiveType>(kTuple));
    *tuple.add_tuple_shapes() = arrayShape(kF32, {4}, {0}, {{128}});
    // The origin-story activation: batch 16 in the 128-lane tile, feature 1 in the 8-sublane one.
    *tuple.add_tuple_shapes() = arrayShape(kF32, {16, 1}, {0, 1}, {{8, 128}});
    xla::ShapeProto inner;
    inner.set_element_type(static_cast<xla::PrimitiveType>(kTuple));
    *inner.add_tuple_shapes() = arrayShape(kBF16, {3, 256}, {1, 0}, {{8, 128}, {2, 1}});
    *tuple.add_tuple_shapes() = inner;

    Message ba;
    ba.message(1, logicalBuffer(1, 24, 5)); // the tuple's index table
    ba.message(1, logicalBuffer(2, 4096, 5, {1}));
    ba.message(1, logicalBuffer(3, 4096, 5, {2, 0}));
    ba.message(3, allocation({.index = 0, .size = 24, .buffers = {1}, .liveOut = true}));
    ba.message(3, allocation({.index = 1, .size = 8192, .buffers = {2, 3}}));
    ba.message(4, trace({event(kAlloc, 2), event(kAlloc, 3), event(kFree, 2), event(kFree, 3)}));
    const ModuleMemory m = analyzeModuleMemory(*decode(hloProtoWith(ba, {{5, tuple}})));
    EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
    ASSERT_EQ(m.buffersAtPeak.size(), 3u);
    EXPECT_EQ(m.peakHeapBytes, 24 + 4096 + 4096);

    const BufferAtPeak* activation = nullptr;
    const BufferAtPeak* nested = nullptr;
    const BufferAtPeak* table = nullptr;
    for (const auto& b : m.buffersAtPeak)
        (b.logicalBufferId == 2 ? activation : b.logicalBufferId == 3 ? nested : table) = &b;
    ASSERT_TRUE(activation && nested && table);
    EXPECT_EQ(activation->instructionName, "op5{1}");
    EXPECT_EQ(activation->shape, "f32[16,1]{0,1:T(8,128)}");
    EXPECT_EQ(activation->unpaddedBytes, 64);
    ASSERT_EQ(activation->paddedDims.size(), 2u);
    EXPECT_EQ(activation->paddedDims[0].text(), "dim 0 of size 16 padded to 128 by tile T(8,128)");
    EXPECT_EQ(activation->paddedDims[1].text(), "dim 1 of size 1 padded to 8 by tile T(8,128)");
    EXPECT_EQ(activation->kind, BufferKind::Temporary);

    EXPECT_EQ(nested->instructionName, "op5{2,0}");
    EXPECT_EQ(nested->shape, "bf16[3,256]{1,0:T(8,128)(2,1)}");
    EXPECT_EQ(nested->unpaddedBytes, 3 * 256 * 2);
    ASSERT_EQ(nested->paddedDims.size(), 1u);
    EXPECT_EQ(nested->paddedDims[0].text(), "dim 0 of size 3 padded to 8 by tile T(8,128)(2,1)");

    EXPECT_EQ(table->instructionName, "op5");
    EXPECT_EQ(table->unpaddedBytes, 24); // three pointers, as xprof counts a tuple
    EXPECT_EQ(table->kind, BufferKind::Output);
    EXPECT_TRUE(table->indefinite);

    EXPECT_EQ(m.peakUnpaddedBytes, 24 + 64 + 1536);
    EXPECT_EQ(m.peakPaddingBytes, m.peakHeapBytes - m.peakUnpaddedBytes);
}

TEST(MemoryView, PaddingOfIndefiniteBuffersCountsAtTheirUnpaddedSize)
{
    // Stricter than xprof, which adds indefinite buffers at their padded size to the unpadded peak.
    Message ba;
    ba.message(1, logicalBuffer(1, 4096, 1)).message(1, logicalBuffer(2, 4096, 2));
    ba.message(3, allocation({.index = 0, .size = 4096, .buffers = {1}, .parameter = true}));
    ba.message(3, allocation({.index = 1, .size = 4096, .buffers = {2}}));
    ba.message(4, trace({event(kAlloc, 2), event(kFree, 2)}));
    const xla::ShapeProto padded = arrayShape(kF32, {16, 1}, {0, 1}, {{8, 128}});
    const ModuleMemory m = analyzeModuleMemory(*decode(hloProtoWith(ba, {{1, padded}, {2, padded}})));
    EXPECT_EQ(m.peakHeapBytes, 8192);
    EXPECT_EQ(m.peakUnpaddedBytes, 128);
    EXPECT_NEAR(m.paddingFraction(), 1 - 128.0 / 8192, 1e-12);
}

TEST(BufferAssignmentDecode, TruncatedOrCorruptBytesGiveAMessageNotACrash)
{
    Message ba;
    ba.message(1, logicalBuffer(1, 4096, 1));
    ba.message(3, allocation({.index = 0, .size = 4096, .buffers = {1}}));
    ba.message(4, trace({event(kAlloc, 1), event(kFree, 1)}));
    const std::string bytes = ba.str();
    for (size_t cut = 1; cut < bytes.size(); ++cut) {
        std::string error;
        auto decoded = decodeBufferAssignment(std::string_view(bytes).substr(0, cut), error);
        if (!decoded) {
            EXPECT_NE(error.find("could not be decoded"), std::string::npos) << error;
        }
    }
    // A module whose field 3 is corrupt inside (a logical buffer running past its end) still
    // loads; the memory view says why it has nothing.
    xla::HloProto proto;
    proto.mutable_hlo_module()->set_name("jit_corrupt");
    auto module = decode(proto.SerializeAsString() + Message().bytes(3, std::string("\x0a\x05\x08", 3)).str());
    ASSERT_TRUE(module);
    EXPECT_EQ(module->bufferAssignment, nullptr);
    EXPECT_NE(module->bufferAssignmentError.find("runs past the end"), std::string::npos)
        << module->bufferAssignmentError;
    const ModuleMemory m = analyzeModuleMemory(*module);
    ASSERT_FALSE(m.warnings.empty());
    EXPECT_NE(m.warnings[0].find("could not be decoded"), std::string::npos) << m.warnings[0];
}

TEST(BufferAssignmentDecode, UnknownEventKindsAreSkippedWithAWarning)
{
    Message ba;
    ba.message(1, logicalBuffer(1, 4096, 1));
    ba.message(3, allocation({.index = 0, .size = 4096, .buffers = {1}}));
    ba.message(4, trace({event(kAlloc, 1), Message().varint(1, 7).varint(2, 1), event(kFree, 1)}));
    std::string error;
    auto decoded = decodeBufferAssignment(ba.str(), error);
    ASSERT_TRUE(decoded) << error;
    ASSERT_EQ(decoded->heapTraces.size(), 1u);
    EXPECT_EQ(decoded->heapTraces[0].events.size(), 2u);
    ASSERT_EQ(decoded->warnings.size(), 1u);
    EXPECT_NE(decoded->warnings[0].find("unknown kind (e.g. 7)"), std::string::npos) << decoded->warnings[0];
    // Packed and unpacked shape indices decode alike.
    Message unpacked;
    unpacked.message(1, Message().varint(1, 5).message(3, Message().varint(4, 9).varint(3, 2).varint(3, 0)));
    auto u = decodeBufferAssignment(unpacked.str(), error);
    ASSERT_TRUE(u) << error;
    EXPECT_EQ(u->logicalBuffers[0].shapeIndex, (std::vector<int64_t> {2, 0}));
    EXPECT_EQ(u->logicalBuffers[0].instructionId, 9);
}

namespace {

std::shared_ptr<const Profile> loadBytes(const std::string& bytes, const std::string& name)
{
    LoadResult loaded = loadProfileFromBytes(bytes, name);
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.profile;
}

std::shared_ptr<const Profile> demoProfile()
{
    std::string bytes, error;
    EXPECT_TRUE(syntheticXSpaceBytes({}, bytes, error)) << error;
    return loadBytes(bytes, "demo.xplane.pb");
}

} // namespace

// The demo's memory side of the origin story: the batch-16 activations dominate the peak through
// padding (8x their bytes), and the rule says so in the per-core-batch terms.
TEST(MemoryView, DemoPeakIsDominatedByTheBatch16Activations)
{
    auto profile = demoProfile();
    ASSERT_TRUE(profile);
    const MemoryReport report = analyzeMemory(*profile);
    ASSERT_EQ(report.modules.size(), 1u);
    const ModuleMemory& m = report.modules[0];
    EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
    EXPECT_GT(m.paddingFraction(), 0.8);
    ASSERT_GE(m.buffersAtPeak.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        const BufferAtPeak& b = m.buffersAtPeak[i];
        EXPECT_EQ(b.shape, "f32[16,128,128,32]{0,3,2,1:T(8,128)}");
        EXPECT_EQ(b.sizeBytes, 8 * b.unpaddedBytes);
        ASSERT_EQ(b.paddedDims.size(), 1u);
        EXPECT_EQ(b.paddedDims[0].text(), "dim 0 of size 16 padded to 128 by tile T(8,128)");
    }
    // TPU v3: 16 GiB per core.
    EXPECT_DOUBLE_EQ(report.hbmCapacityBytes, 16.0 * (1 << 30));

    const AdviceReport advice = computeAdvice(*profile);
    const Advice* rule = nullptr;
    const Advice* batch = nullptr;
    for (const auto& a : advice.advice) {
        if (a.rule == "memory-padding")
            rule = &a;
        if (a.rule == "per-core-batch")
            batch = &a;
    }
    ASSERT_NE(rule, nullptr);
    EXPECT_NEAR(rule->numbers.find("peak_padding_fraction")->number, m.paddingFraction(), 1e-12);
    EXPECT_NE(rule->detail.find("batch 8 in the 128-wide lane tile costs 16x the bytes"), std::string::npos);
    EXPECT_NE(
        rule->detail.find("fusion.7 (256 MiB for 32 MiB of data: dim 0 of size 16 padded to 128"), std::string::npos)
        << rule->detail;
    // The larger batch the per-core-batch rule suggests is bounded by the HBM it needs.
    ASSERT_NE(batch, nullptr);
    const AdviceValue* atSuggested = batch->numbers.find("hbm_peak_bytes_at_suggested_batch");
    ASSERT_NE(atSuggested, nullptr);
    const MemoryBatchWhatIf whatIf = whatIfMemoryBatch(m, 16, 128);
    EXPECT_EQ(static_cast<int64_t>(atSuggested->number), whatIf.peakHeapBytes);
    // The two 256 MiB activations already hold 128 rows per tile; the batch-major input grows 8x.
    EXPECT_EQ(whatIf.peakHeapBytes, m.peakHeapBytes + 7 * (128 << 20));
    EXPECT_NE(batch->gain.find("it fits"), std::string::npos) << batch->gain;
}

TEST(MemoryView, ShareFilesKeepThePeakItsBuffersAndTheTotals)
{
    auto profile = demoProfile();
    ASSERT_TRUE(profile);
    for (bool hash : {false, true}) {
        SCOPED_TRACE(hash ? "hash redaction" : "no redaction");
        ShareOptions options;
        options.redaction.hashNames = hash;
        options.redaction.names = hash;
        const ShareResult share = buildShareFile(*buildProfileAnalysis(profile), options);
        ASSERT_TRUE(share.ok()) << share.error;
        auto shared = loadBytes(share.bytes, "demo.tpuscope");
        ASSERT_TRUE(shared);
        const ModuleMemory a = analyzeMemory(*profile).modules.at(0);
        const ModuleMemory b = analyzeMemory(*shared).modules.at(0);
        EXPECT_EQ(a.peakHeapBytes, b.peakHeapBytes);
        EXPECT_EQ(a.peakUnpaddedBytes, b.peakUnpaddedBytes);
        EXPECT_EQ(a.entryParameterBytes, b.entryParameterBytes);
        EXPECT_EQ(a.maybeLiveOutBytes, b.maybeLiveOutBytes);
        EXPECT_EQ(a.indefiniteBytes, b.indefiniteBytes);
        EXPECT_EQ(a.totalAllocationBytes, b.totalAllocationBytes);
        ASSERT_EQ(a.buffersAtPeak.size(), b.buffersAtPeak.size());
        for (size_t i = 0; i < a.buffersAtPeak.size(); ++i) {
            EXPECT_EQ(a.buffersAtPeak[i].sizeBytes, b.buffersAtPeak[i].sizeBytes);
            EXPECT_EQ(a.buffersAtPeak[i].unpaddedBytes, b.buffersAtPeak[i].unpaddedBytes);
            EXPECT_EQ(a.buffersAtPeak[i].kind, b.buffersAtPeak[i].kind);
            EXPECT_EQ(a.buffersAtPeak[i].shape, b.buffersAtPeak[i].shape);
            if (hash) {
                EXPECT_NE(a.buffersAtPeak[i].instructionName, b.buffersAtPeak[i].instructionName);
                EXPECT_TRUE(b.buffersAtPeak[i].frameworkOp.empty());
            } else {
                EXPECT_EQ(a.buffersAtPeak[i].instructionName, b.buffersAtPeak[i].instructionName);
            }
        }
        ASSERT_FALSE(b.warnings.empty());
        EXPECT_NE(b.warnings.back().find("from a share file"), std::string::npos);
        if (hash) {
            EXPECT_EQ(share.json.find("fusion.7"), std::string::npos);
        }
    }
}

// More buffers at the peak than a share file lists one by one (48): the rest are summed, the
// indefinite allocations not listed are grouped by kind, and the figures stay the same.
TEST(MemoryView, ShareFilesSumTheBuffersBeyondTheListed)
{
    constexpr int kTemporaries = 60, kParameters = 60;
    Message ba;
    std::vector<int64_t> temporaries;
    std::vector<Message> events;
    const xla::ShapeProto padded = arrayShape(kF32, {16, 1}, {0, 1}, {{8, 128}});
    std::vector<std::pair<int64_t, xla::ShapeProto>> shapes;
    for (int i = 1; i <= kTemporaries + kParameters; ++i) {
        ba.message(1, logicalBuffer(i, 4096 + i, i));
        if (i % 3 == 0)
            shapes.emplace_back(i, padded);
        if (i <= kTemporaries) {
            temporaries.push_back(i);
            events.push_back(event(kAlloc, i));
        } else {
            ba.message(3,
                allocation({.index = i,
                    .size = 4096 + i,
                    .buffers = {i},
                    .parameter = i % 2 == 0,
                    .liveOut = i % 5 == 0,
                    .threadLocal = i % 2 != 0 && i % 5 != 0}));
        }
    }
    ba.message(3, allocation({.index = 0, .size = 1 << 20, .buffers = temporaries}));
    ba.message(3, allocation({.index = 500, .size = 777, .liveOut = true})); // no logical buffer
    ba.message(4, trace(events));
    auto module = decode(hloProtoWith(ba, shapes, kTemporaries + kParameters));
    ASSERT_TRUE(module);

    ProfileBuilder builder;
    builder.addProgram(5, module->name, module);
    OpInfo op;
    op.name = builder.intern("op1");
    op.category = builder.intern("loop fusion");
    op.isXlaOp = true;
    op.programId = 5;
    op.hasProgramId = true;
    const OpId id = builder.addOp(op);
    const TrackId ops = builder.addTrack(builder.addPlane("/device:TPU:0"), "XLA Ops", TrackKind::XlaOps);
    builder.addEvent(ops, 0, 1000, id);
    ProfilePtr profile = builder.finish();

    const ShareResult share = buildShareFile(*buildProfileAnalysis(profile));
    ASSERT_TRUE(share.ok()) << share.error;
    auto shared = loadBytes(share.bytes, "many.tpuscope");
    ASSERT_TRUE(shared);
    const ModuleMemory a = analyzeMemory(*profile).modules.at(0);
    const ModuleMemory b = analyzeMemory(*shared).modules.at(0);
    ASSERT_EQ(a.buffersAtPeak.size(), static_cast<size_t>(kTemporaries + kParameters + 0));
    EXPECT_LT(b.buffersAtPeak.size(), a.buffersAtPeak.size());
    EXPECT_EQ(a.peakHeapBytes, b.peakHeapBytes);
    EXPECT_EQ(a.simulatedPeakBytes, b.simulatedPeakBytes);
    EXPECT_EQ(a.peakUnpaddedBytes, b.peakUnpaddedBytes);
    EXPECT_GT(a.peakPaddingBytes, 0);
    EXPECT_EQ(a.entryParameterBytes, b.entryParameterBytes);
    EXPECT_EQ(a.maybeLiveOutBytes, b.maybeLiveOutBytes);
    EXPECT_EQ(a.indefiniteBytes, b.indefiniteBytes);
    EXPECT_EQ(a.totalAllocationBytes, b.totalAllocationBytes);
    // The 48 largest are listed by name; the other heap buffers are one entry, the other
    // indefinite allocations one entry per kind.
    size_t listed = 0, summedHeap = 0, groups = 0;
    for (const auto& buffer : b.buffersAtPeak) {
        if (buffer.instructionName == "(" + std::to_string(kTemporaries) + " buffers)") // all smaller than the listed
            ++summedHeap;
        else if (buffer.instructionName.ends_with(" allocations)"))
            ++groups;
        else {
            ++listed;
            bool inTop = false;
            for (size_t i = 0; i < 48; ++i)
                inTop = inTop || a.buffersAtPeak[i].instructionName == buffer.instructionName;
            EXPECT_TRUE(inTop) << buffer.instructionName;
        }
    }
    EXPECT_EQ(listed, 48u);
    EXPECT_EQ(summedHeap, 1u);
    EXPECT_GE(groups, 2u);
}

// A module at the HBM capacity gets critical advice that names the buffers to shrink, even when
// little of it is padding.
TEST(MemoryView, APeakAtCapacityNamesTheBuffersToShrink)
{
    Message ba;
    ba.message(1, logicalBuffer(1, 15'500'000'000, 1)).message(1, logicalBuffer(2, 4096, 2));
    ba.message(3, allocation({.index = 0, .size = 15'500'004'096, .buffers = {1, 2}}));
    ba.message(4, trace({event(kAlloc, 1), event(kAlloc, 2), event(kFree, 1), event(kFree, 2)}));
    const xla::ShapeProto big = arrayShape(kF32, {1000, 1000, 3875}, {2, 1, 0});
    auto module = decode(hloProtoWith(ba, {{1, big}}));
    ASSERT_TRUE(module);

    ProfileBuilder builder;
    builder.addProgram(5, module->name, module);
    OpInfo op;
    op.name = builder.intern("op1");
    op.category = builder.intern("loop fusion");
    op.isXlaOp = true;
    op.programId = 5;
    op.hasProgramId = true;
    const OpId id = builder.addOp(op);
    const PlaneId plane = builder.addPlane("/device:TPU:0");
    builder.profile().planes[plane].deviceType = "TPU v5 lite"; // v5e: 16 GB
    builder.addEvent(builder.addTrack(plane, "XLA Ops", TrackKind::XlaOps), 0, 1000, id);
    ProfilePtr profile = builder.finish();
    ASSERT_EQ(profile->device.generation, "v5e");

    const ModuleMemory m = analyzeMemory(*profile).modules.at(0);
    EXPECT_LT(m.paddingFraction(), 0.01);
    const AdviceReport advice = computeAdvice(*profile);
    const Advice* rule = nullptr;
    for (const auto& a : advice.advice)
        if (a.rule == "memory-padding")
            rule = &a;
    ASSERT_NE(rule, nullptr);
    EXPECT_EQ(rule->severity, Severity::Critical);
    EXPECT_NE(rule->title.find("is 96.9% of the HBM capacity"), std::string::npos) << rule->title;
    EXPECT_NE(rule->detail.find("shrink the largest buffers at the peak first: op1 (14.4 GiB)"), std::string::npos)
        << rule->detail;
    EXPECT_NEAR(rule->numbers.find("peak_capacity_fraction")->number, 15'500'004'096 / 16e9, 1e-9);
}

// The collectives advice suggests a larger per-core batch; the memory rule says what twice the
// batch would need at the HBM peak.
TEST(MemoryView, CollectivesAdviceSaysWhatADoubleBatchNeeds)
{
    xla::HloProto proto;
    auto* module = proto.mutable_hlo_module();
    module->set_name("jit_step");
    auto* computation = module->add_computations();
    computation->set_id(1);
    computation->set_name("main");
    auto* conv = computation->add_instructions();
    conv->set_id(1);
    conv->set_name("convolution.1");
    conv->set_opcode("convolution");
    *conv->mutable_shape() = arrayShape(kF32, {16, 8, 8, 256}, {0, 3, 2, 1}, {{8, 128}});
    auto* dims = conv->mutable_convolution_dimension_numbers();
    dims->set_input_batch_dimension(0);
    dims->set_input_feature_dimension(3);
    dims->add_input_spatial_dimensions(1);
    dims->add_input_spatial_dimensions(2);
    dims->set_kernel_input_feature_dimension(2);
    dims->set_kernel_output_feature_dimension(3);
    dims->add_kernel_spatial_dimensions(0);
    dims->add_kernel_spatial_dimensions(1);
    dims->set_output_batch_dimension(0);
    dims->set_output_feature_dimension(3);
    dims->add_output_spatial_dimensions(1);
    dims->add_output_spatial_dimensions(2);
    auto* reduce = computation->add_instructions();
    reduce->set_id(2);
    reduce->set_name("all-reduce.1");
    reduce->set_opcode("all-reduce");
    *reduce->mutable_shape() = arrayShape(kF32, {256}, {0}, {{128}});
    computation->set_root_id(2);
    module->set_entry_computation_id(1);
    // The convolution's output (batch 16 in the 128-lane tile: 1 MiB) is the heap at the peak.
    Message ba;
    ba.message(1, logicalBuffer(1, 1 << 20, 1)).message(1, logicalBuffer(2, 1024, 2));
    ba.message(3, allocation({.index = 0, .size = (1 << 20) + 1024, .buffers = {1, 2}}));
    ba.message(4, trace({event(kAlloc, 1), event(kAlloc, 2), event(kFree, 1), event(kFree, 2)}));
    auto decoded = decode(proto.SerializeAsString() + Message().message(3, ba).str());
    ASSERT_TRUE(decoded);

    ProfileBuilder builder;
    builder.addProgram(5, "jit_step", decoded);
    std::vector<OpId> ids;
    for (const auto& [name, category] : {std::pair {"convolution.1", "convolution"}, {"all-reduce.1", "all-reduce"}}) {
        OpInfo op;
        op.name = builder.intern(name);
        op.category = builder.intern(category);
        op.isXlaOp = true;
        op.programId = 5;
        op.hasProgramId = true;
        ids.push_back(builder.addOp(op));
    }
    const PlaneId plane = builder.addPlane("/device:TPU:0");
    builder.profile().planes[plane].deviceType = "TPU v4";
    const TrackId track = builder.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    for (int step = 0; step < 10; ++step) {
        builder.addEvent(track, step * 1000, 600, ids[0]);
        builder.addEvent(track, step * 1000 + 600, 400, ids[1]);
    }
    ProfilePtr profile = builder.finish();

    const AdviceReport advice = computeAdvice(*profile);
    ASSERT_TRUE(advice.batch.known) << advice.batch.reason;
    ASSERT_EQ(advice.batch.perCoreBatch, 16);
    const Advice* collectives = nullptr;
    for (const auto& a : advice.advice)
        if (a.rule == "collectives")
            collectives = &a;
    ASSERT_NE(collectives, nullptr);
    const AdviceValue* doubled = collectives->numbers.find("hbm_peak_bytes_at_double_batch");
    ASSERT_NE(doubled, nullptr);
    // Batch 32 still fits the 128-lane tile: the buffer keeps its size.
    EXPECT_EQ(static_cast<int64_t>(doubled->number), (1 << 20) + 1024);
    EXPECT_NE(collectives->gain.find("at per-core batch 32 (twice 16)"), std::string::npos) << collectives->gain;
    EXPECT_NE(collectives->gain.find("it fits"), std::string::npos) << collectives->gain;
}
