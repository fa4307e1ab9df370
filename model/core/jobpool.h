// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

namespace tpuscope::model {

/// A small bounded pool of worker threads that runs jobs first in, first out.
///
/// Each job gets a std::stop_token that fires when the token it was submitted with fires, or when
/// the pool shuts down; a job is expected to check it and return early. A job whose token fired
/// before a worker took it is dropped without running.
///
/// Nested parallelism: the loaders (logdir.cpp's host decoding, xspaceloader.cpp's parallelFor)
/// run inside a pool job and start their own short-lived threads, bounded by
/// hardware_concurrency as well. They never wait for a pool worker, so a pool job that calls them
/// cannot deadlock however many pool workers are busy: the two are separate bounded sets. (Making
/// parallelFor borrow pool workers would need caller-helps scheduling to stay deadlock-free while
/// every worker is itself inside a parallelFor; separate sets keep both simple.)
class JobPool
{
public:
    /// `workers` = 0 uses std::thread::hardware_concurrency(); never more than that, at least 1.
    explicit JobPool(unsigned workers = 0);
    /// Requests stop on every job, drops the queued ones and joins the workers.
    ~JobPool();
    JobPool(const JobPool&) = delete;
    JobPool& operator=(const JobPool&) = delete;

    using Job = std::function<void(std::stop_token)>;
    /// Queues `job`; it runs on a worker once the jobs queued before it were taken.
    void submit(Job job, std::stop_token stop = {});
    /// Blocks until no job is queued or running (tests; a job must not call it).
    void waitIdle();
    /// Requests stop on running jobs, drops the queued ones and joins the workers; later
    /// submits are dropped. Idempotent.
    void shutdown();

    unsigned workerCount() const { return static_cast<unsigned>(m_workers.size()); }
    /// The most workers a pool has on this machine.
    static unsigned maxWorkers();

private:
    struct Entry
    {
        Job job;
        std::stop_token stop;
    };
    void run(std::stop_token poolStop);

    std::mutex m_mutex;
    std::condition_variable_any m_wake;
    std::condition_variable m_idle;
    std::deque<Entry> m_queue;
    size_t m_running = 0;
    bool m_shutDown = false;
    std::vector<std::jthread> m_workers;
};

} // namespace tpuscope::model
