// SPDX-License-Identifier: GPL-3.0-or-later
// The hosts analysis and the straggler rule on synthetic pods (synth pod:...), checked against what
// the generator put in (SynthPodTruth), and silent on a pod without a late host and on one host.
#include "analysis/hosts.h"
#include "analysis/profileanalysis.h"
#include "loader/loader.h"
#include "loader/logdir.h"
#include "report/report.h"
#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

struct Pod
{
    SynthPodTruth truth;
    ProfileAnalysisPtr analysis;
    const HostAnalysis& hosts() const { return analysis->hosts; }
    const Advice* straggler() const { return analysis->advice.find(AdviceRuleId::Straggler); }
};

Pod makePod(const std::string& name, const std::string& spec)
{
    Pod pod;
    SynthOptions options;
    std::string error;
    EXPECT_TRUE(parseSynthScenario(spec, options, error)) << error;
    EXPECT_TRUE(synthPodTruth(options, pod.truth, error)) << error;
    const std::string dir = tempDir("pod_" + name);
    EXPECT_TRUE(writeSyntheticLogdir(options, dir, error)) << error;
    LoadResult loaded = loadNewestRun(dir);
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    if (loaded.ok())
        pod.analysis = buildProfileAnalysis(loaded.profile);
    return pod;
}

double mean(const std::vector<double>& v)
{
    return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// The truth's mean over steps of host `h`'s arrival after the other hosts' median.
double truthLateVsOthers(const SynthPodTruth& t, size_t h)
{
    double sum = 0;
    const size_t steps = t.arrivalPs[h].size();
    for (size_t s = 0; s < steps; ++s) {
        std::vector<double> others;
        for (size_t o = 0; o < t.arrivalPs.size(); ++o)
            if (o != h)
                others.push_back(static_cast<double>(t.arrivalPs[o][s]));
        sum += static_cast<double>(t.arrivalPs[h][s]) - medianOf(others);
    }
    return sum / static_cast<double>(steps);
}

} // namespace

TEST(PodSynth, ParsesItsOptionsAndRefusesBadOnes)
{
    SynthOptions o;
    std::string error;
    ASSERT_TRUE(parseSynthScenario("pod", o, error)) << error;
    EXPECT_EQ(o.scenario, "pod");
    EXPECT_EQ(o.hosts, 8);
    EXPECT_EQ(o.chips, 4);
    EXPECT_EQ(o.steps, 20);
    EXPECT_EQ(o.lateHost, -1);
    ASSERT_TRUE(parseSynthScenario("pod:hosts=64,chips=2,offset_us=0,late=40:slowchip,steps=5,seed=7", o, error));
    EXPECT_EQ(o.hosts, 64);
    EXPECT_EQ(o.chips, 2);
    EXPECT_EQ(o.podOffsetUs, 0);
    EXPECT_EQ(o.lateHost, 40);
    EXPECT_EQ(o.lateKind, "slowchip");
    EXPECT_EQ(o.steps, 5);
    EXPECT_EQ(o.seed, 7u);
    for (const char* bad : {"pod:hosts=0", "pod:late=8:input", "pod:late=1:slow", "pod:chips=x", "pod:color=3",
             "pod:late=input", "pod:hosts=256,chips=16,steps=10000"}) {
        SynthOptions b;
        EXPECT_FALSE(parseSynthScenario(bad, b, error)) << bad;
        EXPECT_FALSE(error.empty());
    }
}

TEST(PodHosts, LoaderReadsEveryHostWithItsXSpaceHostname)
{
    const Pod pod = makePod("load", "pod:hosts=8,chips=4,steps=6");
    ASSERT_TRUE(pod.analysis);
    const Profile& p = *pod.analysis->profile;
    EXPECT_EQ(p.device.hosts, 8);
    EXPECT_EQ(p.device.cores, 32);
    EXPECT_EQ(p.device.generation, "v5e");
    ASSERT_EQ(pod.hosts().hosts.size(), 8u);
    for (size_t h = 0; h < 8; ++h) {
        const HostRow& r = pod.hosts().hosts[h];
        EXPECT_EQ(r.name, pod.truth.hostnames[h]);
        EXPECT_EQ(r.cores, 4);
        EXPECT_EQ(r.chips, 4); // v5e: one core per chip
        EXPECT_EQ(r.steps, 6);
    }
    EXPECT_EQ(pod.hosts().syncCollective, "all-reduce.8");
}

