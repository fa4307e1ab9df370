// SPDX-License-Identifier: GPL-3.0-or-later
// The session builds one ProfileAnalysis per load, in its job, and the comparison is a session job.
#include "analysis/profileanalysis.h"
#include "qt/diffmodel.h"
#include "qt/tracesession.h"

#include "../testsession.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <gtest/gtest.h>

using namespace tpuscope;
using tpuscope::qt::TraceSession;

namespace {

QString demoPath()
{
    return QStringLiteral(TPUSCOPE_TEST_DATA_DIR "/../../resources/demo.xplane.pb");
}

QString v6ePath()
{
    return QStringLiteral(TPUSCOPE_SAMPLES_DIR "/tpu_v6e_inference.xplane.pb");
}

} // namespace

TEST(ProfileAnalysis, OneLoadComputesTheBreakdownOnce)
{
    TraceSession session;
    // A preview computes a breakdown of its partial profile. Under a sanitizer or a loaded machine
    // the demo's load outlasts the default 0.4 s and a preview is sent, so the count would depend on
    // the clock; this test is about the finished load, so no preview is due.
    model::LoadOptions options = session.loadOptions();
    options.previewAfterSeconds = 3600;
    session.setLoadOptions(options);
    QSignalSpy loaded(&session, &TraceSession::loaded);
    const uint64_t before = model::opBreakdownComputations();
    session.open(demoPath());
    ASSERT_TRUE(loaded.wait(30000));
    EXPECT_EQ(model::opBreakdownComputations() - before, 1u);

    // Every part comes from that one analysis.
    const model::ProfileAnalysisPtr analysis = session.analysis();
    ASSERT_TRUE(analysis);
    EXPECT_EQ(analysis->profile, session.profile());
    EXPECT_EQ(session.breakdown().get(), &analysis->breakdown);
    EXPECT_EQ(session.steps().get(), &analysis->steps);
    EXPECT_EQ(session.advice().get(), &analysis->advice);
    EXPECT_FALSE(analysis->breakdown.rows.empty());
    EXPECT_FALSE(analysis->advice.advice.empty());
    EXPECT_TRUE(analysis->summary.hasTpuOps);
    EXPECT_EQ(analysis->utilization.size(), static_cast<size_t>(model::kAnalysisUtilizationBuckets));
    EXPECT_EQ(model::opBreakdownComputations() - before, 1u);
}

TEST(ProfileAnalysis, MatchesTheFunctionsItStandsFor)
{
    model::LoadResult load = model::loadProfile(demoPath().toStdString());
    ASSERT_TRUE(load.ok()) << load.error;
    const model::ProfileAnalysisPtr analysis = model::buildProfileAnalysis(load.profile);
    ASSERT_TRUE(analysis);
    const model::Profile& p = *load.profile;

    // The summary from the shared breakdown equals the summary computed on its own.
    const model::ProfileSummary alone = model::computeSummary(p);
    EXPECT_DOUBLE_EQ(analysis->summary.totalOpTimePs, alone.totalOpTimePs);
    EXPECT_EQ(analysis->summary.flops.capped, alone.flops.capped);
    EXPECT_EQ(analysis->summary.topCategories.size(), alone.topCategories.size());
    for (size_t i = 0; i < alone.topCategories.size() && i < analysis->summary.topCategories.size(); ++i) {
        EXPECT_EQ(analysis->summary.topCategories[i].name, alone.topCategories[i].name);
        EXPECT_NEAR(analysis->summary.topCategories[i].totalTimePs, alone.topCategories[i].totalTimePs, 1e-6);
    }
    EXPECT_EQ(analysis->summary.steps.count, alone.steps.count);

    // A range is a real computation; the whole profile is not computed again.
    const uint64_t before = model::opBreakdownComputations();
    const model::OpBreakdown whole = analysis->breakdownFor({});
    EXPECT_EQ(model::opBreakdownComputations(), before);
    EXPECT_EQ(whole.rows.size(), analysis->breakdown.rows.size());
    model::OpFilter firstHalf;
    firstHalf.rangeBegin = p.spanBegin;
    firstHalf.rangeEnd = p.spanBegin + (p.spanEnd - p.spanBegin) / 2;
    const model::OpBreakdown half = analysis->breakdownFor(firstHalf);
    EXPECT_EQ(model::opBreakdownComputations(), before + 1);
    EXPECT_LT(half.totalTimePs, whole.totalTimePs);

    // The diff from both analyses equals computeDiff.
    const model::ProfileDiff direct = model::computeDiff(load.profile, load.profile);
    const model::ProfileDiff fromAnalyses = analysis->diffAgainst(*analysis);
    EXPECT_EQ(fromAnalyses.rows.size(), direct.rows.size());
    EXPECT_EQ(fromAnalyses.matched, direct.matched);
    EXPECT_DOUBLE_EQ(fromAnalyses.a.totalOpTimePs, direct.a.totalOpTimePs);

    // The memory view comes from the same pass, and equals analyzeMemory; the advice read it (the
    // demo's batch advice names the HBM peak of that view).
    const model::MemoryReport directMemory = model::analyzeMemory(p);
    ASSERT_EQ(analysis->memory.modules.size(), directMemory.modules.size());
    ASSERT_FALSE(directMemory.modules.empty());
    EXPECT_EQ(analysis->memory.modules.front().peakHeapBytes, directMemory.modules.front().peakHeapBytes);
    EXPECT_EQ(analysis->memory.hbmCapacityBytes, directMemory.hbmCapacityBytes);

    // So do the roofline points the chart plots.
    const model::Roofline roofline = model::computeRoofline(p, model::computeOpBreakdown(p));
    ASSERT_EQ(analysis->roofline.points.size(), roofline.points.size());
    ASSERT_FALSE(roofline.points.empty());
    EXPECT_DOUBLE_EQ(analysis->roofline.points.front().intensity, roofline.points.front().intensity);
}

