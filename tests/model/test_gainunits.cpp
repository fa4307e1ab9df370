// SPDX-License-Identifier: GPL-3.0-or-later
// One unit per gain (issue 41): a time gain is time per step at the same batch, or without steps a
// share of op time and a time over the capture, never "per step"; a batch-size fix is a throughput
// estimate, never a time and never in the "all together" total. The advice JSON, the share file,
// the forum post say the same.
#include "analysis/advice.h"
#include "analysis/profileanalysis.h"
#include "analysistestutil.h"
#include "core/jsondom.h"
#include "loader/loader.h"
#include "report/advicereport.h"
#include "share/forumpost.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

constexpr const char* kV5 = "tpu_v5_training.op_profile.json.gz";

ProfileAnalysisPtr sampleAnalysis(const char* name)
{
    LoadResult loaded = loadProfile(samplePath(name));
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.ok() ? buildProfileAnalysis(loaded.profile) : nullptr;
}

json::Value adviceJson(const Profile& profile, const AdviceReport& report)
{
    json::Value doc;
    json::ParseError error;
    EXPECT_TRUE(json::parse(adviceReport(profile, report, AdviceFormat::Json), doc, error)) << error.describe();
    return doc;
}

const json::Value* item(const json::Value& doc, std::string_view rule)
{
    for (const json::Value& a : doc["advice"].array())
        if (a["rule"].string() == rule)
            return &a;
    return nullptr;
}

} // namespace

// The demo's batch fix: per-core batch 16 -> 128 makes each step longer and each example cheaper.
// Its benefit is examples per second, not time saved per step, and it is not added to the others.
TEST(GainUnits, PerCoreBatchIsAThroughputEstimateOutsideTheCombinedGain)
{
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(demoProfile());
    const AdviceReport& report = analysis->advice;
    const Advice* batch = report.find(AdviceRuleId::PerCoreBatch);
    ASSERT_TRUE(batch);
    EXPECT_EQ(batch->gainPs, 0);
    EXPECT_TRUE(batch->gainByOp.empty()) << "a throughput gain claims no op time";
    EXPECT_GT(batch->throughputFactor, 1);
    // At most the batch ratio: the same step cannot hold more than 8x the examples for free.
    EXPECT_LE(batch->throughputFactor,
        adviceNumber(*batch, "suggested_per_core_batch") / adviceNumber(*batch, "per_core_batch"));
    EXPECT_DOUBLE_EQ(adviceNumber(*batch, "throughput_factor"), batch->throughputFactor);
    EXPECT_FALSE(adviceText(*batch, "throughput_assumption").empty());
    EXPECT_GT(adviceNumber(*batch, "step_ps_at_suggested_batch"), adviceNumber(*batch, "step_ps"))
        << "a larger batch makes the step longer";
    EXPECT_EQ(batch->gain.find("/step"), std::string::npos) << batch->gain;
    EXPECT_NE(batch->gain.find("examples per second"), std::string::npos) << batch->gain;
    EXPECT_FALSE(batch->fix.action.empty());
    // The combined gain counts time gains only: the other items' ops.
    for (const Advice& a : report.advice)
        if (&a != batch && a.gainPs > 0)
            EXPECT_EQ(std::count(a.overlapsWith.begin(), a.overlapsWith.end(), "per-core-batch"), 0) << a.rule;
    EXPECT_EQ(report.combinedGain.find("per-core-batch"), std::string::npos);

    const json::Value doc = adviceJson(*analysis->profile, report);
    const json::Value* a = item(doc, "per-core-batch");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->find("gain_ps_per_step"), nullptr) << "a throughput estimate has no time per step";
    EXPECT_EQ(a->find("gain_ps_over_capture"), nullptr);
    EXPECT_DOUBLE_EQ((*a)["numbers"]["throughput_factor"].number(), batch->throughputFactor);
    // The demo has steps: time gains are per step.
    EXPECT_TRUE(doc.find("combined_gain_ps_per_step"));
    for (const json::Value& x : doc["advice"].array())
        EXPECT_EQ(x.find("gain_ps_over_capture"), nullptr) << x["rule"].string();
}

// An op_profile records no steps: every gain is a share of op time and a time per core over the
// capture. The v5 forum post promised "259 ms per step per core" for collectives in a run whose
// steps take about 120 ms.
TEST(GainUnits, WithoutStepsGainsAreSharesOfOpTimeNeverPerStep)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV5);
    const ProfileAnalysisPtr analysis = sampleAnalysis(kV5);
    ASSERT_TRUE(analysis);
    const AdviceReport& report = analysis->advice;
    ASSERT_EQ(report.steps, 0);
    EXPECT_FALSE(report.gainsPerStep());
    bool anyGain = false;
    for (const Advice& a : report.advice) {
        if (a.gainPs <= 0)
            continue;
        anyGain = true;
        EXPECT_NEAR(a.gainOpTimeFraction, a.gainPs * report.cores / analysis->breakdown.totalTimePs, 1e-9) << a.rule;
        EXPECT_NE(a.gain.find("of op time"), std::string::npos) << a.gain;
        EXPECT_NE(a.gain.find("over the capture"), std::string::npos) << a.gain;
        EXPECT_EQ(a.gain.find("/step"), std::string::npos) << a.gain;
    }
    ASSERT_TRUE(anyGain);
    EXPECT_EQ(report.combinedGain.find("/step"), std::string::npos) << report.combinedGain;
    EXPECT_NEAR(report.combinedGainOpTimeFraction,
        report.combinedGainPs * report.cores / analysis->breakdown.totalTimePs, 1e-9);

    const json::Value doc = adviceJson(*analysis->profile, report);
    EXPECT_EQ(doc.find("combined_gain_ps_per_step"), nullptr);
    EXPECT_TRUE(doc.find("combined_gain_op_time_fraction"));
    for (const json::Value& a : doc["advice"].array()) {
        EXPECT_EQ(a.find("gain_ps_per_step"), nullptr) << a["rule"].string();
        if (a.find("gain_ps_over_capture")) {
            EXPECT_GT(a["gain_op_time_fraction"].number(), 0) << a["rule"].string();
        }
    }

    // The forum post reads the share file: the same units.
    const ForumPost post = buildForumPost(*analysis, {});
    ASSERT_TRUE(post.error.empty()) << post.error;
    EXPECT_EQ(post.markdown.find("per step"), std::string::npos) << post.markdown;
    EXPECT_NE(post.markdown.find("of op time"), std::string::npos) << post.markdown;
}

TEST(GainUnits, TheForumPostSaysABatchFixIsThroughput)
{
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(demoProfile());
    const ForumPost post = buildForumPost(*analysis, {});
    ASSERT_TRUE(post.error.empty()) << post.error;
    const size_t at = post.markdown.find("(rule `per-core-batch`)");
    ASSERT_NE(at, std::string::npos) << post.markdown;
    const size_t next = post.markdown.find(". **[", at); // the next item, if any
    const std::string batchItem = post.markdown.substr(at, next == std::string::npos ? std::string::npos : next - at);
    EXPECT_NE(batchItem.find("examples per second"), std::string::npos) << batchItem;
    EXPECT_EQ(batchItem.find("per step per core"), std::string::npos) << batchItem;
}
