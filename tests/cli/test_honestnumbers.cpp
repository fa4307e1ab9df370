// SPDX-License-Identifier: GPL-3.0-or-later
// Honest numbers (issue 12): unknown is not zero, no silent caps, async pairs and host transfers
// are counted once against the right limit, the device is checked against the data, and "low
// utilization" means far from the roofline.
#include "analysistestutil.h"
#include "testutil.h"

#include "analysis/advice.h"
#include "analysis/deviceconsistency.h"
#include "analysis/opbreakdown.h"
#include "analysis/summary.h"
#include "core/jsondom.h"
#include "loader/loader.h"
#include "report/glossary.h"
#include "report/report.h"

#include <regex>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

constexpr const char* kVllm = "tpu_vllm_serving.trace.json.gz";
constexpr const char* kV6e = "tpu_v6e_inference.xplane.pb";
constexpr const char* kV5 = "tpu_v5_training.op_profile.json.gz";

std::shared_ptr<const Profile> load(const std::string& path, const std::string& device = {})
{
    LoadOptions options;
    options.deviceOverride = device;
    LoadResult result = loadProfile(path, options);
    EXPECT_TRUE(result.ok()) << result.error;
    return result.profile;
}

/// CLI JSON with what depends on the machine taken out: the samples folder and load times.
std::string stableCliOutput(const std::string& args)
{
    const auto run = runCommand(std::string(TPUSCOPE_CLI_PATH) + " " + args);
    EXPECT_EQ(run.exitCode, 0) << args;
    std::string out = run.output;
    for (size_t at = out.find(TPUSCOPE_SAMPLES_DIR); at != std::string::npos; at = out.find(TPUSCOPE_SAMPLES_DIR))
        out.replace(at, std::string_view(TPUSCOPE_SAMPLES_DIR).size(), "SAMPLES");
    return std::regex_replace(out, std::regex("\"seconds\": ?[-0-9.e+]+"), "\"seconds\": 0");
}

json::Value parseJson(const std::string& text)
{
    json::Value value;
    json::ParseError error;
    EXPECT_TRUE(json::parse(text, value, error)) << error.describe();
    return value;
}

} // namespace

TEST(HonestNumbers, VllmWithoutDeviceHasNoUtilizationAnywhere)
{
    TPUSCOPE_REQUIRE_SAMPLE(kVllm);
    const auto profile = load(samplePath(kVllm));
    ASSERT_TRUE(profile);
    EXPECT_EQ(profile->device.peakTflopsPerCore, 0);
    const OpBreakdown b = computeOpBreakdown(*profile);
    for (const OpRow& row : b.rows) {
        EXPECT_FALSE(row.flopsUtilization) << row.name;
        EXPECT_FALSE(row.hbmUtilization) << row.name;
        EXPECT_FALSE(row.wastedFraction) << row.name;
        EXPECT_FALSE(row.rooflineEfficiency) << row.name;
        EXPECT_FALSE(row.lowUtilization) << row.name;
    }
    EXPECT_FALSE(b.flops.capped);
    EXPECT_FALSE(b.hbm.capped);
    const ProfileSummary s = computeSummary(*profile);
    EXPECT_FALSE(s.flops.capped);
    // The custom kernels record no cost: coverage is below 80 % and the summary warns.
    EXPECT_GT(s.costCoverage, 0.5);
    EXPECT_LT(s.costCoverage, kLowCostCoverage);
    EXPECT_FALSE(s.warnings.empty());

    // JSON says null, never 0, for every row and the headline.
    const json::Value ops = parseJson(stableCliOutput("ops '" + samplePath(kVllm) + "' --format json"));
    EXPECT_TRUE(ops["flops_utilization"].isNull());
    EXPECT_GT(ops["cost_coverage"].number(), 0.5);
    ASSERT_GT(ops["rows"].size(), 10u);
    for (const json::Value& row : ops["rows"].array()) {
        EXPECT_TRUE(row["flops_utilization"].isNull()) << row["name"].string();
        EXPECT_TRUE(row["wasted_fraction"].isNull()) << row["name"].string();
        EXPECT_TRUE(row["low_utilization"].isNull()) << row["name"].string();
        // Only what the op waits on structurally stays known: a collective on the interconnect.
        if (row["rated_against"].string() == "ICI")
            EXPECT_EQ(row["bound_by"].string(), "ici") << row["name"].string();
        else
            EXPECT_TRUE(row["bound_by"].isNull()) << row["name"].string();
    }
    const json::Value summary = parseJson(stableCliOutput("summary '" + samplePath(kVllm) + "' --format json"));
    EXPECT_TRUE(summary["flops_utilization"].isNull());
    EXPECT_TRUE(summary["hbm_utilization"].isNull());
    EXPECT_FALSE(summary["cost_coverage"].isNull());

    // The table shows a dash, not 0.0 %.
    const auto table = runCommand(std::string(TPUSCOPE_CLI_PATH) + " ops '" + samplePath(kVllm) + "' --top 5");
    EXPECT_EQ(table.output.find("0.0%      0.0%"), std::string::npos) << table.output;
    EXPECT_NE(table.output.find("–"), std::string::npos);

    // The data propose the generations they fit instead of none.
    const AdviceReport advice = computeAdvice(*profile, b);
    const Advice* device = findAdvice(advice, "device-consistency");
    ASSERT_TRUE(device);
    EXPECT_EQ(device->severity, Severity::Info);
    const AdviceValue* fitting = device->numbers.find("fitting_generations");
    ASSERT_TRUE(fitting);
    ASSERT_EQ(fitting->items.size(), 1u);
    EXPECT_EQ(fitting->items[0].text, "v7x");
    // No utilization-based advice on unknown numbers.
    EXPECT_FALSE(findAdvice(advice, "low-utilization-fusion"));
    EXPECT_FALSE(findAdvice(advice, "hbm-bound"));
}

