// SPDX-License-Identifier: GPL-3.0-or-later
// Text tables elide long names in the middle (tpuscope-cli sets the width; --wide turns it off).
#include "report/report.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

/// Code points, not bytes ("…" is three bytes).
size_t codePoints(const std::string& s)
{
    size_t n = 0;
    for (unsigned char c : s)
        n += (c & 0xC0) != 0x80;
    return n;
}

/// Restores the process-wide width after a test.
struct CellWidth
{
    explicit CellWidth(size_t width) { setTextCellWidth(width); }
    ~CellWidth() { setTextCellWidth(0); }
};

} // namespace

TEST(TextTables, ElideMiddleKeepsBothEnds)
{
    EXPECT_EQ(elideMiddle("fusion.12", 60), "fusion.12");
    EXPECT_EQ(elideMiddle("abcdefghij", 0), "abcdefghij");
    const std::string elided = elideMiddle("abcdefghijklmnopqrstuvwxyz", 9);
    EXPECT_EQ(elided, "abcd…wxyz");
    EXPECT_EQ(codePoints(elided), 9u);
    // Multi-byte text is cut between code points, never inside one.
    const std::string greek = elideMiddle("αβγδεζηθικλμ", 5);
    EXPECT_EQ(greek, "αβ…λμ");
}

TEST(TextTables, LeftAlignedCellsAreElidedOnlyInText)
{
    Table table;
    table.header = {"Op", "Time"};
    table.rightAligned = {false, true};
    const std::string name(100, 'x');
    table.rows = {{name + ".7", "1.0 ms"}};
    {
        const CellWidth width(20);
        const std::string text = renderTable(table, TableFormat::Text);
        EXPECT_EQ(text.find(name), std::string::npos);
        EXPECT_NE(text.find("…xxxxxxxx.7"), std::string::npos) << text;
        // CSV, TSV and Markdown are data: never cut.
        EXPECT_NE(renderTable(table, TableFormat::Csv).find(name + ".7"), std::string::npos);
        EXPECT_NE(renderTable(table, TableFormat::Markdown).find(name + ".7"), std::string::npos);
        table.elideWideCells = false; // prose tables opt out
        EXPECT_NE(renderTable(table, TableFormat::Text).find(name + ".7"), std::string::npos);
    }
    table.elideWideCells = true;
    EXPECT_NE(renderTable(table, TableFormat::Text).find(name + ".7"), std::string::npos); // width 0: whole
}

TEST(TextTables, CliOpsTableElidesAt60AndWidePrintsWhole)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v5_training.op_profile.json.gz");
    if (!std::filesystem::exists(TPUSCOPE_CLI_PATH))
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
