// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

namespace tpuscope::model {

/// The process's one bounded set of worker threads (hardware_concurrency of them, started on
/// first use). Everything that runs in parallel runs here: TraceSession's jobs (through a
/// JobPool, below) and the loaders' parallelFor (XSpace planes, log-dir hosts), so nesting them
/// never multiplies threads: a log dir of 64 hosts of 8 planes decodes on these workers, not on
/// 64 × 8 threads.
///
/// Tasks run first in, first out. A task that waits for other tasks of this pool must help
/// instead of blocking (parallelFor does: a caller on a worker takes items itself), or every
/// worker could end up waiting for a task queued behind it.
class WorkerPool
{
public:
    /// The pool every caller shares.
    static WorkerPool& shared();
    explicit WorkerPool(unsigned workers);
    /// Joins the workers after the queued tasks ran.
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    void post(std::function<void()> task);
    unsigned size() const { return static_cast<unsigned>(m_workers.size()); }
    /// True on a thread of any WorkerPool (a caller that would otherwise block a worker helps).
    static bool onWorkerThread();

private:
    void run();

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_tasks;
    bool m_stopping = false;
    std::vector<std::thread> m_workers;
};

/// A first-in, first-out queue of cancellable jobs with a concurrency bound of its own, run on
/// the shared WorkerPool (TraceSession has one).
///
/// Each job gets a std::stop_token that fires when the token it was submitted with fires, or when
/// the queue shuts down; a job is expected to check it and return early. A job whose token fired
/// before it started is dropped without running.
class JobPool
{
public:
    /// At most `workers` jobs of this queue run at once; 0 = maxWorkers(); never more than that,
    /// at least 1.
    explicit JobPool(unsigned workers = 0);
    /// Shuts down (see shutdown()).
    ~JobPool();
    JobPool(const JobPool&) = delete;
    JobPool& operator=(const JobPool&) = delete;

    using Job = std::function<void(std::stop_token)>;
    /// Queues `job`; it starts once the jobs queued before it have started and a slot is free.
    void submit(Job job, std::stop_token stop = {});
    /// Blocks until none of this queue's jobs is queued or running (tests; a job must not call it).
    void waitIdle();
    /// Requests stop on the running jobs, drops the queued ones and waits until the running ones
    /// have returned; later submits are dropped. Idempotent. A job must not call it.
    void shutdown();

    unsigned workerCount() const { return m_limit; }
    /// The size of the shared WorkerPool: the most jobs that can run at once on this machine.
    static unsigned maxWorkers();

private:
    struct State;
    static void dispatch(const std::shared_ptr<State>& state, std::unique_lock<std::mutex>& lock);
    static void runOne(const std::shared_ptr<State>& state);

    unsigned m_limit = 1;
    std::shared_ptr<State> m_state; // shared with the tasks posted for it, which may outlive us
};

} // namespace tpuscope::model
