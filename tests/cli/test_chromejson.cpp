// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/opbreakdown.h"
#include "core/devicepeaks.h"
#include "loader/loader.h"

#include "testutil.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace tpuscope::model;

namespace {

const std::string kSample = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_vllm_serving.trace.json.gz";

} // namespace

// ---- the real sample ------------------------------------------------------------------

TEST(ChromeJson, RealSampleOpTableSnapshot)
{
    if (!std::filesystem::exists(kSample))
        GTEST_SKIP() << "sample missing: " << kSample;
    const auto result = tpuscope::test::runCommand(
        std::string(TPUSCOPE_CLI_PATH) + " ops '" + kSample + "' --format csv --device v5e --top 40");
    EXPECT_EQ(result.exitCode, 0) << result.output;
    EXPECT_TRUE(tpuscope::test::matchesSnapshot("vllm_ops.csv", result.output));
}

// vLLM's three programs each have an op named `fusion`: the drill-down shows the busiest (the
// lm_head matmul of jit_compute_logits_func), names the others, and --program picks one.
TEST(ChromeJson, RealSampleFusionDrillDownPerProgram)
{
    if (!std::filesystem::exists(kSample))
        GTEST_SKIP() << "sample missing: " << kSample;
    const std::string cli = std::string(TPUSCOPE_CLI_PATH) + " fusion '" + kSample + "' fusion";
    const auto busiest = tpuscope::test::runCommand(cli);
    EXPECT_EQ(busiest.exitCode, 0) << busiest.output;
    EXPECT_NE(busiest.output.find("fusion  (convolution fusion, program jit_compute_logits_func)"), std::string::npos)
        << busiest.output;
    EXPECT_NE(busiest.output.find("Also named fusion in: jit_step_fun, jit__select_from_array_fn"), std::string::npos)
        << busiest.output;
    const auto embedding = tpuscope::test::runCommand(cli + " --program jit_step_fun");
    EXPECT_EQ(embedding.exitCode, 0) << embedding.output;
    EXPECT_NE(embedding.output.find("fusion  (custom fusion, program jit_step_fun)"), std::string::npos)
        << embedding.output;
    EXPECT_NE(embedding.output.find("aten::embedding"), std::string::npos) << embedding.output;
    EXPECT_EQ(embedding.output.find("Also named"), std::string::npos) << embedding.output;
    const auto missing = tpuscope::test::runCommand(cli + " --program jit_nope", true);
    EXPECT_EQ(missing.exitCode, 1) << missing.output;
    EXPECT_NE(missing.output.find("no op named 'fusion' in program 'jit_nope'; it is in: jit_compute_logits_func"),
        std::string::npos)
        << missing.output;
}
