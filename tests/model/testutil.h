// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "loader/gzip.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

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
    // Snapshot names may have a folder; so may their ".actual" copies.
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

/// The directories tempDir made, removed when the test process exits. A suite run wrote about
/// 240 MB into /tmp and left it there; CI runs the suite three times, and a CI run once failed
/// with its disk full. Only the process that made a directory removes it: a forked child that
/// exits must not delete its parent's files.
class TempDirs
{
public:
    static TempDirs& instance()
    {
        static TempDirs dirs;
        return dirs;
    }
    void add(const std::filesystem::path& dir)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_dirs.push_back(dir);
    }
    ~TempDirs()
    {
        if (::getpid() != m_owner)
            return;
        for (const auto& dir : m_dirs) {
            std::error_code ignored; // a test may have removed it, or made it unwritable
            std::filesystem::remove_all(dir, ignored);
        }
    }

private:
    TempDirs() = default;
    const pid_t m_owner = ::getpid();
    std::mutex m_mutex;
    std::vector<std::filesystem::path> m_dirs;
};

/// A fresh directory under the test temp dir, removed when the test process exits.
inline std::string tempDir(const std::string& name)
{
    auto dir = std::filesystem::path(::testing::TempDir()) / ("tpuscope_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    TempDirs::instance().add(dir);
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

/// Compares text with a snapshot: tests/data/snapshots/NAME, an earlier output of tpuscope itself
/// kept so that any change to it shows (unlike a golden, which an independent tool in tests/tools
/// makes; tests/data/README.md lists which is which). On mismatch writes NAME.actual under the
/// test temp dir and prints a unified diff. TPUSCOPE_UPDATE_SNAPSHOTS=1 (or the older spelling
/// TPUSCOPE_UPDATE_GOLDEN=1) rewrites the snapshot instead.
inline ::testing::AssertionResult matchesSnapshot(const std::string& name, const std::string& actual)
{
    const std::string snapshot = dataPath("snapshots/" + name);
    if (std::getenv("TPUSCOPE_UPDATE_SNAPSHOTS") || std::getenv("TPUSCOPE_UPDATE_GOLDEN")) {
        writeFile(snapshot, actual);
        return ::testing::AssertionSuccess();
    }
    if (!std::filesystem::exists(snapshot))
        return ::testing::AssertionFailure()
            << "no snapshot " << snapshot << " (write it with TPUSCOPE_UPDATE_SNAPSHOTS=1 and review it)";
    const std::string expected = readFile(snapshot);
    if (expected == actual)
        return ::testing::AssertionSuccess();
    const std::string actualPath = ::testing::TempDir() + "/" + name + ".actual";
    writeFile(actualPath, actual);
    const auto diff = runCommand("diff -u '" + snapshot + "' '" + actualPath + "'");
    return ::testing::AssertionFailure() << "output differs from the snapshot " << snapshot << " (actual in "
                                         << actualPath << "; if the change is meant, rewrite it with "
                                         << "TPUSCOPE_UPDATE_SNAPSHOTS=1):\n"
                                         << diff.output.substr(0, 8000);
}

} // namespace tpuscope::test
