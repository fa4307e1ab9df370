// SPDX-License-Identifier: GPL-3.0-or-later
// op_profile.json loading and the JSON DOM it uses. Expected values are computed from the file
// with the DOM directly (not through the loader's mapping) and three are pinned as literals
// computed with python3's json module at development time.
#include "analysis/opbreakdown.h"
#include "core/jsondom.h"
#include "loader/gzip.h"
#include "loader/loader.h"
#include "opprofiletruth.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

constexpr const char* kV5 = "tpu_v5_training.op_profile.json.gz";
constexpr const char* kDemo = "demo_synthetic.op_profile.json";

json::Value parseOk(std::string_view text)
{
    json::Value v;
    json::ParseError e;
    EXPECT_TRUE(json::parse(text, v, e)) << e.describe();
    return v;
}

json::ParseError parseFails(std::string_view text, const json::ParseOptions& options = {})
{
    json::Value v;
    json::ParseError e;
    EXPECT_FALSE(json::parse(text, v, e, options)) << "parsed: " << text;
    EXPECT_TRUE(v.isNull());
    return e;
}

std::string readInflated(const std::string& path)
{
    std::string bytes = readFile(path), out, error;
    if (!isGzip(bytes))
        return bytes;
    EXPECT_TRUE(gunzip(bytes, out, 1ull << 30, error)) << error;
    return out;
}

} // namespace

// --- JSON DOM -----------------------------------------------------------------------------------

TEST(JsonDom, ParsesValuesEscapesAndNumbers)
{
    const json::Value v = parseOk(R"J( {"a": [1, -2.5e3, true, false, null], "s": "x\"\\\/\n\u00e9\ud83d\ude00",
                                       "big": 2041036616644817336, "str": "18446744073709551615", "e": {}} )J");
    ASSERT_TRUE(v.isObject());
    EXPECT_EQ(v["a"].size(), 5u);
    EXPECT_EQ(v["a"].at(0).number(), 1);
    EXPECT_EQ(v["a"].at(1).number(), -2500);
    EXPECT_TRUE(v["a"].at(2).boolean());
    EXPECT_TRUE(v["a"].at(4).isNull());
    EXPECT_TRUE(v["a"].at(99).isNull());
    EXPECT_EQ(v["s"].string(), "x\"\\/\n\xC3\xA9\xF0\x9F\x98\x80");
    // 64-bit ids survive exactly, as numbers and as proto3-JSON strings.
    EXPECT_EQ(v["big"].uint64(), 2041036616644817336ull);
    EXPECT_EQ(v["str"].uint64(), 18446744073709551615ull);
    EXPECT_EQ(v["str"].number(), 18446744073709551615.0);
    EXPECT_TRUE(v["e"].isObject());
    EXPECT_EQ(v["missing"]["deeper"].number(7), 7);
    EXPECT_EQ(v["a"].string(), "");
}

TEST(JsonDom, ErrorsNameOffsetLineAndColumn)
{
    auto e = parseFails("{\n  \"a\" 1}");
    EXPECT_EQ(e.offset, 8u);
    EXPECT_EQ(e.line, 2u);
    EXPECT_EQ(e.column, 7u);
    EXPECT_NE(e.describe().find("expected ':'"), std::string::npos) << e.describe();
    EXPECT_NE(parseFails("[1, 2").message.find("truncated"), std::string::npos);
    EXPECT_NE(parseFails("\"abc").message.find("unterminated"), std::string::npos);
    parseFails("");
    parseFails("{} x");
    parseFails("[01x]");
    parseFails("{\"a\":tru}");
    parseFails("\"\\q\"");
    parseFails("\"a\tb\"");
    parseFails("-");
    parseFails("1.");
    parseFails("[1,]");
}

TEST(JsonDom, LimitsDepthAndSize)
{
    std::string deep(100000, '[');
    auto e = parseFails(deep); // must not overflow the stack
    EXPECT_NE(e.message.find("nesting"), std::string::npos) << e.message;
    json::ParseOptions small;
    small.maxBytes = 10;
    EXPECT_NE(parseFails("[1,2,3,4,5,6,7,8]", small).message.find("limit"), std::string::npos);
    std::string ok = std::string(200, '[') + std::string(200, ']');
    parseOk(ok);
}

// --- op_profile ---------------------------------------------------------------------------------

