// SPDX-License-Identifier: GPL-3.0-or-later
// Text tables elide long names in the middle (tpuscope-cli sets the width; --wide turns it off).
#include "clitool.h"
#include "report/report.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

} // namespace

TEST(TextTables, CliOpsTableElidesAt60AndWidePrintsWhole)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v5_training.op_profile.json.gz");
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string command = std::string(TPUSCOPE_CLI_PATH) + " ops '"
        + samplePath("tpu_v5_training.op_profile.json.gz") + "' --format table";
    const CommandResult narrow = runCommand(command); // stdout is a pipe: 60 columns
    ASSERT_EQ(narrow.exitCode, 0);
    const CommandResult wide = runCommand(command + " --wide");
    ASSERT_EQ(wide.exitCode, 0);
    // The longest op name of this sample (the one that made a 230-character column).
    const std::string longest = "vmap_splash_mha_dkv_segmented_block_kv_dkv_512_block_kv_dkv_compute_512";
    EXPECT_EQ(narrow.output.find(longest), std::string::npos);
    EXPECT_NE(wide.output.find(longest), std::string::npos);

    // Every table line: the "Op" column is at most 60 wide, so the rule under it is too.
    std::istringstream lines(narrow.output);
    std::string line, header, rule;
    while (std::getline(lines, line)) {
        if (line.find("#  Op  ") != std::string::npos && line.find_first_not_of(' ') == line.find('#')) {
            header = line;
            std::getline(lines, rule);
            break;
        }
    }
    ASSERT_FALSE(rule.empty()) << narrow.output.substr(0, 2000);
    std::istringstream cells(rule);
    std::string first, op;
    cells >> first >> op;
    EXPECT_EQ(op.size(), 60u) << rule;
    size_t elidedRows = 0;
    while (std::getline(lines, line))
        elidedRows += line.find("…") != std::string::npos;
    EXPECT_GT(elidedRows, 0u);

    std::istringstream wideLines(wide.output);
    while (std::getline(wideLines, line))
        if (line.find("-  ---") != std::string::npos && line.find_first_not_of(' ') == line.find('-')) {
            std::istringstream wideCells(line);
            wideCells >> first >> op;
            EXPECT_GT(op.size(), 200u) << "--wide keeps the whole names";
            break;
        }
}