TEST(HonestNumbers, V5SplashKernelsShowTheirOverPeakValues)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV5);
    const auto profile = load(samplePath(kV5));
    ASSERT_TRUE(profile);
    const OpBreakdown b = computeOpBreakdown(*profile);
    int overPeak = 0;
    for (const OpRow& row : b.rows) {
        // The backward splash-attention kernels (dkv, dq) over-count; the forward ones run at ~90 %.
        if (!row.name.starts_with("vmap_splash_mha_d"))
            continue;
        ASSERT_TRUE(row.flopsUtilizationUncapped) << row.name;
        EXPECT_GT(*row.flopsUtilizationUncapped, 3.0) << row.name;
        EXPECT_EQ(row.flopsUtilization, 1.0) << row.name;
        EXPECT_TRUE(row.capped);
        EXPECT_TRUE(row.customKernelCost);
        ++overPeak;
    }
    EXPECT_EQ(overPeak, 2);
    // The headline is xprof's (the file's own root figure) and says how much rests on over-peak ops.
    ASSERT_TRUE(b.flops.capped && b.flops.uncapped);
    EXPECT_TRUE(b.flops.fromFile);
    EXPECT_GE(b.flops.overPeakOps, 2);
    EXPECT_GT(b.flops.overPeakPoints, 0.05);
    EXPECT_NE(headlineUtilizationText(b.flops).find("over-peak"), std::string::npos);
    // Async collectives wait on the interconnect: far from the HBM roof, yet never "low utilization".
    for (const OpRow& row : b.rows) {
        if (row.name.starts_with("async-collective")) {
            EXPECT_FALSE(row.lowUtilization.has_value()) << row.name;
        }
    }
    // Over-peak custom kernels are not evidence against the device.
    const DeviceConsistency check = checkDeviceConsistency(*profile, b);
    EXPECT_TRUE(check.excesses.empty());
    EXPECT_GE(check.customKernelsSkipped, 2u);

    const auto table = runCommand(std::string(TPUSCOPE_CLI_PATH) + " ops '" + samplePath(kV5) + "' --top 6");
    // xprof's capped figure, with the uncapped one beside it; no roofline efficiency for an estimate
    // above the peak.
    EXPECT_NE(table.output.find("100% (328% uncapped)"), std::string::npos) << table.output;
    EXPECT_NE(table.output.find("100% (400% uncapped)"), std::string::npos) << table.output;
    EXPECT_NE(table.output.find("cost estimate above peak"), std::string::npos) << table.output;
    const json::Value ops = parseJson(stableCliOutput("ops '" + samplePath(kV5) + "' --format json --top 6"));
    bool sawCapped = false;
    for (const json::Value& row : ops["rows"].array())
        if (row["capped"].boolean()) {
            sawCapped = true;
            EXPECT_GT(row["flops_utilization_uncapped"].number(), 1);
            EXPECT_EQ(row["flops_utilization"].number(), 1);
        }
    EXPECT_TRUE(sawCapped);
}

