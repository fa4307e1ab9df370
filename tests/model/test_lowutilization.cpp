// SPDX-License-Identifier: GPL-3.0-or-later
// One definition of a low-utilization op, of any kind (issue 25.9): below the threshold of its
// roofline bound with enough time to matter. The overview, the op table, the timeline and the CLI
// all count with countLowUtilizationOps, so the numbers here are the ones every path shows.
#include "analysis/opbreakdown.h"
#include "analysis/profileanalysis.h"
#include "analysis/summary.h"
#include "analysistestutil.h"
#include "loader/loader.h"
#include "report/report.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

std::set<std::string> lowUtilizationOpNames(const OpBreakdown& breakdown)
{
    std::set<std::string> names;
    for (const OpRow& row : breakdown.rows)
        if (isLowUtilizationOp(row))
            names.insert(row.name);
    return names;
}

/// The rule before issue 25.9: fusions only.
int fusionOnlyCount(const OpBreakdown& breakdown)
{
    return static_cast<int>(std::count_if(breakdown.rows.begin(), breakdown.rows.end(),
        [](const OpRow& row) { return isFusionCategory(row.category) && isLowUtilizationOp(row); }));
}

const OpRow* rowNamed(const OpBreakdown& breakdown, std::string_view name)
{
    for (const OpRow& row : breakdown.rows)
        if (row.name == name)
            return &row;
    return nullptr;
}

} // namespace

TEST(LowUtilization, FlagsDynamicUpdateSliceOfTheV5Sample)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v5_training.op_profile.json.gz");
    LoadResult loaded = loadProfile(samplePath("tpu_v5_training.op_profile.json.gz"));
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(loaded.profile);
    const OpBreakdown& b = analysis->breakdown;
    const OpRow* dus = rowNamed(b, "dynamic-update-slice.33");
    ASSERT_NE(dus, nullptr);
    // The figures: 2.7 % of its (HBM) roofline bound, 5 % of the op time.
    ASSERT_TRUE(dus->rooflineEfficiency);
    EXPECT_NEAR(*dus->rooflineEfficiency, 0.027, 0.001);
    EXPECT_NEAR(dus->timeFraction, 0.051, 0.001);
    EXPECT_EQ(dus->boundBy, BoundBy::Hbm);
    EXPECT_TRUE(isLowUtilizationOp(*dus));
    EXPECT_EQ(lowUtilizationOpNames(b),
        (std::set<std::string> {"dynamic-update-slice.31", "dynamic-update-slice.32", "dynamic-update-slice.33"}));
    EXPECT_EQ(countLowUtilizationOps(b), 3);
    // The fusion-only rule counted none of them.
    EXPECT_EQ(fusionOnlyCount(b), 0);
    // The summary (`tpuscope-cli summary`) counts the same.
    EXPECT_EQ(analysis->summary.lowUtilizationOps, 3);
    EXPECT_EQ(lowUtilizationOpsText(analysis->summary.lowUtilizationOps), "3 low-utilization ops");
    // Custom kernels above the peak have no roofline position: never low.
    for (const OpRow& row : b.rows)
        if (row.efficiencyNote == "cost estimate above peak") {
            EXPECT_FALSE(isLowUtilizationOp(row)) << row.name;
        }
}

TEST(LowUtilization, CountsOpsOfEveryKindOnTheDemo)
{
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(demoProfile());
    const OpBreakdown& b = analysis->breakdown;
    // A data-formatting transpose is as low as the fusions: counted with them.
    EXPECT_EQ(lowUtilizationOpNames(b), (std::set<std::string> {"fusion.3", "fusion.20", "transpose.2"}));
    EXPECT_EQ(countLowUtilizationOps(b), 3);
    EXPECT_EQ(fusionOnlyCount(b), 2);
    // A higher threshold counts more, never fewer; group rows are never counted.
    EXPECT_GE(countLowUtilizationOps(b, 0.9).value_or(0), 3);
    EXPECT_EQ(countLowUtilizationOps(regroupOpBreakdown(b, GroupBy::Category)), std::nullopt);
}

TEST(LowUtilization, UnknownWithoutPeaksOrCostsAndZeroWhenNoneIsLow)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_vllm_serving.trace.json.gz");
    LoadResult vllm = loadProfile(samplePath("tpu_vllm_serving.trace.json.gz"));
    ASSERT_TRUE(vllm.ok()) << vllm.error;
    // No TPU generation recorded: no op's roofline position is known, so the count is too.
    const ProfileAnalysisPtr unknown = buildProfileAnalysis(vllm.profile);
    EXPECT_EQ(countLowUtilizationOps(unknown->breakdown), std::nullopt);
    EXPECT_EQ(lowUtilizationOpsText(std::nullopt), "–");

    TPUSCOPE_REQUIRE_SAMPLE("tpu_v6e_inference.xplane.pb");
    LoadResult v6e = loadProfile(samplePath("tpu_v6e_inference.xplane.pb"));
    ASSERT_TRUE(v6e.ok()) << v6e.error;
    // Host transfers dominate and have no roofline position; the fusions run near the HBM roof.
    const ProfileAnalysisPtr none = buildProfileAnalysis(v6e.profile);
    EXPECT_EQ(countLowUtilizationOps(none->breakdown), 0);
    EXPECT_EQ(lowUtilizationOpsText(0), "0 low-utilization ops");
}
