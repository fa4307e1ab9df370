// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/opbreakdown.h"
#include "analysis/steps.h"
#include "core/devicepeaks.h"
#include "loader/loader.h"

#include "testutil.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace tpuscope::model;

namespace {

const std::string kSample = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_vllm_serving.trace.json.gz";

LoadResult loadJson(std::string text, const LoadOptions& options = {})
{
    return loadProfileFromBytes(std::move(text), "test.json", options);
}

const Plane* findPlane(const Profile& p, std::string_view name)
{
    for (const auto& plane : p.planes)
        if (p.str(plane.name) == name)
            return &plane;
    return nullptr;
}

const Track* findTrack(const Profile& p, std::string_view planeName, std::string_view trackName)
{
    const Plane* plane = findPlane(p, planeName);
    if (!plane)
        return nullptr;
    for (TrackId id : plane->tracks)
        if (p.str(p.tracks[id].name) == trackName)
            return &p.tracks[id];
    return nullptr;
}

bool containsText(const std::vector<std::string>& lines, std::string_view needle)
{
    for (const auto& line : lines)
        if (line.find(needle) != std::string::npos)
            return true;
    return false;
}

std::string xEvent(
    int pid, int tid, std::string_view ts, std::string_view dur, std::string_view name, std::string_view args = "{}")
{
    return "{\"ph\":\"X\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid)
        + ",\"ts\":" + std::string(ts) + ",\"dur\":" + std::string(dur) + ",\"name\":\"" + std::string(name)
        + "\",\"args\":" + std::string(args) + "}";
}

std::string tpuHeader()
{
    return R"({"ph":"M","pid":3,"name":"process_name","args":{"name":"/device:TPU:0"}},)"
           R"({"ph":"M","pid":3,"tid":3,"name":"thread_name","args":{"name":"XLA Ops"}},)"
           R"({"ph":"M","pid":701,"name":"process_name","args":{"name":"/host:CPU"}},)"
           R"({"ph":"M","pid":701,"tid":5,"name":"thread_name","args":{"name":"main/5"}},)";
}

} // namespace

// ---- the real sample ------------------------------------------------------------------

TEST(ChromeJson, RealSampleStructure)
{
    if (!std::filesystem::exists(kSample))
        GTEST_SKIP() << "sample missing: " << kSample;
    LoadResult r = loadProfile(kSample);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    EXPECT_EQ(p.load.format, "chrome-json.gz");
    EXPECT_TRUE(p.load.warnings.empty()) << p.load.warnings.front();
    // Independent count: python3 -c "import gzip,json; e=json.load(gzip.open(SAMPLE))['traceEvents'];
    //   print(sum(1 for x in e if x.get('ph')=='X'))" → 10312 (the other 69 are 68 M events and the trailing {}).
    EXPECT_EQ(p.eventCount(), 10312u);
    for (const char* core : {"/device:TPU:0", "/device:TPU:1"}) {
        const Plane* plane = findPlane(p, core);
        ASSERT_NE(plane, nullptr) << core;
        EXPECT_EQ(plane->kind, PlaneKind::TpuCore);
        const Track* ops = findTrack(p, core, "XLA Ops");
        ASSERT_NE(ops, nullptr) << core;
        EXPECT_EQ(ops->kind, TrackKind::XlaOps);
        // python: sum(1 for x in e if x.get('ph')=='X' and x['pid']==PID and x['tid']==3) → 3454 on pid 3 and 4
        EXPECT_EQ(ops->size(), 3454u) << core;
        const Track* modules = findTrack(p, core, "XLA Modules");
        ASSERT_NE(modules, nullptr);
        EXPECT_EQ(modules->kind, TrackKind::XlaModules);
        for (OpId op : ops->op)
            ASSERT_TRUE(p.ops[op].isXlaOp);
        for (OpId op : modules->op)
            ASSERT_FALSE(p.ops[op].isXlaOp);
    }
    EXPECT_EQ(p.device.cores, 2);
    const Plane* host = findPlane(p, "/host:CPU");
    ASSERT_NE(host, nullptr);
    EXPECT_EQ(host->kind, PlaneKind::Host);
    EXPECT_EQ(host->sortIndex, 701);
    const Track* main = findTrack(p, "/host:CPU", "main/21988");
    ASSERT_NE(main, nullptr);
    EXPECT_EQ(main->kind, TrackKind::HostThread);
    EXPECT_EQ(main->sortIndex, 10);
    // Thread 631739967 has a sort index but no thread_name record.
    const Track* unnamed = findTrack(p, "/host:CPU", "tid 631739967");
    ASSERT_NE(unnamed, nullptr);
    EXPECT_EQ(unnamed->sortIndex, 3);
    EXPECT_EQ(unnamed->size(), 92u);

    // First op of TPU:0: ts 1144995.94963 µs, dur 1.320453 µs but device_duration_ps 1320528.
    const Track* ops0 = findTrack(p, "/device:TPU:0", "XLA Ops");
    ASSERT_NE(ops0, nullptr);
    EXPECT_EQ(ops0->start[0], 1144995949630);
    EXPECT_EQ(ops0->duration[0], 1320528);
    const OpInfo& first = p.ops[ops0->op[0]];
    EXPECT_EQ(p.str(first.name), "slice.1996");
    EXPECT_EQ(p.str(first.category), "slice");
    EXPECT_EQ(first.bytesAccessed, 8);
    EXPECT_EQ(p.str(first.shapeWithLayout), "s32[1]{0:T(128)}");
    EXPECT_TRUE(p.str(first.longName).starts_with("%slice.1996 = s32[1]{0:T(128)} slice("));
    // Its program is the XLA Modules run it runs in: jit_step_fun(5120112285394406626).
    ASSERT_NE(first.program, kNone);
    EXPECT_EQ(p.programs[first.program].name, "jit_step_fun");
    EXPECT_EQ(p.programs[first.program].id, 5120112285394406626u);
    EXPECT_EQ(first.programId, 5120112285394406626u);
    EXPECT_TRUE(first.hasProgramId);

    EXPECT_TRUE(containsText(p.load.limitations, "TPU generation is not recorded"));
    EXPECT_EQ(p.device.peakSource, PeakSource::None);

    OpBreakdown breakdown = computeOpBreakdown(p);
    ASSERT_FALSE(breakdown.rows.empty());
    bool loopFusion = false;
    for (const auto& row : breakdown.rows) {
        EXPECT_FALSE(row.category.empty()) << row.name;
        loopFusion = loopFusion || row.category == "loop fusion";
    }
    EXPECT_TRUE(loopFusion);
}

