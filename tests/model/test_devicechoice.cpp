// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 22, points 3 and 4: one core count, and the file's recorded device wins. A user's device or
// core count applies only where the file records nothing; a choice that contradicts the file is
// refused with a message that names what the file records, and every per-core figure then uses the
// same count.
#include "analysis/profileanalysis.h"
#include "analysistestutil.h"
#include "core/profile.h"
#include "loader/loader.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

ProfilePtr loadSample(const std::string& name, const std::string& device = {}, int cores = 0)
{
    LoadOptions options;
    options.deviceOverride = device;
    options.coresOverride = cores;
    LoadResult loaded = loadProfile(samplePath(name), options);
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.profile;
}

} // namespace

TEST(DeviceChoice, RecordedPeaksWinOverAContradictingGeneration)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v6e_inference.xplane.pb");
    const ProfilePtr plain = loadSample("tpu_v6e_inference.xplane.pb");
    const ProfilePtr chosen = loadSample("tpu_v6e_inference.xplane.pb", "v5e");
    ASSERT_TRUE(plain && chosen);
    // The file records "TPU v6 lite" and its peaks: --device v5e is refused, naming them.
    EXPECT_NE(chosen->load.deviceRefusal.find("--device v5e"), std::string::npos) << chosen->load.deviceRefusal;
    EXPECT_NE(chosen->load.deviceRefusal.find(plain->device.type), std::string::npos) << chosen->load.deviceRefusal;
    EXPECT_EQ(chosen->device.peakTflopsPerCore, plain->device.peakTflopsPerCore);
    EXPECT_EQ(chosen->device.peakHbmGbpsPerCore, plain->device.peakHbmGbpsPerCore);
    EXPECT_EQ(chosen->device.generation, plain->device.generation);
    // So the memory headline stays what the file's device implies (the old override made it a
    // critical "HBM peak 134 % of capacity").
    const ProfileAnalysisPtr a = buildProfileAnalysis(chosen);
    const ProfileAnalysisPtr b = buildProfileAnalysis(plain);
    EXPECT_EQ(a->advice.advice.size(), b->advice.advice.size());
    for (const Advice& item : a->advice.advice)
        EXPECT_EQ(item.title.find("of capacity"), std::string::npos) << item.title;

    // The generation the file records is accepted and changes nothing.
    const ProfilePtr same = loadSample("tpu_v6e_inference.xplane.pb", plain->device.generation);
    EXPECT_TRUE(same->load.deviceRefusal.empty()) << same->load.deviceRefusal;
    EXPECT_EQ(same->device.peakTflopsPerCore, plain->device.peakTflopsPerCore);
}

TEST(DeviceChoice, AChoiceAppliesWhereTheFileRecordsNoDevice)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_vllm_serving.trace.json.gz");
    const ProfilePtr plain = loadSample("tpu_vllm_serving.trace.json.gz");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->device.peakTflopsPerCore, 0);
    const ProfilePtr chosen = loadSample("tpu_vllm_serving.trace.json.gz", "v7x");
    EXPECT_TRUE(chosen->load.deviceRefusal.empty()) << chosen->load.deviceRefusal;
    EXPECT_EQ(chosen->device.peakSource, PeakSource::UserChoice);
    EXPECT_GT(chosen->device.peakTflopsPerCore, 0);
    EXPECT_NE(chosen->device.peakNote.find("chosen by the user"), std::string::npos);

    const ProfilePtr unknown = loadSample("tpu_vllm_serving.trace.json.gz", "v99");
    EXPECT_NE(unknown->load.deviceRefusal.find("unknown TPU generation 'v99'"), std::string::npos);
    EXPECT_EQ(unknown->device.peakTflopsPerCore, 0);
}

TEST(DeviceChoice, CoresAreSetOnlyWhereTheFileDoesNotRecordThem)
{
    // The demo records 8 TPU core planes: another count is refused.
    const DeviceInfo demo = demoProfile()->fileDevice;
    ASSERT_EQ(demo.coresSource, CoreCountSource::Planes);
    const DeviceChoice four = chooseDevice(demo, {}, 4);
    EXPECT_EQ(four.device.cores, 8);
    EXPECT_NE(four.refusal.find("records 8 TPU cores"), std::string::npos) << four.refusal;
    EXPECT_TRUE(chooseDevice(demo, {}, 8).refusal.empty());

    // The v5 op_profile sums all cores on one plane; its replica groups prove at least 4.
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v5_training.op_profile.json.gz");
    const ProfilePtr v5 = loadSample("tpu_v5_training.op_profile.json.gz");
    EXPECT_EQ(v5->device.coresSource, CoreCountSource::ReplicaGroups);
    EXPECT_EQ(v5->device.cores, 4);
    EXPECT_NE(v5->device.coresNote.find("at least 4 from the replica groups"), std::string::npos);
    const DeviceChoice two = chooseDevice(v5->fileDevice, {}, 2);
    EXPECT_EQ(two.device.cores, 4);
    EXPECT_NE(two.refusal.find("at least 4"), std::string::npos) << two.refusal;
    const DeviceChoice eight = chooseDevice(v5->fileDevice, {}, 8);
    EXPECT_TRUE(eight.refusal.empty()) << eight.refusal;
    EXPECT_EQ(eight.device.cores, 8);
    EXPECT_EQ(eight.device.coresSource, CoreCountSource::UserChoice);
    EXPECT_NE(eight.device.coresNote.find("8 as given by the user"), std::string::npos);
}

TEST(DeviceChoice, EveryPerCoreFigureUsesTheChosenCount)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v5_training.op_profile.json.gz");
    const ProfileAnalysisPtr four = buildProfileAnalysis(loadSample("tpu_v5_training.op_profile.json.gz"));
    const ProfileAnalysisPtr eight = buildProfileAnalysis(loadSample("tpu_v5_training.op_profile.json.gz", {}, 8));
    EXPECT_EQ(four->breakdown.coresRepresented, 4);
    EXPECT_EQ(eight->breakdown.coresRepresented, 8);
    EXPECT_EQ(eight->advice.cores, 8);
    // Same ops, same totals; per-core gains halve with twice the cores.
    ASSERT_EQ(four->breakdown.rows.size(), eight->breakdown.rows.size());
    EXPECT_DOUBLE_EQ(four->breakdown.totalTimePs, eight->breakdown.totalTimePs);
    ASSERT_EQ(four->advice.advice.size(), eight->advice.advice.size());
    for (size_t i = 0; i < four->advice.advice.size(); ++i) {
        const Advice& x = four->advice.advice[i];
        const Advice& y = eight->advice.advice[i];
        ASSERT_EQ(x.rule, y.rule);
        if (x.gainPs > 0) {
            EXPECT_NEAR(y.gainPs, x.gainPs / 2, 1e-6 * x.gainPs) << x.rule;
        }
    }
}