// xprof's columns keep xprof's definitions: the 30 ops with the most time show the utilizations
// the file records for itself, as tests/tools/op_profile_metrics.py reads them (json + gzip only,
// independently of tpuscope), within 0.2 points; and the headline is the file's root figure.
TEST(OpProfile, V5TopOpsEqualTheFilesOwnPerOpMetrics)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV5);
    LoadResult result = loadProfile(samplePath(kV5));
    ASSERT_TRUE(result.ok()) << result.error;
    const OpBreakdown breakdown = computeOpBreakdown(*result.profile);
    std::ifstream golden(std::string(TPUSCOPE_TEST_DATA_DIR) + "/v5_op_profile_xprof_metrics.golden.csv");
    ASSERT_TRUE(golden) << "tests/data/v5_op_profile_xprof_metrics.golden.csv";
    std::string line;
    std::getline(golden, line); // header
    size_t checked = 0;
    while (std::getline(golden, line)) {
        std::vector<std::string> cells;
        std::stringstream row(line);
        for (std::string cell; std::getline(row, cell, ',');)
            cells.push_back(cell);
        if (line.back() == ',')
            cells.emplace_back();
        ASSERT_EQ(cells.size(), 5u) << line;
        const OpRow* found = nullptr;
        for (const OpRow& r : breakdown.rows)
            if (r.name == cells[0] && r.program == cells[1])
                found = &r;
        ASSERT_TRUE(found) << cells[0];
        SCOPED_TRACE(cells[0]);
        EXPECT_NEAR(found->timeFraction, std::stod(cells[2]), 1e-9);
        EXPECT_NEAR(found->flopsUtilization.value_or(-1), std::stod(cells[3]), 0.002);
        if (!cells[4].empty()) {
            EXPECT_NEAR(found->hbmUtilization.value_or(-1), std::stod(cells[4]), 0.002);
        }
        ++checked;
    }
    EXPECT_EQ(checked, 30u);
    // Program and root figures are the file's own (metrics.flops and bandwidthUtils[0] of the root).
    ASSERT_TRUE(result.profile->fileRootUtilization.flops && result.profile->fileRootUtilization.hbm);
    EXPECT_NEAR(breakdown.flops.capped.value_or(-1), *result.profile->fileRootUtilization.flops, 0.002);
    EXPECT_NEAR(breakdown.hbm.capped.value_or(-1), *result.profile->fileRootUtilization.hbm, 0.002);
    EXPECT_NEAR(*result.profile->fileRootUtilization.flops, 0.5969, 1e-4);
    EXPECT_TRUE(breakdown.flops.fromFile);
    EXPECT_TRUE(breakdown.hbm.fromFile);
    // Copies into VMEM are not rated against HBM and raise no over-peak warning: only the two splash
    // kernels, whose own estimates are above the peak, do; and they have no roofline efficiency.
    EXPECT_EQ(breakdown.hbm.overPeakOps, 2);
    for (const OpRow& r : breakdown.rows) {
        if (r.opClass == OpClass::CopyStart || r.opClass == OpClass::CopyDone)
            if (r.ratedAgainst == RatedAgainst::OnChip) {
                EXPECT_EQ(r.boundBy, BoundBy::Unknown) << r.name;
                EXPECT_FALSE(r.capped) << r.name;
            }
        if (r.customKernelCost && r.capped) {
            EXPECT_FALSE(r.rooflineEfficiency) << r.name;
            EXPECT_FALSE(r.wastedFraction) << r.name;
            EXPECT_EQ(r.efficiencyNote, "cost estimate above peak") << r.name;
        }
        // Collectives are rated against the interconnect, never called HBM-bound.
        if (r.opClass == OpClass::SyncCollective || r.opClass == OpClass::AsyncCollectiveDone) {
            EXPECT_EQ(r.boundBy, BoundBy::Ici) << r.name;
            EXPECT_TRUE(r.iciGbps) << r.name;
        }
    }
}

