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

const OpRow* rowNamed(const OpBreakdown& b, std::string_view name)
{
    for (const OpRow& row : b.rows)
        if (row.name == name)
            return &row;
    return nullptr;
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

std::string gatherJson(std::string_view pid, const std::vector<std::string>& events)
{
    std::string text = "{\"traceEvents\":[";
    text += R"({"ph":"M","pid":)" + std::string(pid) + R"(,"name":"process_name","args":{"name":"/device:TPU:0"}},)";
    text += R"({"ph":"M","pid":)" + std::string(pid) + R"(,"tid":3,"name":"thread_name","args":{"name":"XLA Ops"}})";
    for (const std::string& e : events)
        text += "," + e;
    return text + "]}";
}

std::string opEvent(double ts, double dur, std::string_view name, std::string_view args)
{
    return R"({"ph":"X","pid":3,"tid":3,"ts":)" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur)
        + ",\"name\":\"" + std::string(name) + "\",\"args\":" + std::string(args) + "}";
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

TEST(HonestNumbers, VllmCustomKernelsStayUnknownWithADeviceAndTheDeviceIsChecked)
{
    TPUSCOPE_REQUIRE_SAMPLE(kVllm);
    const auto v6e = load(samplePath(kVllm), "v6e");
    ASSERT_TRUE(v6e);
    const OpBreakdown b = computeOpBreakdown(*v6e);
    size_t customCalls = 0;
    for (const OpRow& row : b.rows) {
        if (row.category != "custom-call")
            continue;
        ++customCalls;
        EXPECT_EQ(row.costCoverage, 0) << row.name;
        EXPECT_FALSE(row.flopsUtilization) << row.name;
        EXPECT_FALSE(row.wastedFraction) << row.name;
    }
    EXPECT_GT(customCalls, 0u);
    const AdviceReport advice = computeAdvice(*v6e, b);
    const Advice* device = findAdvice(advice, "device-consistency");
    ASSERT_TRUE(device);
    EXPECT_EQ(device->severity, Severity::Warning);
    const AdviceValue* excesses = device->numbers.find("excesses");
    ASSERT_TRUE(excesses);
    bool bandwidth = false, capacity = false;
    for (const AdviceValue& e : excesses->items) {
        bandwidth = bandwidth || (e.find("what")->text == "HBM bandwidth" && e.find("value")->number > 1638 * 1.1);
        capacity = capacity || (e.find("what")->text == "HBM capacity" && e.find("value")->number > 32e9);
    }
    EXPECT_TRUE(bandwidth);
    EXPECT_TRUE(capacity);
    EXPECT_NE(device->detail.find("TPU v7x"), std::string::npos) << device->detail;

    // The generation the data fit raises no such item.
    const auto v7x = load(samplePath(kVllm), "v7x");
    ASSERT_TRUE(v7x);
    EXPECT_FALSE(findAdvice(computeAdvice(*v7x), "device-consistency"));
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
    // The headline is capped per op and says how much rests on over-peak ops.
    ASSERT_TRUE(b.flops.capped && b.flops.uncapped);
    EXPECT_LT(*b.flops.capped, *b.flops.uncapped);
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
    EXPECT_NE(table.output.find("328% (over peak)"), std::string::npos) << table.output;
    EXPECT_NE(table.output.find("400% (over peak)"), std::string::npos) << table.output;
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

TEST(HonestNumbers, V6eHostCopiesAreRatedOnTheHostLinkAndCountedOnce)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    const auto profile = load(samplePath(kV6e));
    ASSERT_TRUE(profile);
    const OpBreakdown b = computeOpBreakdown(*profile);
    int starts = 0;
    double hostBytes = 0;
    for (const OpRow& row : b.rows) {
        if (row.category == "copy-start" || row.category == "copy-done") {
            EXPECT_FALSE(row.hbmUtilization) << row.name; // never "100 % of HBM" in a few ns
            EXPECT_EQ(row.boundBy, BoundBy::Host) << row.name;
            EXPECT_FALSE(row.asyncPartner.empty()) << row.name;
            ASSERT_TRUE(row.hostGbps) << row.name;
            // PCIe-class rates, not the 1.6 TB/s of HBM.
            EXPECT_GT(*row.hostGbps, 1) << row.name;
            EXPECT_LT(*row.hostGbps, 100) << row.name;
            hostBytes += row.hostBytes;
        }
        if (row.category == "copy-start") {
            ++starts;
            EXPECT_EQ(row.hostBytes, 0) << row.name; // counted on the done half
        }
        if (row.name.starts_with("broadcast_add_fusion")) {
            EXPECT_EQ(row.lowUtilization, false) << row.name;
            EXPECT_EQ(row.boundBy, BoundBy::Hbm);
            EXPECT_GT(row.rooflineEfficiency.value_or(0), 0.75);
        }
    }
    EXPECT_GT(starts, 0);
    // Six pairs × 400 occurrences of 5 GiB: each transfer once.
    EXPECT_DOUBLE_EQ(hostBytes, 6 * 400 * 5.0 * 1024 * 1024 * 1024);
    // The HBM headline covers the few percent of op time that touch HBM, and says so.
    EXPECT_LT(b.hbm.coveredFraction, 0.1);
    EXPECT_NE(headlineUtilizationText(b.hbm).find("of op time"), std::string::npos);
}

TEST(HonestNumbers, DemoLowUtilizationIsFarFromTheRoofline)
{
    const auto profile = load(std::string(TPUSCOPE_TEST_DATA_DIR) + "/../../resources/demo.xplane.pb");
    ASSERT_TRUE(profile);
    const OpBreakdown b = computeOpBreakdown(*profile);
    const OpRow* slow = rowNamed(b, "fusion.3");
    const OpRow* bandwidthBound = rowNamed(b, "fusion.12");
    ASSERT_TRUE(slow && bandwidthBound);
    EXPECT_EQ(slow->lowUtilization, true);
    EXPECT_NEAR(slow->rooflineEfficiency.value_or(-1), 0.15, 0.01);
    EXPECT_EQ(bandwidthBound->lowUtilization, false);
    EXPECT_EQ(bandwidthBound->boundBy, BoundBy::Hbm);
    EXPECT_NEAR(bandwidthBound->rooflineEfficiency.value_or(-1), 0.80, 0.01);
    // Its FLOPS utilization is low, which alone no longer flags it.
    EXPECT_LT(bandwidthBound->flopsUtilization.value_or(1), kDefaultLowUtilizationThreshold);
    const AdviceReport advice = computeAdvice(*profile, b);
    const Advice* low = findAdvice(advice, "low-utilization-fusion");
    ASSERT_TRUE(low);
    EXPECT_EQ(std::find(low->opNames.begin(), low->opNames.end(), "fusion.12"), low->opNames.end());
    EXPECT_FALSE(findAdvice(advice, "device-consistency"));
}

TEST(HonestNumbers, OpsWithoutCostAreUnknownAndNotWasted)
{
    // One kernel without cost data and one fusion with it, on a known device.
    const std::string text = gatherJson("3",
        {opEvent(0, 100, "kernel", R"({"hlo_category":"custom-call","model_flops":"0","bytes_accessed":"0"})"),
            opEvent(100, 100, "fusion.1",
                R"({"hlo_category":"loop fusion","model_flops":"1000000","bytes_accessed":"8000000"})")});
    LoadOptions options;
    options.deviceOverride = "v5e";
    LoadResult result = loadProfileFromBytes(text, "t.json", options);
    ASSERT_TRUE(result.ok()) << result.error;
    const OpBreakdown b = computeOpBreakdown(*result.profile);
    const OpRow* kernel = rowNamed(b, "kernel");
    const OpRow* fusion = rowNamed(b, "fusion.1");
    ASSERT_TRUE(kernel && fusion);
    EXPECT_FALSE(kernel->flopsUtilization);
    EXPECT_FALSE(kernel->wastedFraction);
    EXPECT_FALSE(kernel->lowUtilization);
    EXPECT_TRUE(fusion->flopsUtilization);
    EXPECT_NEAR(b.costCoverage, 0.5, 1e-9);
    // The headline covers the fusion only: its own utilization, not half of it.
    EXPECT_NEAR(b.hbm.capped.value_or(-1), fusion->hbmUtilization.value_or(-2), 1e-12);
    EXPECT_NEAR(b.hbm.coveredFraction, 0.5, 1e-9);
    // CSV leaves unknown cells empty.
    const std::string csv = opsReport(*result.profile, b, TableFormat::Csv);
    EXPECT_NE(csv.find("kernel,custom-call,,0.5,100000000,100000000,1,100000000,,,,,,0,0"), std::string::npos) << csv;
}

TEST(HonestNumbers, VmemOperandsAreNotHbmBytes)
{
    // bytes_accessed counts a 4 MiB VMEM operand (S(1)) and 4 MiB in HBM.
    const std::string longName = "%fusion.2 = f32[1024,1024]{1,0:T(8,128)} fusion(f32[1024,1024]{1,0:T(8,128)S(1)} "
                                 "%p0), kind=kLoop";
    const std::string text = gatherJson("3",
        {opEvent(0, 10, "fusion.2",
            R"({"hlo_category":"loop fusion","model_flops":"1048576",)"
            R"("bytes_accessed":"8388608","long_name":")"
                + longName + "\"}")});
    LoadResult result = loadProfileFromBytes(text, "t.json");
    ASSERT_TRUE(result.ok()) << result.error;
    const OpBreakdown b = computeOpBreakdown(*result.profile);
    ASSERT_EQ(b.rows.size(), 1u);
    EXPECT_DOUBLE_EQ(b.rows[0].bytesAccessed, 8388608);
    EXPECT_DOUBLE_EQ(b.rows[0].hbmBytes, 4194304);
}

