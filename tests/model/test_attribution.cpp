// SPDX-License-Identifier: GPL-3.0-or-later
// Whose code an op is (framework op, source line), the framework-op / source groupings, and the
// evidence that advice items and share files carry.
#include "analysis/profileanalysis.h"
#include "analysis/advice.h"
#include "analysis/attribution.h"
#include "analysis/opbreakdown.h"
#include "analysistestutil.h"
#include "core/jsondom.h"
#include "loader/loader.h"
#include "report/advicereport.h"
#include "report/report.h"
#include "share/sharefile.h"
#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

const OpRow* rowNamed(const OpBreakdown& b, std::string_view name)
{
    for (const OpRow& r : b.rows)
        if (r.name == name)
            return &r;
    return nullptr;
}

} // namespace

TEST(Attribution, FrameworkOpNameDropsOnlyATrailingType)
{
    EXPECT_EQ(frameworkOpName("unet/conv2d_18/Conv2D:Conv2D"), "unet/conv2d_18/Conv2D");
    EXPECT_EQ(frameworkOpName("jit(f)/jit(main)/add:"), "jit(f)/jit(main)/add");
    EXPECT_EQ(frameworkOpName("CrossReplicaSum"), "CrossReplicaSum");
    EXPECT_EQ(frameworkOpName("jit(f)/dot_general[precision=a:b]"), "jit(f)/dot_general[precision=a:b]");
    EXPECT_EQ(frameworkOpName("a:b/c"), "a:b/c");
    EXPECT_EQ(frameworkOpName(""), "");
}

// tests/data/demo_framework_ops.golden.tsv comes from tests/tools/xspace_golden.py --by framework-op
// over `protoc --decode` text (the tools' own schema) of resources/demo.xplane.pb (the synthetic
// demo, byte-identical: test_synth checks it), summing the ops' own `tf_op` stats without tpuscope
// code.
TEST(Attribution, DemoByFrameworkOpMatchesIndependentSums)
{
    const OpBreakdown b = computeOpBreakdown(*demoProfile(), {}, GroupBy::FrameworkOp);
    std::istringstream golden(readFile(dataPath("demo_framework_ops.golden.tsv")));
    std::string line;
    std::getline(golden, line); // header
    size_t rows = 0;
    while (std::getline(golden, line)) {
        std::vector<std::string> cells;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, '\t'))
            cells.push_back(cell);
        ASSERT_EQ(cells.size(), 4u) << line;
        ASSERT_LT(rows, b.rows.size());
        const OpRow& row = b.rows[rows];
        EXPECT_EQ(row.name, cells[0]);
        EXPECT_EQ(row.frameworkOp, cells[0]);
        EXPECT_EQ(row.occurrences, std::stoll(cells[1])) << line;
        EXPECT_DOUBLE_EQ(row.totalTimePs, std::stod(cells[2])) << line;
        EXPECT_DOUBLE_EQ(row.flops, std::stod(cells[3])) << line;
        ++rows;
    }
    EXPECT_GE(rows, 5u);
    EXPECT_EQ(rows, b.rows.size());
}

TEST(Attribution, DemoBySourceSumsTheOpsOfEachLine)
{
    const ProfilePtr profile = demoProfile();
    const OpBreakdown ops = computeOpBreakdown(*profile);
    const OpBreakdown bySource = computeOpBreakdown(*profile, {}, GroupBy::Source);
    double expected = 0;
    int64_t occurrences = 0;
    for (const OpRow& r : ops.rows)
        if (r.source == "unet.py:87") {
            expected += r.selfTimePs;
            occurrences += r.occurrences;
        }
    const OpRow* line87 = rowNamed(bySource, "unet.py:87");
    ASSERT_TRUE(line87);
    EXPECT_GT(occurrences, 160); // fusion.3 and its gradient ops share the line
    EXPECT_EQ(line87->occurrences, occurrences);
    EXPECT_DOUBLE_EQ(line87->totalTimePs, expected);
    EXPECT_EQ(bySource.rows.front().name, "unet.py:87");
}