TEST(TraceSession, CompareIsASessionJob)
{
    if (!QFile::exists(v6ePath()))
        GTEST_SKIP() << "sample missing: " << v6ePath().toStdString();
    TraceSession session;
    QSignalSpy loaded(&session, &TraceSession::loaded);
    QSignalSpy ready(&session, &TraceSession::comparisonReady);
    QSignalSpy failed(&session, &TraceSession::comparisonFailed);
    session.compare(v6ePath()); // nothing shown: nothing to compare with
    session.open(demoPath());
    ASSERT_TRUE(loaded.wait(30000));
    EXPECT_EQ(ready.count() + failed.count(), 0);

    // The after profile's breakdown is computed once; the shown profile's is not computed again.
    const uint64_t before = model::opBreakdownComputations();
    session.compare(v6ePath());
    ASSERT_TRUE(ready.wait(60000));
    EXPECT_EQ(model::opBreakdownComputations() - before, 1u);
    const auto diff = ready.last().at(0).value<std::shared_ptr<const model::ProfileDiff>>();
    ASSERT_TRUE(diff);
    EXPECT_GT(diff->added + diff->removed, 0u);
    EXPECT_TRUE(ready.last().at(1).toString().endsWith(QStringLiteral("demo.xplane.pb")));
    EXPECT_TRUE(ready.last().at(2).toString().endsWith(QStringLiteral("tpu_v6e_inference.xplane.pb")));
    {
        qt::DiffModel model; // the Compare dock's model over that diff
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setDiff(diff);
        EXPECT_EQ(model.rowCount(), static_cast<int>(diff->rows.size()));
        model.setDiff(nullptr);
        EXPECT_EQ(model.rowCount(), 0);
    }

    // A missing file fails with a message; a newer compare supersedes an older one.
    session.compare(QStringLiteral("/nonexistent/after.xplane.pb"));
    ASSERT_TRUE(failed.wait(30000));
    EXPECT_FALSE(failed.last().at(1).toString().isEmpty());
    ready.clear();
    failed.clear();
    session.compare(QStringLiteral("/nonexistent/after.xplane.pb"));
    session.compare(v6ePath());
    ASSERT_TRUE(ready.wait(60000));
    QSignalSpy(&session, &TraceSession::comparisonFailed).wait(300);
    EXPECT_EQ(failed.count(), 0);

    // A comparison that finishes after another profile is shown is dropped.
    ready.clear();
    session.compare(v6ePath());
    session.close();
    QSignalSpy(&session, &TraceSession::comparisonReady).wait(3000);
    EXPECT_EQ(ready.count(), 0);
}