TEST(PodHosts, TableNumbersAreWhatTheGeneratorPutIn)
{
    // The analysis reads the same integer-picosecond events the generator planned, through the
    // file, the loader's merge (whole-ns origin shifts) and the steps' windows: only floating-point
    // summation separates them, so 1 ns per step is a generous bound (a real error is µs: an op).
    const Pod pod = makePod("truth", "pod:hosts=8,chips=4,late=2:hosttransfer,offset_us=800,steps=12");
    ASSERT_TRUE(pod.analysis);
    const HostAnalysis& h = pod.hosts();
    ASSERT_EQ(h.hosts.size(), 8u);
    ASSERT_EQ(h.steps, 12);
    constexpr double kTolerancePs = 1000;
    for (size_t i = 0; i < 8; ++i) {
        const HostRow& r = h.hosts[i];
        SCOPED_TRACE(r.name);
        EXPECT_NEAR(r.avgStepPs, mean(pod.truth.stepPs[i]), kTolerancePs);
        EXPECT_NEAR(r.computePs, mean(pod.truth.computePs[i]), kTolerancePs);
        EXPECT_NEAR(r.collectivePs, mean(pod.truth.collectivePs[i]), kTolerancePs);
        ASSERT_TRUE(r.collectiveWaitPs);
        EXPECT_NEAR(*r.collectiveWaitPs, mean(pod.truth.collectiveWaitPs[i]), kTolerancePs);
        EXPECT_NEAR(r.idlePs, mean(pod.truth.idlePs[i]), kTolerancePs);
        EXPECT_NEAR(r.hostTransferPs, mean(pod.truth.hostTransferPs[i]), kTolerancePs);
        // Collective ends coincide in true time, so the offset is exact (whole ns as written).
        ASSERT_TRUE(r.clockOffsetPs);
        EXPECT_EQ(*r.clockOffsetPs, pod.truth.clockOffsetPs[i] - pod.truth.clockOffsetPs[0]);
        EXPECT_EQ(r.offsetSource, i == 0 ? "reference host" : "synchronizing collective ends");
        ASSERT_TRUE(r.lateVsOthersPs);
        EXPECT_NEAR(*r.lateVsOthersPs, truthLateVsOthers(pod.truth, i), kTolerancePs);
        ASSERT_TRUE(r.lateSteps);
        EXPECT_EQ(*r.lateSteps, i == 2 ? 12 : 0);
    }
    // The late host waits least; the others wait for it in the all-reduce.
    EXPECT_LT(*h.hosts[2].collectiveWaitPs, 10e6);
    EXPECT_GT(*h.hosts[0].collectiveWaitPs, 250e6);
    for (size_t s = 0; s < 12; ++s)
        EXPECT_EQ(h.lateHostsByStep[s], std::vector<int>({2}));
}

TEST(StragglerAdvice, NamesTheLateHostAndItsCauseForEachKind)
{
    for (const char* kind : {"input", "slowchip", "hosttransfer"}) {
        SCOPED_TRACE(kind);
        const Pod pod = makePod(std::string("kind_") + kind, std::string("pod:hosts=8,chips=4,late=5:") + kind);
        ASSERT_TRUE(pod.analysis);
        const Advice* a = pod.straggler();
        ASSERT_TRUE(a) << "no straggler item";
        EXPECT_EQ(a->numbers.find("host")->text, "t1v-n-pod-w-5");
        EXPECT_EQ(a->numbers.find("cause")->text, kind);
        EXPECT_DOUBLE_EQ(a->numbers.find("late_fraction")->number, 1.0);
        EXPECT_NEAR(a->numbers.find("late_ps_per_step")->number, truthLateVsOthers(pod.truth, 5), 1000);
        // What every other core loses: the truth's wait of the other hosts' cores.
        std::vector<double> othersWait;
        for (size_t h = 0; h < 8; ++h)
            if (h != 5)
                othersWait.push_back(mean(pod.truth.collectiveWaitPs[h]));
        EXPECT_NEAR(a->numbers.find("others_wait_ps_per_step")->number, mean(othersWait), 1000);
        EXPECT_GT(a->gainPs, 0.0);
        EXPECT_FALSE(a->fix.action.empty());
        EXPECT_NE(a->fix.action.find("t1v-n-pod-w-5"), std::string::npos);
        if (std::string(kind) == "slowchip") {
            EXPECT_NE(a->fix.action.find("/device:TPU:3"), std::string::npos);
        }
    }
}

