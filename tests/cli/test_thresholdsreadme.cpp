// SPDX-License-Identifier: GPL-3.0-or-later
// The README's thresholds table is generated: it must be exactly what
// `tpuscope-cli thresholds --format md` prints, so the documentation cannot drift from the code.
#include "measuredcli.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tpuscope::test;

TEST(ThresholdsReadme, TheReadmeTableIsTheGeneratedOne)
{
    const std::filesystem::path readme
        = std::filesystem::path(TPUSCOPE_TEST_DATA_DIR).parent_path().parent_path() / "README.md";
    std::ifstream in(readme);
    ASSERT_TRUE(in) << readme;
    std::stringstream text;
    text << in.rdbuf();
    const std::string doc = text.str();
    const std::string beginMarker = "<!-- thresholds:begin";
    const size_t begin = doc.find(beginMarker);
    ASSERT_NE(begin, std::string::npos) << "README.md has no " << beginMarker << " marker";
    const size_t tableStart = doc.find('\n', begin) + 1;
    const size_t end = doc.find("<!-- thresholds:end -->", tableStart);
    ASSERT_NE(end, std::string::npos) << "README.md has no thresholds:end marker";
    const std::string inReadme = doc.substr(tableStart, end - tableStart);

    const CommandResult generated = runCommand(cli() + " thresholds --format md", false);
    ASSERT_EQ(generated.exitCode, 0) << generated.output;
    EXPECT_EQ(inReadme, generated.output)
        << "README.md's thresholds table is stale: replace the lines between the thresholds markers with the "
           "output of `tpuscope-cli thresholds --format md`";
}
