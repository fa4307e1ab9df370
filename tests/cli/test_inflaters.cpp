// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 24 point 2: a gzipped XSpace or op_profile is inflated by ISA-L, and by zlib when
// TPUSCOPE_INFLATER=zlib; an XSpace is decoded while it inflates. What the user sees must
// not depend on which one ran: `summary --format json` is byte for byte the same, but for the load
// time it reports.
#include "loader/gzip.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

using namespace tpuscope::test;

namespace {

std::string withoutLoadTime(const std::string& json)
{
    static const std::regex seconds(R"("seconds": [0-9.e+-]+)");
    return std::regex_replace(json, seconds, R"("seconds": T)");
}

} // namespace

TEST(Inflaters, SummaryJsonIsTheSameWithIsalAndZlib)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v6e_inference.xplane.pb");
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v5_training.op_profile.json.gz");
    const std::string dir = tempDir("inflaters");
    writeFile(dir + "/v6e.xplane.pb.gz", gzipBytes(readFile(samplePath("tpu_v6e_inference.xplane.pb"))));
    for (const std::string& path : {dir + "/v6e.xplane.pb.gz", samplePath("tpu_v5_training.op_profile.json.gz")}) {
        const std::string args = " summary '" + path + "' --format json";
        const CommandResult fast = runCommand(std::string(TPUSCOPE_CLI_PATH) + args);
        const CommandResult slow = runCommand("TPUSCOPE_INFLATER=zlib " + std::string(TPUSCOPE_CLI_PATH) + args);
        ASSERT_EQ(fast.exitCode, 0) << path << fast.output;
        ASSERT_EQ(slow.exitCode, 0) << path << slow.output;
        EXPECT_GT(fast.output.size(), 500u) << path;
        EXPECT_NE(fast.output.find("\"decoded_bytes\""), std::string::npos) << fast.output;
        EXPECT_EQ(withoutLoadTime(fast.output), withoutLoadTime(slow.output)) << path;
    }
}
