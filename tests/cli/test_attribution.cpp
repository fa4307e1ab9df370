// SPDX-License-Identifier: GPL-3.0-or-later
// Whose code an op is (framework op, source line), the framework-op / source groupings, and the
// evidence that advice items and share files carry.
#include "analysis/advice.h"
#include "analysis/attribution.h"
#include "analysis/opbreakdown.h"
#include "analysistestutil.h"
#include "clitool.h"
#include "core/jsondom.h"
#include "loader/loader.h"
#include "report/advicereport.h"
#include "report/report.h"
#include "share/sharefile.h"
#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

} // namespace

TEST(Attribution, CliGroupsByFrameworkOpAndSource)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string path = tempDir("attribution_cli") + "/demo.xplane.pb";
    std::string bytes, error;
    ASSERT_TRUE(syntheticXSpaceBytes({}, bytes, error)) << error;
    writeFile(path, bytes);
    const CommandResult byLayer
        = runCommand(std::string(TPUSCOPE_CLI_PATH) + " ops '" + path + "' --by framework-op --format json");
    ASSERT_EQ(byLayer.exitCode, 0);
    json::Value doc;
    json::ParseError parseError;
    ASSERT_TRUE(json::parse(byLayer.output, doc, parseError)) << parseError.describe();
    EXPECT_EQ(doc["group_by"].string(), "framework-op");
    EXPECT_EQ(doc["rows"].at(0)["name"].string(), "unet/conv2d_18/Conv2D");
    EXPECT_EQ(doc["rows"].at(0)["framework_op"].string(), "unet/conv2d_18/Conv2D");
    const CommandResult byLine = runCommand(std::string(TPUSCOPE_CLI_PATH) + " ops '" + path + "' --by source");
    ASSERT_EQ(byLine.exitCode, 0);
    EXPECT_NE(byLine.output.find("Source"), std::string::npos);
    EXPECT_NE(byLine.output.find("unet.py:87"), std::string::npos);
    const CommandResult ops = runCommand(std::string(TPUSCOPE_CLI_PATH) + " ops '" + path + "' --format json");
    EXPECT_NE(ops.output.find("\"source\": \"unet.py:87\""), std::string::npos);
    EXPECT_EQ(runCommand(std::string(TPUSCOPE_CLI_PATH) + " ops '" + path + "' --by layer").exitCode, 2);
}