// Expected per-program op time, computed without tpuscope: python3 over the JSON, every `XLA Ops`
// event of pid 3 and 4 (tid 3) assigned to the `XLA Modules` event (tid 2) of its pid whose
// [ts, ts + dur) holds its ts, summing device_duration_ps:
//   jit_step_fun 133805369344 ps (6880 events), jit_compute_logits_func 580529411 (6),
//   jit_sample 15549820 (12), jit__select_from_array_fn 14867947 (10); all 134416316522.
TEST(ChromeJson, RealSampleOpTimeSpreadsOverThePrograms)
{
    if (!std::filesystem::exists(kSample))
        GTEST_SKIP() << "sample missing: " << kSample;
    LoadResult r = loadProfile(kSample);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    const OpBreakdown byProgram = computeOpBreakdown(p, {}, GroupBy::Program);
    const std::map<std::string, std::pair<double, int64_t>> expected = {
        {"jit_step_fun", {133805369344, 6880}},
        {"jit_compute_logits_func", {580529411, 6}},
        {"jit_sample", {15549820, 12}},
        {"jit__select_from_array_fn", {14867947, 10}},
    };
    ASSERT_EQ(byProgram.rows.size(), expected.size());
    double sum = 0;
    for (const OpRow& row : byProgram.rows) {
        SCOPED_TRACE(row.name);
        const auto it = expected.find(row.program);
        ASSERT_NE(it, expected.end()) << "unexpected program row '" << row.name << "'";
        EXPECT_EQ(row.name, row.program);
        EXPECT_DOUBLE_EQ(row.totalTimePs, it->second.first);
        EXPECT_EQ(row.occurrences, it->second.second);
        sum += row.totalTimePs;
    }
    EXPECT_DOUBLE_EQ(sum, 134416316522.0);
    EXPECT_DOUBLE_EQ(sum, byProgram.totalTimePs) << "the program rows add up to the op time";
    // The programs are the ones steps finds on the XLA Modules lines.
    const StepAnalysis steps = computeSteps(p);
    ASSERT_EQ(steps.programs.size(), expected.size());
    for (const ProgramRunStats& program : steps.programs)
        EXPECT_TRUE(expected.count(program.name)) << program.name;

    // The three `fusion` ops (an embedding gather, a small gather, the lm_head matmul) are three rows.
    const OpBreakdown byOp = computeOpBreakdown(p);
    std::map<std::string, const OpRow*> fusions;
    for (const OpRow& row : byOp.rows)
        if (row.name == "fusion")
            fusions[row.program] = &row;
    ASSERT_EQ(fusions.size(), 3u);
    ASSERT_TRUE(fusions.count("jit_compute_logits_func"));
    EXPECT_EQ(fusions["jit_compute_logits_func"]->category, "convolution fusion");
    EXPECT_DOUBLE_EQ(fusions["jit_compute_logits_func"]->flops, 2 * 6228541440.0); // model_flops × 2 cores
    ASSERT_TRUE(fusions.count("jit_step_fun"));
    EXPECT_EQ(fusions["jit_step_fun"]->category, "custom fusion");
    EXPECT_DOUBLE_EQ(fusions["jit_step_fun"]->bytesAccessed, 2 * 20975616.0);
    ASSERT_TRUE(fusions.count("jit__select_from_array_fn"));
    EXPECT_DOUBLE_EQ(fusions["jit__select_from_array_fn"]->bytesAccessed, 2 * 163872.0);
}