TEST(OpProfile, V5SampleMatchesTheFilesOwnMetrics)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV5);
    const json::Value doc = parseOk(readInflated(samplePath(kV5)));
    const double rootTime = doc["byProgram"]["metrics"]["rawTime"].number();
    ASSERT_GT(rootTime, 0);
    std::map<std::string, ExpectedOp> expected;
    collect(doc["byProgram"], expected, true);

    LoadResult result = loadProfile(samplePath(kV5));
    ASSERT_TRUE(result.ok()) << result.error;
    const Profile& profile = *result.profile;
    EXPECT_EQ(profile.load.format, "op-profile-json.gz");
    // One aggregate plane; the file records no core count, its replica groups span 4 devices.
    EXPECT_EQ(profile.tpuCorePlanes().size(), 1u);
    EXPECT_EQ(profile.device.cores, 4);
    EXPECT_EQ(profile.device.coresSource, CoreCountSource::ReplicaGroups);
    EXPECT_FALSE(profile.load.limitations.empty());
    EXPECT_NE(profile.load.limitations.front().find("no timeline"), std::string::npos);

    const OpBreakdown breakdown = computeOpBreakdown(profile);
    // Every op of the file, plus the program time the file leaves outside any category.
    size_t notBrokenDown = 0;
    for (const auto& row : breakdown.rows)
        notBrokenDown += row.name.starts_with("(not broken down)");
    EXPECT_EQ(notBrokenDown, 1u);
    EXPECT_EQ(breakdown.rows.size(), expected.size() + notBrokenDown);
    EXPECT_EQ(expected.size(), 353u); // python3: 352 ops + IDLE (two ops share a name in different programs)
    EXPECT_NEAR(breakdown.totalTimePs, rootTime, rootTime * 1e-9);

    // Peak implied by the file (bf16Flops / rawTime / utilization), not the generation table.
    EXPECT_NEAR(profile.device.peakTflopsPerCore, 233.4, 1e-6);
    EXPECT_NEAR(profile.device.peakHbmGbpsPerCore, 1382.3889, 1e-3);

    for (size_t i = 0; i < 10; ++i) {
        const OpRow& row = breakdown.rows[i];
        if (row.name.starts_with("(not broken down)"))
            continue;
        auto it = expected.find(row.program + '\x1f' + row.name);
        ASSERT_NE(it, expected.end()) << row.name;
        const double fraction = it->second.rawTime / rootTime;
        EXPECT_NEAR(row.timeFraction, fraction, 1e-12) << row.name;
        EXPECT_NEAR(row.flopsUtilization.value_or(-1), std::min(1.0, it->second.uncapped / fraction), 1e-9) << row.name;
        // Uncapped as in the file (uncappedFlops ÷ time fraction), so over-peak kernels show as such.
        EXPECT_NEAR(row.flopsUtilizationUncapped.value_or(-1), it->second.uncapped / fraction, 1e-9) << row.name;
        EXPECT_EQ(row.capped, it->second.uncapped / fraction > 1) << row.name;
        EXPECT_EQ(row.occurrences, it->second.occurrences) << row.name;
    }

    auto rowNamed = [&](std::string_view name) -> const OpRow* {
        for (const auto& row : breakdown.rows)
            if (row.name == name)
                return &row;
        return nullptr;
    };
    // Literals from python3 (json + gzip) over the sample at development time.
    const OpRow* dus = rowNamed("dynamic-update-slice.33");
    ASSERT_TRUE(dus);
    EXPECT_NEAR(dus->timeFraction, 0.05119342084520957, 1e-12);
    EXPECT_EQ(dus->flopsUtilization, 0.0);
    EXPECT_NEAR(dus->hbmUtilization.value_or(-1), 0.02717970290972501, 1e-9);
    const OpRow* fusion = rowNamed("fusion.556");
    ASSERT_TRUE(fusion);
    EXPECT_NEAR(fusion->timeFraction, 0.021610461784326237, 1e-12);
    EXPECT_NEAR(fusion->flopsUtilization.value_or(-1), 0.8308890753160879, 1e-9);
    EXPECT_NEAR(fusion->hbmUtilization.value_or(-1), 0.15636716851317845, 1e-9);
    EXPECT_EQ(fusion->category, "convolution fusion");
    EXPECT_EQ(fusion->program, "jit_train_step");
    EXPECT_EQ(fusion->occurrences, 544);
    const OpRow* reduceScatter = rowNamed("fusion.635");
    ASSERT_TRUE(reduceScatter);
    EXPECT_NEAR(reduceScatter->flopsUtilization.value_or(-1), 0.00014358410524104915, 1e-12);

    // Fused children are not ops of their own.
    EXPECT_EQ(rowNamed("convolution.98"), nullptr);
    // "… and its duplicate(s)" groups are split into their members.
    EXPECT_NE(rowNamed("async-collective-start.3"), nullptr);
    EXPECT_EQ(rowNamed("async-collective-start.3 and its duplicate(s)"), nullptr);
    // HLO text, provenance and program id come through.
    const OpInfo& op = profile.ops[fusion->op];
    EXPECT_TRUE(profile.str(op.longName).starts_with("%fusion.556 = "));
    EXPECT_EQ(op.programId, 2041036616644817336ull);
    EXPECT_FALSE(profile.str(op.tfOp).empty());
}