TEST(HonestNumbers, GlossaryExplainsEveryNewTermInOneSentence)
{
    for (const char* key : {"flops-utilization", "hbm-utilization", "over-peak", "cost-coverage", "roofline-efficiency",
             "bound-by", "low-utilization", "wasted-time", "arithmetic-intensity", "host-link", "async-pair",
             "device-consistency", "transfer-rate", "ici-utilization", "cores", "combined-gain"}) {
        const GlossaryEntry* e = glossaryEntry(key);
        ASSERT_TRUE(e) << key;
        const std::string sentence = e->sentence;
        EXPECT_FALSE(sentence.empty()) << key;
        // One sentence: a single full stop, at the end.
        EXPECT_EQ(sentence.find(". "), std::string::npos) << key << ": " << sentence;
        EXPECT_EQ(sentence.back(), '.') << key;
        EXPECT_FALSE(std::string(e->formula).empty()) << key;
        EXPECT_NE(glossaryTooltip(key).find(e->formula), std::string::npos);
    }
    const auto run = runCommand(std::string(TPUSCOPE_CLI_PATH) + " glossary");
    EXPECT_EQ(run.exitCode, 0);
    EXPECT_NE(run.output.find("| Roofline efficiency |"), std::string::npos) << run.output;
}

// Snapshots of the JSON of ops/summary/advise on the real samples, rewritten only on purpose
// (TPUSCOPE_UPDATE_SNAPSHOTS=1): any change to a number a user sees shows up as a diff.
TEST(HonestNumbers, SampleJsonSnapshots)
{
    struct Case
    {
        const char* sample;
        const char* extra;
        const char* snapshot;
    };
    const Case cases[] = {
        {kVllm, "", "vllm"},
        {kVllm, " --device v6e", "vllm_v6e"},
        {kVllm, " --device v7x", "vllm_v7x"},
        {kV6e, "", "v6e"},
        {kV5, "", "v5"},
    };
    for (const Case& c : cases) {
        if (!haveSample(c.sample))
            GTEST_SKIP() << "samples not found beside the clone";
        SCOPED_TRACE(c.snapshot);
        const std::string file = "'" + samplePath(c.sample) + "'" + c.extra;
        EXPECT_TRUE(matchesSnapshot(
            std::string(c.snapshot) + ".ops.json", stableCliOutput("ops " + file + " --format json --top 25")));
        EXPECT_TRUE(matchesSnapshot(
            std::string(c.snapshot) + ".summary.json", stableCliOutput("summary " + file + " --format json")));
        EXPECT_TRUE(matchesSnapshot(
            std::string(c.snapshot) + ".advise.json", stableCliOutput("advise " + file + " --format json")));
    }
}

// A GPU profile is not an unknown TPU with 0 cores: the advice says what the file holds in the
// summary's own words, and why there is no batch; a TPU profile's batch line says "not inferred"
// once, with its reason.
TEST(HonestNumbers, AProfileWithoutTpuOpsIsNotCalledAnUnknownTpu)
{
    const std::string gpu = "gpu_multiworker.xplane.pb";
    if (!haveSample(gpu) || !haveSample(kV6e))
        GTEST_SKIP() << "samples missing";
    const std::string statement = "This profile has no TPU op data (no /device:TPU:N plane with an \"XLA Ops\" "
                                  "line); it holds 8 GPU device planes.";
    const std::string summary = stableCliOutput("summary " + samplePath(gpu));
    EXPECT_NE(summary.find(statement), std::string::npos) << summary;
    for (const char* format : {"text", "md"}) {
        SCOPED_TRACE(format);
        const std::string advice = stableCliOutput("advise " + samplePath(gpu) + " --format " + format);
        EXPECT_EQ(advice.find("unknown TPU"), std::string::npos) << advice;
        EXPECT_EQ(advice.find("0 TPU cores"), std::string::npos) << advice;
        EXPECT_NE(advice.find("no TPU op data"), std::string::npos) << advice;
        EXPECT_NE(
            advice.find("Per-core batch: not inferred: the profile has no XLA ops on TPU cores."), std::string::npos)
            << advice;
    }
    EXPECT_NE(stableCliOutput("advise " + samplePath(gpu)).find("Advice: " + statement), std::string::npos);
    const json::Value json = parseJson(stableCliOutput("advise " + samplePath(gpu) + " --format json"));
    EXPECT_EQ(json["batch"]["explanation"].string(), "the profile has no XLA ops on TPU cores");

    const std::string v6e = stableCliOutput("advise " + samplePath(kV6e));
    EXPECT_NE(v6e.find("Per-core batch: not inferred: no convolution or batched dot"), std::string::npos) << v6e;
    EXPECT_EQ(v6e.find("per-core batch not inferred: no convolution"), v6e.rfind("per-core batch not inferred: no"))
        << "said once more, as the note: " << v6e;
}
