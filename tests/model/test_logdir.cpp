// SPDX-License-Identifier: GPL-3.0-or-later
// TensorBoard log directories: run discovery, multi-host loading and merging.
#include "analysis/opbreakdown.h"
#include "legacy_trace.pb.h"
#include "loader/logdir.h"
#include "testutil.h"
#include "xplane.pb.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace tpuscope::model;
using namespace tpuscope::test;
namespace fs = std::filesystem;

namespace {

/// One host: `cores` TPU planes, each with an XLA Ops line of two ops starting at `startNs`.
std::string hostXSpace(const std::string& hostname, int cores, int64_t startNs, double flops = 1e9)
{
    tensorflow::profiler::XSpace space;
    space.add_hostnames(hostname);
    for (int c = 0; c < cores; ++c) {
        auto* plane = space.add_planes();
        plane->set_id(c + 1);
        plane->set_name("/device:TPU:" + std::to_string(c));
        auto& flopsMeta = (*plane->mutable_stat_metadata())[1];
        flopsMeta.set_id(1);
        flopsMeta.set_name("flops");
        auto& category = (*plane->mutable_stat_metadata())[2];
        category.set_id(2);
        category.set_name("hlo_category");
        auto& dev = (*plane->mutable_stat_metadata())[3];
        dev.set_id(3);
        dev.set_name("device_type_string");
        auto* typeStat = plane->add_stats();
        typeStat->set_metadata_id(3);
        typeStat->set_str_value("TPU v5 lite");
        for (int m = 1; m <= 2; ++m) {
            auto& meta = (*plane->mutable_event_metadata())[m];
            meta.set_id(m);
            meta.set_name(m == 1 ? "fusion.1" : "copy.2");
            auto* s = meta.add_stats();
            s->set_metadata_id(1);
            s->set_double_value(m == 1 ? flops : 0);
            auto* cat = meta.add_stats();
            cat->set_metadata_id(2);
            cat->set_str_value(m == 1 ? "loop fusion" : "data formatting");
        }
        auto* line = plane->add_lines();
        line->set_id(1);
        line->set_name("XLA Ops");
        line->set_timestamp_ns(startNs);
        for (int i = 0; i < 2; ++i) {
            auto* e = line->add_events();
            e->set_metadata_id(i + 1);
            e->set_offset_ps(i * 2'000'000);
            e->set_duration_ps(1'000'000);
        }
    }
    return space.SerializeAsString();
}

struct FakeLogdir
{
    std::string root;
    std::string olderRun, newerRun;
};

FakeLogdir makeLogdir(const std::string& name)
{
    FakeLogdir d;
    d.root = tempDir(name);
    const fs::path profile = fs::path(d.root) / "plugins" / "profile";
    d.olderRun = (profile / "2025_12_31_23_59_59").string();
    d.newerRun = (profile / "2026_01_11_21_26_41").string();
    fs::create_directories(d.olderRun);
    fs::create_directories(d.newerRun);
    // Hosts of the newer run start 5 ms apart; the merged profile must keep that offset.
    writeFile(d.newerRun + "/host_a.xplane.pb", hostXSpace("host-a", 4, 1'700'000'000'000'000'000));
    writeFile(d.newerRun + "/host_b.xplane.pb", hostXSpace("host-b", 4, 1'700'000'000'005'000'000));
    writeFile(d.newerRun + "/host_a.trace.json.gz", "not read: the xplane.pb wins");
    writeFile(d.olderRun + "/w0.xplane.pb", hostXSpace("w0", 2, 1'600'000'000'000'000'000));
    writeFile(d.olderRun + "/w1.xplane.pb", hostXSpace("w1", 2, 1'600'000'000'000'000'000));
    fs::create_directories(profile / "empty_run");
    return d;
}

} // namespace

