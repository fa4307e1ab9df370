// SPDX-License-Identifier: GPL-3.0-or-later
// TraceSession::openRun: the run picker's run loads as it was scanned, without a second scan.
#include "loader/logdir.h"
#include "qt/tracesession.h"

#include <QSignalSpy>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <filesystem>

using namespace tpuscope;
using tpuscope::qt::TraceSession;
namespace fs = std::filesystem;

namespace {
const fs::path kDemo = TPUSCOPE_TEST_DATA_DIR "/../../resources/demo.xplane.pb";

void addHost(const fs::path& run, const std::string& host)
{
    fs::create_directories(run);
    fs::copy_file(kDemo, run / (host + ".xplane.pb"), fs::copy_options::overwrite_existing);
}
} // namespace

TEST(TraceSession, OpenRunLoadsExactlyTheScannedHosts)
{
    QTemporaryDir temp;
    ASSERT_TRUE(temp.isValid());
    const fs::path profiles = fs::path(temp.path().toStdString()) / "plugins" / "profile";
    const fs::path olderRun = profiles / "2025_01_01_00_00_00";
    const fs::path newerRun = profiles / "2026_01_01_00_00_00";
    addHost(olderRun, "w0");
    addHost(olderRun, "w1");
    addHost(newerRun, "n0");

    const std::vector<model::ProfileRun> runs = model::findRuns(temp.path().toStdString());
    ASSERT_EQ(runs.size(), 2u);
    const model::ProfileRun& older = runs[1];
    ASSERT_EQ(fs::path(older.path), olderRun);
    // After the scan the chosen run gains a host: a load that scanned again would read three.
    addHost(olderRun, "w2");

    TraceSession session;
    QSignalSpy started(&session, &TraceSession::loadStarted);
    QSignalSpy loaded(&session, &TraceSession::loaded);
    QSignalSpy failed(&session, &TraceSession::loadFailed);
    const QString shownAs = QString::fromStdString(older.path);
    session.openRun(older, shownAs);
    ASSERT_TRUE(loaded.wait(60000)) << "failed: " << failed.count();
    ASSERT_EQ(started.count(), 1);
    EXPECT_EQ(started.at(0).at(0).toString(), shownAs);
    EXPECT_EQ(session.path(), shownAs);
    const model::Profile& profile = *session.profile();
    ASSERT_EQ(profile.hosts.size(), 2u);
    EXPECT_EQ(profile.hosts[0], "w0");
    EXPECT_EQ(profile.hosts[1], "w1");
    EXPECT_EQ(profile.load.path, older.path);
    ASSERT_TRUE(session.analysis());

    // The same directory opened by path is scanned now and shows the newest run, not the older.
    session.open(temp.path());
    ASSERT_TRUE(loaded.wait(60000));
    ASSERT_EQ(session.profile()->hosts.size(), 1u);
    EXPECT_EQ(session.profile()->hosts[0], "n0");
}

TEST(TraceSession, OpenRunUsesTheChosenDevice)
{
    QTemporaryDir temp;
    ASSERT_TRUE(temp.isValid());
    const fs::path run = fs::path(temp.path().toStdString()) / "plugins" / "profile" / "2025_01_01_00_00_00";
    addHost(run, "w0");
    const std::vector<model::ProfileRun> runs = model::findRuns(temp.path().toStdString());
    ASSERT_EQ(runs.size(), 1u);

    TraceSession session;
    QSignalSpy loaded(&session, &TraceSession::loaded);
    session.openRun(runs[0], QString::fromStdString(runs[0].path));
    ASSERT_TRUE(loaded.wait(60000));
    ASSERT_NE(session.profile()->device.generation, "v4"); // so the choice below is visible
    const std::string recorded = session.profile()->device.generation;
    model::LoadOptions options = session.loadOptions();
    options.deviceOverride = "v4";
    session.setLoadOptions(options);
    session.openRun(runs[0], QString::fromStdString(runs[0].path));
    ASSERT_TRUE(loaded.wait(60000));
    // The run's hosts record their generation: the choice reaches the load, which refuses it.
    if (!recorded.empty()) {
        EXPECT_EQ(session.profile()->device.generation, recorded);
        EXPECT_NE(session.profile()->load.deviceRefusal.find("--device v4"), std::string::npos);
    } else {
        EXPECT_EQ(session.profile()->device.generation, "v4");
    }
}
