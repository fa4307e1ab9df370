// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysistestutil.h"
#include "clitool.h"
#include "testutil.h"

#include "analysis/advice.h"
#include "analysis/opbreakdown.h"
#include "analysis/profileanalysis.h"
#include "analysis/summary.h"
#include "loader/loader.h"
#include "report/report.h"
#include "share/forumpost.h"
#include "share/sharefile.h"
#include "synth/synth.h"

#include <cmath>
#include <regex>
#include <set>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

} // namespace

namespace {

std::string demoFile(const std::string& dir)
{
    const std::string p = dir + "/demo.xplane.pb";
    std::string error;
    EXPECT_TRUE(writeSyntheticXSpace({}, p, error)) << error;
    return p;
}

} // namespace

TEST(ShareCli, ShareThenEveryCommandReadsTheShareFile)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string cli = TPUSCOPE_CLI_PATH;
    const std::string dir = tempDir("share_cli");
    const std::string demo = demoFile(dir);
    const std::string out = dir + "/demo.tpuscope";
    // Unredacted, so that every command reads back what it read from the original (the default
    // redaction drops source lines: ShareFileLeavesOutPathsByDefault).
    CommandResult r = runCommand(cli + " share '" + demo + "' --redact none -o '" + out + "'", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("KB"), std::string::npos);
    EXPECT_TRUE(readFile(out).starts_with("TPUSCOPE-SHARE 1\n"));

    // Same advice JSON (apart from the op ids, which index a different op list).
    auto stripIds = [](std::string s) {
        for (size_t at = s.find("\"op_ids\""); at != std::string::npos; at = s.find("\"op_ids\"", at + 1))
            s.erase(at, s.find(']', at) - at);
        return s;
    };
    const CommandResult a = runCommand(cli + " advise '" + demo + "' --format json");
    const CommandResult b = runCommand(cli + " advise '" + out + "' --format json");
    ASSERT_EQ(b.exitCode, 0);
    EXPECT_EQ(stripIds(a.output), stripIds(b.output));
    for (const char* command : {"summary", "ops", "fusion"}) {
        const std::string extra = std::string(command) == "fusion" ? " fusion.3" : "";
        const CommandResult c = runCommand(cli + " " + command + " '" + out + "'" + extra, true);
        EXPECT_EQ(c.exitCode, 0) << command << ": " << c.output;
    }
    const CommandResult opsA = runCommand(cli + " ops '" + demo + "' --format csv");
    const CommandResult opsB = runCommand(cli + " ops '" + out + "' --format csv");
    EXPECT_EQ(opsA.output, opsB.output); // the demo has few ops: all are kept

    // Never over the input.
    r = runCommand(cli + " share '" + demo + "' -o '" + demo + "'", true);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("input"), std::string::npos);
    EXPECT_TRUE(readFile(demo).size() > 1000);
    r = runCommand(cli + " share '" + demo + "' -o x --redact bogus", true);
    EXPECT_EQ(r.exitCode, 2);
}

TEST(ShareCli, TextFormThroughOpenText)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string cli = TPUSCOPE_CLI_PATH;
    const std::string dir = tempDir("share_text");
    const std::string demo = demoFile(dir);
    const std::string text = dir + "/demo.txt";
    CommandResult r = runCommand(cli + " share '" + demo + "' --text --redact paths,names -o '" + text + "'", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_TRUE(readFile(text).starts_with("```tpuscope\n"));
    r = runCommand("cat '" + text + "' | " + cli + " open-text -", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("fusion.3"), std::string::npos) << r.output;
    const std::string bin = dir + "/back.tpuscope";
    r = runCommand(cli + " open-text '" + text + "' -o '" + bin + "'", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_TRUE(readFile(bin).starts_with("TPUSCOPE-SHARE 1\n"));
    // Cut-off text: a clear error, exit code 1.
    const std::string cut = readFile(text).substr(0, 300);
    writeFile(dir + "/cut.txt", cut);
    r = runCommand(cli + " open-text '" + dir + "/cut.txt'", true);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.output.find("closing"), std::string::npos) << r.output;
}

// `share --forum` prints the post the GUI's Copy for Forum copies: the same function over the
// same analysis, paths redacted by default, and the share block folded under it with --text.
TEST(ShareCli, ForumPrintsTheCopyForForumPost)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string cli = TPUSCOPE_CLI_PATH;
    const std::string dir = tempDir("share_forum");
    const std::string demo = demoFile(dir);
    const CommandResult r = runCommand(cli + " share '" + demo + "' --forum");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_TRUE(r.output.starts_with("### tpuscope: profile (file name redacted)\n")) << r.output;
    EXPECT_NE(r.output.find("**TPU v3**, 8 TPU cores · span 22.7 ms · op time 176 ms · 20 steps of 1.13 ms"),
        std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("| 1 | fusion.3 | output fusion | 58.0% |"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("redacted: source paths"), std::string::npos);
    EXPECT_EQ(r.output.find("```tpuscope"), std::string::npos);
    const LoadResult loaded = loadProfile(demo);
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    EXPECT_EQ(r.output, buildForumPost(*buildProfileAnalysis(loaded.profile)).markdown);

    const CommandResult open = runCommand(cli + " share '" + demo + "' --forum --redact names --text");
    ASSERT_EQ(open.exitCode, 0) << open.output;
    EXPECT_TRUE(open.output.starts_with("### tpuscope: demo.xplane.pb\n")) << open.output;
    EXPECT_NE(open.output.find("<details>"), std::string::npos);
    EXPECT_NE(open.output.find("```tpuscope"), std::string::npos);
    EXPECT_NE(open.output.find("redacted: framework op names"), std::string::npos);

    // One step is "1 step", not "1 steps" (the vLLM sample captured one run of its program).
    const std::string vllm = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_vllm_serving.trace.json.gz";
    if (std::filesystem::exists(vllm)) {
        const CommandResult one = runCommand(cli + " share '" + vllm + "' --forum");
        ASSERT_EQ(one.exitCode, 0) << one.output;
        EXPECT_NE(one.output.find(" · 1 step of "), std::string::npos) << one.output;
    }
}

