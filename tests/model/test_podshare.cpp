// SPDX-License-Identifier: GPL-3.0-or-later
// Past one machine (issue 23, point 6): a pod's share file, and the merge of its hosts' share
// files, give the raw run folder's hosts table and straggler answer; a share file whose per-host
// timing lies is refused by field; the merge refuses inputs that are not hosts of one run.
#include "analysis/hosts.h"
#include "analysis/profileanalysis.h"
#include "loader/decoder.h"
#include "loader/gzip.h"
#include "loader/loader.h"
#include "loader/logdir.h"
#include "loader/shareschema.h"
#include "share/sharefile.h"
#include "share/sharemerge.h"
#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

using namespace tpuscope::model;
using namespace tpuscope::test;
namespace fs = std::filesystem;

namespace {

// The share file keeps every time as integer picoseconds and each step's split as a 15-digit
// decimal, so a figure averaged over 20 steps moves by well under a picosecond per step; 1 ns
// still tells a rounding from a real difference (a misplaced op or step is microseconds).
constexpr double kTolerancePs = 1000;

struct PodFiles
{
    std::string dir;
    std::vector<std::string> hostFiles; // DIR/plugins/profile/RUN/<host>.xplane.pb, by name
};

PodFiles writePod(const std::string& name, const std::string& spec)
{
    SynthOptions options;
    std::string error;
    EXPECT_TRUE(parseSynthScenario(spec, options, error)) << error;
    PodFiles pod {tempDir("podshare_" + name), {}};
    EXPECT_TRUE(writeSyntheticLogdir(options, pod.dir, error)) << error;
    for (const auto& entry : fs::recursive_directory_iterator(pod.dir))
        if (entry.path().string().ends_with(".xplane.pb"))
            pod.hostFiles.push_back(entry.path().string());
    std::sort(pod.hostFiles.begin(), pod.hostFiles.end());
    return pod;
}

ProfileAnalysisPtr analyze(const LoadResult& loaded)
{
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.ok() ? buildProfileAnalysis(loaded.profile) : nullptr;
}

std::string shareBytes(const ProfileAnalysis& analysis)
{
    const ShareResult share = buildShareFile(analysis);
    EXPECT_TRUE(share.ok()) << share.error;
    return share.bytes;
}

ProfileAnalysisPtr reopen(const std::string& bytes, const std::string& name)
{
    return analyze(loadProfileFromBytes(bytes, name));
}

/// The per-host share files of a pod, each written from its host's file alone (the map step).
std::vector<ShareMergeInput> hostShares(const PodFiles& pod)
{
    std::vector<ShareMergeInput> inputs;
    for (const std::string& file : pod.hostFiles) {
        const ProfileAnalysisPtr host = analyze(loadProfile(file));
        if (host)
            inputs.push_back({fs::path(file).filename().string(), shareBytes(*host)});
    }
    return inputs;
}

void expectNear(const std::optional<double>& a, const std::optional<double>& b, const char* what)
{
    ASSERT_EQ(a.has_value(), b.has_value()) << what;
    if (a) {
        EXPECT_NEAR(*a, *b, kTolerancePs) << what;
    }
}

void expectSameHosts(const HostAnalysis& raw, const HostAnalysis& other)
{
    ASSERT_EQ(raw.hosts.size(), other.hosts.size());
    EXPECT_EQ(raw.steps, other.steps);
    EXPECT_EQ(raw.syncCollective, other.syncCollective);
    EXPECT_EQ(raw.lateHostsByStep, other.lateHostsByStep);
    for (size_t i = 0; i < raw.hosts.size(); ++i) {
        const HostRow& a = raw.hosts[i];
        const HostRow& b = other.hosts[i];
        SCOPED_TRACE(a.name);
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.cores, b.cores);
        EXPECT_EQ(a.chips, b.chips);
        EXPECT_EQ(a.steps, b.steps);
        EXPECT_EQ(a.lateSteps, b.lateSteps);
        EXPECT_EQ(a.slowestCore, b.slowestCore);
        EXPECT_EQ(a.offsetSource, b.offsetSource);
        EXPECT_NEAR(a.avgStepPs, b.avgStepPs, kTolerancePs);
        EXPECT_NEAR(a.computePs, b.computePs, kTolerancePs);
        EXPECT_NEAR(a.collectivePs, b.collectivePs, kTolerancePs);
        EXPECT_NEAR(a.idlePs, b.idlePs, kTolerancePs);
        EXPECT_NEAR(a.hostTransferPs, b.hostTransferPs, kTolerancePs);
        EXPECT_NEAR(a.slowestCoreComputePs, b.slowestCoreComputePs, kTolerancePs);
        expectNear(a.collectiveWaitPs, b.collectiveWaitPs, "collective wait");
        expectNear(a.lateVsOthersPs, b.lateVsOthersPs, "late vs others");
        ASSERT_EQ(a.clockOffsetPs.has_value(), b.clockOffsetPs.has_value());
        if (a.clockOffsetPs) {
            EXPECT_NEAR(static_cast<double>(*a.clockOffsetPs), static_cast<double>(*b.clockOffsetPs), kTolerancePs);
        }
    }
}