TEST(ChromeJson, RealSampleDeviceOverride)
{
    if (!std::filesystem::exists(kSample))
        GTEST_SKIP() << "sample missing: " << kSample;
    LoadOptions options;
    options.deviceOverride = "v5e";
    LoadResult r = loadProfile(kSample, options);
    ASSERT_TRUE(r.ok()) << r.error;
    const TpuGeneration* v5e = findTpuGeneration("v5e");
    ASSERT_NE(v5e, nullptr);
    EXPECT_EQ(r.profile->device.peakSource, PeakSource::UserChoice);
    EXPECT_EQ(r.profile->device.peakTflopsPerCore, v5e->peakTflopsPerCore);
    EXPECT_EQ(r.profile->device.peakHbmGbpsPerCore, v5e->peakHbmGbpsPerCore);
    EXPECT_EQ(r.profile->device.generation, "v5e");
}

// ---- hand-made documents --------------------------------------------------------------

TEST(ChromeJson, BareArrayAndExactTimes)
{
    const std::string doc = "[" + xEvent(1, 1, "1234.567891", "0.000001", "a") + ","
        + xEvent(1, 1, "2000", "1e-06", "b") + "," + xEvent(1, 1, "3000.0000004", "2.5E+1", "c") + "]";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    EXPECT_EQ(p.load.format, "chrome-json");
    const Track* t = findTrack(p, "pid 1", "tid 1");
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 3u);
    EXPECT_EQ(t->start[0], 1234567891);
    EXPECT_EQ(t->duration[0], 1);
    EXPECT_EQ(t->start[1], 2000000000);
    EXPECT_EQ(t->duration[1], 1);
    EXPECT_EQ(t->start[2], 3000000000); // 0.4 ps rounds down
    EXPECT_EQ(t->duration[2], 25000000);
    EXPECT_EQ(p.originNs, 0);
    EXPECT_TRUE(containsText(p.load.limitations, "TPU generation is not recorded"));
}

TEST(ChromeJson, ObjectFormWithOtherKeys)
{
    const std::string doc = R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true,"nested":[1,{"a":[]}]},)"
                            R"("traceEvents":[)"
        + xEvent(1, 2, "5", "1", "x") + R"(,{}],"otherData":{"version":"1"},"stackFrames":{}})";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.profile->eventCount(), 1u);
    EXPECT_TRUE(r.profile->load.warnings.empty());
    EXPECT_EQ(r.profile->stats.malformedEvents, 0);
}

TEST(ChromeJson, EmptyTraceAndMissingTraceEvents)
{
    LoadResult empty = loadJson(R"({"traceEvents":[]})");
    ASSERT_TRUE(empty.ok()) << empty.error;
    EXPECT_EQ(empty.profile->eventCount(), 0u);

    LoadResult none = loadJson(R"({"foo":1})");
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error.find("traceEvents"), std::string::npos) << none.error;
}

TEST(ChromeJson, BeginEndNestingAndUnmatched)
{
    const std::string doc = R"([
        {"ph":"B","pid":1,"tid":1,"ts":10,"name":"outer"},
        {"ph":"B","pid":1,"tid":2,"ts":11,"name":"other"},
        {"ph":"B","pid":1,"tid":1,"ts":12,"name":"inner"},
        {"ph":"E","pid":1,"tid":1,"ts":15},
        {"ph":"E","pid":1,"tid":2,"ts":30},
        {"ph":"E","pid":1,"tid":1,"ts":20},
        {"ph":"E","pid":1,"tid":1,"ts":21},
        {"ph":"X","pid":1,"tid":3,"ts":5,"dur":100,"name":"late"},
        {"ph":"B","pid":1,"tid":3,"ts":50,"name":"open"}
    ])";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    const Track* t1 = findTrack(p, "pid 1", "tid 1");
    ASSERT_NE(t1, nullptr);
    ASSERT_EQ(t1->size(), 2u);
    EXPECT_EQ(p.str(p.ops[t1->op[0]].name), "outer");
    EXPECT_EQ(t1->start[0], 10000000);
    EXPECT_EQ(t1->duration[0], 10000000);
    EXPECT_EQ(t1->depth[0], 0);
    EXPECT_EQ(p.str(p.ops[t1->op[1]].name), "inner");
    EXPECT_EQ(t1->duration[1], 3000000);
    EXPECT_EQ(t1->depth[1], 1);
    const Track* t2 = findTrack(p, "pid 1", "tid 2");
    ASSERT_NE(t2, nullptr);
    ASSERT_EQ(t2->size(), 1u);
    EXPECT_EQ(t2->duration[0], 19000000);
    EXPECT_EQ(p.stats.unmatchedEnds, 1);
    EXPECT_EQ(p.stats.unmatchedBegins, 1);
    // The open B is closed at the end of its track's last event (5 + 100 µs).
    const Track* t3 = findTrack(p, "pid 1", "tid 3");
    ASSERT_NE(t3, nullptr);
    ASSERT_EQ(t3->size(), 2u);
    EXPECT_EQ(t3->start[1], 50000000);
    EXPECT_EQ(t3->end(1), 105000000);
}

