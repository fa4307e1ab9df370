// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/advice.h"
#include "analysis/steps.h"
#include "analysis/summary.h"
#include "analysistestutil.h"
#include "core/jsondom.h"
#include "loader/loader.h"
#include "report/report.h"
#include "report/stepsreport.h"
#include "synth/synth.h"
#include "testutil.h"
#include "xplane.pb.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

constexpr TimePs kMs = 1'000'000'000; // ps

/// A hand-made profile: TPU cores with an XLA Modules and an XLA Ops line, and a host line
/// that starts the profile at time 0.
struct Builder
{
    ProfileBuilder b;
    std::vector<PlaneId> cores;
    std::vector<TrackId> modules, ops, steps;
    TrackId host = 0;

    explicit Builder(int coreCount, bool withModules = true)
    {
        const PlaneId hostPlane = b.addPlane("/host:CPU");
        host = b.addTrack(hostPlane, "python", TrackKind::HostThread);
        for (int c = 0; c < coreCount; ++c) {
            const PlaneId p = b.addPlane("/device:TPU:" + std::to_string(c));
            cores.push_back(p);
            modules.push_back(withModules ? b.addTrack(p, "XLA Modules", TrackKind::XlaModules) : kNone);
            ops.push_back(b.addTrack(p, "XLA Ops", TrackKind::XlaOps));
        }
    }
    OpId op(const std::string& name, const std::string& category, const std::string& shape = {})
    {
        return addXlaOp(b, name, category, shape);
    }
    OpId module(const std::string& name)
    {
        OpInfo info;
        info.name = b.intern(name);
        return b.addOp(info);
    }
};

const StepRow& step(const StepAnalysis& s, size_t i)
{
    static const StepRow none;
    EXPECT_LT(i, s.steps.size());
    return i < s.steps.size() ? s.steps[i] : none;
}

/// Steps of 10 ms of ops (compute 7, all-reduce 2, host copy 1) each followed by a fixed input
/// wait, after `warmup` of nothing (the host is busy from time 0).
ProfilePtr inputBoundProfile(TimePs warmup, TimePs wait, int stepCount = 10, int coreCount = 2)
{
    Builder m(coreCount);
    const OpId fusion = m.op("fusion.1", "loop fusion");
    const OpId reduce = m.op("all-reduce.1", "all-reduce");
    const OpId copy = m.op("copy-done.1", "copy-done", "f32[1024]{0:T(1024)S(5)}");
    const OpId jit = m.module("jit_train_step(7)");
    m.b.addEvent(m.host, 0, warmup, m.module("compile"));
    for (size_t c = 0; c < m.cores.size(); ++c) {
        TimePs t = warmup;
        for (int s = 0; s < stepCount; ++s) {
            m.b.addEvent(m.modules[c], t, 10 * kMs, jit);
            m.b.addEvent(m.ops[c], t, 7 * kMs, fusion);
            m.b.addEvent(m.ops[c], t + 7 * kMs, 2 * kMs, reduce);
            m.b.addEvent(m.ops[c], t + 9 * kMs, 1 * kMs, copy);
            t += 10 * kMs + wait;
        }
    }
    return m.b.finish();
}

} // namespace

