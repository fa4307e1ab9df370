// SPDX-License-Identifier: GPL-3.0-or-later
// Honest numbers (issue 12): unknown is not zero, no silent caps, async pairs and host transfers
// are counted once against the right limit, the device is checked against the data, and "low
// utilization" means far from the roofline.
#include "analysistestutil.h"
#include "testutil.h"

#include "analysis/advice.h"
#include "analysis/deviceconsistency.h"
#include "analysis/hostlink.h"
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

TEST(HonestNumbers, V6eHostCopiesAreRatedOnTheHostLinkAndCountedOnce)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    const auto profile = load(samplePath(kV6e));
    ASSERT_TRUE(profile);
    const OpBreakdown b = computeOpBreakdown(*profile);
    int starts = 0;
    double hostBytes = 0;
    const OpModel model = buildOpModel(*profile);
    const HostLinkStats link = computeHostLink(*profile, model);
    for (const OpRow& row : b.rows) {
        if (row.category == "copy-start" || row.category == "copy-done") {
            EXPECT_TRUE(model[row.op].isHostTransfer()) << row.name;
            EXPECT_EQ(row.ratedAgainst, RatedAgainst::HostLink) << row.name;
            EXPECT_EQ(row.boundBy, BoundBy::Host) << row.name;
            // Not on the roofline, never an over-peak op, whatever xprof's own-time column says.
            EXPECT_FALSE(row.rooflineEfficiency) << row.name;
            EXPECT_FALSE(row.capped) << row.name;
            EXPECT_FALSE(row.asyncPartner.empty()) << row.name;
            ASSERT_TRUE(row.hostGbps) << row.name;
            // PCIe-class rates, not the 1.6 TB/s of HBM; the per-op one includes queueing.
            EXPECT_GT(*row.hostGbps, 1) << row.name;
            EXPECT_LT(*row.hostGbps, 100) << row.name;
            // One link rate per direction, the link's bytes over its busy time, on every row.
            const bool toHost = model[row.op].direction == TransferDirection::ToHost;
            const std::optional<double>& rate = toHost ? row.hostLinkToHostGbps : row.hostLinkToDeviceGbps;
            ASSERT_TRUE(rate) << row.name;
            EXPECT_DOUBLE_EQ(*rate, toHost ? link.toHost.gbps() : link.toDevice.gbps()) << row.name;
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
    // Six pairs × 400 occurrences of 5 GiB: each transfer once, in the rows and on the link.
    EXPECT_DOUBLE_EQ(hostBytes, 6 * 400 * 5.0 * 1024 * 1024 * 1024);
    EXPECT_DOUBLE_EQ(link.toDevice.bytes + link.toHost.bytes, hostBytes);
    // Both halves record the whole array: aggregates count each pair's bytes once.
    const OpBreakdown programs = regroupOpBreakdown(b, GroupBy::Program);
    double counted = 0, countedAccessed = 0, raw = 0, rawAccessed = 0;
    for (const OpRow& row : b.rows)
        if (row.program == programs.rows.front().program) {
            counted += row.countedHbmBytes;
            countedAccessed += row.countedBytesAccessed;
            raw += row.hbmBytes;
            rawAccessed += row.bytesAccessed;
        }
    // The program row's bytes (the table's Bytes column) are its ops' with each pair once: 23.4 TiB,
    // not the 35.2 TiB of both halves.
    EXPECT_DOUBLE_EQ(programs.rows.front().countedHbmBytes, counted);
    EXPECT_DOUBLE_EQ(programs.rows.front().hbmBytes, counted);
    EXPECT_DOUBLE_EQ(programs.rows.front().bytesAccessed, countedAccessed);
    EXPECT_LT(counted, raw * 0.75);
    EXPECT_LT(countedAccessed, rawAccessed * 0.75);
    // The program waits on the host link 97 % of its time: it is host-bound, not HBM-bound.
    EXPECT_EQ(programs.rows.front().boundBy, BoundBy::Host);
    EXPECT_FALSE(programs.rows.front().rooflineEfficiency);
    EXPECT_FALSE(programs.rows.front().wastedFraction);
    // Copies are no over-peak warning.
    EXPECT_EQ(b.hbm.overPeakOps, 0);
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
    // 140 FLOP per byte, at the ridge point: it reaches about 12 % of its roofline bound.
    EXPECT_NEAR(slow->rooflineEfficiency.value_or(-1), 0.12, 0.005);
    EXPECT_EQ(bandwidthBound->lowUtilization, false);
    EXPECT_EQ(bandwidthBound->boundBy, BoundBy::Hbm);
    EXPECT_NEAR(bandwidthBound->rooflineEfficiency.value_or(-1), 0.85, 0.01);
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
    // xprof's program figure: all counted work over all op time (half of the fusion's own), and the
    // headline says how much of the time it can speak for.
    EXPECT_NEAR(b.hbm.capped.value_or(-1), fusion->hbmUtilization.value_or(-2) / 2, 1e-12);
    EXPECT_NEAR(b.hbm.coveredFraction, 0.5, 1e-9);
    EXPECT_NE(headlineUtilizationText(b.hbm).find("50.0% of op time with cost data"), std::string::npos)
        << headlineUtilizationText(b.hbm);
    // CSV leaves unknown cells empty.
    const std::string csv = opsReport(*result.profile, b, TableFormat::Csv);
    EXPECT_NE(csv.find("kernel,custom-call,,0.5,100000000,100000000,1,100000000,,,,,,,0,0"), std::string::npos) << csv;
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
    // Our pair rate: 1e8 B over the 100 µs span; xprof's column stays over the op's own time.
    ASSERT_TRUE(end->pairGbps);
    EXPECT_NEAR(*end->pairGbps, 1000, 1e-9);
    ASSERT_TRUE(end->attainedHbmGbps);
    EXPECT_NEAR(*end->attainedHbmGbps, 100000, 1e-6);
    EXPECT_DOUBLE_EQ(end->hbmUtilization.value_or(-1), 1.0); // capped as xprof caps it
    // An async half is no over-peak op and not on the roofline: it waits on its partner.
    EXPECT_FALSE(end->capped);
    EXPECT_FALSE(end->rooflineEfficiency);
    EXPECT_EQ(b.hbm.overPeakOps, 0);
    // Both halves show the pair's rate; the bytes count once.
    EXPECT_EQ(start->pairGbps, end->pairGbps);
    EXPECT_DOUBLE_EQ(b.totalHbmBytes, 100000000);
}
