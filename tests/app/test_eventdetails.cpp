// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 25 point 7 in the window: a clicked timeline event brings its Details to the front (shown
// again if closed); an advice item's evidence leaves the Advice tab in front; an op picked in the
// op table raises Details as it did; `--view event:NAME` selects the op's longest event.
#include "mainwindow.h"
#include "screenshot.h"

#include "advicepanel.h"
#include "analysis/eventoccurrence.h"
#include "detailspanel.h"
#include "isolatedsettings.h"
#include "optableview.h"
#include "qt/optreemodel.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "timelineview.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <gtest/gtest.h>

using tpuscope::app::MainWindow;
namespace model = tpuscope::model;

namespace {

QString demoPath()
{
    return QStringLiteral(TPUSCOPE_TEST_DATA_DIR "/../../resources/demo.xplane.pb");
}

class EventDetailsTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        tpuscope::test::isolateSettings(m_dir, QStringLiteral("tst_app"));
    }
    QTemporaryDir m_dir;
};

QDockWidget* dock(MainWindow& window, const QString& title)
{
    for (QDockWidget* d : window.findChildren<QDockWidget*>())
        if (d->windowTitle() == title)
            return d;
    return nullptr;
}

/// In front of its tab group: shown, not the hidden page behind another tab.
bool inFront(QDockWidget* d)
{
    return d && d->isVisible() && !d->visibleRegion().isEmpty();
}

bool load(MainWindow& window)
{
    window.resize(1600, 1000);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return false;
    QSignalSpy loaded(window.session(), &tpuscope::qt::TraceSession::loaded);
    window.openFile(demoPath());
    return loaded.wait(60'000);
}

/// A row of the op table (under its category when grouped) for an op other than `op`.
QModelIndex anotherOpRow(const QAbstractItemModel& table, model::OpId op)
{
    for (int r = 0; r < table.rowCount(); ++r) {
        const QModelIndex top = table.index(r, 0);
        for (int c = -1; c < table.rowCount(top); ++c) {
            const QModelIndex index = c < 0 ? top : table.index(c, 0, top);
            const QVariant id = index.data(tpuscope::qt::OpTreeModel::OpIdRole);
            if (id.isValid() && id.toUInt() != model::kNone && id.toUInt() != op)
                return index;
        }
    }
    return {};
}

/// Core 0's XLA Ops line and an event of it.
std::pair<model::TrackId, uint32_t> opEvent(const model::Profile& p)
{
    for (const model::TrackId t : p.planes[p.tpuCorePlanes().at(0)].tracks)
        if (p.tracks[t].kind == model::TrackKind::XlaOps && p.tracks[t].size() > 2)
            return {t, uint32_t(p.tracks[t].size() / 2)};
    return {model::kNone, 0};
}

} // namespace

TEST_F(EventDetailsTest, AClickedEventRaisesDetailsAnOpPickedElsewhereLeavesTheAdviceTab)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(load(window));
    QDockWidget* details = dock(window, QStringLiteral("Details"));
    QDockWidget* advice = dock(window, QStringLiteral("Advice"));
    ASSERT_TRUE(details && advice);
    window.showTimelineTab();
    QCoreApplication::processEvents();
    // A load lands on the advice (nothing is selected yet).
    EXPECT_TRUE(inFront(advice));
    EXPECT_FALSE(inFront(details));

    // An advice item's evidence becomes the selection; the advice being read stays in front.
    auto* panel = qobject_cast<tpuscope::widgets::AdvicePanel*>(window.viewWidget(QStringLiteral("advice")));
    ASSERT_TRUE(panel);
    ASSERT_GT(panel->adviceCount(), 1);
    panel->selectAdvice(1);
    QCoreApplication::processEvents();
    EXPECT_NE(window.selection()->selectedOp(), model::kNone);
    EXPECT_TRUE(inFront(advice));
    EXPECT_FALSE(inFront(details));

    // An op picked in the table raises Details, as before (a tab behind Advice counts as open).
    QTreeView* table = window.opTable()->view();
    ASSERT_GT(table->model()->rowCount(), 1);
    table->setCurrentIndex(anotherOpRow(*table->model(), window.selection()->selectedOp()));
    QCoreApplication::processEvents();
    EXPECT_TRUE(inFront(details));
    advice->raise();
    QCoreApplication::processEvents();
    ASSERT_TRUE(inFront(advice));

    // A click on a timeline event: Details comes to the front, showing that event.
    const model::ProfilePtr p = window.session()->profile();
    const auto [track, index] = opEvent(*p);
    ASSERT_NE(track, model::kNone);
    window.timeline()->selectEvent(track, index);
    QCoreApplication::processEvents();
    EXPECT_TRUE(inFront(details));
    EXPECT_FALSE(inFront(advice));
    EXPECT_EQ(window.selection()->selectedTrack(), track);
    EXPECT_TRUE(window.detailsPanel()->markdown().contains(QStringLiteral("### This occurrence")));

    // Even when the user had closed the dock.
    details->close();
    window.timeline()->selectEvent(track, index - 1);
    QCoreApplication::processEvents();
    EXPECT_TRUE(inFront(details));
}

TEST_F(EventDetailsTest, ScreenshotViewEventSelectsTheLongestOccurrence)
{
    EXPECT_TRUE(tpuscope::app::isKnownScreenshotView(QStringLiteral("event:fusion.1")));
    EXPECT_FALSE(tpuscope::app::isKnownScreenshotView(QStringLiteral("event:")));
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(load(window));
    const model::ProfilePtr p = window.session()->profile();
    const auto [track, index] = opEvent(*p);
    ASSERT_NE(track, model::kNone);
    const model::OpId op = p->tracks[track].op[index];
    const QString name = QString::fromStdString(p->str(p->ops[op].name));

    tpuscope::app::ScreenshotRequest request;
    request.output = m_dir.filePath(QStringLiteral("event.png"));
    request.view = QStringLiteral("event:") + name;
    request.size = QSize(1280, 720);
    ASSERT_EQ(tpuscope::app::renderScreenshot(window, request), QString());
    EXPECT_EQ(QImage(request.output).size(), QSize(1280, 720));
    const auto longest = model::longestOccurrence(*p, model::findOccurrences(*p, op));
    EXPECT_EQ(window.selection()->selectedTrack(), longest.first);
    EXPECT_EQ(window.selection()->selectedEventIndex(), longest.second);
    EXPECT_EQ(window.selection()->selectedOp(), op);
    EXPECT_FALSE(window.detailsPanel()->isOccurrencePending());
    EXPECT_TRUE(window.detailsPanel()->markdown().contains(QStringLiteral("**Occurrence:**")));
    EXPECT_TRUE(window.detailsPanel()->markdown().contains(QStringLiteral("; the longest"))
        || window.detailsPanel()->markdown().contains(QStringLiteral("; all as long")));
    EXPECT_TRUE(inFront(dock(window, QStringLiteral("Details"))));

    request.view = QStringLiteral("event:no-such-op");
    EXPECT_NE(tpuscope::app::renderScreenshot(window, request), QString());
}