TEST(Steps, InputBoundAfterALongWarmup)
{
    const TimePs warmup = 500 * kMs, wait = 3 * kMs;
    ProfilePtr p = inputBoundProfile(warmup, wait);
    const StepAnalysis s = computeSteps(*p);
    EXPECT_EQ(s.source, StepSource::ProgramRuns);
    EXPECT_EQ(s.program, "jit_train_step");
    ASSERT_EQ(s.steps.size(), 10u);
    EXPECT_EQ(s.stepsPerCore, 10);
    // The warm-up is in no step: the first step starts with the first run.
    EXPECT_EQ(step(s, 0).startPs, warmup);
    EXPECT_DOUBLE_EQ(s.warmupPs, static_cast<double>(warmup));
    EXPECT_DOUBLE_EQ(s.warmup.idlePs, static_cast<double>(warmup));
    // Idle per step is the wait (the last step ends with its run).
    for (size_t i = 0; i + 1 < s.steps.size(); ++i) {
        EXPECT_DOUBLE_EQ(step(s, i).time.idlePs, static_cast<double>(wait)) << i;
        EXPECT_DOUBLE_EQ(step(s, i).durationPs, static_cast<double>(10 * kMs + wait)) << i;
    }
    EXPECT_DOUBLE_EQ(s.steps.back().time.idlePs, 0);
    // Where the run goes.
    EXPECT_DOUBLE_EQ(step(s, 3).time.computePs, static_cast<double>(7 * kMs));
    EXPECT_DOUBLE_EQ(step(s, 3).time.collectivePs, static_cast<double>(2 * kMs));
    EXPECT_DOUBLE_EQ(step(s, 3).time.hostTransferPs, static_cast<double>(1 * kMs));
    EXPECT_DOUBLE_EQ(step(s, 3).time.infeedPs, 0);
    const double steady = 9.0 * (10 + 3) + 10;
    EXPECT_NEAR(s.steadyIdleFraction(), 27.0 / steady, 1e-12);

    // The advice counts the steady-state wait only, never the warm-up.
    const AdviceReport r = computeAdvice(*p);
    const Advice* a = findAdvice(r, "input-bound");
    ASSERT_TRUE(a);
    EXPECT_NEAR(adviceNumber(*a, "idle_fraction"), 27.0 / steady, 1e-12);
    EXPECT_EQ(r.steps, 10);
}

TEST(Steps, WarmupIdleIsNeverInputBound)
{
    ProfilePtr p = inputBoundProfile(2000 * kMs, 0);
    const StepAnalysis s = computeSteps(*p);
    EXPECT_DOUBLE_EQ(s.steady.idlePs, 0);
    EXPECT_GT(s.warmup.idlePs, 0.9 * (s.warmup.idlePs + s.steady.idlePs + s.tail.idlePs));
    const AdviceReport r = computeAdvice(*p);
    EXPECT_FALSE(findAdvice(r, "input-bound"));
    // Busy 100 ms of 2.1 s: the capture is the issue.
    const Advice* c = findAdvice(r, "capture-coverage");
    ASSERT_TRUE(c);
    EXPECT_NEAR(adviceNumber(*c, "busy_fraction"), 100.0 / 2100.0, 1e-9);
    EXPECT_EQ(adviceNumber(*c, "dominant_program_runs"), 10);
}

TEST(Steps, SeveralProgramsKeyedByProgramAndTheDominantIsTheStep)
{
    Builder m(2);
    const OpId work = m.op("fusion.1", "loop fusion");
    const OpId a = m.module("jit_a(1)"), b = m.module("jit_b(2)"), tiny = m.module("jit_convert(3)");
    m.b.addEvent(m.host, 0, 1, m.module("host"));
    for (size_t c = 0; c < 2; ++c) {
        TimePs t = kMs;
        m.b.addEvent(m.modules[c], t, 1000, tiny);
        t += kMs;
        for (int s = 0; s < 5; ++s) {
            const TimePs runA = (8 + 2 * s) * kMs; // 8, 10, 12, 14, 16 ms
            m.b.addEvent(m.modules[c], t, runA, a);
            m.b.addEvent(m.ops[c], t, runA, work);
            t += runA;
            for (int k = 0; k < 4; ++k) { // four runs of b inside each step
                m.b.addEvent(m.modules[c], t, kMs, b);
                m.b.addEvent(m.ops[c], t, kMs, work);
                t += kMs;
            }
        }
    }
    ProfilePtr p = m.b.finish();
    const StepAnalysis s = computeSteps(*p);
    ASSERT_EQ(s.programs.size(), 3u);
    EXPECT_EQ(s.programs[0].name, "jit_a");
    EXPECT_EQ(s.programs[1].name, "jit_b");
    EXPECT_EQ(s.programs[2].name, "jit_convert");
    EXPECT_EQ(s.dominantProgram, 0);
    EXPECT_DOUBLE_EQ(s.programs[0].runsPerCore, 5);
    EXPECT_EQ(s.programs[0].runs, 10);
    EXPECT_DOUBLE_EQ(s.programs[0].avgPs, 12.0 * kMs);
    EXPECT_DOUBLE_EQ(s.programs[0].minPs, 8.0 * kMs);
    EXPECT_DOUBLE_EQ(s.programs[0].maxPs, 16.0 * kMs);
    EXPECT_NEAR(s.programs[0].stddevPs, std::sqrt(8.0) * kMs, 1.0);
    EXPECT_DOUBLE_EQ(s.programs[1].runsPerCore, 20);
    EXPECT_NEAR(s.programs[0].timeFraction, 60.0 / (2 + 80), 1e-9); // 60 ms of an 82 ms span
    // The step is jit_a: 5 steps, each holding its four jit_b runs, not 26 mixed runs.
    EXPECT_EQ(s.source, StepSource::ProgramRuns);
    EXPECT_EQ(s.stepsPerCore, 5);
    EXPECT_DOUBLE_EQ(step(s, 0).durationPs, 12.0 * kMs);
    EXPECT_DOUBLE_EQ(s.steps.back().durationPs, 16.0 * kMs); // the last step is its run
    EXPECT_DOUBLE_EQ(s.tailPs, 4.0 * kMs);
    EXPECT_EQ(computeSummary(*p).steps.count, 5);
    EXPECT_EQ(computeAdvice(*p).steps, 5);

    StepOptions other;
    other.program = "jit_b";
    const StepAnalysis sb = computeSteps(*p, other);
    EXPECT_EQ(sb.stepsPerCore, 20);
    EXPECT_EQ(sb.program, "jit_b");
    other.program = "jit_missing";
    EXPECT_EQ(computeSteps(*p, other).source, StepSource::None);
    StepOptions oneCore;
    oneCore.core = 1;
    EXPECT_EQ(computeSteps(*p, oneCore).cores, 1);
}