TEST(TraceSession, LoadSupersedeCancelAndChooseDevice)
{
    TraceSession session;
    QSignalSpy started(&session, &TraceSession::loadStarted);
    QSignalSpy progress(&session, &TraceSession::progress);
    QSignalSpy loaded(&session, &TraceSession::loaded);
    QSignalSpy failed(&session, &TraceSession::loadFailed);
    QSignalSpy canceled(&session, &TraceSession::loadCanceled);
    QSignalSpy closed(&session, &TraceSession::closed);

    // open() returns at once; the profile and its analysis arrive through the event loop.
    session.open(demoPath());
    EXPECT_EQ(started.count(), 1);
    EXPECT_TRUE(session.isLoading());
    EXPECT_FALSE(session.analysis());
    ASSERT_TRUE(loaded.wait(30000));
    EXPECT_GE(progress.count(), 1);
    EXPECT_FALSE(session.isLoading());
    const model::ProfileAnalysisPtr first = session.analysis();
    ASSERT_TRUE(first);

    // A newer load supersedes a running one: only the newer result arrives.
    loaded.clear();
    session.open(QStringLiteral("/nonexistent/first.xplane.pb"));
    session.open(demoPath());
    ASSERT_TRUE(loaded.wait(30000));
    QSignalSpy(&session, &TraceSession::loaded).wait(300);
    EXPECT_EQ(loaded.count(), 1);
    EXPECT_EQ(failed.count(), 0);
    EXPECT_NE(session.analysis(), first);

    // A cancelled load keeps what is shown.
    const model::ProfileAnalysisPtr shown = session.analysis();
    loaded.clear();
    session.open(demoPath());
    session.cancel();
    EXPECT_EQ(canceled.count(), 1);
    QSignalSpy(&session, &TraceSession::loaded).wait(1000);
    EXPECT_EQ(loaded.count(), 0);
    EXPECT_EQ(session.analysis(), shown);

    // A device that contradicts the one the file records (the demo names TPU v3) is refused, in a job
    // that does not read the file again: the file's peaks stay, and the profile says why.
    started.clear();
    session.chooseDevice(QStringLiteral("v5e"));
    ASSERT_TRUE(loaded.wait(30000));
    EXPECT_EQ(started.count(), 0);
    EXPECT_EQ(session.chosenDevice(), QStringLiteral("v5e"));
    ASSERT_TRUE(session.analysis());
    EXPECT_NE(session.analysis(), shown);
    EXPECT_EQ(session.profile()->device.peakTflopsPerCore, shown->profile->device.peakTflopsPerCore);
    EXPECT_NE(session.profile()->load.deviceRefusal.find("TPU v3"), std::string::npos)
        << session.profile()->load.deviceRefusal;

    session.close();
    EXPECT_EQ(closed.count(), 1);
    EXPECT_FALSE(session.profile());
    EXPECT_FALSE(session.analysis());
}

// The overview's core and program pickers: the steps come from a session job (ProfileAnalysis::stepsFor),
// equal to computeSteps with the same options; the default needs no computation at all; a newer
// request supersedes an older one.
TEST(TraceSession, StepsForACoreOrProgramAreASessionJob)
{
    TraceSession session;
    QSignalSpy loaded(&session, &TraceSession::loaded);
    session.open(demoPath());
    ASSERT_TRUE(loaded.wait(30000));
    const model::ProfileAnalysisPtr analysis = session.analysis();
    ASSERT_TRUE(analysis);
    EXPECT_EQ(analysis->stepsFor({}).steps.size(), analysis->steps.steps.size());

    QObject receiver;
    std::vector<std::shared_ptr<const model::StepAnalysis>> delivered;
    const Qt::HANDLE guiThread = QThread::currentThreadId();
    bool onGuiThread = true;
    auto collect = [&](std::shared_ptr<const model::StepAnalysis> steps) {
        onGuiThread = onGuiThread && QThread::currentThreadId() == guiThread;
        delivered.push_back(std::move(steps));
    };
    model::StepOptions first;
    first.core = 1;
    model::StepOptions second;
    second.core = 3;
    session.requestSteps(first, &receiver, collect);
    session.requestSteps(second, &receiver, collect); // supersedes the first
    ASSERT_TRUE(QTest::qWaitFor([&] { return !delivered.empty(); }, 30'000));
    tpuscope::test::finishJobs(session); // both jobs are done: a superseded result would be in now
    ASSERT_EQ(delivered.size(), 1u);
    EXPECT_TRUE(onGuiThread);
    const model::StepAnalysis expected = model::computeSteps(*analysis->profile, second);
    EXPECT_EQ(delivered[0]->core, 3);
    ASSERT_EQ(delivered[0]->steps.size(), expected.steps.size());
    for (size_t i = 0; i < expected.steps.size(); ++i)
        EXPECT_EQ(delivered[0]->steps[i].endPs - delivered[0]->steps[i].startPs,
            expected.steps[i].endPs - expected.steps[i].startPs);
}
