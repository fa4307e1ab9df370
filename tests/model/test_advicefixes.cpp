// SPDX-License-Identifier: GPL-3.0-or-later
// Less noise and right fixes (issue 41), input without a timeline, host offload that says what it
// knows, and intermittent stragglers: each on the real profile that showed it, and where the rule
// must stay silent or say something else.
#include "analysis/advice.h"
#include "analysis/layout.h"
#include "analysis/padding.h"
#include "analysis/profileanalysis.h"
#include "analysistestutil.h"
#include "loader/loader.h"
#include "loader/logdir.h"
#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

constexpr const char* kSynthetic = "demo_synthetic.op_profile.json";
constexpr const char* kV5 = "tpu_v5_training.op_profile.json.gz";
constexpr const char* kV6e = "tpu_v6e_inference.xplane.pb";
constexpr const char* kVllm = "tpu_vllm_serving.trace.json.gz";

ProfileAnalysisPtr sampleAnalysis(const std::string& name)
{
    LoadResult loaded = loadProfile(samplePath(name));
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.ok() ? buildProfileAnalysis(loaded.profile) : nullptr;
}

OpId opNamed(const Profile& p, const std::string& name)
{
    for (OpId id = 0; id < p.ops.size(); ++id)
        if (p.str(p.ops[id].name) == name)
            return id;
    return kNone;
}

/// One TPU core (100 TFLOP/s, 1000 GB/s) running the given (HLO text, category, ps, HBM bytes) ops once.
ProfilePtr hbmProfile(const std::vector<std::tuple<std::string, std::string, TimePs, double>>& ops)
{
    ProfileBuilder b;
    const PlaneId plane = b.addPlane("/device:TPU:0");
    b.profile().planes[plane].peakTflops = 100;
    b.profile().planes[plane].peakHbmGbps = 1000;
    const TrackId track = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    TimePs t = 0;
    for (const auto& [hlo, category, time, bytes] : ops) {
        OpInfo info;
        info.name = b.intern(hlo.substr(1, hlo.find(' ') - 1));
        info.longName = b.intern(hlo);
        info.category = b.intern(category);
        info.hbmBytes = bytes;
        info.bytesAccessed = bytes;
        info.flops = 1e6;
        info.isXlaOp = true;
        b.addEvent(track, t, time, b.addOp(info));
        t += time;
    }
    return b.finish();
}

