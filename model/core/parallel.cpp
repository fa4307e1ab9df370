// SPDX-License-Identifier: GPL-3.0-or-later
#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace tpuscope::model {

void parallelFor(const std::vector<size_t>& weight, unsigned threads, const std::function<void(size_t)>& work,
    const std::function<void()>& poll, std::chrono::milliseconds pollInterval)
{
    std::vector<size_t> order(weight.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight[a] > weight[b]; });
    const unsigned workers = static_cast<unsigned>(std::min<size_t>(threads, order.size()));
    if (workers <= 1) {
        for (size_t i : order) {
            work(i);
            poll();
        }
        return;
    }
    std::atomic<size_t> next {0};
    std::mutex mutex;
    std::condition_variable finished;
    unsigned running = workers;
    std::exception_ptr failure;
    std::vector<std::thread> pool;
    pool.reserve(workers);
    auto worker = [&] {
        try {
            for (size_t k; (k = next.fetch_add(1)) < order.size();)
                work(order[k]);
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!failure)
                failure = std::current_exception();
            next = order.size(); // the others stop after their current item
        }
        std::lock_guard lock(mutex);
        --running;
        finished.notify_one();
    };
    for (unsigned w = 0; w < workers; ++w) {
        try {
            pool.emplace_back(worker);
        } catch (const std::system_error&) {
            // No more threads (resource limits): the ones started take all the items.
            std::lock_guard lock(mutex);
            running -= workers - w;
            break;
        }
    }
    if (pool.empty()) {
        for (size_t i : order) {
            work(i);
            poll();
        }
        return;
    }
    {
        std::unique_lock lock(mutex);
        while (running > 0) {
            finished.wait_for(lock, pollInterval);
            lock.unlock();
            poll();
            lock.lock();
        }
    }
    for (auto& thread : pool)
        thread.join();
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace tpuscope::model
