// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The core's two instruments: a logging hook and an internal check.
//
// The core has no Qt and no logging library, so it logs through one hook: the GUI installs a sink
// that forwards to its Q_LOGGING_CATEGORYs (model/qt/logging.h), the CLI keeps the default (errors
// and failed checks on stderr, nothing else), tests install one that fails the test on a failed
// check (tests/model/checkfailures.cpp).
//
// TPUSCOPE_CHECK(condition) is for what our own code guarantees, never for what a file may say
// (bad input gets an error message, not a check). It evaluates to the condition, so the guard
// that recovers stays next to it:
//     if (!TPUSCOPE_CHECK(op < profile.ops.size()))
//         return {};
// A failed check is logged with its place and counted. Debug builds (no NDEBUG) then abort, so a
// developer sees the bug at once; release builds recover through the guard, so a user keeps
// working and the log says what went wrong.

#include <cstddef>
#include <functional>
#include <string_view>

namespace tpuscope::model {

enum class LogLevel { Debug, Info, Warning, Error };

/// Where the core's messages go. `area` is a short dotted name ("loader", "analysis.steps").
using LogSink = std::function<void(LogLevel level, std::string_view area, std::string_view message)>;

/// Installs `sink` (an empty one restores the default) and returns the one it replaces. Set it
/// once at start-up, before any job runs: messages from worker threads go to the sink installed then.
LogSink setLogSink(LogSink sink);

void logMessage(LogLevel level, std::string_view area, std::string_view message);

/// Failed TPUSCOPE_CHECKs since the program started (any thread).
size_t internalCheckFailures();

/// Logs the failed check as an Error in area "check" and counts it; aborts in debug builds.
[[gnu::cold]] void reportCheckFailure(const char* condition, const char* file, int line, const char* function);

} // namespace tpuscope::model

#define TPUSCOPE_CHECK(condition)                                                                                      \
    (static_cast<bool>(condition)                                                                                      \
            ? true                                                                                                     \
            : (::tpuscope::model::reportCheckFailure(#condition, __FILE__, __LINE__, __func__), false))