TEST(OpProfile, DemoSampleKeepsLayoutHintsAndUtilizations)
{
    TPUSCOPE_REQUIRE_SAMPLE(kDemo);
    LoadResult result = loadProfile(samplePath(kDemo));
    ASSERT_TRUE(result.ok()) << result.error;
    const Profile& profile = *result.profile;
    const OpBreakdown breakdown = computeOpBreakdown(profile);
    ASSERT_EQ(breakdown.rows.size(), 3u); // convolution, fusion (not its two dots), infeed
    std::map<std::string, const OpRow*> rows;
    for (const auto& row : breakdown.rows)
        rows[row.name] = &row;
    ASSERT_TRUE(rows.count("convolution") && rows.count("fusion") && rows.count("infeed"));
    EXPECT_NEAR(rows["convolution"]->timeFraction, 0.2, 1e-12);
    EXPECT_NEAR(rows["convolution"]->flopsUtilization.value_or(-1), 0.18 / 0.2, 1e-12); // TF1: flops / time
    EXPECT_NEAR(rows["fusion"]->flopsUtilization.value_or(-1), 0.22 / 0.4, 1e-12);
    // The TF1 file gives the infeed metrics without a FLOP figure (proto3 drops zeros): a known
    // zero, not "no cost data"; no node records bandwidth, so HBM rates are unknown, not 0 %.
    EXPECT_EQ(rows["infeed"]->flopsUtilization, 0.0);
    EXPECT_EQ(rows["infeed"]->costCoverage, 1.0);
    EXPECT_EQ(rows["infeed"]->opClass, OpClass::Infeed);
    EXPECT_FALSE(rows["convolution"]->hbmUtilization.has_value());
    EXPECT_TRUE(profile.bytesNotRecorded);
    // The headline is the file's root figure, 40 % (not 66.7 % over the ops with FLOPs).
    EXPECT_NEAR(breakdown.flops.capped.value_or(-1), 0.4, 1e-9);
    EXPECT_TRUE(breakdown.flops.fromFile);
    EXPECT_FALSE(breakdown.hbm.capped.has_value());
    EXPECT_EQ(rows["convolution"]->category, "Good ops");

    const auto it = profile.layoutHints.find(rows["convolution"]->op);
    ASSERT_NE(it, profile.layoutHints.end());
    ASSERT_EQ(it->second.size(), 3u);
    EXPECT_EQ(it->second[0].size, 200);
    EXPECT_EQ(it->second[0].alignment, 128);
    EXPECT_EQ(it->second[0].semantics, "feature");
    EXPECT_EQ(it->second[1].size, 8);
    EXPECT_EQ(it->second[1].alignment, 8);
    EXPECT_EQ(it->second[1].semantics, "batch");
    EXPECT_EQ(it->second[2].alignment, 0);
    EXPECT_EQ(profile.layoutHints.count(rows["fusion"]->op), 0u);
    // Only fractions in the file: the peak is nominal and says so.
    EXPECT_NE(profile.device.peakNote.find("nominal"), std::string::npos) << profile.device.peakNote;
}

