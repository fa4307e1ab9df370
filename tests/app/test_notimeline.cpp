// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 25 point 6: a profile without a timeline (op_profile) shows no empty timeline, no empty
// utilization chart and no empty step chart; one sentence says why, and the op table is on a
// tab named for it.
#include "mainwindow.h"

#include "optableview.h"
#include "timelineview.h"
#include "utilizationchart.h"

#include "qt/tracesession.h"

#include <QFile>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeView>

#include <qcustomplot.h>

#include "../testevents.h"
#include "../testsession.h"
#include "isolatedsettings.h"

#include <gtest/gtest.h>

using namespace tpuscope;

namespace {

QString sample(const char* name)
{
    return QString::fromStdString(std::string(TPUSCOPE_SAMPLES_DIR) + "/" + name);
}

/// The tab widget and index of the tab that holds `widget`.
std::pair<QTabWidget*, int> tabOf(const app::MainWindow& window, const QWidget* widget)
{
    for (QTabWidget* tabs : window.findChildren<QTabWidget*>())
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->widget(i) == widget || tabs->widget(i)->isAncestorOf(widget))
                return {tabs, i};
    return {nullptr, -1};
}

class NoTimelineTest : public ::testing::TestWithParam<const char*>
{
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        tpuscope::test::isolateSettings(m_dir, QStringLiteral("tst_app_notimeline"));
    }

    static bool open(app::MainWindow& window, const QString& path)
    {
        window.resize(1280, 720);
        window.show();
        QSignalSpy loaded(window.session(), &qt::TraceSession::loaded);
        window.openFile(path);
        if (!loaded.wait(60000))
            return false;
        test::finishJobs(*window.session());
        test::deliverQueuedEvents();
        return true;
    }

    QTemporaryDir m_dir;
};

} // namespace

TEST_P(NoTimelineTest, AnOpProfileShowsTheOpTableAndSaysWhyThereIsNoTimeline)
{
    const QString path = sample(GetParam());
    if (!QFile::exists(path))
        GTEST_SKIP() << "sample missing: " << path.toStdString();
    app::MainWindow window(app::MainWindow::Options {false, false});
    ASSERT_TRUE(open(window, path));

    // Overview: no empty step axes (the note in the header says why there are no steps).
    QWidget* overview = window.viewWidget(QStringLiteral("overview"));
    ASSERT_TRUE(overview && overview->isVisible()) << "a load lands on the overview";
    for (QCustomPlot* plot : overview->findChildren<QCustomPlot*>()) {
        if (!plot->isVisible())
            continue;
        bool hasData = false;
        for (int i = 0; i < plot->plottableCount(); ++i)
            hasData
                = hasData || !plot->plottable(i)->interface1D() || plot->plottable(i)->interface1D()->dataCount() > 0;
        EXPECT_TRUE(hasData) << "an empty step chart";
    }

    // Charts: no utilization-over-time tab with an empty 0–1 ns axis.
    auto* utilization = window.viewWidget(QStringLiteral("utilization"));
    const auto [charts, utilizationTab] = tabOf(window, utilization);
    ASSERT_TRUE(charts);
    EXPECT_FALSE(charts->isTabVisible(utilizationTab));
    EXPECT_NE(charts->currentIndex(), utilizationTab);

    // The second tab is the op table, named so, under one sentence; no timeline drawn.
    const auto [centre, opsTab] = tabOf(window, window.opTable());
    ASSERT_TRUE(centre);
    EXPECT_EQ(centre->tabText(opsTab), QStringLiteral("Ops"));
    window.showTimelineTab();
    test::deliverQueuedEvents();
    EXPECT_FALSE(window.timeline()->isVisible());
    EXPECT_TRUE(window.opTable()->isVisible());
    EXPECT_GE(window.opTable()->view()->model()->rowCount(), 1);
    auto* note = window.findChild<QLabel*>(QStringLiteral("noTimelineNote"));
    ASSERT_TRUE(note);
    EXPECT_TRUE(note->isVisible());
    EXPECT_TRUE(note->text().contains(QStringLiteral("no timeline"))) << note->text().toStdString();
    EXPECT_TRUE(note->text().contains(QStringLiteral("op_profile.json records per-op totals, not events")));
}

INSTANTIATE_TEST_SUITE_P(OpProfiles, NoTimelineTest,
    ::testing::Values("demo_synthetic.op_profile.json", "tpu_v5_training.op_profile.json.gz"),
    [](const ::testing::TestParamInfo<const char*>& info) { return info.index == 0 ? "demo" : "v5training"; });

TEST(NoTimeline, AProfileWithEventsKeepsItsTimelineAndCharts)
{
    const QString path = sample("tpu_v6e_inference.xplane.pb");
    if (!QFile::exists(path))
        GTEST_SKIP() << "sample missing";
    QTemporaryDir dir;
    tpuscope::test::isolateSettings(dir);
    app::MainWindow window(app::MainWindow::Options {false, false});
    window.resize(1280, 720);
    window.show();
    QSignalSpy loaded(window.session(), &qt::TraceSession::loaded);
    window.openFile(path);
    ASSERT_TRUE(loaded.wait(60000));
    test::finishJobs(*window.session());
    test::deliverQueuedEvents();
    const auto [charts, utilizationTab] = tabOf(window, window.viewWidget(QStringLiteral("utilization")));
    ASSERT_TRUE(charts);
    EXPECT_TRUE(charts->isTabVisible(utilizationTab));
    const auto [centre, timelineTab] = tabOf(window, window.timeline());
    ASSERT_TRUE(centre);
    EXPECT_EQ(centre->tabText(timelineTab), QStringLiteral("Timeline"));
    window.showTimelineTab();
    test::deliverQueuedEvents();
    EXPECT_TRUE(window.timeline()->isVisible());
    EXPECT_FALSE(window.findChild<QLabel*>(QStringLiteral("noTimelineNote"))->isVisible());
}
