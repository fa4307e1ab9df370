// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 27, point 5: strings from a file are sanitised for the target they are written to, by one
// function per target, checked here against a table of hostile strings.
#include "core/neutraltext.h"
#include "core/utf8.h"
#include "report/report.h"

#include <gtest/gtest.h>

#include <regex>

using namespace tpuscope::model;

namespace {

const std::string kNul("\0", 1);

/// Names a stranger's file may carry.
const std::vector<std::string>& hostileStrings()
{
    static const std::vector<std::string> strings = {
        "fusion\x1b]52;c;aGVsbG8=\x07", // OSC 52: write the clipboard
        "copy\x1b[2J\x1b[H", // clear the screen
        "a" + kNul + "b", // NUL
        "bell\x07\rcarriage", // BEL, CR
        "c1\xc2\x9b"
        "31mred", // CSI as a C1 control (U+009B)
        "## SECURITY ALERT", // a Markdown heading
        "[Run this fix](https://evil.example/x.sh)", // a link
        "![x](https://evil.example/pixel.png)", // an image
        "<img src=/etc/passwd>", // an HTML tag
        "<table><table><table>", // nesting
        "a | b | c", // a table cell
        "**bold** _em_ `code`", // emphasis and code
        "line\nbreak", // a newline
        "=HYPERLINK(\"http://evil\")", // a spreadsheet formula
        "+cmd",
        "-2+3",
        "@SUM(A1)",
        "trunc\xe2\x82", // truncated UTF-8
        "&amp; \"quoted\" 'single'",
    };
    return strings;
}

bool hasControl(const std::string& s, bool allowNewline)
{
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if ((c < 0x20 && !(allowNewline && (c == '\n' || c == '\t'))) || c == 0x7F)
            return true;
        if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9F)
            return true;
    }
    return false;
}

} // namespace

TEST(NeutralText, TerminalGetsNoControlCharacters)
{
    for (const std::string& s : hostileStrings()) {
        const std::string out = neutralForTerminal(s);
        EXPECT_TRUE(isValidUtf8(out)) << s;
        EXPECT_FALSE(hasControl(out, true)) << s;
    }
    // Newlines and tabs of our own reports stay.
    EXPECT_EQ(neutralForTerminal("a\tb\nc"), "a\tb\nc");
    EXPECT_EQ(neutralForTerminal("x\x1b[2J"), std::string("x") + kControlReplacement + "[2J");
    EXPECT_EQ(neutralForTerminal("µs → ok"), "µs → ok"); // ordinary UTF-8 is kept
}

TEST(NeutralText, MarkdownMakesNoHeadingLinkImageTagOrCell)
{
    // What a renderer acts on: an unescaped one of these characters, or a line starting with #.
    const std::regex active(R"((^|[^\\])[\[\]()#!|*_`<>])");
    for (const std::string& s : hostileStrings()) {
        const std::string out = neutralForMarkdown(s);
        EXPECT_TRUE(isValidUtf8(out)) << s;
        EXPECT_FALSE(hasControl(out, false)) << s;
        EXPECT_EQ(out.find('\n'), std::string::npos) << s;
        EXPECT_FALSE(std::regex_search(out, active)) << s << " -> " << out;
        EXPECT_EQ(out.find("<img"), std::string::npos);
        EXPECT_EQ(markdownCell(s), out); // every Markdown table cell goes through it
    }
    EXPECT_EQ(neutralForMarkdown("[a](b)"), "\\[a\\]\\(b\\)");
    EXPECT_EQ(neutralForMarkdown("<b>&"), "&lt;b&gt;&amp;");
}

TEST(NeutralText, MarkdownCodeSpansCannotBeClosedFromInside)
{
    EXPECT_EQ(neutralMarkdownCode("fusion.3"), "`fusion.3`");
    EXPECT_EQ(neutralMarkdownCode("a`b"), "``a`b``");
    EXPECT_EQ(neutralMarkdownCode("``x"), "``` ``x ```");
    for (const std::string& s : hostileStrings()) {
        const std::string out = neutralMarkdownCode(s);
        EXPECT_FALSE(hasControl(out, false)) << s;
        EXPECT_EQ(out.find('\n'), std::string::npos) << s;
        // The fence is longer than any run of backticks inside.
        const size_t fence = out.find_first_not_of('`');
        const std::string inner = out.substr(fence, out.size() - 2 * fence);
        EXPECT_EQ(inner.find(std::string(fence, '`')), std::string::npos) << s;
    }
}

TEST(NeutralText, HtmlShowsTagsAsText)
{
    for (const std::string& s : hostileStrings()) {
        const std::string out = neutralForHtml(s);
        EXPECT_TRUE(isValidUtf8(out)) << s;
        EXPECT_FALSE(hasControl(out, true)) << s;
        EXPECT_EQ(out.find('<'), std::string::npos) << s;
        EXPECT_EQ(out.find('>'), std::string::npos) << s;
        EXPECT_EQ(out.find('"'), std::string::npos) << s;
    }
    EXPECT_EQ(neutralForHtml("<img src=x>"), "&lt;img src=x&gt;");
}

TEST(NeutralText, CsvAndTsvCellsAreQuotedAndNoFormula)
{
    for (const char separator : {',', '\t'}) {
        for (const std::string& s : hostileStrings()) {
            const std::string out = neutralCsvCell(s, separator);
            EXPECT_TRUE(isValidUtf8(out)) << s;
            EXPECT_FALSE(hasControl(out, separator == ',')) << s;
            const std::string body = !out.empty() && out.front() == '"' ? out.substr(1) : out;
            if (!body.empty()) {
                EXPECT_EQ(std::string("=+@").find(body.front()), std::string::npos) << s;
            }
        }
        EXPECT_EQ(neutralCsvCell("-2+3", separator), "'-2+3");
        EXPECT_EQ(neutralCsvCell("-3.5", separator), "-3.5"); // a number stays a number
    }
    EXPECT_EQ(neutralCsvCell("a,b", ','), "\"a,b\"");
    EXPECT_EQ(neutralCsvCell("say \"hi\"", ','), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(neutralCsvCell("=1+1", ','), "'=1+1");
}