TEST(OpProfile, DeviceTypeAgreeingWithTheTableUsesTheTable)
{
    // v5e: 197 TFLOP/s. One op at 50 % for 1 ms: flops = 0.5 × 197e12 × 1e-3.
    const std::string text = R"J({"deviceType": "TPU v5 lite", "byProgram": {"name": "p", "metrics": {"rawTime": 1e9,
        "uncappedFlops": 0.5, "bf16Flops": 98500000000}, "children": [{"name": "jit_f(7)", "metrics": {"rawTime": 1e9},
        "children": [{"name": "fusion.1", "metrics": {"rawTime": 1e9, "bf16Flops": 98500000000, "rawFlops": 98500000000,
        "uncappedFlops": 0.5, "occurrences": 4}, "xla": {"category": "loop fusion", "programId": "7"}}]}]}})J";
    LoadResult result = loadProfileFromBytes(text, "op_profile.json");
    ASSERT_TRUE(result.ok()) << result.error;
    EXPECT_EQ(result.profile->device.generation, "v5e");
    EXPECT_EQ(result.profile->device.peakSource, PeakSource::GenerationTable);
    const OpBreakdown b = computeOpBreakdown(*result.profile);
    ASSERT_EQ(b.rows.size(), 1u);
    EXPECT_NEAR(b.rows[0].flopsUtilization.value_or(-1), 0.5, 1e-12);
    EXPECT_EQ(b.rows[0].occurrences, 4);
    EXPECT_EQ(b.rows[0].program, "jit_f");
}

TEST(OpProfile, DeviceTypeDisagreeingWithTheFileWarnsAndUsesTheFile)
{
    // Says v4 (137.5 TFLOP/s) but the numbers imply 100 TFLOP/s.
    const std::string text = R"J({"deviceType": "TPU v4", "byCategory": {"name": "c", "metrics": {"rawTime": 1e9},
        "children": [{"name": "dot", "metrics": {"rawTime": 1e9, "bf16Flops": 5e10, "uncappedFlops": 0.5,
        "occurrences": 1}, "xla": {"category": "dot"}}]}})J";
    LoadResult result = loadProfileFromBytes(text, "op_profile.json");
    ASSERT_TRUE(result.ok()) << result.error;
    EXPECT_NEAR(result.profile->device.peakTflopsPerCore, 100, 1e-9);
    bool warned = false;
    for (const auto& w : result.profile->load.warnings)
        warned = warned || w.find("imply") != std::string::npos;
    EXPECT_TRUE(warned);
    EXPECT_NEAR(computeOpBreakdown(*result.profile).rows.at(0).flopsUtilization.value_or(-1), 0.5, 1e-12);
}

TEST(OpProfile, BadInputGivesClearErrors)
{
    auto error = [](const std::string& text) {
        LoadResult r = loadProfileFromBytes(text, "x.op_profile.json");
        EXPECT_FALSE(r.ok());
        return r.error;
    };
    EXPECT_NE(error(R"J({"byProgram": {"children": [1, 2)J").find("JSON error at byte"), std::string::npos);
    EXPECT_NE(error(R"J({"byProgram": {"children": []}})J").find("no non-empty"), std::string::npos);
    EXPECT_NE(error(R"J({"byCategory": {"children": [{"name": "a"}]}})J").find("neither rawTime"), std::string::npos);
    // Garbage of every kind never crashes.
    const std::string good = readFile(samplePath(kDemo));
    for (size_t cut = 1; cut < good.size(); cut += 37)
        loadProfileFromBytes(good.substr(0, cut), "cut.op_profile.json");
}

TEST(OpProfile, OutOfRangeLayoutNumbersAreClamped)
{
    // fuzz_opprofile: a layout size of 2.7e21 was cast to int64 (undefined behaviour).
    const std::string text
        = R"x({"byProgram":{"name":"root","metrics":{"rawTime":100},"children":[{"name":"jit_f(1)","metrics":)x"
          R"x({"rawTime":100},"children":[{"name":"fusion.1","metrics":{"rawTime":100,"occurrences":1},)x"
          R"x("xla":{"category":"loop fusion","layout":{"dimensions":[{"size":2.7e21,"alignment":-1e300,)x"
          R"x("semantics":"batch"},{"size":128,"alignment":128,"semantics":"feature"}]}}}]}]}})x";
    const LoadResult result = loadProfileFromBytes(text, "op_profile.json");
    ASSERT_TRUE(result.ok()) << result.error;
    ASSERT_EQ(result.profile->layoutHints.size(), 1u);
    const auto& hints = result.profile->layoutHints.begin()->second;
    ASSERT_EQ(hints.size(), 2u);
    EXPECT_EQ(hints[0].size, INT64_MAX);
    EXPECT_EQ(hints[0].alignment, INT64_MIN);
    EXPECT_EQ(hints[1].size, 128);
}