TEST(HonestNumbers, AsyncPairIsRatedOverItsSpan)
{
    // A 100 MB HBM copy: start at 0 for 1 µs, done at 99 µs for 1 µs. Over its 100 µs span it moves
    // 1 TB/s; rated on either half's own 1 µs it would claim an impossible 100 TB/s.
    const std::string args = R"({"hlo_category":"copy-start","bytes_accessed":"100000000"})";
    const std::string done = R"({"hlo_category":"copy-done","bytes_accessed":"100000000"})";
    const std::string text
        = gatherJson("3", {opEvent(0, 1, "copy-start.1", args), opEvent(99, 1, "copy-done.1", done)});
    LoadOptions options;
    options.deviceOverride = "v7x";
    LoadResult result = loadProfileFromBytes(text, "t.json", options);
    ASSERT_TRUE(result.ok()) << result.error;
    const OpBreakdown b = computeOpBreakdown(*result.profile);
    const OpRow* start = rowNamed(b, "copy-start.1");
    const OpRow* end = rowNamed(b, "copy-done.1");
    ASSERT_TRUE(start && end);
    EXPECT_EQ(start->asyncPartner, "copy-done.1");
    EXPECT_DOUBLE_EQ(end->rateTimePs, 100e6);
    ASSERT_TRUE(end->attainedHbmGbps);
    EXPECT_NEAR(*end->attainedHbmGbps, 1000, 1e-9); // 1e8 B over 100 µs
    EXPECT_FALSE(end->capped);
    // Both halves show the pair's rate; the bytes count once.
    EXPECT_EQ(start->hbmUtilization, end->hbmUtilization);
    EXPECT_DOUBLE_EQ(b.totalHbmBytes, 100000000);
}

