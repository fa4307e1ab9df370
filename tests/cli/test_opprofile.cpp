// SPDX-License-Identifier: GPL-3.0-or-later
// op_profile.json loading and the JSON DOM it uses. Expected values are computed from the file
// with the DOM directly (not through the loader's mapping) and three are pinned as literals
// computed with python3's json module at development time.
#include "analysis/opbreakdown.h"
#include "core/jsondom.h"
#include "loader/gzip.h"
#include "loader/loader.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

constexpr const char* kV5 = "tpu_v5_training.op_profile.json.gz";

} // namespace

// --- JSON DOM -----------------------------------------------------------------------------------

TEST(OpProfile, CliTop30Snapshot)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV5);
    const auto run
        = runCommand(std::string(TPUSCOPE_CLI_PATH) + " ops '" + samplePath(kV5) + "' --format csv --top 30");
    ASSERT_EQ(run.exitCode, 0);
    EXPECT_TRUE(matchesSnapshot("v5_op_profile_ops.csv", run.output));
}
