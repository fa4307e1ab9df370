// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "loader/gzip.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace tpuscope::test {

inline std::string samplePath(const std::string& name)
{
    return std::string(TPUSCOPE_SAMPLES_DIR) + "/" + name;
}

inline std::string dataPath(const std::string& name)
{
    return std::string(TPUSCOPE_TEST_DATA_DIR) + "/" + name;
}

inline bool haveSample(const std::string& name)
{
    return std::filesystem::exists(samplePath(name));
}

#define TPUSCOPE_REQUIRE_SAMPLE(name)                                                                                  \
    if (!::tpuscope::test::haveSample(name))                                                                           \
    GTEST_SKIP() << "sample " << name << " not found beside the clone (../shared/samples)"

inline std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline void writeFile(const std::string& path, const std::string& bytes)
{
    // Golden names may have a folder ("golden/v6e.ops.json"); so may their ".actual" copies.
    if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
        std::filesystem::create_directories(parent);
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

/// `plain` as one gzip member (level 6 unless told), for tests of the .gz paths.
inline std::string gzipBytes(const std::string& plain, int level = 6)
{
    std::string out, error;
    EXPECT_TRUE(model::gzipCompress(plain, out, error, level)) << error;
    return out;
}

/// A fresh directory under the test temp dir.
inline std::string tempDir(const std::string& name)
{
    auto dir = std::filesystem::path(::testing::TempDir()) / ("tpuscope_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

struct CommandResult
{
    int exitCode = -1;
    std::string output;
};

/// Runs a shell command, capturing stdout (stderr too when `withStderr`).
inline CommandResult runCommand(const std::string& command, bool withStderr = false)
{
    CommandResult result;
    FILE* pipe = ::popen((command + (withStderr ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
    if (!pipe)
        return result;
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
        result.output.append(buffer, n);
    const int status = ::pclose(pipe);
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

/// Compares text with a golden file; on mismatch writes NAME.actual beside the build's temp dir
/// and prints a unified diff. TPUSCOPE_UPDATE_GOLDEN=1 rewrites the golden file instead.
inline ::testing::AssertionResult matchesGolden(const std::string& goldenName, const std::string& actual)
{
    const std::string golden = dataPath(goldenName);
    if (std::getenv("TPUSCOPE_UPDATE_GOLDEN")) {
        writeFile(golden, actual);
        return ::testing::AssertionSuccess();
    }
    const std::string expected = readFile(golden);
    if (expected == actual)
        return ::testing::AssertionSuccess();
    const std::string actualPath = ::testing::TempDir() + "/" + goldenName + ".actual";
    writeFile(actualPath, actual);
    const auto diff = runCommand("diff -u '" + golden + "' '" + actualPath + "'");
    return ::testing::AssertionFailure() << "output differs from " << golden << " (actual in " << actualPath
                                         << "; regenerate with TPUSCOPE_UPDATE_GOLDEN=1):\n"
                                         << diff.output.substr(0, 8000);
}

} // namespace tpuscope::test
