// SPDX-License-Identifier: GPL-3.0-or-later
// The core's logging hook and TPUSCOPE_CHECK: a failed check is reported once, with its place,
// counted, and the guard beside it recovers (tests build with NDEBUG, as releases do).
#include "analysis/attribution.h"
#include "core/diagnostics.h"
#include "core/profile.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace tpuscope::model;

namespace {

struct Logged
{
    LogLevel level;
    std::string area;
    std::string message;
};

// Replaces the test environment's sink (which fails the test on a check) while a test provokes one.
class CapturedLog
{
public:
    CapturedLog()
    {
        m_previous = setLogSink([this](LogLevel level, std::string_view area, std::string_view message) {
            entries.push_back({level, std::string(area), std::string(message)});
        });
    }
    ~CapturedLog() { setLogSink(std::move(m_previous)); }
    std::vector<Logged> entries;

private:
    LogSink m_previous;
};

int guardedLookup(const std::vector<int>& values, size_t index)
{
    if (!TPUSCOPE_CHECK(index < values.size()))
        return -1;
    return values[index];
}

} // namespace

TEST(Diagnostics, AHeldCheckSaysNothing)
{
    CapturedLog log;
    const size_t before = internalCheckFailures();
    EXPECT_EQ(guardedLookup({4, 5, 6}, 1), 5);
    EXPECT_TRUE(log.entries.empty());
    EXPECT_EQ(internalCheckFailures(), before);
}

#ifdef NDEBUG
TEST(Diagnostics, AFailedCheckIsLoggedWithItsPlaceCountedAndRecovers)
{
    CapturedLog log;
    const size_t before = internalCheckFailures();
    EXPECT_EQ(guardedLookup({4, 5, 6}, 7), -1);
    ASSERT_EQ(log.entries.size(), 1u);
    EXPECT_EQ(log.entries[0].level, LogLevel::Error);
    EXPECT_EQ(log.entries[0].area, "check");
    EXPECT_NE(log.entries[0].message.find("index < values.size()"), std::string::npos) << log.entries[0].message;
    EXPECT_NE(log.entries[0].message.find("test_diagnostics.cpp"), std::string::npos) << log.entries[0].message;
    EXPECT_NE(log.entries[0].message.find("guardedLookup"), std::string::npos) << log.entries[0].message;
    EXPECT_EQ(internalCheckFailures(), before + 1);
}

TEST(Diagnostics, AnOpOutsideTheProfileIsABugNotAnEmptyAnswer)
{
    // opAttribution used to return an empty attribution for an op id past the end, silently.
    CapturedLog log;
    Profile profile;
    const OpAttribution attribution = opAttribution(profile, 3);
    EXPECT_TRUE(attribution.frameworkOp.empty());
    ASSERT_EQ(log.entries.size(), 1u);
    EXPECT_NE(log.entries[0].message.find("opAttribution"), std::string::npos) << log.entries[0].message;
}
#endif

TEST(Diagnostics, MessagesReachTheInstalledSinkAndTheDefaultComesBack)
{
    {
        CapturedLog log;
        logMessage(LogLevel::Info, "loader", "decoded 3 planes");
        ASSERT_EQ(log.entries.size(), 1u);
        EXPECT_EQ(log.entries[0].area, "loader");
        EXPECT_EQ(log.entries[0].message, "decoded 3 planes");
    }
    // The environment's sink is back: an Info message must not fail this test.
    logMessage(LogLevel::Info, "loader", "after the capture");
}
