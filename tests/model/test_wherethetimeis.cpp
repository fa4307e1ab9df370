// SPDX-License-Identifier: GPL-3.0-or-later
// Advice where the time is (issue 41): custom matmul kernels get their cost from their shapes
// (cost_source), kernels without cost data that take a large share get an item of their own, and ops
// repeated per layer are one group with its total (ops --by group, the advice evidence).
#include "analysis/advice.h"
#include "analysis/opbreakdown.h"
#include "analysis/opgroups.h"
#include "analysis/profileanalysis.h"
#include "analysistestutil.h"
#include "core/jsondom.h"
#include "loader/loader.h"
#include "report/report.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <string>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

constexpr const char* kVllm = "tpu_vllm_serving.trace.json.gz";

/// One X event of the TPU's XLA Ops thread, with the args jax.profiler writes.
std::string opEvent(const std::string& name, double ts, double dur, const std::string& category, const std::string& hlo,
    double flops, double bytes)
{
    std::string escaped;
    for (char c : hlo)
        escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
    return R"({"ph":"X","pid":3,"tid":3,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur)
        + R"(,"name":")" + name + R"(","args":{"hlo_category":")" + category + R"(","long_name":")" + escaped
        + R"(","model_flops":")" + std::to_string(static_cast<long long>(flops)) + R"(","bytes_accessed":")"
        + std::to_string(static_cast<long long>(bytes)) + R"("}},)";
}

constexpr const char* kMatmulHlo
    = "%quantized_matmul_kernel.3 = bf16[1024,8192]{1,0:T(8,128)(2,1)} custom-call(bf16[1024,4096]{1,0:T(8,128)(2,1)} "
      "%convert.1, s8[8192,4096]{1,0:T(32,128)(4,1)} %param.7, f32[1,8192]{1,0:T(1,128)} %param.8), "
      "custom_call_target=\"tpu_custom_call\", backend_config={kernel_name=quantized_matmul_kernel}";
constexpr const char* kAttentionHlo
    = "%ragged_attention.5 = bf16[64,8,128]{2,1,0:T(8,128)(2,1)} custom-call(bf16[64,8,128]{2,1,0:T(8,128)(2,1)} "
      "%q, bf16[4096,8,128]{2,1,0:T(8,128)(2,1)} %kv), custom_call_target=\"tpu_custom_call\"";

/// A Chrome trace of one TPU core: a quantized matmul Pallas kernel and an attention kernel that
/// record no cost, and a fusion that does; twice each.
ProfilePtr kernelTrace()
{
    std::string json = R"({"traceEvents":[)"
                       R"({"ph":"M","pid":3,"name":"process_name","args":{"name":"/device:TPU:0"}},)"
                       R"({"ph":"M","pid":3,"tid":3,"name":"thread_name","args":{"name":"XLA Ops"}},)";
    double t = 0;
    for (int run = 0; run < 2; ++run) {
        json += opEvent("quantized_matmul_kernel.3", t, 400, "custom-call", kMatmulHlo, 0, 0);
        json += opEvent("ragged_attention.5", t + 400, 300, "custom-call", kAttentionHlo, 0, 0);
        json += opEvent("fusion.1", t + 700, 300, "loop fusion",
            "%fusion.1 = bf16[1024,8192]{1,0} fusion(bf16[1024,8192]{1,0} %x), kind=kLoop", 8.0e6, 3.2e7);
        t += 1000;
    }
    json.back() = ']';
    json += "}";
    LoadResult loaded = loadProfileFromBytes(json, "kernels.trace.json");
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.profile;
}

const OpRow* rowNamed(const OpBreakdown& b, const std::string& name)
{
    for (const OpRow& r : b.rows)
        if (r.name == name)
            return &r;
    return nullptr;
}

