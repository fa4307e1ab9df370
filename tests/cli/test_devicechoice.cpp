// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 22, points 3 and 4, as a user types them: `--device` that contradicts the file is refused
// (exit 2, the message names the recorded device), and `--cores N` gives every command the same
// core count.
#include "core/jsondom.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace tpuscope::test;
namespace json = tpuscope::model::json;

namespace {

CommandResult cli(const std::string& args)
{
    return runCommand(std::string(TPUSCOPE_CLI_PATH) + " " + args, true);
}

/// The core count a command's JSON reports: `device.cores` (summary, ops), `cores` (advise), the
/// first step row's `cores` (steps).
int reportedCores(const std::string& command, const std::string& output)
{
    json::Value root;
    json::ParseError error;
    EXPECT_TRUE(json::parse(output, root, error)) << error.describe() << "\n" << output.substr(0, 400);
    if (command == "summary" || command == "ops")
        return static_cast<int>(root["device"]["cores"].number(-1));
    if (command == "steps" && root.find("cores") == nullptr && root["steps"].size() > 0)
        return static_cast<int>(root["steps"].at(0)["cores"].number(-1));
    return static_cast<int>(root["cores"].number(-1));
}

} // namespace

TEST(CliDeviceChoice, ADeviceThatContradictsTheFileIsRefused)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v6e_inference.xplane.pb");
    const CommandResult r = cli("advise --device v5e '" + samplePath("tpu_v6e_inference.xplane.pb") + "'");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("refused: --device v5e contradicts the file"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("TPU v6"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("of capacity"), std::string::npos) << r.output;
}

TEST(CliDeviceChoice, CoresGiveEveryCommandTheSameCount)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v5_training.op_profile.json.gz");
    const std::string file = "'" + samplePath("tpu_v5_training.op_profile.json.gz") + "'";
    for (const char* command : {"summary", "ops", "advise", "steps"}) {
        SCOPED_TRACE(command);
        // Without a count: the replica groups' lower bound, said so.
        const CommandResult plain = cli(std::string(command) + " --format json " + file);
        ASSERT_EQ(plain.exitCode, 0) << plain.output;
        if (std::string(command) != "steps") {
            EXPECT_NE(plain.output.find("at least 4 from the replica groups"), std::string::npos);
        }
        EXPECT_EQ(reportedCores(command, plain.output), 4);
        // With --cores 8, every command reports 8.
        const CommandResult eight = cli(std::string(command) + " --format json --cores 8 " + file);
        ASSERT_EQ(eight.exitCode, 0) << eight.output;
        EXPECT_EQ(reportedCores(command, eight.output), 8);
    }
    // Fewer cores than the replica groups span is refused.
    const CommandResult two = cli("summary --cores 2 " + file);
    EXPECT_EQ(two.exitCode, 2) << two.output;
    EXPECT_NE(two.output.find("at least 4"), std::string::npos) << two.output;
}
