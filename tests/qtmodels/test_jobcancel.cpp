// SPDX-License-Identifier: GPL-3.0-or-later
// A superseded request stops early: proven with StopCheck's probe (a gate the first job blocks
// on, and the iterations each job reached), never with a sleep.
#include "analysis/utilization.h"
#include "core/jobpool.h"
#include "core/stopcheck.h"
#include "qt/tracesession.h"

#include <QCoreApplication>
#include <QFile>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <vector>

using namespace tpuscope;
using tpuscope::qt::TraceSession;

namespace {

// The demo has too few events for several checks; a real inference profile has many.
QString samplePath()
{
    return QStringLiteral(TPUSCOPE_SAMPLES_DIR "/tpu_v6e_inference.xplane.pb");
}

// The probe is a plain function pointer: its state lives here.
std::latch* g_firstJobInLoop = nullptr;
std::latch* g_releaseFirstJob = nullptr;
std::atomic_bool g_heldFirst {false};
std::atomic<uint64_t> g_stoppedAt {0};
std::atomic<uint64_t> g_unstoppedMax {0};

void holdFirstJobProbe(uint64_t iterations, bool stopRequested)
{
    if (!g_heldFirst.exchange(true)) {
        g_firstJobInLoop->count_down();
        g_releaseFirstJob->wait(); // the test supersedes this job, then lets it go on
        return;
    }
    if (stopRequested) {
        g_stoppedAt.store(iterations);
        return;
    }
    uint64_t seen = g_unstoppedMax.load();
    while (seen < iterations && !g_unstoppedMax.compare_exchange_weak(seen, iterations)) { }
}

} // namespace

TEST(JobPool, RunsJobsFirstInFirstOutOnBoundedWorkers)
{
    model::JobPool pool(1);
    EXPECT_EQ(pool.workerCount(), 1u);
    EXPECT_LE(model::JobPool(1000).workerCount(), model::JobPool::maxWorkers());
    std::vector<int> order;
    std::latch gate(1);
    pool.submit([&](std::stop_token) { gate.wait(); });
    for (int i = 0; i < 5; ++i)
        pool.submit([&order, i](std::stop_token) { order.push_back(i); });
    std::stop_source stopped;
    stopped.request_stop();
    pool.submit([&order](std::stop_token) { order.push_back(99); }, stopped.get_token()); // dropped
    gate.count_down();
    pool.waitIdle();
    EXPECT_EQ(order, (std::vector<int> {0, 1, 2, 3, 4}));
}

TEST(JobPool, ShutdownStopsARunningJob)
{
    auto pool = std::make_unique<model::JobPool>(1);
    std::latch running(1);
    std::atomic_bool sawStop {false};
    pool->submit([&](std::stop_token stop) {
        running.count_down();
        while (!stop.stop_requested())
            std::this_thread::yield();
        sawStop = true;
    });
    running.wait();
    pool.reset(); // would hang if the job never saw its token
    EXPECT_TRUE(sawStop);
}

TEST(TraceSession, SupersededUtilizationStopsEarlyAndIsNeverDelivered)
{
    if (!QFile::exists(samplePath()))
        GTEST_SKIP() << "sample not found: " << samplePath().toStdString();
    TraceSession session;
    QSignalSpy loaded(&session, &TraceSession::loaded);
    session.open(samplePath());
    ASSERT_TRUE(loaded.wait(120000));
    const model::UtilizationSeries full = model::computeUtilization(*session.profile());
    ASSERT_GT(full.eventsVisited, 4 * model::StopCheck::kInterval) << "the sample is too small to show an early stop";

    std::latch firstJobInLoop(1), releaseFirstJob(1);
    g_firstJobInLoop = &firstJobInLoop;
    g_releaseFirstJob = &releaseFirstJob;
    g_heldFirst = false;
    g_stoppedAt = 0;
    g_unstoppedMax = 0;
    model::StopCheck::setProbe(holdFirstJobProbe);

    QObject receiver;
    std::vector<int> deliveredRequests;
    std::vector<uint64_t> deliveredEvents;
    session.requestUtilization({}, &receiver, [&](const model::UtilizationSeries& series) {
        deliveredRequests.push_back(1);
        deliveredEvents.push_back(series.eventsVisited);
    });
    firstJobInLoop.wait(); // the first job is inside its event loop, held by the probe
    session.requestUtilization({}, &receiver, [&](const model::UtilizationSeries& series) {
        deliveredRequests.push_back(2);
        deliveredEvents.push_back(series.eventsVisited);
    });
    releaseFirstJob.count_down(); // it now sees its stop at its next check

    session.waitForJobs(); // both jobs have returned
    model::StopCheck::setProbe(nullptr);
    QCoreApplication::processEvents(); // deliver what they queued
    QCoreApplication::processEvents();

    // The superseded job stopped at the check after the one it was held at; the newer one ran
    // through every event.
    EXPECT_EQ(g_stoppedAt.load(), 2 * model::StopCheck::kInterval);
    EXPECT_LT(g_stoppedAt.load(), g_unstoppedMax.load());
    EXPECT_GE(g_unstoppedMax.load() + model::StopCheck::kInterval, full.eventsVisited);
    ASSERT_EQ(deliveredRequests, std::vector<int> {2});
    EXPECT_EQ(deliveredEvents[0], full.eventsVisited);
}