// `share` redacts as every export of the GUI does by default: the v6e sample's
// experimental/users/<name>/… source paths do not reach the file; `--redact none` keeps them.
TEST(ShareCli, ShareFileLeavesOutPathsByDefault)
{
    const std::string sample = samplePath("tpu_v6e_inference.xplane.pb");
    if (!haveCli() || !std::filesystem::exists(sample))
        GTEST_SKIP() << "tpuscope-cli or the v6e sample missing";
    const std::string cli = TPUSCOPE_CLI_PATH;
    const std::string dir = tempDir("share_default_redaction");
    const std::string original = runCommand(cli + " ops '" + sample + "' --by source --format csv").output;
    ASSERT_NE(original.find("/users/"), std::string::npos) << "the sample no longer carries user paths";

    CommandResult r = runCommand(cli + " share '" + sample + "' -o '" + dir + "/default.tpuscope'", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const std::string redacted
        = runCommand(cli + " ops '" + dir + "/default.tpuscope' --by source --format csv").output;
    EXPECT_EQ(redacted.find("/users/"), std::string::npos) << redacted;

    r = runCommand(cli + " share '" + sample + "' --redact none -o '" + dir + "/kept.tpuscope'", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const std::string kept = runCommand(cli + " ops '" + dir + "/kept.tpuscope' --by source --format csv").output;
    EXPECT_NE(kept.find("/users/"), std::string::npos) << kept;
}

namespace {

/// Keys of advice numbers that name a yes/no fact ("fits_in_hbm"), wherever they are nested.
void expectNoBooleanAsNumber(const AdviceValue& value, const std::string& key, const std::string& rule)
{
    const bool yesNo = key.starts_with("fits_") || key.starts_with("is_") || key.starts_with("has_");
    if (yesNo) {
        EXPECT_EQ(value.kind, AdviceValue::Kind::Text) << rule << ": " << key << " is printed as a number";
    }
    for (const AdviceValue& item : value.items)
        expectNoBooleanAsNumber(item, key, rule);
    for (const auto& [name, field] : value.fields)
        expectNoBooleanAsNumber(field, name, rule);
}

} // namespace

// Issue 25 point 12e: a forum post read "fits in HBM 1". Every yes/no advice number is text, and
// no post of a sample prints one of them as 1 or 0.
TEST(ShareCli, ForumPostPrintsNoBooleanAsOneOrZero)
{
    const std::regex booleanAsNumber(R"((fits in HBM|fits|is |has )\s*[:=]?\s*[01]\b)");
    for (const char* name : {"tpu_v6e_inference.xplane.pb", "tpu_vllm_serving.trace.json.gz",
             "tpu_v5_training.op_profile.json.gz", "demo_synthetic.op_profile.json"}) {
        const std::string path = samplePath(name);
        if (!std::filesystem::exists(path))
            continue;
        const LoadResult loaded = loadProfile(path);
        ASSERT_TRUE(loaded.profile) << name;
        const ProfileAnalysisPtr analysis = buildProfileAnalysis(loaded.profile);
        for (const Advice& advice : analysis->advice.advice)
            expectNoBooleanAsNumber(advice.numbers, {}, advice.rule);
        const ForumPost post = buildForumPost(*analysis);
        EXPECT_FALSE(std::regex_search(post.markdown, booleanAsNumber)) << name << "\n" << post.markdown;
    }
}

// The share command's "top N of M ops" and the reopened file's own account of what it kept say
// the same N and M, and the reopened account's parts add up to M (the writer counted the async
// partners it kept beyond the top rows as ops, the reader summed "(N other … ops)" rows as ops).
TEST(ShareCli, TheKeptOpCountReadsTheSameWhenWrittenAndReopened)
{
    const std::string sample = samplePath("tpu_v6e_inference.xplane.pb");
    if (!haveCli() || !std::filesystem::exists(sample))
        GTEST_SKIP() << "needs tpuscope-cli and the v6e sample";
    const std::string cli = TPUSCOPE_CLI_PATH;
    const std::string out = tempDir("share_counts") + "/v6e.tpuscope";
    const CommandResult written = runCommand(cli + " share '" + sample + "' -o '" + out + "'", true);
    ASSERT_EQ(written.exitCode, 0) << written.output;
    std::smatch w;
    ASSERT_TRUE(std::regex_search(written.output, w, std::regex(R"(top (\d+) of (\d+) ops)"))) << written.output;
    const CommandResult reopened = runCommand(cli + " summary '" + out + "'");
    std::smatch r;
    ASSERT_TRUE(std::regex_search(reopened.output, r,
        std::regex(R"(the top (\d+) of (\d+) ops .*with their HLO, (\d+) more copies and collectives in brief; )"
                   R"(the other (\d+) ops? (is|are) summed)")))
        << reopened.output;
    EXPECT_EQ(w[1], r[1]);
    EXPECT_EQ(w[2], r[2]);
    EXPECT_EQ(std::stoi(r[1]) + std::stoi(r[3]) + std::stoi(r[4]), std::stoi(r[2])) << r[0];
}
