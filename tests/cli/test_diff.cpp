// SPDX-License-Identifier: GPL-3.0-or-later
#include "clitool.h"
#include "testutil.h"

#include "analysis/diff.h"
#include "report/diffreport.h"

#include <sstream>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

} // namespace

TEST(DiffCli, TwoFiles)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string dir = tpuscope::test::tempDir("diff_cli");
    const std::string cli = TPUSCOPE_CLI_PATH;
    auto r = tpuscope::test::runCommand(cli + " synth origin-story -o " + dir + "/a.xplane.pb", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    r = tpuscope::test::runCommand(cli + " share " + dir + "/a.xplane.pb -o " + dir + "/a.tpuscope", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    // A profile against its own share file: every op matched, no time change.
    r = tpuscope::test::runCommand(cli + " diff " + dir + "/a.xplane.pb " + dir + "/a.tpuscope --format json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("\"new\": 0"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("\"removed\": 0"), std::string::npos);
    r = tpuscope::test::runCommand(cli + " diff " + dir + "/a.xplane.pb --format md", true);
    EXPECT_EQ(r.exitCode, 2);
}

// The v3 demo against the v6e sample share no program: the diff says so first, names which file
// is before and after, and gives no change in op time (it read "+7859 %" as if it were a result).
TEST(DiffCli, UnrelatedProfilesAreSaidToBeUnrelatedWithoutAPercentChange)
{
    const std::string after = tpuscope::test::samplePath("tpu_v6e_inference.xplane.pb");
    if (!haveCli() || !std::filesystem::exists(after))
        GTEST_SKIP() << "tpuscope-cli or the v6e sample missing";
    const std::string dir = tpuscope::test::tempDir("diff_unrelated");
    const std::string cli = TPUSCOPE_CLI_PATH;
    auto r = tpuscope::test::runCommand(cli + " synth origin-story -o " + dir + "/demo.xplane.pb", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const std::string files = " " + dir + "/demo.xplane.pb '" + after + "'";

    r = tpuscope::test::runCommand(cli + " diff" + files);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_TRUE(r.output.starts_with("Warning: These profiles look unrelated")) << r.output;
    EXPECT_NE(r.output.find("Different TPU generations (before v3, after v6e)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Before (A)"), std::string::npos);
    EXPECT_NE(r.output.find("demo.xplane.pb"), std::string::npos);
    EXPECT_NE(r.output.find("tpu_v6e_inference.xplane.pb"), std::string::npos);
    for (const char* row : {"\nOp time", "\nStep time"}) {
        const size_t at = r.output.find(row);
        if (at == std::string::npos)
            continue;
        const std::string line = r.output.substr(at + 1, r.output.find('\n', at + 1) - at - 1);
        EXPECT_EQ(line.find('%'), std::string::npos) << line;
        EXPECT_NE(line.find("not comparable"), std::string::npos) << line;
    }

    r = tpuscope::test::runCommand(cli + " diff" + files + " --format json", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("\"related\": false"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("\"different_generation\": true"), std::string::npos);
    EXPECT_NE(r.output.find("tpuscope-cli diff: warning: These profiles look unrelated"), std::string::npos);

    // A profile against its own share file is related: no warning.
    r = tpuscope::test::runCommand(cli + " share " + dir + "/demo.xplane.pb -o " + dir + "/demo.tpuscope", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    r = tpuscope::test::runCommand(cli + " diff " + dir + "/demo.xplane.pb " + dir + "/demo.tpuscope");
    EXPECT_EQ(r.output.find("Warning"), std::string::npos) << r.output;
}

namespace {

/// Writes `scenario` with `tpuscope-cli synth` into `dir` as `name`; its path.
std::string synth(const std::string& dir, const std::string& scenario, const std::string& name)
{
    const std::string path = dir + "/" + name;
    const auto r = tpuscope::test::runCommand(cli() + " synth '" + scenario + "' -o " + path, true);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    return path;
}

} // namespace

// The test pair of issue 43: the origin story, and the same model recompiled at global batch 1024.
TEST(DiffCli, RecompiledOpsCarryBothNamesAndHowTheyMatched)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string dir = tpuscope::test::tempDir("diff_recompile");
    const std::string before = synth(dir, "origin-story", "before.xplane.pb");
    const std::string after = synth(dir, "origin-story:global_batch=1024", "after.xplane.pb");
    const auto r = tpuscope::test::runCommand(cli() + " diff " + before + " " + after + " --format json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("\"schema_version\": 1"), std::string::npos);
    EXPECT_NE(r.output.find("\"new\": 0"), std::string::npos);
    EXPECT_NE(r.output.find("\"removed\": 0"), std::string::npos);
    EXPECT_NE(r.output.find("\"matched_by\": \"fingerprint\""), std::string::npos);
    EXPECT_NE(r.output.find("\"matched_by\": \"framework-op\""), std::string::npos);
    EXPECT_NE(r.output.find("\"name\": \"fusion.3\""), std::string::npos); // a.name
    EXPECT_NE(r.output.find("per-core batch 16 \u2192 128: tile efficiency 12.5% \u2192 100%"), std::string::npos);
    EXPECT_NE(r.output.find("\"batch_differs\": true"), std::string::npos);

    const auto text = tpuscope::test::runCommand(cli() + " diff " + before + " " + after + " --wide");
    ASSERT_EQ(text.exitCode, 0) << text.output;
    EXPECT_NE(text.output.find("Matched by"), std::string::npos);
    EXPECT_NE(text.output.find("Examples/s"), std::string::npos);
    EXPECT_NE(text.output.find("Different global batch (before 128, after 1024)"), std::string::npos);
    EXPECT_NE(text.output.find("0 new, 0 removed"), std::string::npos) << text.output;
}

TEST(GateCli, ExitCodesForCi)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string dir = tpuscope::test::tempDir("gate_cli");
    const std::string base = synth(dir, "origin-story", "base.xplane.pb");
    const auto gate = [&](const std::string& candidate, const std::string& options = {}) {
        return tpuscope::test::runCommand(cli() + " gate " + base + " " + candidate + options);
    };
    // Identical: pass. 10 % slower steps: fail, naming the step time with its size and confidence.
    auto r = gate(base);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
    r = gate(synth(dir, "origin-story:slowdown_pct=10", "slower.xplane.pb"), " --format md");
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("### tpuscope gate: FAIL"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("| step time |"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("REGRESSION"), std::string::npos);
    EXPECT_NE(r.output.find("p &lt; 0.0001"), std::string::npos); // Markdown escapes the "<"
    // ... unless the budget allows it.
    r = gate(dir + "/slower.xplane.pb", " --max-step-regression 15 --max-op-regression 15");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    // Another run of the same program: jitter within the noise passes.
    r = gate(synth(dir, "origin-story:seed=7", "rerun.xplane.pb"), " --format json");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("\"verdict\": \"pass\""), std::string::npos);
    // A recompile for another global batch is a configuration change: 2 unless allowed.
    const std::string recompiled = synth(dir, "origin-story:global_batch=1024", "recompiled.xplane.pb");
    r = gate(recompiled);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("global batch differs (before 128, after 1024)"), std::string::npos) << r.output;
    r = gate(recompiled, " --allow-config-change --max-hbm-peak-regression 1000");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("examples per second"), std::string::npos) << r.output;
    // A usage error is 2 as well.
    EXPECT_EQ(tpuscope::test::runCommand(cli() + " gate " + base).exitCode, 2);
    EXPECT_EQ(gate(base, " --max-step-regression lots").exitCode, 2);
    EXPECT_EQ(gate(dir + "/missing.xplane.pb").exitCode, 2);
}

TEST(GateCli, ADifferentGenerationExitsTwo)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string dir = tpuscope::test::tempDir("gate_generation_cli");
    const std::string demo = synth(dir, "origin-story", "demo.xplane.pb");
    synth(dir, "pod:hosts=1,chips=8", "v5e");
    const auto r = tpuscope::test::runCommand(cli() + " gate " + demo + " " + dir + "/v5e");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("generation differs (before v3, after v5e)"), std::string::npos) << r.output;
}

TEST(SynthCli, HelpNamesTheRecompiledOriginStory)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const auto r = tpuscope::test::runCommand(cli() + " help synth");
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.output.find("origin-story:global_batch=N"), std::string::npos) << r.output;
    const auto gate = tpuscope::test::runCommand(cli() + " help gate");
    EXPECT_NE(gate.output.find("--max-step-regression"), std::string::npos) << gate.output;
    EXPECT_NE(gate.output.find("exit codes"), std::string::npos);
    EXPECT_EQ(tpuscope::test::runCommand(cli() + " synth origin-story:global_batch=100 -o /dev/null").exitCode, 2);
}