void expectSameStraggler(const ProfileAnalysis& raw, const ProfileAnalysis& other)
{
    const Advice* a = raw.advice.find(AdviceRuleId::Straggler);
    const Advice* b = other.advice.find(AdviceRuleId::Straggler);
    ASSERT_EQ(a != nullptr, b != nullptr);
    if (!a)
        return;
    EXPECT_EQ(a->numbers.find("host")->text, b->numbers.find("host")->text);
    EXPECT_EQ(a->numbers.find("cause")->text, b->numbers.find("cause")->text);
    EXPECT_DOUBLE_EQ(a->numbers.find("late_fraction")->number, b->numbers.find("late_fraction")->number);
    EXPECT_NEAR(a->numbers.find("late_ps_per_step")->number, b->numbers.find("late_ps_per_step")->number, kTolerancePs);
    EXPECT_NEAR(a->numbers.find("others_wait_ps_per_step")->number, b->numbers.find("others_wait_ps_per_step")->number,
        kTolerancePs);
    EXPECT_NEAR(a->gainPs, b->gainPs, kTolerancePs);
    EXPECT_EQ(a->severity, b->severity);
}

std::string withJson(const std::string& shareFile, const std::string& from, const std::string& to)
{
    std::string json, error, compressed;
    EXPECT_TRUE(shareFileJson(shareFile, json, error)) << error;
    const size_t at = json.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos)
        json.replace(at, from.size(), to);
    EXPECT_TRUE(gzipCompress(json, compressed, error)) << error;
    return "TPUSCOPE-SHARE 1\n" + compressed;
}

} // namespace

TEST(PodShare, WholePodAndMergedHostShareFilesGiveTheRunFoldersAnswer)
{
    int podIndex = 0;
    for (const char* late : {"3:input", "3:slowchip", "6:hosttransfer", "none"}) {
        SCOPED_TRACE(late);
        const PodFiles pod
            = writePod("roundtrip_" + std::to_string(podIndex++), std::string("pod:hosts=8,chips=4,late=") + late);
        ASSERT_EQ(pod.hostFiles.size(), 8u);
        const ProfileAnalysisPtr raw = analyze(loadNewestRun(pod.dir));
        ASSERT_TRUE(raw);
        ASSERT_EQ(raw->hosts.hosts.size(), 8u);
        EXPECT_EQ(raw->advice.find(AdviceRuleId::Straggler) != nullptr, std::string(late) != "none");

        const ProfileAnalysisPtr whole = reopen(shareBytes(*raw), "pod.tpuscope");
        ASSERT_TRUE(whole);
        {
            SCOPED_TRACE("whole-pod share file");
            expectSameHosts(raw->hosts, whole->hosts);
            expectSameStraggler(*raw, *whole);
        }

        const std::vector<ShareMergeInput> inputs = hostShares(pod);
        ASSERT_EQ(inputs.size(), 8u);
        const ShareMergeResult merged = mergeShareFiles(inputs, effectiveLimits({}));
        ASSERT_TRUE(merged.ok()) << merged.error;
        EXPECT_EQ(merged.hosts, 8u);
        EXPECT_EQ(merged.cores, 32u);
        const ProfileAnalysisPtr reduced = reopen(merged.bytes, "merged.tpuscope");
        ASSERT_TRUE(reduced);
        {
            SCOPED_TRACE("merge of 8 per-host share files");
            expectSameHosts(raw->hosts, reduced->hosts);
            expectSameStraggler(*raw, *reduced);
        }
        // A merged file is a share file like any other: shared again, it keeps its answer.
        const ProfileAnalysisPtr again = reopen(shareBytes(*reduced), "again.tpuscope");
        ASSERT_TRUE(again);
        expectSameHosts(raw->hosts, again->hosts);
    }
}

TEST(PodShare, StepWindowsAreSpreadEvenlyOverManyCores)
{
    // 64 hosts × 4 cores × 100 steps is 25,600 windows, more than kMaxShareStepWindows: every core
    // keeps the same first 78, so the hosts are still matched on the same steps.
    const PodFiles pod = writePod("even", "pod:hosts=64,chips=4,late=9:input,steps=100");
    const ProfileAnalysisPtr raw = analyze(loadNewestRun(pod.dir));
    ASSERT_TRUE(raw);
    const ProfileAnalysisPtr whole = reopen(shareBytes(*raw), "pod64.tpuscope");
    ASSERT_TRUE(whole);
    const size_t perCore = kMaxShareStepWindows / 256;
    EXPECT_EQ(whole->hosts.steps, static_cast<int64_t>(perCore));
    for (const HostRow& r : whole->hosts.hosts)
        EXPECT_EQ(r.steps, static_cast<int64_t>(perCore)) << r.name;
    const Advice* a = whole->advice.find(AdviceRuleId::Straggler);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->numbers.find("host")->text, raw->advice.find(AdviceRuleId::Straggler)->numbers.find("host")->text);
    EXPECT_EQ(a->numbers.find("cause")->text, "input");
}