TEST(Logdir, FindsRunsNewestFirstFromAnyLevel)
{
    const FakeLogdir d = makeLogdir("find");
    const auto runs = findRuns(d.root);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].name, "2026_01_11_21_26_41");
    EXPECT_EQ(runs[1].name, "2025_12_31_23_59_59");
    ASSERT_EQ(runs[0].hosts.size(), 2u);
    EXPECT_EQ(runs[0].hosts[0].name, "host_a");
    EXPECT_EQ(runs[0].hosts[0].timelineFormat, FileFormat::XSpace);
    ASSERT_EQ(runs[0].hosts[0].ignored.size(), 1u); // the trace.json.gz beside the xplane.pb
    EXPECT_TRUE(runs[0].hosts[0].ignored[0].ends_with("host_a.trace.json.gz"));

    // The same runs from plugins/profile, and a run directory on its own.
    EXPECT_EQ(findRuns(d.root + "/plugins/profile").size(), 2u);
    const auto single = findRuns(d.olderRun);
    ASSERT_EQ(single.size(), 1u);
    EXPECT_EQ(single[0].hosts.size(), 2u);
    // TensorBoard logdirs with train/ and eval/ below.
    const std::string nested = tempDir("nested");
    fs::create_directories(nested + "/train/plugins/profile/2024_01_01_00_00_00");
    writeFile(nested + "/train/plugins/profile/2024_01_01_00_00_00/h.xplane.pb", hostXSpace("h", 1, 1));
    EXPECT_EQ(findRuns(nested).size(), 1u);
    EXPECT_TRUE(findRuns(d.root + "/does-not-exist").empty());
}

TEST(Logdir, LoadsAllHostsOfARunIntoOneProfile)
{
    const FakeLogdir d = makeLogdir("load");
    const auto runs = findRuns(d.root);
    ASSERT_FALSE(runs.empty());
    LoadResult result = loadRun(runs[0]);
    ASSERT_TRUE(result.ok()) << result.error;
    const Profile& p = *result.profile;
    EXPECT_EQ(p.device.hosts, 2);
    EXPECT_EQ(p.device.cores, 8);
    ASSERT_EQ(p.hosts.size(), 2u);
    // The XSpace's own hostname names the host (issue 23); the scan keeps the file name (host_a).
    EXPECT_EQ(p.hosts[0], "host-a");
    EXPECT_EQ(p.hosts[1], "host-b");
    EXPECT_EQ(p.device.generation, "v5e");
    EXPECT_EQ(p.originNs, 1'700'000'000'000'000'000);
    // host_b's events sit 5 ms later than host_a's.
    TimePs firstB = -1, firstA = -1;
    for (const auto& t : p.tracks) {
        if (!t.size())
            continue;
        TimePs& first = p.planes[t.plane].host == 0 ? firstA : firstB;
        first = first < 0 ? t.start.front() : std::min(first, t.start.front());
    }
    EXPECT_EQ(firstA, 0);
    EXPECT_EQ(firstB, 5'000'000'000);
    // Ops are shared across hosts: one row per op, eight cores × one occurrence each.
    const OpBreakdown b = computeOpBreakdown(p);
    ASSERT_EQ(b.rows.size(), 2u);
    EXPECT_EQ(b.rows[0].occurrences, 8);
    EXPECT_EQ(b.coresCounted, 8);
    EXPECT_EQ(p.ops.size(), 2u);
    // loadProfile on the directory opens the newest run.
    LoadResult viaDir = loadProfile(d.root);
    ASSERT_TRUE(viaDir.ok()) << viaDir.error;
    EXPECT_EQ(viaDir.profile->device.cores, 8);
    EXPECT_TRUE(viaDir.profile->load.format.starts_with("run")) << viaDir.profile->load.format;
}

TEST(Logdir, CorruptHostBecomesAWarningNamingIt)
{
    const FakeLogdir d = makeLogdir("corrupt");
    std::string broken = hostXSpace("host-b", 4, 1);
    broken.resize(broken.size() / 2);
    broken[0] = '\x7f'; // not a format at all
    writeFile(d.newerRun + "/host_b.xplane.pb", broken);
    LoadResult result = loadRun(findRuns(d.root).at(0));
    ASSERT_TRUE(result.ok()) << result.error;
    EXPECT_EQ(result.profile->device.cores, 4);
    bool named = false;
    for (const auto& w : result.profile->load.warnings)
        named = named || w.find("host_b") != std::string::npos;
    EXPECT_TRUE(named);

    // Every host broken: a clear error naming them.
    writeFile(d.newerRun + "/host_a.xplane.pb", broken);
    LoadResult none = loadRun(findRuns(d.root).at(0));
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error.find("host_a"), std::string::npos) << none.error;
    EXPECT_NE(none.error.find("host_b"), std::string::npos) << none.error;
}

TEST(Logdir, RiegeliRunGivesAClearMessage)
{
    const std::string dir = tempDir("riegeli") + "/plugins/profile/2026_02_02_02_02_02";
    fs::create_directories(dir);
    writeFile(dir + "/host.xplane.riegeli", std::string("\x83\xaf\x70\xd1", 4) + std::string(60, '\0'));
    LoadResult result = loadProfile(fs::path(dir).parent_path().parent_path().parent_path().string());
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error.find("Riegeli"), std::string::npos) << result.error;
    EXPECT_NE(result.error.find("host.xplane.riegeli"), std::string::npos) << result.error;
}