ProfileAnalysisPtr podAnalysis(const std::string& name, const std::string& spec, SynthPodTruth* truth = nullptr)
{
    SynthOptions options;
    std::string error;
    EXPECT_TRUE(parseSynthScenario(spec, options, error)) << error;
    if (truth) {
        EXPECT_TRUE(synthPodTruth(options, *truth, error)) << error;
    }
    const std::string dir = tempDir("advicefixes_" + name);
    EXPECT_TRUE(writeSyntheticLogdir(options, dir, error)) << error;
    LoadResult loaded = loadNewestRun(dir);
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.ok() ? buildProfileAnalysis(loaded.profile) : nullptr;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// 7. Less noise, right fixes

// The demo's 1-channel model output (fusion.3), its filter gradient (convolution.33) and that
// gradient's all-reduce are padded in a dimension of size 1: the model's own shape, which no fix
// changes. No padding item names them.
TEST(AdviceNoise, NoPaddingItemForADimensionThatCannotChange)
{
    const AdviceReport report = computeAdvice(*demoProfile());
    for (const Advice& a : report.advice) {
        if (a.id != AdviceRuleId::Padding)
            continue;
        for (const char* op : {"fusion.3", "convolution.33", "all-reduce.1"})
            EXPECT_EQ(std::find(a.opNames.begin(), a.opNames.end(), op), a.opNames.end()) << a.title;
        EXPECT_GE(adviceNumber(a, "time_fraction"), 0.01) << a.title;
    }
    // The per-core batch is still the demo's story.
    ASSERT_TRUE(report.find(AdviceRuleId::PerCoreBatch));
    EXPECT_EQ(report.batch.perCoreBatch, 16);
}

// convolution.33 is the output layer's filter gradient (dim_labels f01b_i01o->01bf): its output is a
// kernel (17x17x32x1), whose "batch" by the convolution's own numbers is the kernel's input feature.
TEST(AdviceNoise, FilterGradientDimensionsAreKernelDimensions)
{
    const ProfilePtr demo = demoProfile();
    const OpId op = opNamed(*demo, "convolution.33");
    ASSERT_NE(op, kNone);
    const OpPadding padding = resolveOpPadding(*demo, op);
    ASSERT_TRUE(padding.computeCore);
    EXPECT_TRUE(layout::isFilterGradient(*padding.module, *padding.computeCore));
    ASSERT_FALSE(padding.arrays.empty());
    const ArrayPadding& output = padding.arrays.front();
    EXPECT_EQ(output.role, "output");
    for (const layout::DimPadding& d : output.padding.dims)
        EXPECT_NE(d.semantics, layout::DimSemantics::Batch) << "a kernel has no batch dimension";
    // It sums over the model's batch: 16 per core, the batch the rest of the program agrees on.
    EXPECT_EQ(padding.batchSize, 16);
    // A forward convolution keeps its batch.
    const OpId forward = opNamed(*demo, "fusion.3");
    const OpPadding f = resolveOpPadding(*demo, forward);
    ASSERT_TRUE(f.computeCore);
    EXPECT_FALSE(layout::isFilterGradient(*f.module, *f.computeCore));
    EXPECT_EQ(f.batchSize, 16);
}

// An elementwise op moves its bytes per example whatever the batch: its fix is fewer or smaller
// bytes, never a larger batch; a convolution low on FLOPs per byte may take a larger batch.
TEST(AdviceNoise, HbmBoundFixFitsTheOpKind)
{
    const std::string multiply = "%fusion.1 = f32[1024,1024]{1,0} fusion(f32[1024,1024]{1,0} %a), kind=kLoop";
    const std::string conv = "%convolution.2 = f32[8,64,64,128]{3,2,1,0} convolution(f32[8,64,64,128]{3,2,1,0} %x, "
                             "f32[1,1,128,128]{3,2,1,0} %w), window={size=1x1}, dim_labels=b01f_01io->b01f";
    {
        const AdviceReport r = computeAdvice(*hbmProfile({{multiply, "loop fusion", 1'000'000'000, 8e8}}));
        const Advice* a = r.find(AdviceRuleId::HbmBound);
        ASSERT_TRUE(a);
        EXPECT_EQ(adviceNumber(*a, "mxu_ops"), 0);
        EXPECT_EQ(a->detail.find("larger batch per core"), std::string::npos) << a->detail;
        EXPECT_NE(a->detail.find("does not raise"), std::string::npos) << a->detail;
        EXPECT_EQ(a->fix.action.find("batch"), std::string::npos) << a->fix.action;
        EXPECT_NE(a->fix.action.find("bf16"), std::string::npos) << a->fix.action;
    }
    {
        const AdviceReport r = computeAdvice(*hbmProfile({{conv, "convolution", 1'000'000'000, 8e8}}));
        const Advice* a = r.find(AdviceRuleId::HbmBound);
        ASSERT_TRUE(a);
        EXPECT_EQ(adviceNumber(*a, "mxu_ops"), 1);
        EXPECT_NE(a->detail.find("larger batch per core"), std::string::npos) << a->detail;
    }
}

// Every item of every rule that fires says what to do as data (fix.action), for views that must not
// parse prose.
TEST(AdviceNoise, EveryItemFillsItsFixAction)
{
    std::vector<ProfileAnalysisPtr> analyses {buildProfileAnalysis(demoProfile())};
    for (const char* name : {kSynthetic, kV5, kV6e, kVllm})
        if (haveSample(name))
            analyses.push_back(sampleAnalysis(name));
    analyses.push_back(podAnalysis("fix_action", "pod:hosts=4,chips=2,late=1:slowchip,steps=8"));
    size_t items = 0;
    for (const ProfileAnalysisPtr& a : analyses) {
        ASSERT_TRUE(a);
        for (const Advice& item : a->advice.advice) {
            ++items;
            EXPECT_FALSE(item.fix.action.empty()) << a->profile->load.path << ": " << item.rule;
        }
    }
    EXPECT_GE(items, 10u);
}

// ---------------------------------------------------------------------------------------------
// 6. Input without a timeline

// demo_synthetic is an op_profile: no steps, no idle time, but 40 % of its op time is infeed.
TEST(InputBound, OpProfileInfeedShare)
{
    TPUSCOPE_REQUIRE_SAMPLE(kSynthetic);
    const ProfileAnalysisPtr analysis = sampleAnalysis(kSynthetic);
    ASSERT_TRUE(analysis);
    const Advice* a = analysis->advice.find(AdviceRuleId::InputBound);
    ASSERT_TRUE(a) << "40 % of op time in infeed is input-bound";
    EXPECT_NEAR(adviceNumber(*a, "infeed_fraction"), 0.40, 1e-6);
    EXPECT_EQ(a->severity, Severity::Critical);
    ASSERT_EQ(a->opNames.size(), 1u);
    EXPECT_EQ(a->opNames.front(), "infeed");
    // Without steps the gain is a share of op time over the capture.
    EXPECT_NEAR(a->gainOpTimeFraction, 0.40, 1e-6);
    EXPECT_NE(a->gain.find("of op time"), std::string::npos) << a->gain;
    EXPECT_FALSE(a->fix.action.empty());
}

TEST(InputBound, SilentWithoutInfeed)
{
    EXPECT_FALSE(computeAdvice(*demoProfile()).find(AdviceRuleId::InputBound));
    if (haveSample(kV5)) {
        EXPECT_FALSE(sampleAnalysis(kV5)->advice.find(AdviceRuleId::InputBound));
    }
}

// ---------------------------------------------------------------------------------------------
// 8. Host offload says what it knows

TEST(HostOffload, V6eFitCheckAddsTheProgramPeakAndNamesTheSharedLink)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    const ProfileAnalysisPtr analysis = sampleAnalysis(kV6e);
    ASSERT_TRUE(analysis);
    const Advice* a = analysis->advice.find(AdviceRuleId::HostOffload);
    ASSERT_TRUE(a);
    // jit_f's own HBM peak (buffer assignment): about 20 GiB of the 29.8 GiB per chip; the 15 GiB
    // offloaded per step do not fit beside it.
    EXPECT_NEAR(adviceNumber(*a, "program_peak_bytes"), 20.0 * (1ull << 30), 0.5 * (1ull << 30));
    EXPECT_EQ(adviceText(*a, "fits_in_hbm"), "no");
    EXPECT_EQ(a->detail.find("would fit in"), std::string::npos) << a->detail;
    // 4 chips on one host share its link to host memory.
    EXPECT_EQ(adviceNumber(*a, "chips_per_host_link"), 4);
    EXPECT_NE(a->detail.find("4 chips"), std::string::npos) << a->detail;
    // The step spread: 551 ms to 982 ms (steps).
    EXPECT_NEAR(adviceNumber(*a, "min_step_ps"), 551e9, 1e9);
    EXPECT_NEAR(adviceNumber(*a, "max_step_ps"), 982e9, 1e9);
    // The slicing gain rests on the measured idle link, never more.
    EXPECT_LE(adviceNumber(*a, "slicing_gain_ps"), adviceNumber(*a, "busier_link_idle_while_waiting_ps_per_step") + 1);
    EXPECT_FALSE(a->fix.action.empty());
}

// ---------------------------------------------------------------------------------------------
// 10. Intermittent stragglers

// Host 3 is late by ~350 µs in 30 % of the steps (6 of 20): late in fewer than half of the steps,
// it still costs the pod a measurable time per step, and is named with the steps it was late in.
TEST(StragglerAdvice, NamesAnIntermittentStragglerWithItsLateSteps)
{
    SynthPodTruth truth;
    const ProfileAnalysisPtr analysis
        = podAnalysis("intermittent", "pod:hosts=8,chips=4,late=3:input,late_pct=30", &truth);
    ASSERT_TRUE(analysis);
    const Advice* a = analysis->advice.find(AdviceRuleId::Straggler);
    ASSERT_TRUE(a) << "a host late in 30 % of the steps is named";
    EXPECT_EQ(adviceText(*a, "host"), "t1v-n-pod-w-3");
    EXPECT_EQ(adviceNumber(*a, "intermittent"), 1);
    EXPECT_EQ(adviceNumber(*a, "late_steps"), 6);
    // The steps it was late in: those the generator made it late in (1-based).
    const AdviceValue* steps = a->numbers.find("late_step_numbers");
    ASSERT_TRUE(steps);
    std::vector<int64_t> expected;
    for (int s = 0; s < 20; ++s)
        if ((s * 30) % 100 < 30)
            expected.push_back(s + 1);
    std::vector<int64_t> got;
    for (const AdviceValue& v : steps->items)
        got.push_back(static_cast<int64_t>(v.number));
    EXPECT_EQ(got, expected);
    // About 350 µs late when late; a measurable cost on average.
    EXPECT_NEAR(adviceNumber(*a, "late_ps_when_late"), 350e6, 60e6);
    EXPECT_GT(a->gainPs, 0.01 * analysis->hosts.avgStepPs);
    EXPECT_NE(a->title.find("now and then"), std::string::npos) << a->title;
    EXPECT_FALSE(a->fix.action.empty());
}

TEST(StragglerAdvice, APersistentStragglerIsNotCalledIntermittent)
{
    const ProfileAnalysisPtr analysis = podAnalysis("persistent", "pod:hosts=4,chips=2,late=2:input,steps=10");
    ASSERT_TRUE(analysis);
    const Advice* a = analysis->advice.find(AdviceRuleId::Straggler);
    ASSERT_TRUE(a);
    EXPECT_EQ(adviceNumber(*a, "intermittent"), 0);
    EXPECT_EQ(adviceNumber(*a, "late_steps"), 10);
}
