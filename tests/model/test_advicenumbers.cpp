// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/advice.h"
#include "loader/loader.h"
#include "report/advicenumbers.h"
#include "report/report.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace tpuscope::model;

TEST(AdviceNumbers, LabelsAndUnitsForTheKeysTheIssueNamed)
{
    const AdviceNumberText share = adviceNumberText("time_fraction", 0.9648);
    EXPECT_EQ(share.label, "share of time");
    EXPECT_EQ(share.value, "96.5%");
    const AdviceNumberText host = adviceNumberText("host_memory_fraction", 1);
    EXPECT_EQ(host.label, "in host memory");
    EXPECT_EQ(host.value, "100.0%");
}

TEST(AdviceNumbers, UnitsFollowTheKeySuffix)
{
    EXPECT_EQ(formatAdviceNumber("step_ps", 7.841e11), "784 ms");
    EXPECT_EQ(formatAdviceNumber("to_host_bytes_per_step", 16106127360.0), formatBytes(16106127360.0));
    EXPECT_EQ(formatAdviceNumber("to_device_gbps", 27.03), "27 GB/s");
    EXPECT_EQ(formatAdviceNumber("padding_efficiency", 0.25), "25.0%");
    EXPECT_EQ(formatAdviceNumber("runs", 400), "400");
    EXPECT_EQ(formatAdviceNumber("ridge", 1.23456), "1.235");
    EXPECT_EQ(adviceNumberLabel("hbm_peak_bytes_something_new"), "HBM peak bytes something new");
    EXPECT_EQ(adviceNumberLabel("peak_unpadded_bytes"), "peak unpadded");
    EXPECT_EQ(adviceNumberLabel("flops_utilization"), "FLOPS utilization");
    EXPECT_EQ(adviceNumberLabel("copy_wait_ps_per_step"), "copy wait per step");
    EXPECT_EQ(adviceNumberLabel("late_ps_per_step"), "late per step");
    // A flag reads as one, not as a count of 0.
    EXPECT_EQ(adviceNumberText("padding_bound", 0).label, "padding bounds the op");
    EXPECT_EQ(formatAdviceNumber("padding_bound", 0), "no");
    EXPECT_EQ(formatAdviceNumber("padding_bound", 1), "yes");
}

// Every number the rules write on the real v6e sample reads without underscores.
TEST(AdviceNumbers, EveryNumberOfTheRealSampleHasAHumanLabel)
{
    const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "sample missing: " << path;
    auto loaded = loadProfile(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const AdviceReport report = computeAdvice(*loaded.profile);
    ASSERT_FALSE(report.advice.empty());
    size_t numbers = 0;
    bool sawFraction = false;
    for (const Advice& a : report.advice)
        for (const auto& [key, value] : a.numbers.fields) {
            if (value.kind != AdviceValue::Kind::Number)
                continue;
            ++numbers;
            const AdviceNumberText text = adviceNumberText(key, value.number);
            EXPECT_EQ(text.label.find('_'), std::string::npos) << key;
            // The unit is the value's to say: "copy wait ps per step 758 ms" read it twice.
            EXPECT_EQ((" " + text.label + " ").find(" ps "), std::string::npos) << key << ": " << text.label;
            EXPECT_FALSE(text.value.empty()) << key;
            if (key.size() > 9 && key.compare(key.size() - 9, 9, "_fraction") == 0) {
                sawFraction = true;
                EXPECT_EQ(text.value.back(), '%') << text.value;
            }
        }
    EXPECT_GT(numbers, 3u);
    EXPECT_TRUE(sawFraction);
}
