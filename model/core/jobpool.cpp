// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobpool.h"

#include <algorithm>
#include <system_error>
#include <utility>

namespace tpuscope::model {

namespace {

thread_local bool t_onWorker = false;

} // namespace

// ---------------------------------------------------------------------------------------------
// WorkerPool

WorkerPool& WorkerPool::shared()
{
    static WorkerPool pool(std::max(1u, std::thread::hardware_concurrency()));
    return pool;
}

WorkerPool::WorkerPool(unsigned workers)
{
    m_workers.reserve(std::max(1u, workers));
    for (unsigned i = 0; i < std::max(1u, workers); ++i) {
        try {
            m_workers.emplace_back([this] { run(); });
        } catch (const std::system_error&) {
            break; // no more threads to be had (resource limits): the ones started serve
        }
    }
}

WorkerPool::~WorkerPool()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    for (std::thread& worker : m_workers)
        worker.join();
}

bool WorkerPool::onWorkerThread()
{
    return t_onWorker;
}

void WorkerPool::post(std::function<void()> task)
{
    if (m_workers.empty()) {
        task(); // not a single thread could be started: run where we are
        return;
    }
    {
        std::lock_guard lock(m_mutex);
        m_tasks.push_back(std::move(task));
    }
    m_wake.notify_one();
}

void WorkerPool::run()
{
    t_onWorker = true;
    for (;;) {
        std::function<void()> task;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_tasks.empty(); });
            if (m_tasks.empty())
                return; // stopping, and every queued task ran
            task = std::move(m_tasks.front());
            m_tasks.pop_front();
        }
        task();
    }
}

// ---------------------------------------------------------------------------------------------
// JobPool: a queue whose jobs run on the shared workers

struct JobPool::State
{
    struct Entry
    {
        Job job;
        std::stop_token stop;
    };
    explicit State(unsigned limit)
        : limit(limit)
    {
    }

    const unsigned limit;
    std::mutex mutex;
    std::condition_variable idle;
    std::deque<Entry> queue;
    size_t running = 0; // jobs started and not yet returned
    size_t posted = 0; // tasks posted to the workers that have not taken an entry yet
    bool shutDown = false;
    std::stop_source shutdownStop; // reaches the running jobs through their combined token
};

unsigned JobPool::maxWorkers()
{
    return WorkerPool::shared().size();
}

JobPool::JobPool(unsigned workers)
    : m_limit(workers == 0 ? maxWorkers() : std::clamp(workers, 1u, maxWorkers()))
    , m_state(std::make_shared<State>(m_limit))
{
}

JobPool::~JobPool()
{
    shutdown();
}

void JobPool::dispatch(const std::shared_ptr<State>& state, std::unique_lock<std::mutex>& lock)
{
    // One task per job that may start now; each takes the queue's front when it runs, so jobs
    // start in submission order whichever worker gets to them.
    size_t toPost = 0;
    while (!state->shutDown && state->running + state->posted < state->limit && state->posted < state->queue.size()) {
        ++state->posted;
        ++toPost;
    }
    lock.unlock();
    for (size_t i = 0; i < toPost; ++i)
        WorkerPool::shared().post([state] { runOne(state); });
    lock.lock();
}

void JobPool::runOne(const std::shared_ptr<State>& state)
{
    State::Entry entry;
    {
        std::lock_guard lock(state->mutex);
        --state->posted;
        if (state->shutDown || state->queue.empty()) {
            state->idle.notify_all();
            return;
        }
        entry = std::move(state->queue.front());
        state->queue.pop_front();
        ++state->running;
    }
    if (!entry.stop.stop_requested()) {
        // The job stops with the token it was submitted with or with the queue.
        std::stop_source combined;
        std::stop_callback forwardJob(entry.stop, [&combined] { combined.request_stop(); });
        std::stop_callback forwardShutdown(state->shutdownStop.get_token(), [&combined] { combined.request_stop(); });
        entry.job(combined.get_token());
    }
    entry = {}; // the job's captures die on the worker, before the queue counts it done
    std::unique_lock lock(state->mutex);
    --state->running;
    dispatch(state, lock);
    state->idle.notify_all();
}

void JobPool::submit(Job job, std::stop_token stop)
{
    std::unique_lock lock(m_state->mutex);
    if (m_state->shutDown)
        return;
    m_state->queue.push_back({std::move(job), std::move(stop)});
    dispatch(m_state, lock);
}

void JobPool::waitIdle()
{
    std::unique_lock lock(m_state->mutex);
    m_state->idle.wait(lock, [this] { return m_state->shutDown || (m_state->queue.empty() && m_state->running == 0); });
}

void JobPool::shutdown()
{
    std::deque<State::Entry> dropped; // destroyed outside the lock: their captures may be large
    bool first = false;
    {
        std::lock_guard lock(m_state->mutex);
        first = !std::exchange(m_state->shutDown, true);
        dropped.swap(m_state->queue);
    }
    // Outside the lock: a job's own stop callbacks run here, synchronously.
    if (first)
        m_state->shutdownStop.request_stop();
    dropped.clear();
    // The jobs capture what their owner holds (TraceSession's `this`): wait until they returned.
    // Tasks still posted find the queue shut down and return at once without touching a job.
    std::unique_lock lock(m_state->mutex);
    m_state->idle.notify_all();
    m_state->idle.wait(lock, [this] { return m_state->running == 0; });
}

} // namespace tpuscope::model