TEST(Logdir, EmptyDirectoryIsAClearError)
{
    LoadResult result = loadProfile(tempDir("emptylogdir"));
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error.find("no profile run"), std::string::npos) << result.error;
}

TEST(Logdir, Tf1RunCombinesTraceTimelineWithOpProfileTable)
{
    const std::string dir = tempDir("tf1run");
    tpuscope::legacy::Trace trace;
    auto& device = (*trace.mutable_devices())[1];
    device.set_name("TPU Core 0");
    (*device.mutable_resources())[2].set_name("XLA Ops");
    for (int i = 0; i < 3; ++i) {
        auto* e = trace.add_trace_events();
        e->set_device_id(1);
        e->set_resource_id(2);
        e->set_name("convolution");
        e->set_timestamp_ps(i * 1000);
        e->set_duration_ps(500);
    }
    writeFile(dir + "/trace", trace.SerializeAsString());
    writeFile(dir + "/op_profile.json", R"J({"byCategory": {"name": "c", "metrics": {"rawTime": 2e9}, "children": [
        {"name": "%convolution", "metrics": {"rawTime": 1.5e9, "rawFlops": 1e9, "occurrences": 3},
         "xla": {"category": "convolution"}},
        {"name": "%infeed", "metrics": {"rawTime": 0.5e9, "occurrences": 1}, "xla": {"category": "infeed"}}]}})J");
    const auto runs = findRuns(dir);
    ASSERT_EQ(runs.size(), 1u);
    ASSERT_EQ(runs[0].hosts.size(), 1u);
    EXPECT_FALSE(runs[0].hosts[0].opProfile.empty());
    LoadResult result = loadRun(runs[0]);
    ASSERT_TRUE(result.ok()) << result.error;
    const Profile& p = *result.profile;
    EXPECT_EQ(p.device.cores, 1); // the op_profile totals sit on the trace's core plane
    const OpBreakdown b = computeOpBreakdown(p);
    ASSERT_EQ(b.rows.size(), 2u); // from op_profile only; the 3 timeline events are not counted
    EXPECT_EQ(b.rows[0].name, "convolution");
    EXPECT_EQ(b.rows[0].occurrences, 3);
    EXPECT_EQ(b.totalTimePs, 2e9);
    size_t timelineEvents = 0;
    for (const auto& t : p.tracks)
        timelineEvents += t.size();
    EXPECT_EQ(timelineEvents, 3u);
}

TEST(Logdir, APickedRunLoadsAsScannedWithoutAScanAgain)
{
    // The GUI's run picker scans once (findRuns) and hands the chosen run to loadRun: the load
    // reads exactly the hosts of that scan, whatever the directory holds by then.
    const FakeLogdir d = makeLogdir("picked");
    const std::vector<ProfileRun> runs = findRuns(d.root);
    ASSERT_EQ(runs.size(), 2u);
    const ProfileRun& older = runs[1];
    ASSERT_EQ(older.path, d.olderRun);
    // After the scan: a newer run appears and the picked run gains a host.
    const std::string newest = d.root + "/plugins/profile/2026_02_01_00_00_00";
    fs::create_directories(newest);
    writeFile(newest + "/late.xplane.pb", hostXSpace("late", 1, 1'800'000'000'000'000'000));
    writeFile(d.olderRun + "/w2.xplane.pb", hostXSpace("w2", 2, 1'600'000'000'000'000'000));

    const LoadResult result = loadRun(older);
    ASSERT_TRUE(result.ok()) << result.error;
    const Profile& p = *result.profile;
    EXPECT_EQ(p.load.path, d.olderRun);
    ASSERT_EQ(p.hosts.size(), 2u);
    EXPECT_EQ(p.hosts[0], "w0");
    EXPECT_EQ(p.hosts[1], "w1");
    EXPECT_EQ(p.device.cores, 4);
    EXPECT_EQ(p.load.format, "run of xspace");
    EXPECT_GT(p.load.seconds, 0.0); // set by the builder's finish, not written into the shared profile
    // The path instead is scanned again at load time, and finds the newest run and its host.
    const LoadResult again = loadProfile(d.root);
    ASSERT_TRUE(again.ok()) << again.error;
    EXPECT_EQ(again.profile->load.path, newest);
}
