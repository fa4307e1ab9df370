// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 17 point 4 ("one look"): colours, sizes, wrapping, labels, sort arrows and contrast.
#include "mainwindow.h"

#include "advicepanel.h"
#include "detailsdocument.h"
#include "detailspanel.h"
#include "elidedlabel.h"
#include "memoryview.h"
#include "optableview.h"
#include "overviewview.h"
#include "rooflinechart.h"
#include "sortarrows.h"
#include "timelineview.h"
#include "utilizationchart.h"

#include "analysis/opbreakdown.h"
#include "loader/loader.h"
#include "qt/colors.h"
#include "qt/optreemodel.h"
#include "qt/tracesession.h"

#include <QApplication>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>
#include <QTreeWidget>

#include <qcustomplot.h>

#include "../testanalysis.h"
#include "../testevents.h"
#include "../testsession.h"
#include "isolatedsettings.h"

#include <gtest/gtest.h>

using namespace tpuscope;
using model::OpId;
namespace colors = tpuscope::qt::colors;

namespace tpuscope_test {
model::ProfilePtr makeFusionProfile(); // test_details.cpp
model::OpId opNamed(const model::Profile& p, const std::string& name);
} // namespace tpuscope_test

namespace {

std::string samplePath()
{
    return std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
}

/// A MainWindow test with its own settings file (the user's layout is never read or written).
class LookWindowTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        if (!QFile::exists(QString::fromStdString(samplePath())))
            GTEST_SKIP() << "sample missing: " << samplePath();
        ASSERT_TRUE(m_dir.isValid());
        tpuscope::test::isolateSettings(m_dir, QStringLiteral("tst_widgets_look"));
    }

    bool openAt(app::MainWindow& window, QSize size)
    {
        window.resize(size);
        window.show();
        QSignalSpy loaded(window.session(), &qt::TraceSession::loaded);
        window.openFile(QString::fromStdString(samplePath()));
        if (!loaded.wait(60000))
            return false;
        test::finishJobs(*window.session()); // what the views asked for after the load
        test::deliverQueuedEvents(); // layouts, queued replots
        return true;
    }

    QTemporaryDir m_dir;
};

} // namespace

// --- One colour module ---------------------------------------------------------------------

TEST_F(LookWindowTest, RooflineOpensUsableWithTheLegendOutsideThePlot)
{
    app::MainWindow window(app::MainWindow::Options {false, false});
    ASSERT_TRUE(openAt(window, QSize(1600, 1000)));
    auto* roofline = qobject_cast<widgets::RooflineChart*>(window.viewWidget(QStringLiteral("roofline")));
    ASSERT_TRUE(roofline);
    auto* charts = qobject_cast<QTabWidget*>(window.viewWidget(QStringLiteral("charts")));
    ASSERT_TRUE(charts);
    charts->setCurrentWidget(roofline);
    test::deliverQueuedEvents();
    QCustomPlot* plot = roofline->plot();
    EXPECT_GE(plot->height(), widgets::RooflineChart::kMinimumPlotSize.height());
    // The Charts dock opens at about a quarter of the height: the timeline gets the rest (issue 25.2).
    EXPECT_GE(plot->height(), 200) << "the Charts dock opens at ~24 % of 1000 px";
    plot->replot();
    const QRect legend = plot->legend->outerRect();
    const QRect axes = plot->axisRect()->rect();
    EXPECT_TRUE(plot->legend->visible());
    EXPECT_GT(plot->legend->itemCount(), 1);
    EXPECT_FALSE(legend.intersects(axes))
        << "legend " << legend.x() << "," << legend.y() << " axes " << axes.x() << "+" << axes.width();
    EXPECT_GE(legend.left(), axes.right());
    EXPECT_TRUE(plot->rect().contains(legend));
}