TEST(ChromeJson, InstantsAndSkippedPhases)
{
    const std::string doc = R"([
        {"ph":"i","pid":1,"tid":1,"ts":10,"name":"mark","s":"t"},
        {"ph":"I","pid":1,"tid":1,"ts":11,"name":"mark2"},
        {"ph":"s","pid":1,"tid":1,"ts":12,"name":"flow","id":1},
        {"ph":"f","pid":1,"tid":1,"ts":13,"name":"flow","id":1,"bp":"e"},
        {"ph":"b","pid":1,"tid":1,"ts":14,"name":"async","id":"0x1","cat":"c"}
    ])";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Track* t = findTrack(*r.profile, "pid 1", "tid 1");
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 2u);
    EXPECT_EQ(t->duration[0], 0);
    EXPECT_EQ(t->duration[1], 0);
    EXPECT_TRUE(containsText(r.profile->load.warnings, "'s' ×1")) << r.profile->load.warnings.size();
    EXPECT_TRUE(containsText(r.profile->load.warnings, "'b' ×1"));
    EXPECT_EQ(r.profile->stats.malformedEvents, 0);
}

TEST(ChromeJson, Counters)
{
    const std::string doc = R"([
        {"ph":"M","pid":2,"name":"process_name","args":{"name":"/host:CPU"}},
        {"ph":"C","pid":2,"ts":10,"name":"mem","args":{"used":100,"free":"2.5","label":"x"}},
        {"ph":"C","pid":2,"ts":20,"name":"mem","args":{"used":150,"free":3}},
        {"ph":"C","pid":3,"ts":20,"name":"mem","args":{"used":7}}
    ])";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    ASSERT_EQ(p.counters.size(), 3u);
    const CounterTrack& used = p.counters[0];
    EXPECT_EQ(p.str(used.name), "mem used");
    EXPECT_EQ(p.str(p.planes[used.plane].name), "/host:CPU");
    ASSERT_EQ(used.value.size(), 2u);
    EXPECT_EQ(used.value[1], 150);
    EXPECT_EQ(used.time[1], 20000000);
    EXPECT_EQ(p.str(p.counters[1].name), "mem free");
    ASSERT_EQ(p.counters[1].value.size(), 2u);
    EXPECT_EQ(p.counters[1].value[0], 2.5);
    EXPECT_EQ(p.str(p.planes[p.counters[2].plane].name), "pid 3");
    EXPECT_EQ(p.eventCount(), 5u);
}

TEST(ChromeJson, MetadataAndTpuOpArgs)
{
    const std::string args = R"j({"hlo_category":"loop fusion","long_name":"%fusion.1 = f32[8]{0} fusion()",)j"
                             R"("model_flops":"1000","bytes_accessed":"64","shape_with_layout":"f32[8]{0:T(256)}",)"
                             R"("tf_op":"jit(f)/add:","source":"a.py:3","device_duration_ps":"2500",)"
                             R"("memory_access_breakdown":"<opaque bytes>","nested":{"x":[1,2]}})";
    const std::string doc = "[" + tpuHeader()
        + R"({"ph":"M","pid":3,"name":"process_sort_index","args":{"sort_index":3}},)"
        + R"({"ph":"M","pid":3,"tid":3,"name":"thread_sort_index","args":{"sort_index":7}},)"
        + xEvent(3, 3, "100", "2", "fusion.1", args) + "," + xEvent(3, 3, "200", "2", "fusion.1", args) + ","
        + xEvent(3, 3, "300", "2", "fusion.1", R"j({"long_name":"%fusion.1 = f32[9]{0} fusion()"})j") + ","
        + xEvent(701, 5, "100", "2", "fusion.1", args) + "]";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    const Plane* tpu = findPlane(p, "/device:TPU:0");
    ASSERT_NE(tpu, nullptr);
    EXPECT_EQ(tpu->kind, PlaneKind::TpuCore);
    EXPECT_EQ(tpu->coreIndex, 0);
    EXPECT_EQ(tpu->sortIndex, 3);
    const Track* ops = findTrack(p, "/device:TPU:0", "XLA Ops");
    ASSERT_NE(ops, nullptr);
    EXPECT_EQ(ops->kind, TrackKind::XlaOps);
    EXPECT_EQ(ops->sortIndex, 7);
    ASSERT_EQ(ops->size(), 3u);
    EXPECT_EQ(ops->duration[0], 2500); // device_duration_ps wins over dur
    EXPECT_EQ(ops->duration[2], 2000000);
    EXPECT_EQ(ops->op[0], ops->op[1]);
    EXPECT_NE(ops->op[0], ops->op[2]);
    const OpInfo& op = p.ops[ops->op[0]];
    EXPECT_TRUE(op.isXlaOp);
    EXPECT_EQ(p.str(op.category), "loop fusion");
    EXPECT_EQ(p.str(op.longName), "%fusion.1 = f32[8]{0} fusion()");
    EXPECT_EQ(op.modelFlops, 1000);
    EXPECT_EQ(op.flops, 1000);
    EXPECT_EQ(op.bytesAccessed, 64);
    EXPECT_EQ(p.str(op.shapeWithLayout), "f32[8]{0:T(256)}");
    EXPECT_EQ(p.str(op.tfOp), "jit(f)/add:");
    EXPECT_EQ(p.str(op.source), "a.py:3");
    EXPECT_FALSE(op.hasProgramId);
    const Track* hostThread = findTrack(p, "/host:CPU", "main/5");
    ASSERT_NE(hostThread, nullptr);
    EXPECT_EQ(hostThread->kind, TrackKind::HostThread);
    ASSERT_EQ(hostThread->size(), 1u);
    EXPECT_FALSE(p.ops[hostThread->op[0]].isXlaOp);
}

