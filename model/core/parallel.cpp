// SPDX-License-Identifier: GPL-3.0-or-later
#include "parallel.h"

#include "jobpool.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>

namespace tpuscope::model {

namespace {

/// What the caller and the tasks it posted share. The tasks hold it by shared_ptr: one that
/// starts after every item was claimed (the caller may have returned by then) touches nothing
/// else, and `work`, which lives on the caller's stack, is only called for a claimed item.
struct ParallelItems
{
    std::vector<size_t> order; // item indices, biggest first
    const std::function<void(size_t)>* work = nullptr;
    std::mutex mutex;
    std::condition_variable changed;
    size_t next = 0; // the next position of `order` to claim
    size_t active = 0; // claimed items not finished yet
    unsigned helpersStarted = 0;
    std::exception_ptr failure;

    /// Claims the next item; false when none is left (or an item failed).
    bool claim(size_t& item)
    {
        std::lock_guard lock(mutex);
        if (next >= order.size())
            return false;
        item = order[next++];
        ++active;
        return true;
    }
    void runClaimed(size_t item)
    {
        try {
            (*work)(item);
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!failure)
                failure = std::current_exception();
            next = order.size(); // the others stop after their current item
        }
        {
            std::lock_guard lock(mutex);
            --active;
        }
        changed.notify_all();
    }
    bool finished() const { return next >= order.size() && active == 0; } // under the mutex
};

} // namespace

void parallelFor(const std::vector<size_t>& weight, unsigned threads, const std::function<void(size_t)>& work,
    const std::function<void()>& poll, std::chrono::milliseconds pollInterval)
{
    auto items = std::make_shared<ParallelItems>();
    items->order.resize(weight.size());
    for (size_t i = 0; i < items->order.size(); ++i)
        items->order[i] = i;
    std::stable_sort(
        items->order.begin(), items->order.end(), [&](size_t a, size_t b) { return weight[a] > weight[b]; });
    const unsigned workers = static_cast<unsigned>(std::min<size_t>(threads, items->order.size()));
    if (workers <= 1) {
        for (size_t i : items->order) {
            work(i);
            poll();
        }
        return;
    }
    items->work = &work;

    // The helpers run on the shared WorkerPool. A caller that is itself one of its workers (a
    // TraceSession load, a log-dir host decoding its planes) takes items too: waiting there
    // would hold a worker idle, and with every worker waiting so the helpers queued behind them
    // would never start. It polls between its items, so progress comes item by item then.
    const bool callerHelps = WorkerPool::onWorkerThread();
    const unsigned helpers = workers - (callerHelps ? 1 : 0);
    for (unsigned h = 0; h < helpers; ++h)
        WorkerPool::shared().post([items] {
            {
                std::lock_guard lock(items->mutex);
                ++items->helpersStarted;
            }
            for (size_t item; items->claim(item);)
                items->runClaimed(item);
        });
    if (callerHelps) {
        for (size_t item; items->claim(item);) {
            items->runClaimed(item);
            poll();
        }
    }
    std::unique_lock lock(items->mutex);
    while (!items->finished()) {
        items->changed.wait_for(lock, pollInterval);
        const bool starved = items->helpersStarted == 0 && items->next < items->order.size();
        lock.unlock();
        poll();
        // Every worker busy with other jobs for a whole interval: do an item here rather than wait.
        if (size_t item; starved && items->claim(item))
            items->runClaimed(item);
        lock.lock();
    }
    if (items->failure)
        std::rethrow_exception(items->failure);
}

} // namespace tpuscope::model
