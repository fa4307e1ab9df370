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