TEST(Steps, StepsLineWinsAndNamesTheStepNumbers)
{
    Builder m(1);
    const PlaneId core = m.cores[0];
    const TrackId stepsLine = m.b.addTrack(core, "Steps", TrackKind::Steps);
    const OpId work = m.op("fusion.1", "loop fusion");
    const OpId feed = m.op("infeed.1", "infeed");
    const OpId jit = m.module("jit_step(1)");
    for (int s = 0; s < 4; ++s) {
        const TimePs t = (1 + 10 * s) * kMs;
        m.b.addEvent(stepsLine, t, 10 * kMs, m.module(std::to_string(40 + s)));
        m.b.addEvent(m.ops[0], t, 2 * kMs, feed);
        m.b.addEvent(m.modules[0], t + 2 * kMs, 6 * kMs, jit);
        m.b.addEvent(m.ops[0], t + 2 * kMs, 6 * kMs, work);
    }
    m.b.addEvent(m.host, 0, 1, m.module("host"));
    ProfilePtr p = m.b.finish();
    const StepAnalysis s = computeSteps(*p);
    EXPECT_EQ(s.source, StepSource::StepsLine);
    EXPECT_EQ(s.sourceLine, "Steps");
    ASSERT_EQ(s.steps.size(), 4u);
    EXPECT_EQ(step(s, 0).stepNumber, 40);
    EXPECT_EQ(step(s, 3).stepNumber, 43);
    EXPECT_DOUBLE_EQ(step(s, 1).durationPs, 10.0 * kMs);
    EXPECT_DOUBLE_EQ(step(s, 1).time.infeedPs, 2.0 * kMs);
    EXPECT_DOUBLE_EQ(step(s, 1).time.computePs, 6.0 * kMs);
    EXPECT_DOUBLE_EQ(step(s, 1).time.idlePs, 2.0 * kMs);
    EXPECT_DOUBLE_EQ(s.warmupPs, 1.0 * kMs);
    // Infeed waits are input-bound evidence: (2 idle + 2 infeed) of 10 ms.
    const AdviceReport r = computeAdvice(*p);
    const Advice* a = findAdvice(r, "input-bound");
    ASSERT_TRUE(a);
    EXPECT_NEAR(adviceNumber(*a, "idle_fraction"), 0.2, 1e-12);
    EXPECT_NEAR(adviceNumber(*a, "infeed_fraction"), 0.2, 1e-12);
    EXPECT_EQ(a->severity, Severity::Critical);
}

