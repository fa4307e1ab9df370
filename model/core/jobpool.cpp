// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobpool.h"

#include <algorithm>

namespace tpuscope::model {

unsigned JobPool::maxWorkers()
{
    return std::max(1u, std::thread::hardware_concurrency());
}

JobPool::JobPool(unsigned workers)
{
    const unsigned count = workers == 0 ? maxWorkers() : std::min(workers, maxWorkers());
    m_workers.reserve(count);
    for (unsigned i = 0; i < count; ++i)
        m_workers.emplace_back([this](std::stop_token poolStop) { run(poolStop); });
}

JobPool::~JobPool()
{
    shutdown();
}

void JobPool::shutdown()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_shutDown && m_workers.empty())
            return;
        m_shutDown = true;
        m_queue.clear();
    }
    for (std::jthread& worker : m_workers)
        worker.request_stop(); // reaches the running jobs through their combined token
    m_wake.notify_all();
    m_workers.clear(); // joins
    m_idle.notify_all();
}

void JobPool::submit(Job job, std::stop_token stop)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_shutDown)
            return;
        m_queue.push_back({std::move(job), std::move(stop)});
    }
    m_wake.notify_one();
}

void JobPool::waitIdle()
{
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [this] { return m_shutDown || (m_queue.empty() && m_running == 0); });
}

void JobPool::run(std::stop_token poolStop)
{
    for (;;) {
        Entry entry;
        {
            std::unique_lock lock(m_mutex);
            if (!m_wake.wait(lock, poolStop, [this] { return !m_queue.empty(); }))
                return; // shut down
            entry = std::move(m_queue.front());
            m_queue.pop_front();
            ++m_running;
        }
        if (!entry.stop.stop_requested()) {
            // The job stops with the token it was submitted with or with the pool.
            std::stop_source combined;
            std::stop_callback forwardJob(entry.stop, [&combined] { combined.request_stop(); });
            std::stop_callback forwardPool(poolStop, [&combined] { combined.request_stop(); });
            entry.job(combined.get_token());
        }
        entry = {}; // the job's captures die on the worker, before the pool counts it done
        {
            std::lock_guard lock(m_mutex);
            --m_running;
        }
        m_idle.notify_all();
    }
}

} // namespace tpuscope::model
