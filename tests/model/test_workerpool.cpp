// SPDX-License-Identifier: GPL-3.0-or-later
// One bounded set of workers for everything that runs in parallel: TraceSession's jobs (a
// JobPool queue) and the loaders' parallelFor share model::WorkerPool, so nesting them (a log
// dir's hosts, each decoding its planes, inside a load job) never multiplies threads and never
// waits for a worker it holds. Proven with gates and counters, never with a clock.
#include "core/jobpool.h"
#include "core/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <latch>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace tpuscope::model;

namespace {

/// Counts the items running at once and keeps the most seen.
class Concurrency
{
public:
    void enter()
    {
        const int now = ++m_now;
        int seen = m_most.load();
        while (seen < now && !m_most.compare_exchange_weak(seen, now)) { }
    }
    void leave() { --m_now; }
    int most() const { return m_most.load(); }

private:
    std::atomic<int> m_now {0};
    std::atomic<int> m_most {0};
};

/// Work long enough that items of several threads overlap: yields, no clock.
void busyWork()
{
    for (int i = 0; i < 200; ++i)
        std::this_thread::yield();
}

} // namespace

TEST(WorkerPool, JobsAndTheLoopsInsideThemRunOnTheSharedWorkers)
{
    JobPool jobs;
    EXPECT_EQ(JobPool::maxWorkers(), WorkerPool::shared().size());
    std::mutex mutex;
    std::set<std::thread::id> threads;
    std::atomic<int> itemsOffWorkers {0};
    for (int job = 0; job < 4; ++job)
        jobs.submit([&](std::stop_token) {
            parallelFor(
                std::vector<size_t>(8, 1), 8,
                [&](size_t) {
                    if (!WorkerPool::onWorkerThread())
                        ++itemsOffWorkers;
                    std::lock_guard lock(mutex);
                    threads.insert(std::this_thread::get_id());
                },
                [] {});
        });
    jobs.waitIdle();
    EXPECT_EQ(itemsOffWorkers.load(), 0) << "a loop inside a job ran an item on a thread of its own";
    EXPECT_LE(threads.size(), WorkerPool::shared().size());
}

TEST(WorkerPool, ALoopInsideEveryBusyWorkerStillFinishes)
{
    // Every worker holds a job that runs a loop: the helpers those loops post queue behind the
    // jobs themselves, so each caller must do its items (before, each loop started threads of
    // its own; a loop that only waited for pool helpers would hang here).
    const unsigned workers = JobPool::maxWorkers();
    JobPool jobs(workers);
    std::latch allRunning(workers);
    std::atomic<size_t> items {0};
    for (unsigned job = 0; job < workers; ++job)
        jobs.submit([&](std::stop_token) {
            allRunning.arrive_and_wait(); // every worker is now inside a job
            parallelFor(
                std::vector<size_t>(16, 1), 16, [&](size_t) { ++items; }, [] {});
        });
    jobs.waitIdle();
    EXPECT_EQ(items.load(), 16u * workers);
}

TEST(WorkerPool, NestedLoopsNeverRunMoreItemsAtOnceThanThereAreWorkers)
{
    // A log dir: hosts in parallel, each decoding its planes in parallel. With a thread set per
    // loop (as before), 6 hosts × 6 planes could run up to 36 items at once on any machine.
    Concurrency planes;
    std::atomic<size_t> done {0};
    parallelFor(
        std::vector<size_t>(6, 1), 6,
        [&](size_t) {
            parallelFor(
                std::vector<size_t>(6, 1), 6,
                [&](size_t) {
                    planes.enter();
                    busyWork();
                    planes.leave();
                    ++done;
                },
                [] {});
        },
        [] {});
    EXPECT_EQ(done.load(), 36u);
    // The calling thread (not a worker) only waits while the workers have items.
    EXPECT_LE(planes.most(), static_cast<int>(WorkerPool::shared().size()) + 1);
}

TEST(WorkerPool, AFailedItemIsRethrownToTheCaller)
{
    std::atomic<int> ran {0};
    auto loop = [&] {
        parallelFor(
            std::vector<size_t>(64, 1), 4,
            [&](size_t i) {
                ++ran;
                if (i == 3)
                    throw std::runtime_error("item 3");
            },
            [] {});
    };
    EXPECT_THROW(loop(), std::runtime_error);
    // From inside a job too: the caller works on items there.
    JobPool jobs;
    std::atomic_bool caught {false};
    jobs.submit([&](std::stop_token) {
        try {
            loop();
        } catch (const std::runtime_error&) {
            caught = true;
        }
    });
    jobs.waitIdle();
    EXPECT_TRUE(caught.load());
}

TEST(WorkerPool, AShutDownQueueWaitsForItsRunningJobAndDropsTheRest)
{
    auto jobs = std::make_unique<JobPool>(1);
    std::latch running(1);
    std::atomic<int> ranAfter {0};
    jobs->submit([&](std::stop_token stop) {
        running.count_down();
        while (!stop.stop_requested())
            std::this_thread::yield();
    });
    for (int i = 0; i < 3; ++i)
        jobs->submit([&](std::stop_token) { ++ranAfter; });
    running.wait();
    jobs.reset(); // returns once the running job saw its token; the queued ones never start
    EXPECT_EQ(ranAfter.load(), 0);
    // The shared workers serve the next queue as before.
    JobPool next;
    std::atomic_bool ran {false};
    next.submit([&](std::stop_token) { ran = true; });
    next.waitIdle();
    EXPECT_TRUE(ran.load());
}