ProfilePtr loadSample(const char* name)
{
    LoadResult loaded = loadProfile(samplePath(name));
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.profile;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// cost_source: file, shapes or none

TEST(KernelCost, MatmulKernelFlopsFollowFromItsShapes)
{
    const std::optional<KernelCost> cost = matmulKernelCost(kMatmulHlo, "quantized_matmul_kernel.3", "");
    ASSERT_TRUE(cost);
    EXPECT_EQ(cost->m, 1024);
    EXPECT_EQ(cost->n, 8192);
    EXPECT_EQ(cost->k, 4096);
    EXPECT_DOUBLE_EQ(cost->flops, 2.0 * 1024 * 8192 * 4096);
    // x (bf16 1024x4096), w (s8 8192x4096), scales (f32 1x8192 in T(1,128) tiles, unpadded) and the
    // result (bf16 1024x8192), each once.
    EXPECT_DOUBLE_EQ(cost->bytes, 1024.0 * 4096 * 2 + 8192.0 * 4096 + 8192.0 * 4 + 1024.0 * 8192 * 2);
    // A grouped matmul: W[G, K, N] for a rank-2 result.
    const std::optional<KernelCost> grouped = matmulKernelCost(
        "%gmm.1 = bf16[512,256]{1,0} custom-call(bf16[512,128]{1,0} %x, bf16[8,128,256]{2,1,0} %w, s32[8]{0} %g), "
        "custom_call_target=\"tpu_custom_call\"",
        "gmm.1", "");
    ASSERT_TRUE(grouped);
    EXPECT_DOUBLE_EQ(grouped->flops, 2.0 * 512 * 256 * 128);
    // Not a matmul: the shapes fit but nothing says matmul; an attention kernel; a plain custom call.
    EXPECT_FALSE(
        matmulKernelCost("%k.1 = bf16[512,256]{1,0} custom-call(bf16[512,128]{1,0} %x, bf16[128,256]{1,0} %w), "
                         "custom_call_target=\"tpu_custom_call\"",
            "k.1", ""));
    EXPECT_FALSE(matmulKernelCost(kAttentionHlo, "ragged_attention.5", ""));
    EXPECT_FALSE(matmulKernelCost("%matmul.1 = f32[8]{0} add(f32[8]{0} %a, f32[8]{0} %b)", "matmul.1", ""));
}

TEST(KernelCost, EveryOpRowSaysWhereItsCostCameFrom)
{
    const ProfilePtr profile = kernelTrace();
    ASSERT_TRUE(profile);
    const OpBreakdown b = computeOpBreakdown(*profile);
    const OpRow* matmul = rowNamed(b, "quantized_matmul_kernel.3");
    const OpRow* attention = rowNamed(b, "ragged_attention.5");
    const OpRow* fusion = rowNamed(b, "fusion.1");
    ASSERT_TRUE(matmul && attention && fusion);
    EXPECT_EQ(matmul->costSource, CostSource::Shapes);
    EXPECT_DOUBLE_EQ(matmul->flops, 2 * 2.0 * 1024 * 8192 * 4096); // two runs
    EXPECT_EQ(matmul->costCoverage, 1);
    EXPECT_EQ(attention->costSource, CostSource::None);
    EXPECT_EQ(attention->costCoverage, 0);
    EXPECT_EQ(fusion->costSource, CostSource::File);

    json::Value doc;
    json::ParseError error;
    ASSERT_TRUE(json::parse(opsReport(*profile, b, TableFormat::Json), doc, error)) << error.describe();
    for (const json::Value& row : doc["rows"].array()) {
        const std::string expected = row["name"].string() == "quantized_matmul_kernel.3" ? "shapes"
            : row["name"].string() == "ragged_attention.5"                               ? "none"
                                                                                         : "file";
        EXPECT_EQ(row["cost_source"].string(), expected) << row["name"].string();
    }
}

// ---------------------------------------------------------------------------------------------
// uncosted-kernels

TEST(UncostedKernels, VllmAttentionKernelIsNamedWithWhatIsKnown)
{
    TPUSCOPE_REQUIRE_SAMPLE(kVllm);
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(loadSample(kVllm));
    const Advice* a = analysis->advice.find(AdviceRuleId::UncostedKernels);
    ASSERT_TRUE(a) << "the ragged-paged-attention kernel takes a quarter of op time without cost data";
    EXPECT_NEAR(adviceNumber(*a, "time_fraction"), 0.253, 0.005);
    const AdviceValue* groups = a->numbers.find("groups");
    ASSERT_TRUE(groups && !groups->items.empty());
    const AdviceValue& top = groups->items.front();
    EXPECT_EQ(top.find("kernel")->text, "RPA-bq_32-bkvp_64-p_64-.*");
    EXPECT_EQ(top.find("ops")->number, 64) << "one kernel per layer";
    EXPECT_NEAR(top.find("time_fraction")->number, 0.253, 0.005);
    EXPECT_EQ(top.find("name_parameters")->text, "bq=32, bkvp=64, p=64");
    EXPECT_NE(a->detail.find("CostEstimate"), std::string::npos) << "what to measure next";
    EXPECT_FALSE(a->fix.action.empty());
    ASSERT_FALSE(a->evidence.empty());
    EXPECT_EQ(a->evidence.front().group, "RPA-bq_32-bkvp_64-p_64-.*");
    EXPECT_EQ(a->evidence.front().groupOps, 64);
    EXPECT_NEAR(a->evidence.front().groupTimeFraction, 0.253, 0.005);
    EXPECT_EQ(a->gainPs, 0) << "nothing is known to gain";
}

TEST(UncostedKernels, SilentWhereKernelsHaveCostData)
{
    EXPECT_FALSE(computeAdvice(*demoProfile()).find(AdviceRuleId::UncostedKernels));
    // The matmul kernel's cost follows from its shapes; the attention kernel alone is 30 % of op time.
    const ProfilePtr profile = kernelTrace();
    const AdviceReport report = computeAdvice(*profile);
    const Advice* a = report.find(AdviceRuleId::UncostedKernels);
    ASSERT_TRUE(a);
    ASSERT_EQ(a->opNames.size(), 1u);
    EXPECT_EQ(a->opNames.front(), "ragged_attention.5");
}

// ---------------------------------------------------------------------------------------------
// layer groups

TEST(OpGroups, NameStems)
{
    EXPECT_EQ(opNameStem("all-reduce.12"), "all-reduce.*");
    EXPECT_EQ(opNameStem("fusion.19.in_megacore_fusion.1"), "fusion.*.in_megacore_fusion.*");
    EXPECT_EQ(opNameStem("RPA-bq_32-bkvp_64-p_64-.7"), "RPA-bq_32-bkvp_64-p_64-.*");
    EXPECT_EQ(opNameStem("copy-done"), "copy-done");
    EXPECT_EQ(opNameStem("conv2d_18"), "conv2d_18");
    // Same stem and HLO up to names: one group; another shape: another group.
    EXPECT_EQ(opGroupKey("add.1", "%add.1 = f32[8]{0} add(f32[8]{0} %a.3, f32[8]{0} %b.4)", ""),
        opGroupKey("add.2", "%add.2 = f32[8]{0} add(f32[8]{0} %a.9, f32[8]{0} %b.1), metadata={op_name=\"l2\"}", ""));
    EXPECT_NE(opGroupKey("add.1", "%add.1 = f32[8]{0} add(f32[8]{0} %a, f32[8]{0} %b)", ""),
        opGroupKey("add.2", "%add.2 = f32[16]{0} add(f32[16]{0} %a, f32[16]{0} %b)", ""));
    // No HLO: the framework op decides; neither: the op alone.
    EXPECT_EQ(opGroupKey("x.1", "", "layer/mul"), opGroupKey("x.2", "", "layer/mul"));
    EXPECT_NE(opGroupKey("x.1", "", ""), opGroupKey("x.2", "", ""));
}

// `ops --top 20` on the vLLM sample was twenty copies of one layer's convolution_bitcast_fusion:
// by group, each repeated op is one row with its total, and the attention kernel's 64 copies are
// one group of 25.3 %.
TEST(OpGroups, VllmLayersAreOneRowPerGroup)
{
    TPUSCOPE_REQUIRE_SAMPLE(kVllm);
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(loadSample(kVllm));
    const OpBreakdown& ops = analysis->breakdown;
    const OpBreakdown groups = regroupOpBreakdown(ops, GroupBy::LayerGroup);
    ASSERT_FALSE(groups.rows.empty());
    EXPECT_LT(groups.rows.size(), ops.rows.size());
    // The top twenty op rows share one stem; by group they are (part of) one row.
    const std::string stem = opNameStem(ops.rows.front().name);
    size_t sameStem = 0;
    for (size_t i = 0; i < 20 && i < ops.rows.size(); ++i)
        sameStem += opNameStem(ops.rows[i].name) == stem;
    EXPECT_EQ(sameStem, 20u);
    double total = 0;
    for (const OpRow& r : groups.rows)
        total += r.timeFraction;
    EXPECT_NEAR(total, 1.0, 1e-9);
    const OpRow* attention = nullptr;
    for (const OpRow& r : groups.rows)
        if (r.name == "RPA-bq_32-bkvp_64-p_64-.*")
            attention = &r;
    ASSERT_TRUE(attention);
    EXPECT_EQ(attention->memberOps, 64);
    EXPECT_NEAR(attention->timeFraction, 0.253, 0.005);
    // The same groups in the advice's table of groups.
    const OpGroups table = groupOps(ops);
    ASSERT_FALSE(table.groups.empty());
    EXPECT_EQ(table.groups.front().label, groups.rows.front().name);
    EXPECT_NEAR(table.groups.front().timeFraction, groups.rows.front().timeFraction, 1e-12);
    EXPECT_GT(table.groups.front().ops, 1);
    // The tensor-parallel psums: one group holding most of the all-reduce time, ahead of any single all-reduce.
    const OpGroup* psums = nullptr;
    for (const OpGroup& g : table.groups)
        if (g.label == "all-reduce.*" && (!psums || g.timePs > psums->timePs))
            psums = &g;
    ASSERT_TRUE(psums);
    EXPECT_GE(psums->ops, 100);
    EXPECT_GT(psums->timeFraction, 0.04);
}

// Evidence ranks groups by time: 64 small per-layer psums together come before one larger all-reduce.
TEST(OpGroups, CollectivesEvidenceRanksGroupsByTime)
{
    ProfileBuilder b;
    const PlaneId plane = b.addPlane("/device:TPU:0");
    const TrackId track = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    auto op = [&](const std::string& name, const std::string& hlo, const std::string& category) {
        OpInfo info;
        info.name = b.intern(name);
        info.longName = b.intern(hlo);
        info.category = b.intern(category);
        info.isXlaOp = true;
        return b.addOp(info);
    };
    TimePs t = 0;
    // 64 psums of 2 µs (0.128 ms together) and one all-reduce of 20 µs; 0.6 ms of compute.
    for (int i = 0; i < 64; ++i) {
        const std::string name = "all-reduce." + std::to_string(i + 10);
        const OpId id = op(name,
            "%" + name + " = bf16[8,1024]{1,0} all-reduce(bf16[8,1024]{1,0} %p." + std::to_string(i)
                + "), replica_groups={{0,1}}, to_apply=%add",
            "all-reduce");
        b.addEvent(track, t, 2'000'000, id);
        t += 2'000'000;
    }
    const OpId single = op("all-reduce.1",
        "%all-reduce.1 = f32[4096,1024]{1,0} all-reduce(f32[4096,1024]{1,0} %g), "
        "replica_groups={{0,1}}, to_apply=%add",
        "all-reduce");
    b.addEvent(track, t, 20'000'000, single);
    t += 20'000'000;
    const OpId compute = op("fusion.1", "%fusion.1 = f32[8]{0} fusion(f32[8]{0} %x), kind=kLoop", "loop fusion");
    b.addEvent(track, t, 600'000'000, compute);
    const ProfilePtr profile = b.finish();
    const AdviceReport report = computeAdvice(*profile);
    const Advice* a = report.find(AdviceRuleId::Collectives);
    ASSERT_TRUE(a);
    ASSERT_GE(a->evidence.size(), 2u);
    EXPECT_EQ(a->evidence.front().group, "all-reduce.*");
    EXPECT_EQ(a->evidence.front().groupOps, 64);
    EXPECT_GT(a->evidence.front().groupTimeFraction, a->evidence[1].groupTimeFraction);
    EXPECT_EQ(a->evidence[1].name, "all-reduce.1");
    EXPECT_NE(a->detail.find("all-reduce.* (64 ops"), std::string::npos) << a->detail;
    EXPECT_LT(a->detail.find("all-reduce.* (64 ops"), a->detail.find("all-reduce.1 ")) << a->detail;
}

// The demo's output fusion and its first convolution differ in their HLO: groups of their own.
TEST(OpGroups, DifferentHloStaysApart)
{
    const OpBreakdown b = computeOpBreakdown(*demoProfile());
    const OpGroups table = groupOps(b);
    const OpRow* output = rowNamed(b, "fusion.3");
    const OpRow* first = rowNamed(b, "fusion.7");
    ASSERT_TRUE(output && first);
    ASSERT_TRUE(table.of(output->op) && table.of(first->op));
    EXPECT_NE(table.of(output->op), table.of(first->op));
    EXPECT_EQ(table.of(output->op)->ops, 1);
    EXPECT_EQ(table.of(output->op)->label, "fusion.3");
}
