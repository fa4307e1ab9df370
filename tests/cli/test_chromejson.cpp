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

TEST(ChromeJson, RealSampleGoldenOpTable)
{
    if (!std::filesystem::exists(kSample))
        GTEST_SKIP() << "sample missing: " << kSample;
    const auto result = tpuscope::test::runCommand(
        std::string(TPUSCOPE_CLI_PATH) + " ops '" + kSample + "' --format csv --device v5e --top 40");
    EXPECT_EQ(result.exitCode, 0) << result.output;
    EXPECT_TRUE(tpuscope::test::matchesGolden("vllm_ops.golden.csv", result.output));
}
