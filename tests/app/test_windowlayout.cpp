// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 25 point 2: the default layout gives the timeline most of the window. At 1280×720 and
// 1920×1080, as a user lands on the Timeline tab, at least 4 core track rows and 8 op-table
// rows are visible whole, and the docks' layout is remembered.
#include "mainwindow.h"

#include "optableview.h"
#include "timelineview.h"

#include "qt/tracesession.h"

#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeView>

#include "../testevents.h"
#include "../testsession.h"
#include "isolatedsettings.h"

#include <gtest/gtest.h>

using namespace tpuscope;

namespace {

constexpr int kMinimumCoreTrackRows = 4;
constexpr int kMinimumOpTableRows = 8;

std::string samplePath()
{
    return std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
}

/// Core track rows the user sees whole: the timeline's own row rects inside its row area.
int visibleCoreTrackRows(const widgets::TimelineView& timeline)
{
    const QRect rowArea = timeline.viewport()->rect().adjusted(0, timeline.rowAreaTop(), 0, 0);
    int visible = 0;
    for (model::TrackId track : timeline.coreTracks()) {
        const QRect row = timeline.trackRowRect(track);
        if (!row.isEmpty() && rowArea.contains(row))
            ++visible;
    }
    return visible;
}

/// Op-table rows the user sees whole: the view's visual rects inside its viewport.
int visibleOpTableRows(const widgets::OpTableView& table)
{
    QTreeView* view = table.view();
    const QRect viewport = view->viewport()->rect();
    int visible = 0;
    for (QModelIndex index = view->indexAt(QPoint(1, 1)); index.isValid(); index = view->indexBelow(index)) {
        const QRect rect = view->visualRect(index);
        if (rect.top() > viewport.bottom())
            break;
        if (viewport.contains(QRect(viewport.left(), rect.top(), 1, rect.height())))
            ++visible;
    }
    return visible;
}

/// A MainWindow with its own settings file (the user's layout is never read or written).
class WindowLayoutTest : public ::testing::TestWithParam<QSize>
{
protected:
    void SetUp() override
    {
        if (!QFile::exists(QString::fromStdString(samplePath())))
            GTEST_SKIP() << "sample missing: " << samplePath();
        ASSERT_TRUE(m_dir.isValid());
        tpuscope::test::isolateSettings(m_dir, QStringLiteral("tst_app_windowlayout"));
    }

    static bool openAt(app::MainWindow& window, QSize size)
    {
        window.resize(size);
        window.show();
        QSignalSpy loaded(window.session(), &qt::TraceSession::loaded);
        window.openFile(QString::fromStdString(samplePath()));
        if (!loaded.wait(60000))
            return false;
        test::finishJobs(*window.session());
        test::deliverQueuedEvents();
        window.showTimelineTab(); // as the user lands on it: one click on the tab
        test::deliverQueuedEvents();
        return true;
    }

    QTemporaryDir m_dir;
};

} // namespace

TEST_P(WindowLayoutTest, TheTimelineTabShowsFourCoreTracksAndEightOpRows)
{
    const QSize size = GetParam();
    app::MainWindow window(app::MainWindow::Options {false, false});
    ASSERT_TRUE(openAt(window, size));
    ASSERT_LE(window.height(), size.height()) << "a minimum size forced the window taller than the screen";
    widgets::TimelineView* timeline = window.timeline();
    ASSERT_TRUE(timeline->isVisible());
    ASSERT_GE(timeline->coreTracks().size(), size_t(kMinimumCoreTrackRows)) << "the sample has 4 cores";
    EXPECT_GE(visibleCoreTrackRows(*timeline), kMinimumCoreTrackRows)
        << "timeline viewport " << timeline->viewport()->height() << " px at " << size.width() << "x" << size.height();
    widgets::OpTableView* table = window.opTable();
    ASSERT_TRUE(table->isVisible());
    EXPECT_GE(visibleOpTableRows(*table), kMinimumOpTableRows)
        << "op table viewport " << table->view()->viewport()->height() << " px at " << size.width() << "x"
        << size.height();
    // Most of the window is the timeline, not the docks around it.
    const QRect timelineArea = timeline->geometry();
    EXPECT_GE(timelineArea.width(), window.width() * 6 / 10);
}

INSTANTIATE_TEST_SUITE_P(ScreenSizes, WindowLayoutTest, ::testing::Values(QSize(1280, 720), QSize(1920, 1080)),
    [](const ::testing::TestParamInfo<QSize>& info) {
        return std::to_string(info.param.width()) + "x" + std::to_string(info.param.height());
    });

TEST(WindowLayoutMemory, AClosedChartsDockStaysClosedInTheNextWindow)
{
    if (!QFile::exists(QString::fromStdString(samplePath())))
        GTEST_SKIP() << "sample missing";
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    tpuscope::test::isolateSettings(dir, QStringLiteral("tst_app_windowlayout_memory"));
    const auto chartsDock
        = [](app::MainWindow& window) { return window.findChild<QDockWidget*>(QStringLiteral("chartsDock")); };
    {
        app::MainWindow window(app::MainWindow::Options {true, false});
        window.resize(1920, 1080);
        window.show();
        QSignalSpy loaded(window.session(), &qt::TraceSession::loaded);
        window.openFile(QString::fromStdString(samplePath()));
        ASSERT_TRUE(loaded.wait(60000));
        test::finishJobs(*window.session());
        test::deliverQueuedEvents();
        ASSERT_TRUE(chartsDock(window)->isVisible()) << "a 1080-pixel window has room for the charts";
        chartsDock(window)->close(); // the dock's own close button: the user collapses it
        window.close(); // saves the layout
    }
    app::MainWindow again(app::MainWindow::Options {true, false});
    again.show();
    QSignalSpy loaded(again.session(), &qt::TraceSession::loaded);
    again.openFile(QString::fromStdString(samplePath()));
    ASSERT_TRUE(loaded.wait(60000));
    test::finishJobs(*again.session());
    test::deliverQueuedEvents();
    EXPECT_FALSE(chartsDock(again)->isVisible());
}