TEST(PodShare, HostTimingThatLiesIsRefusedByField)
{
    const PodFiles pod = writePod("lies", "pod:hosts=2,chips=2,steps=6");
    const ProfileAnalysisPtr raw = analyze(loadNewestRun(pod.dir));
    ASSERT_TRUE(raw);
    const std::string good = shareBytes(*raw);
    const std::pair<std::pair<std::string, std::string>, std::string> lies[] = {
        {{"\"cores\":[{\"plane\":0,\"sync_start_ps\"", "\"cores\":[{\"plane\":9,\"sync_start_ps\""},
            "host_timing.cores[0].plane names core 9, but device.core_planes lists 4 cores"},
        {{"\"other_wait_scope\":\"profile\"", "\"other_wait_scope\":\"galaxy\""}, "host_timing.other_wait_scope"},
        {{"\"sync_ps\":[", "\"sync_ps\":[\"soon\","}, "host_timing.cores[0] has 6 sync_start_ps but 7 sync_ps"},
        {{"\"last_op_end_ps\":[", "\"last_op_end_ps\":[1e300,"}, "host_timing.cores[0] has 6 sync_start_ps but 7"},
        {{"\"sync_start_ps\":[", "\"sync_start_ps\":[1,2,3,4,5,6,7,"},
            "host_timing.cores[0].sync_start_ps lists 13 steps, but step_windows lists 6 for core 0"},
    };
    for (const auto& [edit, message] : lies) {
        SCOPED_TRACE(edit.second);
        const LoadResult loaded = loadProfileFromBytes(withJson(good, edit.first, edit.second), "lie.tpuscope");
        EXPECT_FALSE(loaded.ok());
        EXPECT_NE(loaded.error.find(message), std::string::npos) << loaded.error;
        // The merge reads what opening reads, and refuses the same.
        const std::vector<ShareMergeInput> inputs {{"lie.tpuscope", withJson(good, edit.first, edit.second)}};
        const ShareMergeResult merged = mergeShareFiles(inputs, effectiveLimits({}));
        EXPECT_FALSE(merged.ok());
        EXPECT_NE(merged.error.find(message), std::string::npos) << merged.error;
    }
    // One value that is not a time, in a series of the right length.
    const LoadResult bad = loadProfileFromBytes(withJson(good, "\"sync_ps\":[", "\"sync_ps\":[-7,"), "x.tpuscope");
    EXPECT_FALSE(bad.ok());
}

TEST(PodShare, MergeRefusesInputsThatAreNotHostsOfOneRun)
{
    const PodFiles pod = writePod("refuse", "pod:hosts=2,chips=2,steps=6");
    std::vector<ShareMergeInput> inputs = hostShares(pod);
    ASSERT_EQ(inputs.size(), 2u);

    const std::vector<ShareMergeInput> twice {inputs[0], inputs[0]};
    ShareMergeResult r = mergeShareFiles(twice, effectiveLimits({}));
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("is already in another input"), std::string::npos) << r.error;

    std::vector<ShareMergeInput> otherDevice = inputs;
    otherDevice[1].bytes = withJson(otherDevice[1].bytes, "\"generation\":\"v5e\"", "\"generation\":\"v4\"");
    r = mergeShareFiles(otherDevice, effectiveLimits({}));
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("device"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("not hosts of one run"), std::string::npos) << r.error;

    std::vector<ShareMergeInput> otherProgram = inputs;
    std::string json, error;
    ASSERT_TRUE(shareFileJson(inputs[1].bytes, json, error));
    const size_t at = json.find("\"dominant\":\"");
    ASSERT_NE(at, std::string::npos);
    otherProgram[1].bytes = withJson(inputs[1].bytes, "\"dominant\":\"", "\"dominant\":\"other_");
    r = mergeShareFiles(otherProgram, effectiveLimits({}));
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("step program"), std::string::npos) << r.error;

    std::vector<ShareMergeInput> daysApart = inputs;
    daysApart[1].bytes = withJson(daysApart[1].bytes, "\"origin_ns\":", "\"origin_ns\":9");
    r = mergeShareFiles(daysApart, effectiveLimits({}));
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("more than a day apart"), std::string::npos) << r.error;

    EXPECT_TRUE(mergeShareFiles(inputs, effectiveLimits({})).ok());
}