// The others' wait is collective time: the collectives item claims the same op, so the two name
// each other and "all the fixes together" counts that op once, within the step (it was 1.48 ms of
// gains on a 1.36 ms step before the straggler claimed its op).
TEST(StragglerAdvice, ItsGainIsTheCollectivesOpsTimeCountedOnce)
{
    const Pod pod = makePod("overlap", "pod:hosts=8,chips=4,late=3:input");
    ASSERT_TRUE(pod.analysis);
    const Advice* straggler = pod.straggler();
    ASSERT_TRUE(straggler);
    ASSERT_FALSE(straggler->ops.empty()) << "the synchronizing collective is the evidence";
    EXPECT_EQ(straggler->opNames.front(), pod.hosts().syncCollective);
    const Advice* collectives = pod.analysis->advice.find(AdviceRuleId::Collectives);
    ASSERT_TRUE(collectives) << "the pod's all-reduce wait is large enough for the collectives rule";
    EXPECT_NE(std::find(straggler->overlapsWith.begin(), straggler->overlapsWith.end(), collectives->rule),
        straggler->overlapsWith.end());
    EXPECT_NE(std::find(collectives->overlapsWith.begin(), collectives->overlapsWith.end(), straggler->rule),
        collectives->overlapsWith.end());
    EXPECT_LE(pod.analysis->advice.combinedGainPs, pod.analysis->steps.avgStepPs);
    // The shared op counts once: the total is below the sum of the items' gains by at least half
    // the smaller of the two claims on it (other items, e.g. low-utilization fusions, add theirs).
    double sum = 0;
    for (const Advice& a : pod.analysis->advice.advice)
        sum += a.gainPs;
    EXPECT_LT(pod.analysis->advice.combinedGainPs, sum - 0.5 * std::min(straggler->gainPs, collectives->gainPs));
}

TEST(StragglerAdvice, SilentWithoutALateHostEvenWithLargeClockOffsets)
{
    const Pod pod = makePod("control", "pod:hosts=8,chips=4,offset_us=3000,late=none");
    ASSERT_TRUE(pod.analysis);
    EXPECT_FALSE(pod.straggler());
    for (const HostRow& r : pod.hosts().hosts) {
        ASSERT_TRUE(r.lateSteps);
        EXPECT_EQ(*r.lateSteps, 0) << r.name;
    }
}

TEST(StragglerAdvice, ClockOffsetsDoNotChangeTheAnswer)
{
    // Offsets of up to ±3 ms, ten times the lateness: without alignment the late host's clock could
    // put it early, and another host's late.
    for (const char* kind : {"input", "slowchip"}) {
        SCOPED_TRACE(kind);
        const Pod plain = makePod(std::string("nooffset_") + kind, std::string("pod:offset_us=0,late=3:") + kind);
        const Pod shifted = makePod(std::string("offset_") + kind, std::string("pod:offset_us=3000,late=3:") + kind);
        ASSERT_TRUE(plain.analysis && shifted.analysis);
        ASSERT_TRUE(plain.straggler() && shifted.straggler());
        EXPECT_EQ(plain.straggler()->numbers.find("host")->text, shifted.straggler()->numbers.find("host")->text);
        EXPECT_EQ(shifted.straggler()->numbers.find("host")->text, "t1v-n-pod-w-3");
        const HostAnalysis& a = plain.hosts();
        const HostAnalysis& b = shifted.hosts();
        ASSERT_EQ(a.hosts.size(), b.hosts.size());
        for (size_t h = 0; h < a.hosts.size(); ++h) {
            EXPECT_EQ(a.hosts[h].lateSteps, b.hosts[h].lateSteps);
            for (size_t s = 0; s < static_cast<size_t>(a.steps); ++s)
                EXPECT_NEAR(a.latenessPs[h][s], b.latenessPs[h][s], 1000);
        }
    }
}