TEST(Steps, HostStepMarkersWhenTheDeviceHasNoStepOrModuleLine)
{
    Builder m(2, false);
    const OpId work = m.op("fusion.1", "loop fusion");
    const StringId train = m.b.intern("train");
    for (int s = 0; s < 6; ++s) {
        const TimePs t = (5 + 20 * s) * kMs;
        m.b.addStepMarker({t, 15 * kMs, 100 + s, train, 0});
        m.b.addEvent(m.host, t, 15 * kMs, m.module("train"));
        for (size_t c = 0; c < 2; ++c)
            m.b.addEvent(m.ops[c], t + kMs, 12 * kMs, work);
    }
    ProfilePtr p = m.b.finish();
    const StepAnalysis s = computeSteps(*p);
    EXPECT_EQ(s.source, StepSource::HostMarkers);
    EXPECT_EQ(s.sourceLine, "train");
    EXPECT_TRUE(s.programs.empty());
    ASSERT_EQ(s.steps.size(), 6u);
    EXPECT_EQ(step(s, 2).stepNumber, 102);
    EXPECT_DOUBLE_EQ(step(s, 2).durationPs, 20.0 * kMs);
    EXPECT_DOUBLE_EQ(step(s, 2).time.computePs, 12.0 * kMs);
    EXPECT_DOUBLE_EQ(step(s, 2).time.idlePs, 8.0 * kMs);
    EXPECT_DOUBLE_EQ(s.steps.back().durationPs, 15.0 * kMs);
    EXPECT_EQ(computeSummary(*p).steps.count, 6);
}

// The same from an XSpace: StepTraceAnnotation events carry a step_num stat on the host plane
// (one event with a string stat too, which takes the loader's checked decode path).
TEST(Steps, HostStepMarkersFromAnXSpace)
{
    namespace tp = tensorflow::profiler;
    tp::XSpace space;
    tp::XPlane* host = space.add_planes();
    host->set_id(1);
    host->set_name("/host:CPU");
    auto& stepNum = (*host->mutable_stat_metadata())[7];
    stepNum.set_id(7);
    stepNum.set_name("step_num");
    auto& note = (*host->mutable_stat_metadata())[8];
    note.set_id(8);
    note.set_name("note");
    for (int id : {1, 2}) {
        auto& md = (*host->mutable_event_metadata())[id];
        md.set_id(id);
        md.set_name(id == 1 ? "train" : "other");
    }
    tp::XLine* thread = host->add_lines();
    thread->set_id(1);
    thread->set_name("python");
    tp::XPlane* tpu = space.add_planes();
    tpu->set_id(2);
    tpu->set_name("/device:TPU:0");
    auto& fusion = (*tpu->mutable_event_metadata())[1];
    fusion.set_id(1);
    fusion.set_name("fusion.1");
    tp::XLine* ops = tpu->add_lines();
    ops->set_id(1);
    ops->set_name("XLA Ops");
    for (int s = 0; s < 4; ++s) {
        tp::XEvent* marker = thread->add_events();
        marker->set_metadata_id(1);
        marker->set_offset_ps((10 * s + 1) * kMs);
        marker->set_duration_ps(8 * kMs);
        tp::XStat* st = marker->add_stats();
        st->set_metadata_id(7);
        st->set_int64_value(s + 3);
        if (s == 2) {
            tp::XStat* text = marker->add_stats();
            text->set_metadata_id(8);
            text->set_str_value("a string stat");
        }
        tp::XEvent* plain = thread->add_events(); // no step_num: not a marker
        plain->set_metadata_id(2);
        plain->set_offset_ps((10 * s + 9) * kMs);
        plain->set_duration_ps(kMs / 2);
        tp::XEvent* op = ops->add_events();
        op->set_metadata_id(1);
        op->set_offset_ps((10 * s + 2) * kMs);
        op->set_duration_ps(5 * kMs);
    }
    LoadResult loaded = loadProfileFromBytes(space.SerializeAsString(), "markers.xplane.pb");
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    ASSERT_EQ(loaded.profile->stepMarkers.size(), 4u);
    EXPECT_EQ(loaded.profile->stepMarkers[2].stepNumber, 5);
    const StepAnalysis s = computeSteps(*loaded.profile);
    EXPECT_EQ(s.source, StepSource::HostMarkers);
    EXPECT_EQ(s.sourceLine, "train");
    ASSERT_EQ(s.steps.size(), 4u);
    EXPECT_EQ(step(s, 0).stepNumber, 3);
    EXPECT_DOUBLE_EQ(step(s, 1).durationPs, 10.0 * kMs);
    EXPECT_DOUBLE_EQ(step(s, 1).time.computePs, 5.0 * kMs);
    EXPECT_DOUBLE_EQ(step(s, 1).time.idlePs, 5.0 * kMs);
}

