// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/advice.h"
#include "analysis/steps.h"
#include "analysis/summary.h"
#include "analysistestutil.h"
#include "clitool.h"
#include "core/jsondom.h"
#include "loader/loader.h"
#include "report/report.h"
#include "report/stepsreport.h"
#include "synth/synth.h"
#include "testutil.h"
#include "xplane.pb.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

} // namespace

TEST(StepsCli, JsonShapeProgramAndCore)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v6e_inference.xplane.pb");
    const std::string cli = TPUSCOPE_CLI_PATH;
    const std::string file = "'" + samplePath("tpu_v6e_inference.xplane.pb") + "'";
    const CommandResult r = runCommand(cli + " steps " + file + " --format json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    json::Value doc;
    json::ParseError error;
    ASSERT_TRUE(json::parse(r.output, doc, error)) << error.describe();
    EXPECT_EQ(doc["source"].string(), "XLA Modules");
    EXPECT_EQ(doc["program"].string(), "jit_f");
    ASSERT_EQ(doc["programs"].size(), 4u);
    for (const char* key : {"name", "runs_per_core", "avg_ps", "min_ps", "max_ps", "stddev_ps", "time_fraction"})
        EXPECT_FALSE(doc["programs"].at(0)[key].isNull()) << key;
    ASSERT_EQ(doc["steps"].size(), 100u);
    for (const char* key : {"index", "program", "start_ps", "duration_ps", "compute_ps", "collective_ps",
             "host_transfer_ps", "infeed_ps", "idle_ps"})
        EXPECT_FALSE(doc["steps"].at(0)[key].isNull()) << key;
    EXPECT_TRUE(doc["warmup_ps"].isNumber());
    EXPECT_TRUE(doc["tail_ps"].isNumber());
    EXPECT_GT(doc["warmup_ps"].number(), 1e13); // ~19 s before the first jit_f

    const CommandResult psum = runCommand(cli + " steps " + file + " --program jit__psum --core 2 --format csv");
    ASSERT_EQ(psum.exitCode, 0) << psum.output;
    EXPECT_EQ(std::count(psum.output.begin(), psum.output.end(), '\n'), 4); // header + 3 runs
    const CommandResult md = runCommand(cli + " steps " + file + " --format md");
    EXPECT_NE(md.output.find("## Steps"), std::string::npos);
    const CommandResult missing = runCommand(cli + " steps " + file + " --program nope", true);
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_NE(missing.output.find("jit_f"), std::string::npos) << missing.output; // names the programs there are
    EXPECT_EQ(runCommand(cli + " steps " + file + " --core 9").exitCode, 2);
    EXPECT_EQ(runCommand(cli + " steps " + file + " --format xml").exitCode, 2);
}
