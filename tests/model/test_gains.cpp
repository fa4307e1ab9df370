// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 22, point 7: gains that hold. Every advice item's gain is at most what its evidence ops can
// save (their time; where the useful work stays, their time beyond that work at its utilization),
// items whose gains come from the same ops say so, and all of them together never exceed the step.
#include "analysis/profileanalysis.h"
#include "analysistestutil.h"
#include "loader/loader.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

/// Per step and core, as the advice states gains.
double perStep(const ProfileAnalysis& a, double totalPs)
{
    return totalPs / std::max(1, a.breakdown.coresRepresented) / std::max<int64_t>(1, a.steps.stepsPerCore);
}

/// Rules whose fix keeps the op's useful work: the op still needs its time at that work's rate.
bool usefulWorkStays(const std::string& rule)
{
    return rule == "per-core-batch" || rule == "padding";
}

void expectGainsHold(const ProfileAnalysis& a, const std::string& what)
{
    SCOPED_TRACE(what);
    std::map<OpId, const OpRow*> rowOf;
    for (const OpRow& row : a.breakdown.rows)
        rowOf[row.op] = &row;
    double sum = 0;
    for (const Advice& item : a.advice.advice) {
        SCOPED_TRACE(item.rule);
        sum += item.gainPs;
        if (a.steps.stepsPerCore > 0 && a.steps.avgStepPs > 0) {
            EXPECT_LE(item.gainPs, a.steps.avgStepPs * (1 + 1e-9));
        }
        if (item.gainByOp.empty())
            continue;
        double byOp = 0;
        for (const auto& [op, gain] : item.gainByOp) {
            ASSERT_TRUE(rowOf.count(op)) << op;
            const OpRow& row = *rowOf[op];
            byOp += gain;
            // Never more than the op's time...
            EXPECT_LE(gain, perStep(a, row.totalTimePs) * (1 + 1e-9)) << row.name;
            // ...and where its useful work stays, never more than its time beyond that work.
            if (usefulWorkStays(item.rule)) {
                const double u = row.rooflineEfficiency.value_or(row.flopsUtilization.value_or(0));
                EXPECT_LE(gain, perStep(a, row.totalTimePs * (1 - u)) * (1 + 1e-9) + 1) << row.name;
            }
        }
        // The item's gain is the sum of its ops' parts.
        EXPECT_NEAR(item.gainPs, byOp, 1e-6 * std::max(1.0, item.gainPs));
    }
    // Items that share ops name each other's rule, both ways (a rule may have several items, one
    // per op: an item names a rule when it shares ops with any of that rule's items).
    auto sharesOps = [](const Advice& x, const Advice& y) {
        for (const auto& [op, g] : x.gainByOp)
            for (const auto& [other, h] : y.gainByOp)
                if (op == other && g > 0 && h > 0)
                    return true;
        return false;
    };
    for (const Advice& x : a.advice.advice) {
        if (x.gainPs <= 0)
            continue;
        std::set<std::string> sharedRules;
        for (const Advice& y : a.advice.advice)
            if (&x != &y && y.gainPs > 0 && y.rule != x.rule && sharesOps(x, y))
                sharedRules.insert(y.rule);
        const std::set<std::string> named(x.overlapsWith.begin(), x.overlapsWith.end());
        EXPECT_EQ(sharedRules, named) << x.rule << " on " << x.opNames.front();
        if (!sharedRules.empty()) {
            EXPECT_NE(x.gain.find("do not add these gains up"), std::string::npos) << x.gain;
        }
    }
    // Together: at most the items' sum, and never more than the step.
    EXPECT_LE(a.advice.combinedGainPs, sum * (1 + 1e-9) + 1);
    if (a.steps.stepsPerCore > 0) {
        EXPECT_LE(a.advice.combinedGainPs, a.steps.avgStepPs * (1 + 1e-9));
    }
}

} // namespace

TEST(Gains, EveryRuleOnItsMotivatingProfileHolds)
{
    // The demo: per-core-batch, padding, low-utilization-fusion, hbm-bound, memory-padding.
    expectGainsHold(*buildProfileAnalysis(demoProfile()), "demo");
    // The samples: host-offload (v6e), strided-update and collectives (v5), capture-coverage and the
    // device check (vLLM, with and without a device), the TF1 demo's batch.
    struct Sample
    {
        const char* name;
        const char* device;
    };
    for (const Sample s : {Sample {"tpu_v6e_inference.xplane.pb", ""},
             Sample {"tpu_v5_training.op_profile.json.gz", ""}, Sample {"tpu_vllm_serving.trace.json.gz", ""},
             Sample {"tpu_vllm_serving.trace.json.gz", "v7x"}, Sample {"demo_synthetic.op_profile.json", ""}}) {
        if (!haveSample(s.name))
            continue;
        LoadOptions options;
        options.deviceOverride = s.device;
        LoadResult loaded = loadProfile(samplePath(s.name), options);
        ASSERT_TRUE(loaded.ok()) << loaded.error;
        expectGainsHold(*buildProfileAnalysis(loaded.profile), std::string(s.name) + " " + s.device);
    }
}

// The batch fix makes each step longer and each example cheaper (issue 41): a throughput estimate,
// claiming no op's time, so it neither overlaps the time fixes nor adds to their total.
TEST(Gains, DemoBatchFixStaysOutOfTheTimeFixesAndTogetherTheyStayBelowTheStep)
{
    const ProfileAnalysisPtr a = buildProfileAnalysis(demoProfile());
    const Advice* batch = findAdvice(a->advice, "per-core-batch");
    const Advice* fusion = findAdvice(a->advice, "low-utilization-fusion");
    ASSERT_TRUE(batch && fusion);
    EXPECT_TRUE(batch->gainByOp.empty());
    EXPECT_TRUE(batch->overlapsWith.empty());
    EXPECT_GT(batch->throughputFactor, 1);
    // fusion.3's time is claimed by the low-utilization fix.
    EXPECT_NE(std::find(fusion->opNames.begin(), fusion->opNames.end(), "fusion.3"), fusion->opNames.end());
    double sum = 0;
    for (const Advice& item : a->advice.advice)
        sum += item.gainPs;
    EXPECT_LE(a->advice.combinedGainPs, sum * (1 + 1e-9));
    EXPECT_LE(a->advice.combinedGainPs, a->steps.avgStepPs);
    EXPECT_FALSE(a->advice.combinedGain.empty());
}