// And from a Chrome trace: jax.profiler writes the step number into the event's args.
TEST(Steps, HostStepMarkersFromAChromeTrace)
{
    std::string json = R"({"traceEvents":[
        {"ph":"M","pid":1,"name":"process_name","args":{"name":"/host:CPU"}},
        {"ph":"M","pid":2,"name":"process_name","args":{"name":"/device:TPU:0"}},
        {"ph":"M","pid":2,"tid":3,"name":"thread_name","args":{"name":"XLA Ops"}})";
    for (int s = 0; s < 3; ++s) {
        const std::string t = std::to_string(100 + 10 * s); // µs
        json += R"(,{"ph":"X","pid":1,"tid":1,"name":"train","ts":)" + t + R"(,"dur":8,"args":{"step_num":")"
            + std::to_string(7 + s) + R"("}})";
        json += R"(,{"ph":"X","pid":1,"tid":1,"name":"log","ts":)" + t + R"(,"dur":1,"args":{"other":"1"}})";
        json += R"(,{"ph":"X","pid":2,"tid":3,"name":"fusion.1","ts":)" + std::to_string(101 + 10 * s)
            + R"(,"dur":4,"args":{"hlo_category":"loop fusion"}})";
    }
    json += "]}";
    LoadResult loaded = loadProfileFromBytes(json, "markers.trace.json");
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    ASSERT_EQ(loaded.profile->stepMarkers.size(), 3u);
    const StepAnalysis s = computeSteps(*loaded.profile);
    EXPECT_EQ(s.source, StepSource::HostMarkers);
    ASSERT_EQ(s.steps.size(), 3u);
    EXPECT_EQ(step(s, 1).stepNumber, 8);
    EXPECT_DOUBLE_EQ(step(s, 0).durationPs, 10e6);
    EXPECT_DOUBLE_EQ(step(s, 0).time.computePs, 4e6);
}

TEST(Steps, NoStepsAtAllIsSaidNotInvented)
{
    Builder m(1, false);
    m.b.addEvent(m.ops[0], 0, kMs, m.op("fusion.1", "loop fusion"));
    ProfilePtr p = m.b.finish();
    const StepAnalysis s = computeSteps(*p);
    EXPECT_EQ(s.source, StepSource::None);
    EXPECT_TRUE(s.steps.empty());
    EXPECT_FALSE(s.note.empty());
    EXPECT_EQ(computeAdvice(*p).steps, 0);
}

