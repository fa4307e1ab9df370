// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli run as a user runs it, with its exit code, its output and its peak memory: the
// memory tests run it under `prlimit --as` and read its peak RSS from /usr/bin/time -f %M.
#pragma once

#include "clitool.h"
#include "robustnessinputs.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace tpuscope::test {

inline bool haveTools()
{
    return std::filesystem::exists(TPUSCOPE_CLI_PATH) && std::filesystem::exists("/usr/bin/time")
        && std::filesystem::exists("/usr/bin/prlimit");
}

#define REQUIRE_MEMORY_TOOLS()                                                                                         \
    if (!haveTools())                                                                                                  \
        GTEST_SKIP() << "needs tpuscope-cli, /usr/bin/time (Debian package time) and prlimit";                         \
    if (kSanitized)                                                                                                    \
    GTEST_SKIP() << "address-space limits and RSS bounds do not apply to a sanitizer build"

struct Measured
{
    int exitCode = -1;
    std::string output; // stdout and stderr
    long peakKb = -1;
};

/// Runs tpuscope-cli ARGS, under an address-space limit when `asBytes` > 0, with its peak RSS.
inline Measured runCli(const std::string& args, uint64_t asBytes = 0)
{
    const std::string timeFile = ::testing::TempDir() + "/tpuscope_time_" + std::to_string(::getpid());
    std::string command = "/usr/bin/time -f %M -o '" + timeFile + "' ";
    if (asBytes)
        command += "prlimit --as=" + std::to_string(asBytes) + " ";
    command += cli() + " " + args;
    const CommandResult r = runCommand(command, true);
    Measured m {r.exitCode, r.output, -1};
    const std::string time = readFile(timeFile);
    // The last line is the figure ("Command exited with non-zero status 1" may come first).
    const size_t lastLine = time.find_last_of('\n', time.size() >= 2 ? time.size() - 2 : 0);
    m.peakKb = std::atol(time.c_str() + (lastLine == std::string::npos ? 0 : lastLine + 1));
    std::filesystem::remove(timeFile);
    return m;
}

} // namespace tpuscope::test
