// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnostics.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace tpuscope::model {
namespace {

std::atomic<size_t> g_checkFailures {0};

std::mutex& sinkMutex()
{
    static std::mutex m;
    return m;
}

LogSink& installedSink()
{
    static LogSink sink;
    return sink;
}

const char* levelName(LogLevel level)
{
    switch (level) {
    case LogLevel::Debug:
        return "debug";
    case LogLevel::Info:
        return "info";
    case LogLevel::Warning:
        return "warning";
    case LogLevel::Error:
        return "error";
    }
    return "?";
}

// The default keeps the CLI's output what its users and scripts expect: only errors (a failed
// check among them) reach stderr; the CLI reports warnings about a file itself.
void defaultSink(LogLevel level, std::string_view area, std::string_view message)
{
    if (level != LogLevel::Error)
        return;
    std::fprintf(stderr, "tpuscope: %s [%.*s]: %.*s\n", levelName(level), int(area.size()), area.data(),
        int(message.size()), message.data());
}

} // namespace

LogSink setLogSink(LogSink sink)
{
    std::lock_guard lock(sinkMutex());
    LogSink previous = std::move(installedSink());
    installedSink() = std::move(sink);
    return previous;
}

void logMessage(LogLevel level, std::string_view area, std::string_view message)
{
    LogSink sink;
    {
        std::lock_guard lock(sinkMutex());
        sink = installedSink();
    }
    if (sink)
        sink(level, area, message);
    else
        defaultSink(level, area, message);
}

size_t internalCheckFailures()
{
    return g_checkFailures.load(std::memory_order_relaxed);
}

void reportCheckFailure(const char* condition, const char* file, int line, const char* function)
{
    g_checkFailures.fetch_add(1, std::memory_order_relaxed);
    logMessage(LogLevel::Error, "check",
        std::string("internal check failed: ") + condition + " in " + function + " (" + file + ":"
            + std::to_string(line) + ")");
#ifndef NDEBUG
    std::abort();
#endif
}

} // namespace tpuscope::model