TEST(ChromeJson, MetadataAfterEvents)
{
    const std::string doc = "[" + xEvent(3, 3, "100", "2", "fusion.1", R"({"hlo_category":"loop fusion"})") + ","
        + xEvent(9, 1, "100", "2", "work") + ","
        + R"({"ph":"M","pid":3,"tid":3,"name":"thread_name","args":{"name":"XLA Ops"}},)"
        + R"({"ph":"M","pid":3,"name":"process_name","args":{"name":"/device:TPU:4"}},)"
        + R"({"ph":"M","pid":9,"name":"process_name","args":{"name":"/host:CPU"}}])";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    EXPECT_EQ(p.planes.size(), 2u);
    const Plane* tpu = findPlane(p, "/device:TPU:4");
    ASSERT_NE(tpu, nullptr);
    EXPECT_EQ(tpu->kind, PlaneKind::TpuCore);
    EXPECT_EQ(tpu->coreIndex, 4);
    const Track* ops = findTrack(p, "/device:TPU:4", "XLA Ops");
    ASSERT_NE(ops, nullptr);
    EXPECT_EQ(ops->kind, TrackKind::XlaOps);
    ASSERT_EQ(ops->size(), 1u);
    EXPECT_TRUE(p.ops[ops->op[0]].isXlaOp);
    EXPECT_FALSE(computeOpBreakdown(p).rows.empty());
    const Track* host = findTrack(p, "/host:CPU", "tid 1");
    ASSERT_NE(host, nullptr);
    EXPECT_EQ(host->kind, TrackKind::HostThread);
}

TEST(ChromeJson, MissingMetadataAndHugeIds)
{
    const std::string doc = R"([
        {"ph":"X","pid":7,"tid":9,"ts":1,"dur":1,"name":"a"},
        {"ph":"X","pid":18446744073709551615,"tid":9223372036854775807,"ts":1,"dur":1,"name":"b"},
        {"ph":"X","pid":18446744073709551615,"tid":-5,"ts":1,"dur":1,"name":"c"},
        {"ph":"X","pid":"renderer","tid":"main","ts":1,"dur":1,"name":"d"},
        {"ph":"X","ts":1,"dur":1,"name":"e"}
    ])";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    EXPECT_NE(findTrack(p, "pid 7", "tid 9"), nullptr);
    EXPECT_NE(findTrack(p, "pid 18446744073709551615", "tid 9223372036854775807"), nullptr);
    EXPECT_NE(findTrack(p, "pid 18446744073709551615", "tid -5"), nullptr);
    EXPECT_NE(findTrack(p, "pid renderer", "tid main"), nullptr);
    EXPECT_NE(findTrack(p, "pid 0", "tid 0"), nullptr);
    EXPECT_EQ(p.planes.size(), 4u);
    EXPECT_EQ(p.eventCount(), 5u);
}

TEST(ChromeJson, UnicodeNames)
{
    const std::string doc = R"([{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"caf\u00e9 \ud83d\ude00 \"q\"\n"},)"
                            R"({"ph":"X","pid":1,"tid":1,"ts":2,"dur":1,"name":"lone \udc00 x"},)"
                            R"({"ph":"M","pid":1,"name":"process_name","args":{"name":"\u65e5\u672c"}}])";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    const Track* t = findTrack(p, "\xE6\x97\xA5\xE6\x9C\xAC", "tid 1");
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 2u);
    EXPECT_EQ(p.str(p.ops[t->op[0]].name), "caf\xC3\xA9 \xF0\x9F\x98\x80 \"q\"\n");
    EXPECT_EQ(p.str(p.ops[t->op[1]].name), "lone \xEF\xBF\xBD x");
}

TEST(ChromeJson, NegativeDurationsAndUnsortedEvents)
{
    const std::string doc = "[" + xEvent(1, 1, "30", "1", "c") + "," + xEvent(1, 1, "10", "-5", "neg") + ","
        + xEvent(1, 1, "20", "1", "b") + "]";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    EXPECT_EQ(p.stats.negativeDurations, 1);
    const Track* t = findTrack(p, "pid 1", "tid 1");
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 3u);
    EXPECT_EQ(t->start[0], 10000000);
    EXPECT_EQ(t->start[1], 20000000);
    EXPECT_EQ(t->start[2], 30000000);
}

TEST(ChromeJson, EpochTimestampsAndHugeNumbers)
{
    const std::string doc = "[" + xEvent(1, 1, "1700000000000000.123456", "1.5", "a") + ","
        + xEvent(1, 1, "1700000000000001", "0", "b") + "," + xEvent(1, 1, "1e300", "1", "tooBig") + ","
        + xEvent(1, 1, "5", "123456789012345678901234567890", "tooLong") + ","
        + R"({"ph":"X","pid":1,"tid":1,"dur":1,"name":"noTs"}])";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    EXPECT_EQ(p.originNs, 1700000000000000000);
    const Track* t = findTrack(p, "pid 1", "tid 1");
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 2u);
    EXPECT_EQ(t->start[0], 123456);
    EXPECT_EQ(t->duration[0], 1500000);
    EXPECT_EQ(t->start[1], 1000000);
    EXPECT_EQ(p.stats.malformedEvents, 3);
}

