// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one worker pool of the loaders: the XSpace decoder runs its plane passes on it and a log
// dir decodes its hosts on it. Plain C++ (no Qt), so the CLI and the tests share it.

#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

namespace tpuscope::model {

/// Runs work(i) for every item on up to `threads` workers, biggest items first (by `weight`;
/// equal weights keep their order). The calling thread does not work: it calls poll() about
/// every `pollInterval` (so progress is reported from the caller only and callbacks need not be
/// thread-safe) and, once every worker is done, rethrows the first worker exception (the other
/// workers stop after their current item). threads <= 1, one item, or no thread to be had
/// (resource limits) runs the items inline, calling poll() after each.
void parallelFor(const std::vector<size_t>& weight, unsigned threads, const std::function<void(size_t)>& work,
    const std::function<void()>& poll, std::chrono::milliseconds pollInterval = std::chrono::milliseconds(20));

} // namespace tpuscope::model
