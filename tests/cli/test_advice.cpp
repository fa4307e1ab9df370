// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/advice.h"
#include "analysis/layout.h"
#include "analysistestutil.h"
#include "clitool.h"
#include "core/jsondom.h"
#include "loader/loader.h"
#include "report/advicereport.h"
#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

std::string demoPath()
{
    static std::string path = [] {
        const std::string p = tempDir("advice_cli") + "/demo.xplane.pb";
        std::string error;
        EXPECT_TRUE(writeSyntheticXSpace({}, p, error)) << error;
        return p;
    }();
    return path;
}

} // namespace

TEST(AdviceCli, JsonShape)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const CommandResult r = runCommand(std::string(TPUSCOPE_CLI_PATH) + " advise '" + demoPath() + "' --format json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    json::Value doc;
    json::ParseError error;
    ASSERT_TRUE(json::parse(r.output, doc, error)) << error.describe();
    const json::Value& advice = doc["advice"];
    ASSERT_TRUE(advice.isArray());
    ASSERT_GT(advice.size(), 0u);
    bool sawBatch = false, sawTimeGain = false;
    for (const json::Value& item : advice.array()) {
        for (const char* key : {"rule", "severity", "title", "detail"})
            EXPECT_TRUE(item[key].isString()) << key;
        EXPECT_FALSE(item["fix"]["action"].string().empty()) << item["rule"].string();
        // The demo has steps: a time gain is per step, never over the capture.
        EXPECT_EQ(item.find("gain_ps_over_capture"), nullptr);
        sawTimeGain = sawTimeGain || item["gain_ps_per_step"].isNumber();
        EXPECT_TRUE(item["ops"].isArray());
        for (const json::Value& op : item["ops"].array())
            EXPECT_TRUE(op.isString());
        ASSERT_TRUE(item["numbers"].isObject());
        if (item["rule"].string() == "per-core-batch") {
            sawBatch = true;
            for (const char* key : {"cores", "per_core_batch", "global_batch", "suggested_global_batch"})
                EXPECT_TRUE(item["numbers"][key].isNumber()) << key;
            EXPECT_EQ(item["numbers"]["suggested_global_batch"].number(), 1024);
            // A batch fix is a throughput estimate, not a time per step.
            EXPECT_GT(item["numbers"]["throughput_factor"].number(), 1);
            EXPECT_EQ(item.find("gain_ps_per_step"), nullptr);
        }
        if (item["rule"].string() == "padding") {
            const double e = item["numbers"]["padding_efficiency"].number(-1);
            EXPECT_TRUE(item["numbers"]["padding_efficiency"].isNumber());
            EXPECT_GE(e, 0);
            EXPECT_LE(e, 1);
            const json::Value& dims = item["numbers"]["dimensions"];
            ASSERT_TRUE(dims.isArray());
            ASSERT_GT(dims.size(), 0u);
            for (const json::Value& d : dims.array()) {
                for (const char* key : {"size", "padded", "tile"})
                    EXPECT_TRUE(d[key].isNumber()) << key;
                EXPECT_TRUE(d["semantics"].isString());
            }
        }
    }
    EXPECT_TRUE(sawBatch);
    EXPECT_TRUE(sawTimeGain);
}

TEST(AdviceCli, TextMarkdownFusionAndErrors)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string cli = TPUSCOPE_CLI_PATH;
    const CommandResult text = runCommand(cli + " advise '" + demoPath() + "'");
    ASSERT_EQ(text.exitCode, 0);
    EXPECT_NE(text.output.find("global batch 1024"), std::string::npos);
    const CommandResult md = runCommand(cli + " advise '" + demoPath() + "' --format md");
    ASSERT_EQ(md.exitCode, 0);
    EXPECT_NE(md.output.find("### 1. [critical]"), std::string::npos);
    EXPECT_EQ(runCommand(cli + " advise '" + demoPath() + "' --format xml").exitCode, 2);

    const CommandResult fusion = runCommand(cli + " fusion '" + demoPath() + "' fusion.3");
    ASSERT_EQ(fusion.exitCode, 0) << fusion.output;
    EXPECT_NE(fusion.output.find("convolution.114"), std::string::npos);
    EXPECT_NE(fusion.output.find("16\u00B71 of 128\u00B78 used"), std::string::npos);
    EXPECT_NE(fusion.output.find("ROOT"), std::string::npos);
    EXPECT_NE(fusion.output.find("CORE"), std::string::npos);

    const CommandResult fj = runCommand(cli + " fusion '" + demoPath() + "' fusion.3 --format json");
    ASSERT_EQ(fj.exitCode, 0);
    json::Value doc;
    json::ParseError error;
    ASSERT_TRUE(json::parse(fj.output, doc, error)) << error.describe();
    EXPECT_EQ(doc["compute_core"].string(), "convolution.114");
    EXPECT_TRUE(doc["time_fraction"].isNumber());
    ASSERT_TRUE(doc["fused_instructions"].isArray());
    EXPECT_EQ(doc["fused_instructions"].size(), 7u);
    EXPECT_DOUBLE_EQ(doc["arrays"].at(0)["padding"]["efficiency"].number(), 0.015625);

    const CommandResult unknown = runCommand(cli + " fusion '" + demoPath() + "' fusion.33", true);
    EXPECT_EQ(unknown.exitCode, 1);
    EXPECT_NE(unknown.output.find("close names"), std::string::npos);
    EXPECT_NE(unknown.output.find("fusion.3"), std::string::npos);

    const CommandResult synth = runCommand(cli + " synth nothing -o /tmp/x.pb", true);
    EXPECT_EQ(synth.exitCode, 2);
    EXPECT_NE(synth.output.find("origin-story"), std::string::npos);
}