// Golden JSON of ops/summary/advise on the real samples, regenerated only on purpose
// (TPUSCOPE_UPDATE_GOLDEN=1): any change to a number a user sees shows up as a diff.
TEST(HonestNumbers, SampleJsonGoldens)
{
    struct Case
    {
        const char* sample;
        const char* extra;
        const char* golden;
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
        SCOPED_TRACE(c.golden);
        const std::string file = "'" + samplePath(c.sample) + "'" + c.extra;
        EXPECT_TRUE(matchesGolden(std::string("golden/") + c.golden + ".ops.json",
            stableCliOutput("ops " + file + " --format json --top 25")));
        EXPECT_TRUE(matchesGolden(std::string("golden/") + c.golden + ".summary.json",
            stableCliOutput("summary " + file + " --format json")));
        EXPECT_TRUE(matchesGolden(
            std::string("golden/") + c.golden + ".advise.json", stableCliOutput("advise " + file + " --format json")));
    }
}

TEST(HonestNumbers, GlossaryExplainsEveryNewTermInOneSentence)
{
    for (const char* key : {"flops-utilization", "hbm-utilization", "over-peak", "cost-coverage", "roofline-efficiency",
             "bound-by", "low-utilization", "wasted-time", "arithmetic-intensity", "host-link", "async-pair",
             "device-consistency"}) {
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