TEST(Attribution, HloMetadataFillsWhatTheEventsLack)
{
    ProfileBuilder builder;
    auto module = std::make_shared<hlo::Module>();
    module->name = "jit_step";
    hlo::Computation entry;
    entry.id = 1;
    entry.name = "main";
    hlo::Instruction in;
    in.id = 1;
    in.name = "fusion.9";
    in.opcode = "fusion";
    in.opName = "jit(step)/mlp/dense/dot_general:";
    in.sourceFile = "model.py";
    in.sourceLine = 42;
    entry.instructions.push_back(in);
    entry.rootId = 1;
    module->entryComputationId = 1;
    module->computations.push_back(entry);
    module->buildIndex();
    builder.addProgram(5, "jit_step", module);
    OpInfo withHlo;
    withHlo.name = builder.intern("fusion.9");
    withHlo.programId = 5;
    withHlo.hasProgramId = true;
    withHlo.isXlaOp = true;
    OpInfo withStats;
    withStats.name = builder.intern("copy.1");
    withStats.tfOp = builder.intern("jit(step)/transpose:Transpose");
    withStats.source = builder.intern("data.py:7");
    withStats.isXlaOp = true;
    OpInfo bare;
    bare.name = builder.intern("copy.2");
    bare.isXlaOp = true;
    const OpId a = builder.addOp(withHlo), b = builder.addOp(withStats), c = builder.addOp(bare);
    const PlaneId plane = builder.addPlane("/device:TPU:0");
    const TrackId track = builder.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    builder.addEvent(track, 0, 300, a);
    builder.addEvent(track, 300, 200, b);
    builder.addEvent(track, 500, 100, c);
    ProfilePtr profile = builder.finish();

    const OpAttribution fromHlo = opAttribution(*profile, a);
    EXPECT_EQ(fromHlo.frameworkOp, "jit(step)/mlp/dense/dot_general");
    EXPECT_EQ(fromHlo.source, "model.py:42");
    EXPECT_EQ(attributionText(fromHlo), "jit(step)/mlp/dense/dot_general, model.py:42");
    const OpAttribution fromStats = opAttribution(*profile, b);
    EXPECT_EQ(fromStats.frameworkOp, "jit(step)/transpose");
    EXPECT_EQ(fromStats.source, "data.py:7");
    EXPECT_EQ(attributionText(opAttribution(*profile, c)), "");

    const OpBreakdown bySource = computeOpBreakdown(*profile, {}, GroupBy::Source);
    ASSERT_EQ(bySource.rows.size(), 3u);
    EXPECT_EQ(bySource.rows[0].name, "model.py:42");
    EXPECT_EQ(bySource.rows[1].name, "data.py:7");
    EXPECT_EQ(bySource.rows[2].name, "(not recorded)");
    EXPECT_DOUBLE_EQ(bySource.rows[2].totalTimePs, 100);
}

TEST(Attribution, OpProfileProvenanceAndSourceInfo)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v5_training.op_profile.json.gz");
    LoadResult loaded = loadProfile(samplePath("tpu_v5_training.op_profile.json.gz"));
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const OpBreakdown ops = computeOpBreakdown(*loaded.profile);
    const OpRow* dus = rowNamed(ops, "dynamic-update-slice.31");
    ASSERT_TRUE(dus);
    EXPECT_EQ(dus->frameworkOp,
        "jit(train_step)/jit(main)/transpose(jvp(Transformer))/decoder/while/body/"
        "dynamic_update_slice");
    EXPECT_EQ(dus->source, "axes_scan.py:166");
}

TEST(Attribution, AdviceEvidenceNamesLayerAndLine)
{
    const ProfilePtr profile = demoProfile();
    const AdviceReport report = computeAdvice(*profile);
    ASSERT_FALSE(report.advice.empty());
    for (const Advice& a : report.advice) {
        ASSERT_EQ(a.evidence.size(), a.ops.size()) << a.rule;
        if (a.evidence.empty())
            continue;
        const AdviceEvidence& top = a.evidence.front();
        EXPECT_GT(top.timeFraction, 0) << a.rule;
        if (!top.frameworkOp.empty()) {
            EXPECT_NE(a.detail.find(top.frameworkOp + ", " + top.source), std::string::npos)
                << a.rule << ": " << a.detail;
        }
    }
    const Advice& batch = report.advice.front();
    ASSERT_EQ(batch.rule, "per-core-batch");
    EXPECT_NE(batch.detail.find("fusion.3 = unet/conv2d_18/Conv2D, unet.py:87"), std::string::npos) << batch.detail;

    json::Value doc;
    json::ParseError parseError;
    ASSERT_TRUE(json::parse(adviceReport(*profile, report, AdviceFormat::Json), doc, parseError))
        << parseError.describe();
    const json::Value& evidence = doc["advice"].at(0)["evidence"].at(0);
    EXPECT_EQ(evidence["op"].string(), "fusion.3");
    EXPECT_EQ(evidence["framework_op"].string(), "unet/conv2d_18/Conv2D");
    EXPECT_EQ(evidence["source"].string(), "unet.py:87");
    EXPECT_NEAR(evidence["time_fraction"].number(), 0.58, 0.005);

    const std::string md = adviceReport(*profile, report, AdviceFormat::Markdown);
    EXPECT_NE(md.find("`fusion.3` (`unet/conv2d_18/Conv2D, unet.py:87`)"), std::string::npos);
}

TEST(Attribution, ShareFileEvidenceFollowsTheRedaction)
{
    const ProfilePtr profile = demoProfile();
    const ShareResult plain = buildShareFile(*buildProfileAnalysis(profile));
    ASSERT_TRUE(plain.ok());
    EXPECT_NE(plain.json.find("\"framework_op\":\"unet/conv2d_18/Conv2D\""), std::string::npos);
    EXPECT_NE(plain.json.find("\"source\":\"unet.py:87\""), std::string::npos);

    std::string error;
    ShareOptions names;
    ASSERT_TRUE(parseShareRedaction("names", names.redaction, error)) << error;
    const ShareResult noNames = buildShareFile(*buildProfileAnalysis(profile), names);
    EXPECT_EQ(noNames.json.find("unet/conv2d_18/Conv2D"), std::string::npos);
    EXPECT_NE(noNames.json.find("\"source\":\"unet.py:87\""), std::string::npos);

    ShareOptions paths;
    ASSERT_TRUE(parseShareRedaction("paths", paths.redaction, error)) << error;
    const ShareResult noPaths = buildShareFile(*buildProfileAnalysis(profile), paths);
    EXPECT_EQ(noPaths.json.find("unet.py"), std::string::npos);
    EXPECT_NE(noPaths.json.find("\"framework_op\":\"unet/conv2d_18/Conv2D\""), std::string::npos);
}