TEST(ChromeJson, TruncatedFileKeepsEarlierEvents)
{
    std::string doc = "{\"traceEvents\":[" + xEvent(1, 1, "1", "1", "a") + "," + xEvent(1, 1, "2", "1", "b") + ",";
    const size_t goodEnd = doc.size() - 1;
    doc += xEvent(1, 1, "3", "1", "c");
    const std::string full = doc + "]}";
    // Cut inside the third event, at every position, to exercise every tokenizer state.
    for (size_t cut = goodEnd + 1; cut < full.size() - 2; ++cut) {
        LoadResult r = loadJson(full.substr(0, cut));
        ASSERT_TRUE(r.ok()) << cut << ": " << r.error;
        EXPECT_EQ(r.profile->eventCount(), 2u) << cut;
        ASSERT_EQ(r.profile->load.warnings.size(), 1u) << cut;
        const std::string& w = r.profile->load.warnings[0];
        EXPECT_NE(w.find("truncated"), std::string::npos) << w;
        EXPECT_NE(w.find("at byte " + std::to_string(cut)), std::string::npos) << w;
        EXPECT_NE(w.find("before byte " + std::to_string(goodEnd)), std::string::npos) << w;
    }
    // The closing "]}" missing: all three events are kept.
    LoadResult r = loadJson(full.substr(0, full.size() - 2));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.profile->eventCount(), 3u);
    EXPECT_EQ(r.profile->load.warnings.size(), 1u);

    LoadResult nothing = loadJson(R"({"traceEvents":[{"ph":"X","pid":1,"ti)");
    ASSERT_FALSE(nothing.ok());
    EXPECT_NE(nothing.error.find("at byte"), std::string::npos) << nothing.error;
}

TEST(ChromeJson, GarbageAfterValidPrefix)
{
    const std::string prefix = "[" + xEvent(1, 1, "1", "1", "a") + "," + xEvent(1, 1, "2", "1", "b");
    LoadResult r = loadJson(prefix + ", @#!garbage");
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.profile->eventCount(), 2u);
    ASSERT_EQ(r.profile->load.warnings.size(), 1u);
    EXPECT_NE(r.profile->load.warnings[0].find("damaged"), std::string::npos) << r.profile->load.warnings[0];
    EXPECT_NE(r.profile->load.warnings[0].find("at byte " + std::to_string(prefix.size() + 2)), std::string::npos)
        << r.profile->load.warnings[0];

    LoadResult trailing = loadJson(prefix + "]\n\nnot json");
    ASSERT_TRUE(trailing.ok()) << trailing.error;
    EXPECT_EQ(trailing.profile->eventCount(), 2u);
    EXPECT_TRUE(containsText(trailing.profile->load.warnings, "after the end of the JSON document"));

    LoadResult bracket = loadJson(prefix + R"(,{"ph":"X","args":{"a":[1,2}]})");
    ASSERT_TRUE(bracket.ok()) << bracket.error;
    EXPECT_EQ(bracket.profile->eventCount(), 2u);
    EXPECT_TRUE(containsText(bracket.profile->load.warnings, "mismatched bracket"));

    LoadResult notJson = loadJson("[nonsense]");
    EXPECT_FALSE(notJson.ok());
}

TEST(ChromeJson, DeepNestingIsRefusedWithoutRecursion)
{
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    LoadResult r = loadJson(
        R"({"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a","args":{"x":)" + deep + "}}]}");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error.find("nested deeper than 64"), std::string::npos) << r.error;

    LoadResult kept = loadJson("[" + xEvent(1, 1, "1", "1", "a") + R"(,{"ph":"X","args":{"x":)" + deep + "}}]");
    ASSERT_TRUE(kept.ok()) << kept.error;
    EXPECT_EQ(kept.profile->eventCount(), 1u);
    EXPECT_TRUE(containsText(kept.profile->load.warnings, "nested deeper than 64"));

    // Moderate nesting is fine.
    const std::string ok = std::string(40, '[') + std::string(40, ']');
    LoadResult fine = loadJson("[" + xEvent(1, 1, "1", "1", "a", "{\"x\":" + ok + "}") + "]");
    ASSERT_TRUE(fine.ok()) << fine.error;
    EXPECT_TRUE(fine.profile->load.warnings.empty());
}

TEST(ChromeJson, ProgressIsThrottledAndStopIsHonoured)
{
    std::string doc = "[";
    for (int i = 0; i < 70000; ++i)
        doc += (i ? "," : "") + xEvent(1, 1, std::to_string(i), "1", "op");
    doc += "]";
    int calls = 0;
    double last = 0;
    auto progress = [&](std::string_view phase, double f) {
        if (phase == "parsing JSON") {
            ++calls;
            EXPECT_GE(f, last);
            last = f;
        }
    };
    LoadResult r = loadProfileFromBytes(doc, "p.json", {}, progress);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.profile->eventCount(), 70000u);
    EXPECT_GT(calls, 1);
    EXPECT_LE(calls, 1001);
    EXPECT_EQ(last, 1.0);

    std::stop_source source;
    source.request_stop();
    LoadResult cancelled = loadProfileFromBytes(doc, "p.json", {}, {}, source.get_token());
    EXPECT_FALSE(cancelled.ok());
}

