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

