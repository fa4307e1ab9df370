// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 27, points 1, 3, 4 and failure 12: what a file claims is checked and charged before it is
// built. Share files whose counts cannot be true, HLO that calls itself or is a bomb, and the hosts
// of a log dir, which share one budget and one event limit.
#include "core/hlo.h"
#include "core/jsondom.h"
#include "hlo.pb.h"
#include "loader/gzip.h"
#include "loader/hloconvert.h"
#include "loader/loader.h"
#include "loader/logdir.h"
#include "robustnessinputs.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace tpuscope::model;
using namespace tpuscope::test;
namespace fs = std::filesystem;

namespace {

/// A share file with one op on one core, and `extra` members spliced into its JSON document.
std::string shareWith(const std::string& extra, const std::string& device = {})
{
    const std::string json = R"({"format":"tpuscope-share","version":1,"device":{"type":"TPU v6 lite",)"
        + (device.empty() ? std::string(R"("hosts":["h"],"core_planes":[{"host":0,"name":"/device:TPU:0"}])") : device)
        + R"(},"totals":{"span_ps":1000000000},"ops":[{"name":"fusion.1","time_ps":1000000}])"
        + (extra.empty() ? "" : "," + extra) + "}";
    return "TPUSCOPE-SHARE 1\n" + gzipBytes(json);
}

std::string loadError(const std::string& bytes, LoadOptions options = {})
{
    const LoadResult r = loadProfileFromBytes(bytes, "claims.tpuscope", options);
    return r.profile ? std::string() : r.error;
}

std::string repeated(const std::string& item, size_t n)
{
    std::string out;
    for (size_t i = 0; i < n; ++i)
        out += (i ? "," : "") + item;
    return out;
}

} // namespace

TEST(ShareClaims, AMillionRunsInAMillisecondNameTheirField)
{
    EXPECT_NE(loadError(shareWith(R"("program_runs":[{"plane":0,"program":"p","runs":1000000,"time_ps":1000000000}])"))
                  .find("program_runs[0].runs: 1000000 runs cannot fit in its time_ps of 1"),
        std::string::npos);
    EXPECT_NE(
        loadError(
            shareWith(
                R"("idle":[{"plane":0,"kind":2,"runs":5,"span_ps":1000000000},{"plane":0,"kind":2,"runs":1000000,"span_ps":1000000000}])"))
            .find("idle[1].runs"),
        std::string::npos);
    // Runs that fit load as before.
    EXPECT_EQ(
        loadError(shareWith(R"("program_runs":[{"plane":0,"program":"p","runs":100,"time_ps":1000000000}])")), "");
}

TEST(ShareClaims, MoreCoresThanPlanesAndPlanesOutOfRangeAreErrors)
{
    const std::string core = R"({"plane":0,"start_ps":[0],"duration_ps":[10],"busy_ps":[5]})";
    EXPECT_NE(loadError(shareWith(R"("step_windows":{"kind":0,"cores":[)" + repeated(core, 3) + "]}"))
                  .find("step_windows.cores lists 3 cores, more than the 1 core planes"),
        std::string::npos);
    const std::string two = R"("hosts":["h"],"core_planes":[{"host":0,"name":"a"},{"host":0,"name":"b"}])";
    EXPECT_NE(loadError(shareWith(R"("step_windows":{"kind":0,"cores":[)" + repeated(core, 2) + "]}", two))
                  .find("step_windows.cores[1].plane names core 0 a second time"),
        std::string::npos);
    EXPECT_NE(loadError(shareWith(R"("program_runs":[{"plane":3,"program":"p","runs":1,"time_ps":1000000}])"))
                  .find("program_runs[0].plane names core 3, but device.core_planes lists 1 core"),
        std::string::npos);
    EXPECT_NE(loadError(shareWith("", R"("hosts":["h"],"core_planes":[{"host":4,"name":"a"}])"))
                  .find("device.core_planes[0].host names host 4"),
        std::string::npos);
}