TEST(ChromeJson, DeviceTimespanAnchoredPerTrack)
{
    // device_offset_ps is relative to an unrecorded line start: the first event anchors it.
    const std::string doc = "[" + tpuHeader()
        + xEvent(3, 3, "100", "2", "a", R"({"device_offset_ps":"1000000","device_duration_ps":"1500"})") + ","
        + xEvent(3, 3, "200.5", "2", "b", R"({"device_offset_ps":"101000123","device_duration_ps":"7"})") + ","
        + xEvent(3, 3, "300", "2", "c", R"({"device_duration_ps":"9"})") + "]";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Track* ops = findTrack(*r.profile, "/device:TPU:0", "XLA Ops");
    ASSERT_NE(ops, nullptr);
    ASSERT_EQ(ops->size(), 3u);
    EXPECT_EQ(ops->start[0], 100000000);
    EXPECT_EQ(ops->duration[0], 1500);
    EXPECT_EQ(ops->start[1], 200000123);
    EXPECT_EQ(ops->duration[1], 7);
    EXPECT_EQ(ops->start[2], 300000000); // no offset: ts
    EXPECT_EQ(ops->duration[2], 9);
}

// Three programs run an op named `fusion`: one kind (same name, HLO text and category, 2 GFLOP per
// run) in jit_a and jit_b, and in jit_c a `fusion` of its own HLO (5 GFLOP). Each program's op is
// its own row with its own occurrences and FLOPs, and the program rows add up to the op time.
TEST(ChromeJson, SameNamedOpInSeveralProgramsIsOneRowPerProgram)
{
    const std::string shared = R"j({"hlo_category":"convolution fusion","long_name":"%fusion = bf16[8,128]{1,0} )j"
                               R"j(fusion(), kind=kOutput","model_flops":"2000000000","bytes_accessed":"4096"})j";
    const std::string own = R"j({"hlo_category":"loop fusion","long_name":"%fusion = f32[16]{0} fusion(), )j"
                            R"j(kind=kLoop","model_flops":"5000000000","bytes_accessed":"64"})j";
    const std::string doc = "["
        + std::string(R"({"ph":"M","pid":3,"name":"process_name","args":{"name":"/device:TPU:0"}},)"
                      R"({"ph":"M","pid":3,"tid":2,"name":"thread_name","args":{"name":"XLA Modules"}},)"
                      R"({"ph":"M","pid":3,"tid":3,"name":"thread_name","args":{"name":"XLA Ops"}},)")
        // Runs: jit_a at 100–110 µs and 130–140 µs, jit_b (named without an id) at 110–125 µs,
        // jit_c at 140–150 µs.
        + xEvent(3, 2, "100", "10", "jit_a(11)") + "," + xEvent(3, 2, "110", "15", "jit_b") + ","
        + xEvent(3, 2, "130", "10", "jit_a(11)") + "," + xEvent(3, 2, "140", "10", "jit_c(33)")
        + ","
        // The first op starts a little before its run (lines are anchored apart): still jit_a's.
        + xEvent(3, 3, "99.9995", "2", "fusion", shared) + "," + xEvent(3, 3, "111", "3", "fusion", shared) + ","
        + xEvent(3, 3, "131", "2", "fusion", shared) + "," + xEvent(3, 3, "141", "4", "fusion", own)
        + ","
        // After every run: no program.
        + xEvent(3, 3, "160", "1", "fusion", shared) + "]";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    ASSERT_EQ(p.programs.size(), 3u);
    EXPECT_EQ(p.programs[0].name, "jit_a");
    EXPECT_EQ(p.programs[0].id, 11u);
    EXPECT_EQ(p.programs[1].name, "jit_b");
    EXPECT_EQ(p.programs[2].name, "jit_c");
    EXPECT_EQ(p.programs[2].id, 33u);

    const OpBreakdown byOp = computeOpBreakdown(p);
    std::map<std::string, const OpRow*> rows;
    for (const OpRow& row : byOp.rows) {
        EXPECT_EQ(row.name, "fusion");
        rows[row.program] = &row;
    }
    ASSERT_EQ(rows.size(), 4u);
    const OpRow* a = rows["jit_a"];
    const OpRow* b = rows["jit_b"];
    const OpRow* c = rows["jit_c"];
    const OpRow* none = rows[""];
    ASSERT_TRUE(a && b && c && none);
    EXPECT_EQ(a->occurrences, 2);
    EXPECT_DOUBLE_EQ(a->flops, 4e9);
    EXPECT_DOUBLE_EQ(a->totalTimePs, 4e6);
    EXPECT_EQ(a->category, "convolution fusion");
    EXPECT_EQ(b->occurrences, 1);
    EXPECT_DOUBLE_EQ(b->flops, 2e9);
    EXPECT_DOUBLE_EQ(b->totalTimePs, 3e6);
    EXPECT_EQ(c->occurrences, 1);
    EXPECT_DOUBLE_EQ(c->flops, 5e9);
    EXPECT_EQ(c->category, "loop fusion");
    EXPECT_EQ(none->occurrences, 1);
    // The shared kind became one OpInfo per program; each knows its program and id.
    EXPECT_NE(a->op, b->op);
    EXPECT_EQ(p.ops[a->op].program, 0u);
    EXPECT_EQ(p.ops[a->op].programId, 11u);
    EXPECT_EQ(p.ops[b->op].program, 1u);
    EXPECT_EQ(p.ops[b->op].programId, p.programs[1].id);
    EXPECT_EQ(p.ops[c->op].programId, 33u);
    EXPECT_EQ(p.ops[none->op].program, kNone);
    EXPECT_FALSE(p.ops[none->op].hasProgramId);

    const OpBreakdown byProgram = computeOpBreakdown(p, {}, GroupBy::Program);
    ASSERT_EQ(byProgram.rows.size(), 4u);
    double sum = 0;
    for (const OpRow& row : byProgram.rows)
        sum += row.totalTimePs;
    EXPECT_DOUBLE_EQ(sum, byProgram.totalTimePs);
    EXPECT_DOUBLE_EQ(byProgram.totalTimePs, (2 + 3 + 2 + 4 + 1) * 1e6);
}

