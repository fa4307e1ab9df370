// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The loaders' parallel loop: the XSpace decoder runs its plane passes with it and a log dir
// decodes its hosts with it, on the process's one WorkerPool (jobpool.h), which TraceSession's
// jobs share. Plain C++ (no Qt), so the CLI and the tests share it.

#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

namespace tpuscope::model {

/// Runs work(i) for every item on up to `threads` threads of the shared WorkerPool, biggest items
/// first (by `weight`; equal weights keep their order), and returns when all are done. poll() is
/// called on the calling thread only (so callbacks need not be thread-safe): about every
/// `pollInterval` while it waits, and after each item it works on itself. The caller works on
/// items when it is a pool worker itself (a nested loop never waits for a worker it holds) or
/// when no pool worker has started within an interval. The first exception of an item is
/// rethrown once no item runs (the others stop after their current item). threads <= 1 or one
/// item runs the items inline, calling poll() after each.
void parallelFor(const std::vector<size_t>& weight, unsigned threads, const std::function<void(size_t)>& work,
    const std::function<void()>& poll, std::chrono::milliseconds pollInterval = std::chrono::milliseconds(20));

} // namespace tpuscope::model
