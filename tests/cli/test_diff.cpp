// SPDX-License-Identifier: GPL-3.0-or-later
#include "testutil.h"

#include "analysis/diff.h"
#include "report/diffreport.h"

#include <sstream>

using namespace tpuscope::model;

namespace {

} // namespace

TEST(DiffCli, TwoFiles)
{
    if (!std::filesystem::exists(TPUSCOPE_CLI_PATH))
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
