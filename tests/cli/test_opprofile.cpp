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
constexpr const char* kDemo = "demo_synthetic.op_profile.json";

struct ExpectedOp
{
    double rawTime = 0;
    double uncapped = 0;
    int64_t occurrences = 0;
};

// Independent reading of the v5 sample: ops are `xla` nodes whose metrics.rawTime > 0, except
// "… and its duplicate(s)" groups, whose children are the ops.
void collect(const json::Value& node, std::map<std::string, ExpectedOp>& out, bool isRoot, std::string program = {})
{
    const std::string& name = node["name"].string();
    if (!isRoot && node.find("xla")) {
        if (name.ends_with(" and its duplicate(s)")) {
            for (const auto& child : node["children"].array())
                collect(child, out, false, program);
            return;
        }
        const double t = node["metrics"]["rawTime"].number();
        if (t > 0) {
            ExpectedOp& e = out[program + '\x1f' + name];
            e.rawTime += t;
            e.uncapped += node["metrics"]["uncappedFlops"].number();
            e.occurrences += static_cast<int64_t>(node["metrics"]["occurrences"].number());
        }
        return;
    }
    // Program nodes are named "jit_train_step(2041036616644817336)".
    if (!isRoot && name.ends_with(')') && name.find('(') != std::string::npos)
        program = name.substr(0, name.rfind('('));
    for (const auto& child : node["children"].array())
        collect(child, out, false, program);
}

} // namespace

// --- JSON DOM -----------------------------------------------------------------------------------

TEST(OpProfile, CliGoldenTop30)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV5);
    const auto run
        = runCommand(std::string(TPUSCOPE_CLI_PATH) + " ops '" + samplePath(kV5) + "' --format csv --top 30");
    ASSERT_EQ(run.exitCode, 0);
    EXPECT_TRUE(matchesGolden("v5_op_profile_ops.golden.csv", run.output));
}