// An op that records its own program id keeps it, whatever run it is in.
TEST(ChromeJson, OwnProgramIdWinsOverTheRun)
{
    const std::string doc = "["
        + std::string(R"({"ph":"M","pid":3,"name":"process_name","args":{"name":"/device:TPU:0"}},)"
                      R"({"ph":"M","pid":3,"tid":2,"name":"thread_name","args":{"name":"XLA Modules"}},)"
                      R"({"ph":"M","pid":3,"tid":3,"name":"thread_name","args":{"name":"XLA Ops"}},)")
        + xEvent(3, 2, "100", "10", "jit_a(11)") + "," + xEvent(3, 3, "101", "2", "add.1", R"({"program_id":"99"})")
        + "]";
    LoadResult r = loadJson(doc);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    const Track* ops = findTrack(p, "/device:TPU:0", "XLA Ops");
    ASSERT_NE(ops, nullptr);
    ASSERT_EQ(ops->size(), 1u);
    EXPECT_EQ(p.ops[ops->op[0]].programId, 99u);
    EXPECT_EQ(p.ops[ops->op[0]].program, kNone); // no program 99 in the file
    EXPECT_TRUE(p.programs.empty()) << "no op needed the run's program";
}

TEST(ChromeJson, ByteMutationsNeverCrash)
{
    // Every byte of a document with all event kinds replaced by structural characters: each
    // load must end with a profile or a message (run under valgrind/ASan to catch overreads).
    const std::string doc = "{\"traceEvents\":[" + tpuHeader()
        + xEvent(3, 3, "1.5", "2", "f\\u00e9", R"({"hlo_category":"x","model_flops":"7","device_duration_ps":"9"})")
        + R"(,{"ph":"B","pid":1,"tid":1,"ts":1,"name":"b"},{"ph":"E","pid":1,"tid":1,"ts":2},)"
        + R"({"ph":"C","pid":1,"ts":3,"name":"c","args":{"v":[1,{"a":null}],"w":true,"x":1e3}},)"
        + R"({"ph":"i","pid":1,"tid":1,"ts":4,"name":"i"},{}],"metadata":{"k":[false]}})";
    const char replacements[] = {'{', '}', '[', ']', '"', '\\', ',', ':', '-', '9', 'e', '\0'};
    int loaded = 0;
    for (size_t i = 0; i < doc.size(); ++i) {
        for (char c : replacements) {
            std::string mutated = doc;
            mutated[i] = c;
            LoadResult r = loadJson(mutated);
            ASSERT_TRUE(r.ok() || !r.error.empty()) << i;
            loaded += r.ok();
        }
    }
    EXPECT_GT(loaded, 0);
}

// A UTF-8 byte order mark before the JSON (Windows editors write one) is skipped on every input
// path: bytes in memory, a mapped file and a streamed gzip. The mapped and streamed paths refused
// the file ("expected '[' or '{' at the start"): the mark was checked before the first bytes came.
TEST(ChromeJson, AByteOrderMarkIsSkippedOnEveryInputPath)
{
    const std::string json = "\xEF\xBB\xBF"
                             R"({"traceEvents":[{"name":"a","ph":"X","pid":1,"tid":1,"ts":0,"dur":5}]})";
    const LoadResult inMemory = loadProfileFromBytes(json, "bom.json");
    ASSERT_TRUE(inMemory.ok()) << inMemory.error;
    EXPECT_EQ(inMemory.profile->eventCount(), 1u);
    using namespace tpuscope::test;
    const std::string dir = tempDir("chrome_bom");
    writeFile(dir + "/bom.json", json);
    writeFile(dir + "/bom.json.gz", gzipBytes(json));
    for (const char* file : {"bom.json", "bom.json.gz"}) {
        const LoadResult r = loadProfile(dir + "/" + file);
        ASSERT_TRUE(r.ok()) << file << ": " << r.error;
        EXPECT_EQ(r.profile->eventCount(), 1u) << file;
    }
}
