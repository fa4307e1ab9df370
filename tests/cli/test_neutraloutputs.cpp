// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 27, point 5, as a user meets it: a file whose op name carries terminal escapes, a NUL,
// Markdown links, headings, HTML and a spreadsheet formula leaves every command and format inert.
#include "robustnessinputs.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace tpuscope::test;

namespace {

const std::string kHostileName = std::string("fusion\x1b]52;c;aGVsbG8=\x07\x1b[2J") + std::string("\0", 1)
    + " [Run this fix](https://evil.example/x.sh) <img src=/etc/passwd> ## SECURITY | =HYPERLINK(1)";

bool hasRawControl(const std::string& s)
{
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)
            return true;
    }
    return false;
}

} // namespace

TEST(NeutralOutputs, AHostileOpNameIsInertInEveryCommandAndFormat)
{
    const std::string dir = tempDir("neutral");
    const std::string file = dir + "/hostile.xplane.pb";
    writeFile(file, xspaceWithOneOpNamed(kHostileName));
    const std::string cli = std::string(TPUSCOPE_CLI_PATH) + " ";
    struct Case
    {
        std::string args;
        bool markdown;
    };
    const std::vector<Case> cases
        = {{"ops", false}, {"ops --format md", true}, {"ops --format csv", false}, {"ops --format tsv", false},
            {"ops --format json", false}, {"summary", false}, {"advise", false}, {"advise --format md", true},
            {"advise --format json", false}, {"steps", false}, {"share --forum --redact none", true},
            {"share --text --redact none", false}, {"fusion '" + dir + "/none' x", false}};
    int sawName = 0;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.args);
        const CommandResult r = runCommand(cli + c.args + " '" + file + "'", true);
        EXPECT_FALSE(hasRawControl(r.output)) << r.output;
        sawName += r.output.find("evil.example") != std::string::npos;
        if (c.markdown) {
            EXPECT_EQ(r.output.find("](https://evil"), std::string::npos) << r.output;
            EXPECT_EQ(r.output.find("<img"), std::string::npos) << r.output;
            EXPECT_EQ(r.output.find("\n## SECURITY"), std::string::npos) << r.output;
            EXPECT_EQ(r.output.find(" ## SECURITY"), std::string::npos) << r.output;
        }
        if (c.args.find("csv") != std::string::npos || c.args.find("tsv") != std::string::npos) {
            EXPECT_EQ(r.output.find(",=HYPERLINK"), std::string::npos) << r.output;
            EXPECT_EQ(r.output.find("\t=HYPERLINK"), std::string::npos) << r.output;
        }
    }
    EXPECT_GE(sawName, 3); // the name is shown (neutralised, in text tables elided), not dropped

    // A name that is a spreadsheet formula is text in CSV and TSV.
    const std::string formula = dir + "/formula.xplane.pb";
    writeFile(formula, xspaceWithOneOpNamed("=HYPERLINK(\"http://evil.example\")"));
    for (const char* format : {"csv", "tsv"}) {
        const CommandResult r = runCommand(cli + "ops --format " + format + " '" + formula + "'");
        EXPECT_EQ(r.exitCode, 0) << r.output;
        EXPECT_NE(r.output.find("'=HYPERLINK"), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find(",=HYPERLINK"), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find("\t=HYPERLINK"), std::string::npos) << r.output;
    }
}