TEST(Steps, ReportsInEveryFormat)
{
    ProfilePtr p = inputBoundProfile(50 * kMs, kMs, 3, 1);
    const StepAnalysis s = computeSteps(*p);
    const std::string json = stepsReport(s, TableFormat::Json);
    for (const char* key : {"\"source\": \"XLA Modules\"", "\"programs\"", "\"runs_per_core\": 3", "\"stddev_ps\"",
             "\"time_fraction\"", "\"steps\"", "\"host_transfer_ps\": 1000000000", "\"idle_ps\": 1000000000",
             "\"warmup_ps\": 50000000000", "\"tail_ps\": 0"})
        EXPECT_NE(json.find(key), std::string::npos) << key;
    const std::string csv = stepsReport(s, TableFormat::Csv);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4); // header + 3 steps
    EXPECT_NE(stepsReport(s, TableFormat::Markdown).find("| jit\\_train\\_step"), std::string::npos);
    EXPECT_NE(stepsReport(s, TableFormat::Text).find("3 per core from runs of jit_train_step"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Real samples

// tests/data/v6e_programs.golden.csv comes from tests/tools/steps_golden.py over `protoc --decode`
// of the sample with the tools' own schema: no tpuscope code involved (ctest golden_tool.v6e_programs
// keeps the file equal to the tool's output).
TEST(StepsSamples, V6eIsHundredRunsOfJitFAndItsIdleIsWarmup)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v6e_inference.xplane.pb");
    LoadResult loaded = loadProfile(samplePath("tpu_v6e_inference.xplane.pb"));
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const StepAnalysis s = computeSteps(*loaded.profile);
    std::istringstream golden(readFile(dataPath("v6e_programs.golden.csv")));
    std::string line;
    std::getline(golden, line); // header
    size_t row = 0;
    while (std::getline(golden, line)) {
        std::istringstream cells(line);
        std::string name, perCore, avg, lo, hi, sd;
        std::getline(cells, name, ',');
        std::getline(cells, perCore, ',');
        std::getline(cells, avg, ',');
        std::getline(cells, lo, ',');
        std::getline(cells, hi, ',');
        std::getline(cells, sd, ',');
        ASSERT_LT(row, s.programs.size());
        const ProgramRunStats& p = s.programs[row++];
        SCOPED_TRACE(name);
        EXPECT_EQ(p.name, name);
        EXPECT_DOUBLE_EQ(p.runsPerCore, std::stod(perCore));
        EXPECT_NEAR(p.avgPs, std::stod(avg), 1e-6 * std::stod(avg) + 1);
        EXPECT_DOUBLE_EQ(p.minPs, std::stod(lo));
        EXPECT_DOUBLE_EQ(p.maxPs, std::stod(hi));
        EXPECT_NEAR(p.stddevPs, std::stod(sd), 1e-6 * std::stod(avg) + 1);
    }
    EXPECT_EQ(row, 4u);
    EXPECT_EQ(s.source, StepSource::ProgramRuns);
    EXPECT_EQ(s.program, "jit_f");
    EXPECT_EQ(s.stepsPerCore, 100);
    EXPECT_NEAR(s.avgStepPs, 784e9, 1e9);
    // The idle is warm-up: almost none between the jit_f runs.
    EXPECT_LT(s.steadyIdleFraction(), 0.001);
    EXPECT_GT(s.warmup.idlePs, 10 * (s.steady.idlePs + s.tail.idlePs));
    // Its time goes to copies from host memory (copy-done of S(5) arrays).
    EXPECT_GT(s.averageStep().hostTransferPs, 0.9 * s.averageStep().totalPs());
    const AdviceReport r = computeAdvice(*loaded.profile);
    EXPECT_FALSE(findAdvice(r, "input-bound"));
    EXPECT_FALSE(findAdvice(r, "capture-coverage"));
    EXPECT_EQ(r.steps, 100);
}

TEST(StepsSamples, VllmIsOneEngineStepAndTheCaptureIsTheIssue)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_vllm_serving.trace.json.gz");
    LoadResult loaded = loadProfile(samplePath("tpu_vllm_serving.trace.json.gz"));
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const StepAnalysis s = computeSteps(*loaded.profile);
    ASSERT_GE(s.programs.size(), 2u);
    EXPECT_EQ(s.program, "jit_step_fun");
    EXPECT_EQ(s.stepsPerCore, 1);
    EXPECT_NEAR(s.avgStepPs, 67e9, 1e9);
    EXPECT_GT(s.programs[0].totalPs, 100 * s.programs[1].totalPs);
    const AdviceReport r = computeAdvice(*loaded.profile);
    const Advice* c = findAdvice(r, "capture-coverage");
    ASSERT_TRUE(c);
    EXPECT_EQ(adviceNumber(*c, "dominant_program_runs"), 1);
    EXPECT_LT(adviceNumber(*c, "busy_fraction"), 0.05);
    EXPECT_NE(c->detail.find("The capture, not the program, is the issue"), std::string::npos);
    EXPECT_FALSE(findAdvice(r, "input-bound")); // one step has no steady state
}

TEST(StepsSamples, DemoHasTwentySteps)
{
    std::string bytes, error;
    ASSERT_TRUE(syntheticXSpaceBytes({}, bytes, error)) << error;
    LoadResult loaded = loadProfileFromBytes(bytes, "demo.xplane.pb");
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const StepAnalysis s = computeSteps(*loaded.profile);
    EXPECT_EQ(s.source, StepSource::StepsLine);
    EXPECT_EQ(s.stepsPerCore, 20);
    EXPECT_EQ(s.steps.size(), 20u);
    EXPECT_EQ(step(s, 19).stepNumber, 19);
    EXPECT_EQ(computeSummary(*loaded.profile).steps.count, 20);
}

// ---------------------------------------------------------------------------------------------
// tpuscope-cli steps