TEST_F(LookWindowTest, At1280x720TheWindowFitsAndChartHeadersDoNotOverlap)
{
    app::MainWindow window(app::MainWindow::Options {false, false});
    ASSERT_TRUE(openAt(window, QSize(1280, 720)));
    EXPECT_LE(window.height(), 720) << "a minimum size forced the window taller than the screen";
    EXPECT_LE(window.width(), 1280);
    auto* charts = qobject_cast<QTabWidget*>(window.viewWidget(QStringLiteral("charts")));
    ASSERT_TRUE(charts);
    std::vector<QWidget*> views = {window.viewWidget(QStringLiteral("overview"))};
    for (int i = 0; i < charts->count(); ++i)
        views.push_back(charts->widget(i));
    for (QWidget* view : views) {
        if (auto* tabs
            = qobject_cast<QTabWidget*>(view->parentWidget() ? view->parentWidget()->parentWidget() : nullptr))
            tabs->setCurrentWidget(view);
        test::deliverQueuedEvents();
        // The header row is every ElidedLabel's sibling in its layout.
        for (auto* status : view->findChildren<QLabel*>(QStringLiteral("chartStatus"))) {
            if (!status->isVisible())
                continue;
            EXPECT_TRUE(dynamic_cast<widgets::ElidedLabel*>(status));
            QWidget* row = status->parentWidget();
            std::vector<QWidget*> siblings;
            for (QWidget* w : row->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly))
                if (w->isVisible() && std::abs(w->geometry().center().y() - status->geometry().center().y()) < 12
                    && w->height() < 60)
                    siblings.push_back(w);
            ASSERT_GE(siblings.size(), 2u) << view->metaObject()->className() << " status " << status->x() << ","
                                           << status->y() << " " << status->width() << "x" << status->height();
            for (size_t a = 0; a < siblings.size(); ++a) {
                EXPECT_TRUE(row->rect().contains(siblings[a]->geometry()))
                    << view->metaObject()->className() << " " << siblings[a]->metaObject()->className();
                for (size_t b = a + 1; b < siblings.size(); ++b)
                    EXPECT_FALSE(siblings[a]->geometry().intersects(siblings[b]->geometry()))
                        << view->metaObject()->className() << ": " << siblings[a]->metaObject()->className()
                        << " overlaps " << siblings[b]->metaObject()->className();
            }
        }
    }
    // The what-if question is shown whole (it wraps rather than being clipped).
    auto* whatIf = window.findChild<QLabel*>(QStringLiteral("whatIfLabel"));
    ASSERT_TRUE(whatIf);
    if (whatIf->isVisible()) {
        EXPECT_TRUE(whatIf->wordWrap());
        EXPECT_LE(whatIf->heightForWidth(whatIf->width()), whatIf->height());
    }
}

TEST_F(LookWindowTest, UtilizationTimeAxisLinesUpWithTheTimeline)
{
    app::MainWindow window(app::MainWindow::Options {false, false});
    ASSERT_TRUE(openAt(window, QSize(1600, 1000)));
    auto* chart = qobject_cast<widgets::UtilizationChart*>(window.viewWidget(QStringLiteral("utilization")));
    ASSERT_TRUE(chart);
    widgets::TimelineView* timeline = window.timeline();
    // Side by side means the timeline tab is up (the overview is the landing tab).
    for (QTabWidget* tabs : window.findChildren<QTabWidget*>())
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->widget(i)->isAncestorOf(timeline))
                tabs->setCurrentIndex(i);
    test::deliverQueuedEvents();
    ASSERT_TRUE(timeline->isVisible());
    const auto [axisLeft, axisRight] = chart->timeAxisGlobalSpan();
    const int eventsLeft = timeline->viewport()->mapToGlobal(QPoint(timeline->eventAreaLeft(), 0)).x();
    const int eventsRight = timeline->viewport()->mapToGlobal(QPoint(timeline->viewport()->width(), 0)).x();
    EXPECT_NEAR(axisLeft, eventsLeft, 1);
    EXPECT_NEAR(axisRight, eventsRight, 2);
    // And the same range: the chart shows what the timeline shows.
    const auto [begin, end] = timeline->visibleRange();
    const QCPRange range = chart->findChild<QCustomPlot*>()->xAxis->range();
    EXPECT_NEAR(range.lower, double(begin), double(end - begin) * 1e-6);
    EXPECT_NEAR(range.upper, double(end), double(end - begin) * 1e-6);
    // It follows a resize of the window.
    window.resize(1280, 720);
    test::deliverQueuedEvents();
    const auto [left2, right2] = chart->timeAxisGlobalSpan();
    EXPECT_NEAR(left2, timeline->viewport()->mapToGlobal(QPoint(timeline->eventAreaLeft(), 0)).x(), 1);
    EXPECT_NEAR(right2, timeline->viewport()->mapToGlobal(QPoint(timeline->viewport()->width(), 0)).x(), 2);
}