TEST(PodHosts, SixtyFourHostsFindTheLateOne)
{
    const Pod pod = makePod("64", "pod:hosts=64,chips=4,late=40:input,steps=8");
    ASSERT_TRUE(pod.analysis);
    EXPECT_EQ(pod.analysis->profile->device.cores, 256);
    ASSERT_EQ(pod.hosts().hosts.size(), 64u);
    ASSERT_TRUE(pod.straggler());
    EXPECT_EQ(pod.straggler()->numbers.find("host")->text, "t1v-n-pod-w-40");
    EXPECT_EQ(pod.straggler()->numbers.find("cause")->text, "input");
    // Rows in natural order: w-2 before w-10 (text order put w-10 … w-19 between w-1 and w-2).
    for (size_t h = 0; h < 64; ++h)
        EXPECT_EQ(pod.hosts().hosts[h].name, "t1v-n-pod-w-" + std::to_string(h));
    const Profile& p = *pod.analysis->profile;
    for (size_t h = 0; h < 64; ++h)
        EXPECT_EQ(p.hosts[h], "t1v-n-pod-w-" + std::to_string(h)) << "the timeline's host groups in the same order";
}

// The others' wait for the late host is most of the pod's collective time. Overlapping hides a
// transfer, not a host that arrives late: the collectives item counts only the rest and says so.
TEST(StragglerAdvice, CollectivesCountTheTransferNotTheWaitForTheLateHost)
{
    const Pod pod = makePod("collectives", "pod:hosts=8,chips=4,late=3:input");
    ASSERT_TRUE(pod.analysis);
    const Advice* collectives = pod.analysis->advice.find(AdviceRuleId::Collectives);
    ASSERT_TRUE(collectives);
    double wait = 0, collective = 0;
    for (size_t h = 0; h < pod.truth.collectiveWaitPs.size(); ++h) {
        wait += mean(pod.truth.collectiveWaitPs[h]);
        collective += mean(pod.truth.collectivePs[h]);
    }
    const AdviceValue* waitFraction = collectives->numbers.find("wait_fraction");
    ASSERT_TRUE(waitFraction);
    EXPECT_NEAR(waitFraction->number, wait / collective, 1e-3);
    EXPECT_GT(waitFraction->number, 0.7) << "seven of eight hosts wait ~356 µs of ~396 µs";
    // Per core and step: the collectives' time less the wait (the same cores on every host).
    EXPECT_NEAR(collectives->gainPs, (collective - wait) / 8, 0.02 * (collective - wait) / 8);
    EXPECT_NE(collectives->detail.find("waiting for the last participant"), std::string::npos);
    EXPECT_NE(collectives->gain.find("less the wait for the last participant"), std::string::npos);
}

TEST(PodHosts, OneHostIsOneRowAndNoStraggler)
{
    const Pod pod = makePod("one", "pod:hosts=1,chips=4,steps=5");
    ASSERT_TRUE(pod.analysis);
    ASSERT_EQ(pod.hosts().hosts.size(), 1u);
    EXPECT_EQ(pod.hosts().hosts[0].name, "t1v-n-pod-w-0");
    EXPECT_EQ(pod.hosts().hosts[0].lateSteps, 0);
    EXPECT_FALSE(pod.straggler());
    // The demo is a single file without hostnames: its file name names the host.
    LoadResult demo = loadProfile(std::string(TPUSCOPE_TEST_DATA_DIR) + "/../../resources/demo.xplane.pb");
    ASSERT_TRUE(demo.ok()) << demo.error;
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(demo.profile);
    ASSERT_EQ(analysis->hosts.hosts.size(), 1u);
    EXPECT_EQ(analysis->hosts.hosts[0].name, "demo");
    EXPECT_EQ(analysis->hosts.hosts[0].cores, 8);
    EXPECT_FALSE(analysis->advice.find(AdviceRuleId::Straggler));
}