TEST(ShareClaims, MoreEventsThanTheFileHasBytesIsAnError)
{
    const std::string bytes
        = shareWith(R"("program_runs":[{"plane":0,"program":"p","runs":100000000,"time_ps":1e20}])");
    const std::string error = loadError(bytes);
    EXPECT_NE(error.find("claims 100000000 events to rebuild (program_runs[0].runs alone 100000000), more than a "
                         "file of "
                  + std::to_string(bytes.size()) + " bytes can hold"),
        std::string::npos)
        << error;
}

TEST(ShareClaims, ArraysBeyondTheSchemaAndTreesBeyondTheBudgetAreRefusedBeforeTheyAreBuilt)
{
    EXPECT_NE(loadError(shareWith(R"("brief_ops":[)" + repeated(R"({"name":"x","time_ps":1})", 100'001) + "]"))
                  .find("brief_ops has 100001 entries, more than the 100000 a share file may hold"),
        std::string::npos);
    // A tree of zeros: 4 MB of text, 2 million values. Under a 64 MiB budget it would take ~700 MiB.
    LoadOptions small;
    small.memoryBudgetBytes = 64ull << 20;
    const std::string error = loadError(shareWith(R"("padding":[)" + repeated("0", 2'000'000) + "]"), small);
    EXPECT_NE(error.find("JSON values, which would take more than the memory budget of 64 MiB"), std::string::npos)
        << error;
    // What the claims will build is charged too: 200,000 program runs (11 MiB of events at their
    // peak) do not fit an 8 MiB budget, and say so before any is built.
    LoadOptions tiny;
    tiny.memoryBudgetBytes = 8ull << 20;
    const std::string runs = shareWith(R"("program_runs":[{"plane":0,"program":"p","runs":200000,"time_ps":1e12}])");
    const std::string over = loadError(runs, tiny);
    EXPECT_NE(over.find("the share file claims 200000 events, 1 op rows and 0 HLO instructions: loading needs about"),
        std::string::npos)
        << over;
    EXPECT_EQ(loadError(runs), "");
}

TEST(HloCycles, CallsThatCloseACycleAreDroppedAndReported)
{
    hlo::Module module;
    auto computation = [&](int64_t id, std::vector<int64_t> calls) {
        hlo::Computation c;
        c.id = id;
        c.name = "c" + std::to_string(id);
        hlo::Instruction in;
        in.id = id * 10;
        in.name = "fusion." + std::to_string(id);
        in.opcode = "fusion";
        in.calledComputationIds = std::move(calls);
        c.instructions.push_back(in);
        module.computations.push_back(c);
    };
    computation(1, {1}); // calls itself
    computation(2, {3}); // 2 → 3 → 4 → 2: a ring
    computation(3, {4});
    computation(4, {2, 5}); // and a call that is no cycle
    computation(5, {});
    module.buildIndex();
    ASSERT_EQ(module.callCycles.size(), 2u);
    EXPECT_NE(module.callCycles[0].find("fusion.1 in c1 calls c1"), std::string::npos) << module.callCycles[0];
    EXPECT_NE(module.callCycles[1].find("fusion.4 in c4 calls c2"), std::string::npos) << module.callCycles[1];
    EXPECT_TRUE(module.computation(1)->instructions[0].calledComputationIds.empty());
    EXPECT_EQ(module.computation(4)->instructions[0].calledComputationIds, std::vector<int64_t> {5});
    EXPECT_EQ(module.computation(2)->instructions[0].calledComputationIds, std::vector<int64_t> {3});
}

TEST(HloCycles, AChainOf200kCallsNeedsNoDeepStack)
{
    hlo::Module module;
    for (int64_t id = 0; id < 200'000; ++id) {
        hlo::Computation c;
        c.id = id;
        hlo::Instruction in;
        in.id = id;
        in.calledComputationIds = {id + 1 < 200'000 ? id + 1 : 0};
        c.instructions.push_back(std::move(in));
        module.computations.push_back(std::move(c));
    }
    module.buildIndex();
    EXPECT_EQ(module.callCycles.size(), 1u);
}

TEST(HloBudget, InstructionsAreCountedOnTheWireBeforeDecoding)
{
    xla::HloProto proto;
    auto* m = proto.mutable_hlo_module();
    for (int c = 0; c < 3; ++c) {
        auto* computation = m->add_computations();
        for (int i = 0; i < c + 2; ++i)
            computation->add_instructions()->set_name("i");
    }
    EXPECT_EQ(countHloInstructions(proto.SerializeAsString()), 2u + 3u + 4u);
    EXPECT_EQ(countHloInstructions("\xff\xff garbage"), 0u);
}

TEST(HloBudget, AModuleOverTheInstructionLimitKeepsItsOpsWithoutHlo)
{
    const std::string path = dataPath("hostile/xspace_hlo_bomb.xplane.pb.gz");
    LoadOptions limited;
    limited.maxHloInstructions = 1000;
    const LoadResult r = loadProfile(path, limited);
    ASSERT_TRUE(r.profile) << r.error;
    ASSERT_EQ(r.profile->programs.size(), 1u);
    EXPECT_EQ(r.profile->programs[0].hlo, nullptr);
    bool warned = false;
    for (const std::string& w : r.profile->load.warnings)
        warned |= w.find("4000000 instructions, more than the limit of 1000 per module") != std::string::npos;
    EXPECT_TRUE(warned);
    // By default the module is over the limit (2 million) and keeps its ops only, as above. Allowed
    // more, its 4 million instructions (~4 GB decoded) are refused by the budget before decoding.
    LoadOptions budget;
    budget.memoryBudgetBytes = 500ull << 20;
    budget.maxHloInstructions = 10'000'000;
    const LoadResult refused = loadProfile(path, budget);
    EXPECT_FALSE(refused.profile);
    EXPECT_NE(refused.error.find("4000000 HLO instructions (counted before decoding them)"), std::string::npos)
        << refused.error;
}

TEST(LogdirBudget, TheHostsOfARunShareOneEventLimit)
{
    const std::string run = tempDir("shared_budget") + "/plugins/profile/2026_12_02_00_00_00";
    fs::create_directories(run);
    const std::string one = synthXSpace(run + "/h0.xplane.pb");
    writeFile(run + "/h1.xplane.pb", one);
    writeFile(run + "/h2.xplane.pb", one);
    const LoadResult single = loadProfile(run + "/h0.xplane.pb");
    ASSERT_TRUE(single.profile) << single.error;
    const size_t perHost = single.profile->eventCount();

    LoadOptions options;
    options.maxEvents = perHost * 2 + perHost / 2; // two hosts fit, three do not
    const LoadResult r = loadNewestRun(run, options);
    ASSERT_TRUE(r.profile) << r.error;
    EXPECT_LE(r.profile->eventCount(), options.maxEvents);
    bool skipped = false;
    for (const std::string& w : r.profile->load.warnings)
        skipped |= w.find("hosts of the run together") != std::string::npos;
    EXPECT_TRUE(skipped);

    // Without the limit all three load.
    const LoadResult all = loadNewestRun(run);
    ASSERT_TRUE(all.profile) << all.error;
    EXPECT_EQ(all.profile->eventCount(), 3 * perHost);
}

TEST(HloCycles, ALogDirHostSaysItsCycleOnce)
{
    const std::string run = tempDir("cycle_host") + "/plugins/profile/2026_12_02_00_00_00";
    fs::create_directories(run);
    writeFile(run + "/a.xplane.pb", readFile(dataPath("hostile/xspace_self_calling_fusions.xplane.pb")));
    const LoadResult r = loadNewestRun(run);
    ASSERT_TRUE(r.profile) << r.error;
    int said = 0;
    for (const std::string& w : r.profile->load.warnings)
        said += w.find("calls in a cycle, not followed") != std::string::npos;
    EXPECT_EQ(said, 1);
}
