// SPDX-License-Identifier: GPL-3.0-or-later
// The bundled demo's op costs follow from its own HLO: every op's `flops`, `model_flops`,
// `bytes_accessed` and HBM breakdown are recomputed here from the HloProto in the file, read with
// the generated protobuf classes only (neither the generator's cost code nor the loader is used).
#include "testutil.h"

#include "hlo.pb.h"
#include "xplane.pb.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

namespace {

namespace tp = tensorflow::profiler;

const std::string kDemo = std::string(TPUSCOPE_TEST_DATA_DIR) + "/../../resources/demo.xplane.pb";

double elements(const xla::ShapeProto& shape)
{
    double n = 1;
    for (int64_t d : shape.dimensions())
        n *= static_cast<double>(d);
    return n;
}

// Logical bytes (no tile padding), as XLA's cost analysis records bytes_accessed on TPU.
double logicalBytes(const xla::ShapeProto& shape)
{
    EXPECT_EQ(shape.element_type(), xla::F32) << "the demo is all f32";
    return elements(shape) * 4;
}

struct Module
{
    std::map<int64_t, const xla::HloInstructionProto*> byId;
    std::map<int64_t, const xla::HloComputationProto*> computations;
    const xla::HloComputationProto* entry = nullptr;
};

// HloCostAnalysis' rules as the brief states them: a convolution 2 × output elements × kernel
// spatial size × input features / feature groups, an element-wise op one per output element, a
// reduce one per element folded (input − output), an all-reduce one per element, data movement 0.
double flopsOf(const Module& m, const xla::HloInstructionProto& in)
{
    const std::string& op = in.opcode();
    if (op == "fusion") {
        double sum = 0;
        for (const auto& fused : m.computations.at(in.called_computation_ids(0))->instructions())
            sum += flopsOf(m, fused);
        return sum;
    }
    if (op == "convolution") {
        const auto& dims = in.convolution_dimension_numbers();
        const xla::ShapeProto& input = m.byId.at(in.operand_ids(0))->shape();
        const xla::ShapeProto& kernel = m.byId.at(in.operand_ids(1))->shape();
        double window = 1;
        for (int64_t d : dims.kernel_spatial_dimensions())
            window *= static_cast<double>(kernel.dimensions(static_cast<int>(d)));
        const double features = static_cast<double>(input.dimensions(static_cast<int>(dims.input_feature_dimension())));
        return 2 * elements(in.shape()) * window * features / std::max<int64_t>(1, in.feature_group_count());
    }
    static const std::set<std::string> elementwise = {"add", "subtract", "multiply", "maximum", "logistic"};
    if (elementwise.count(op))
        return elements(in.shape());
    if (op == "reduce")
        return elements(m.byId.at(in.operand_ids(0))->shape()) - elements(in.shape());
    if (op == "all-reduce")
        return elements(in.shape());
    static const std::set<std::string> movement = {"parameter", "constant", "broadcast", "copy", "transpose", "tuple"};
    EXPECT_TRUE(movement.count(op)) << "no FLOP rule for " << op;
    return 0;
}

const tp::XPlane* planeNamed(const tp::XSpace& space, const std::string& name)
{
    for (const auto& plane : space.planes())
        if (plane.name() == name)
            return &plane;
    return nullptr;
}

} // namespace

TEST(DemoCosts, EveryOpsCostFollowsFromItsHloShapes)
{
    tp::XSpace space;
    ASSERT_TRUE(space.ParseFromString(tpuscope::test::readFile(kDemo))) << kDemo;

    // The program: the one `Hlo Proto` stat of the metadata plane (its trailing field 3, the
    // buffer assignment, is not in our hlo.proto and is skipped as an unknown field).
    const tp::XPlane* metadata = planeNamed(space, "/host:metadata");
    ASSERT_NE(metadata, nullptr);
    xla::HloProto proto;
    for (const auto& [id, meta] : metadata->event_metadata())
        for (const auto& stat : meta.stats())
            if (metadata->stat_metadata().at(stat.metadata_id()).name() == "Hlo Proto") {
                ASSERT_TRUE(proto.ParseFromString(stat.bytes_value()));
            }
    Module m;
    for (const auto& c : proto.hlo_module().computations()) {
        m.computations[c.id()] = &c;
        if (c.id() == proto.hlo_module().entry_computation_id())
            m.entry = &c;
        for (const auto& in : c.instructions())
            m.byId[in.id()] = &in;
    }
    ASSERT_NE(m.entry, nullptr);
    std::map<std::string, const xla::HloInstructionProto*> entryByName;
    for (const auto& in : m.entry->instructions())
        entryByName[in.name()] = &in;

    for (int core = 0; core < 8; ++core) {
        const tp::XPlane* plane = planeNamed(space, "/device:TPU:" + std::to_string(core));
        ASSERT_NE(plane, nullptr) << core;
        int ops = 0;
        for (const auto& [id, meta] : plane->event_metadata()) {
            std::map<std::string, const tp::XStat*> stats;
            for (const auto& stat : meta.stats())
                stats[plane->stat_metadata().at(stat.metadata_id()).name()] = &stat;
            if (!stats.count("flops"))
                continue; // the module and step events
            ++ops;
            SCOPED_TRACE("core " + std::to_string(core) + " " + meta.display_name());
            ASSERT_TRUE(entryByName.count(meta.display_name()));
            const xla::HloInstructionProto& in = *entryByName.at(meta.display_name());

            const double flops = flopsOf(m, in);
            EXPECT_EQ(stats["flops"]->int64_value(), std::llround(flops));
            EXPECT_EQ(stats["model_flops"]->int64_value(), std::llround(flops));

            double read = 0;
            for (int64_t operand : in.operand_ids())
                read += logicalBytes(m.byId.at(operand)->shape());
            const double write = logicalBytes(in.shape());
            EXPECT_EQ(stats["bytes_accessed"]->int64_value(), std::llround(read + write));
            EXPECT_EQ(stats["raw_bytes_accessed"]->int64_value(), std::llround(read + write));
            tp::MemoryAccessBreakdown breakdown;
            ASSERT_TRUE(breakdown.ParseFromString(stats["memory_access_breakdown"]->bytes_value()));
            double hbmRead = 0, hbmWrite = 0, other = 0;
            for (const auto& access : breakdown.memory_accessed()) {
                if (access.memory_space() != 1)
                    other += static_cast<double>(access.bytes_accessed());
                else
                    (access.operation_type() == 1 ? hbmRead : hbmWrite) += static_cast<double>(access.bytes_accessed());
            }
            EXPECT_EQ(hbmRead, std::llround(read));
            EXPECT_EQ(hbmWrite, std::llround(write));
            EXPECT_EQ(other, 0);
        }
        EXPECT_EQ(ops, 9) << core;
    }

    // One anchor by hand: fusion.3's convolution.114 is f32[16,128,128,32] → f32[16,128,128,1] with a
    // 17x17 window, 2 · 262144 · 289 · 32 = 4848615424 FLOPs, plus the bias add and the sigmoid
    // (262144 each); it reads 32 MiB of activation, the 36992-byte kernel and the 4-byte bias and
    // writes 1 MiB.
    const xla::HloInstructionProto& fusion3 = *entryByName.at("fusion.3");
    EXPECT_EQ(flopsOf(m, fusion3), 4848615424.0 + 2 * 262144);
}