// The analysis gathers each core's collectives in the steps sweep (computeSteps with a
// StepCollectives); analyzeHosts on its own reads them in a pass of its own. Both must agree.
TEST(PodHosts, CollectivesGatheredByTheStepsSweepGiveTheSameHosts)
{
    const Pod pod = makePod("gathered", "pod:hosts=4,chips=4,late=2:input");
    ASSERT_TRUE(pod.analysis);
    const Profile& profile = *pod.analysis->profile;
    const OpModel& model = pod.analysis->opModel;
    StepCollectives gathered;
    const StepAnalysis steps = computeSteps(profile, model, {}, &gathered);
    ASSERT_EQ(gathered.size(), steps.coreSteps.size());
    size_t instances = 0;
    for (const auto& core : gathered)
        for (const CoreStepCollectives& step : core)
            instances += step.collectives.size();
    EXPECT_GT(instances, 0u);
    const HostAnalysis own = analyzeHosts(profile, model, steps);
    const HostAnalysis fromSweep = analyzeHosts(profile, model, steps, {}, &gathered);
    EXPECT_EQ(fromSweep.syncCollective, own.syncCollective);
    EXPECT_EQ(fromSweep.otherWaitMeasured, own.otherWaitMeasured);
    ASSERT_EQ(fromSweep.coreSync.size(), own.coreSync.size());
    for (size_t c = 0; c < own.coreSync.size(); ++c) {
        ASSERT_EQ(fromSweep.coreSync[c].size(), own.coreSync[c].size());
        for (size_t s = 0; s < own.coreSync[c].size(); ++s) {
            EXPECT_EQ(fromSweep.coreSync[c][s].syncStartPs, own.coreSync[c][s].syncStartPs);
            EXPECT_EQ(fromSweep.coreSync[c][s].syncEndPs, own.coreSync[c][s].syncEndPs);
            EXPECT_EQ(fromSweep.coreSync[c][s].lastOpEndPs, own.coreSync[c][s].lastOpEndPs);
            EXPECT_EQ(fromSweep.coreSync[c][s].otherWaitPs, own.coreSync[c][s].otherWaitPs);
        }
    }
    ASSERT_EQ(fromSweep.hosts.size(), own.hosts.size());
    for (size_t h = 0; h < own.hosts.size(); ++h) {
        EXPECT_EQ(fromSweep.hosts[h].collectiveWaitPs, own.hosts[h].collectiveWaitPs);
        EXPECT_EQ(fromSweep.hosts[h].lateVsOthersPs, own.hosts[h].lateVsOthersPs);
    }
    // What the analysis holds came through the sweep.
    EXPECT_EQ(pod.hosts().hosts.size(), own.hosts.size());
    EXPECT_EQ(pod.hosts().syncCollective, own.syncCollective);
}

TEST(SummaryAnalysis, PrintsWhatTheFullAnalysisPrintsWithoutTheHostsOrTheAdvice)
{
    // `tpuscope-cli summary` builds the analysis up to the summary only: a late host's pod, where
    // the full analysis has hosts, a straggler and collectives gathered by the steps sweep.
    const Pod pod = makePod("summary", "pod:hosts=4,chips=4,late=2:input");
    ASSERT_TRUE(pod.analysis);
    const ProfileAnalysis& full = *pod.analysis;
    ASSERT_FALSE(full.hosts.hosts.empty());
    ASSERT_NE(pod.straggler(), nullptr);
    const ProfileAnalysisPtr summary = buildProfileAnalysis(full.profile, {}, {}, AnalysisFor::Summary);
    ASSERT_TRUE(summary);
    EXPECT_EQ(summary->purpose, AnalysisFor::Summary);
    EXPECT_EQ(full.purpose, AnalysisFor::Reports);
    for (const bool json : {false, true})
        EXPECT_EQ(
            summaryReport(*full.profile, summary->summary, json), summaryReport(*full.profile, full.summary, json));
    EXPECT_EQ(summary->steps.stepsPerCore, full.steps.stepsPerCore);
    EXPECT_EQ(summary->steps.busyFraction, full.steps.busyFraction);
    ASSERT_EQ(summary->steps.coreSteps.size(), full.steps.coreSteps.size());
    for (size_t c = 0; c < full.steps.coreSteps.size(); ++c) {
        ASSERT_EQ(summary->steps.coreSteps[c].size(), full.steps.coreSteps[c].size());
        for (size_t s = 0; s < full.steps.coreSteps[c].size(); ++s)
            EXPECT_EQ(summary->steps.coreSteps[c][s].time.busyPs(), full.steps.coreSteps[c][s].time.busyPs());
    }
    EXPECT_EQ(summary->breakdown.rows.size(), full.breakdown.rows.size());
    // What it leaves out.
    EXPECT_TRUE(summary->hosts.hosts.empty());
    EXPECT_TRUE(summary->advice.advice.empty());
    EXPECT_TRUE(summary->roofline.points.empty());
}
