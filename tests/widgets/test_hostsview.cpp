// SPDX-License-Identifier: GPL-3.0-or-later
// The Hosts view on a generated 8-host pod: its cells and table are the hosts analysis' numbers, a
// click opens that host and step, and a one-host profile (the demo) gets a sentence, not a map.
#include "hostsview.h"

#include "../testevents.h"
#include "../testpod.h"
#include "analysis/advice.h"
#include "analysis/hosts.h"
#include "core/format.h"
#include "loader/loader.h"

#include <QHeaderView>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>

using namespace tpuscope;
using widgets::HostHeatMap;
using widgets::HostsView;

namespace {

QString duration(double ps)
{
    return QString::fromStdString(model::formatDurationPs(ps));
}

bool sameValue(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

struct PodHostsView : ::testing::Test
{
    void SetUp() override
    {
        pod = test::writeSynthPod("pod:hosts=8,chips=4,late=3:input,steps=12");
        analysis = test::loadPodAnalysis(pod);
        ASSERT_TRUE(analysis);
        ASSERT_EQ(analysis->hosts.hosts.size(), 8u);
        view.resize(1400, 900);
        view.setAnalysis(analysis);
        view.show();
        test::deliverQueuedEvents();
    }
    test::SynthPodDir pod;
    model::ProfileAnalysisPtr analysis;
    HostsView view {nullptr};
};

} // namespace

TEST_F(PodHostsView, CellsAreTheAnalysisNumbersForBothMeasures)
{
    const model::HostAnalysis& hosts = analysis->hosts;
    HostHeatMap* map = view.heatMap();
    ASSERT_TRUE(view.isMapShown());
    EXPECT_TRUE(view.noMapText().isEmpty());
    ASSERT_EQ(map->hostCount(), 8);
    ASSERT_EQ(map->stepCount(), int(hosts.steps));
    ASSERT_GE(hosts.steps, 6);
    // Lateness first: it is what tells the hosts of a synchronous pod apart.
    EXPECT_EQ(map->measure(), HostHeatMap::Measure::Lateness);
    for (int h = 0; h < 8; ++h)
        for (int s = 0; s < map->stepCount(); ++s)
            EXPECT_TRUE(sameValue(map->value(h, s), hosts.latenessPs[size_t(h)][size_t(s)])) << h << "," << s;
    EXPECT_EQ(map->scaleRange().first, 0);
    EXPECT_GT(map->scaleRange().second, 0);
    view.setMeasure(HostHeatMap::Measure::StepTime);
    for (int h = 0; h < 8; ++h)
        for (int s = 0; s < map->stepCount(); ++s)
            EXPECT_TRUE(sameValue(map->value(h, s), hosts.stepPs[size_t(h)][size_t(s)])) << h << "," << s;
    // Every cell has its own place, inside the widget.
    EXPECT_TRUE(map->rect().contains(map->cellRect(7, map->stepCount() - 1)));
    EXPECT_EQ(map->cellAt(map->cellRect(3, 5).center()), std::make_pair(3, 5));
}

TEST_F(PodHostsView, TableRowsAreTheHostRowsAndSortByNumbers)
{
    const model::HostAnalysis& hosts = analysis->hosts;
    QTableWidget* table = view.hostTable();
    ASSERT_EQ(table->rowCount(), 8);
    ASSERT_EQ(table->columnCount(), 14);
    for (int r = 0; r < 8; ++r) {
        const int h = table->item(r, 0)->data(Qt::UserRole).toInt();
        const model::HostRow& row = hosts.hosts[size_t(h)];
        EXPECT_EQ(table->item(r, 0)->text(), QString::fromStdString(row.name));
        EXPECT_EQ(table->item(r, 2)->text(), QString::number(row.cores));
        EXPECT_EQ(table->item(r, 3)->text(), QString::number(row.steps));
        EXPECT_EQ(table->item(r, 4)->text(), duration(row.avgStepPs));
        EXPECT_EQ(table->item(r, 5)->text(), duration(row.computePs));
        EXPECT_EQ(table->item(r, 6)->text(), duration(row.collectivePs));
        EXPECT_EQ(table->item(r, 7)->text(),
            row.collectiveWaitPs ? duration(*row.collectiveWaitPs) : QString::fromUtf8(model::kUnknownText));
        EXPECT_EQ(table->item(r, 8)->text(), duration(row.idlePs));
        EXPECT_EQ(table->item(r, 9)->text(), duration(row.hostTransferPs));
        EXPECT_EQ(table->item(r, 10)->text(),
            row.lateSteps ? QString::number(*row.lateSteps) : QString::fromUtf8(model::kUnknownText));
        EXPECT_EQ(table->item(r, 12)->text(),
            row.clockOffsetPs ? duration(double(*row.clockOffsetPs)) : QString::fromUtf8(model::kUnknownText));
        EXPECT_EQ(table->item(r, 13)->text(), QString::fromStdString(row.offsetSource));
    }
    // Sorted by "Late vs others", largest first: the late host (index 3) leads, by number not text.
    table->sortByColumn(11, Qt::DescendingOrder);
    EXPECT_EQ(table->item(0, 0)->data(Qt::UserRole).toInt(), 3);
    EXPECT_TRUE(table->item(0, 0)->font().bold()); // the straggler the advice names
    table->sortByColumn(11, Qt::AscendingOrder);
    EXPECT_EQ(table->item(7, 0)->data(Qt::UserRole).toInt(), 3);
}

TEST_F(PodHostsView, ClickOnACellOpensThatHostAndStep)
{
    const model::HostAnalysis& hosts = analysis->hosts;
    QSignalSpy opened(&view, &HostsView::hostStepSelected);
    HostHeatMap* map = view.heatMap();
    QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(3, 5).center());
    ASSERT_EQ(opened.count(), 1);
    const auto args = opened.takeFirst();
    EXPECT_EQ(args.at(0).toUInt(), hosts.hosts[3].host);
    const auto begin = args.at(1).value<model::TimePs>();
    const auto end = args.at(2).value<model::TimePs>();
    EXPECT_EQ(begin, hosts.stepStartPs[3][5]);
    EXPECT_EQ(end, begin + model::TimePs(std::llround(hosts.stepPs[3][5])));
    // Outside the cells (the names, the axis) nothing opens.
    QTest::mouseClick(map, Qt::LeftButton, {}, QPoint(10, map->cellRect(3, 5).center().y()));
    QTest::mouseClick(map, Qt::LeftButton, {}, QPoint(map->cellRect(3, 5).center().x(), 5));
    EXPECT_EQ(opened.count(), 0);
}

namespace {

/// A 64-host pod whose late host (w-40) is below the fold, in a 1280×720 view on screen.
struct SixtyFourHostsView : ::testing::Test
{
    void SetUp() override
    {
        pod = test::writeSynthPod("pod:hosts=64,chips=4,late=40:input,steps=8");
        analysis = test::loadPodAnalysis(pod);
        ASSERT_TRUE(analysis);
        view.resize(1280, 720);
        view.setAnalysis(analysis);
        view.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
        test::deliverQueuedEvents();
    }
    test::SynthPodDir pod;
    model::ProfileAnalysisPtr analysis;
    HostsView view {nullptr};
};

} // namespace

TEST_F(SixtyFourHostsView, ScrollAndElideTheirNames)
{
    HostHeatMap* map = view.heatMap();
    ASSERT_EQ(map->hostCount(), 64);
    // Rows keep a readable height (at least a line of text): the map scrolls instead of shrinking.
    EXPECT_GE(map->cellRect(1, 0).top() - map->cellRect(0, 0).top(), map->fontMetrics().height());
    EXPECT_GT(map->height(), map->parentWidget()->height());
    EXPECT_EQ(view.hostTable()->rowCount(), 64);
}

// Host 40 of 64 is below the fold of both the map and the table: the view names it above the map
// and scrolls both to its row, so the answer is on screen without a search.
TEST_F(SixtyFourHostsView, TheStragglerIsNamedAndScrolledIntoView)
{
    ASSERT_EQ(view.stragglerRow(), 40);
    EXPECT_TRUE(view.summaryText().contains("straggler: t1v-n-pod-w-40 (late in 8 of 8 steps"))
        << qPrintable(view.summaryText());
    HostHeatMap* map = view.heatMap();
    QWidget* viewport = map->parentWidget();
    const QRect cell(map->mapTo(viewport, map->cellRect(40, 0).topLeft()), map->cellRect(40, 0).size());
    EXPECT_TRUE(viewport->rect().contains(cell)) << "the straggler's row of the map is on screen";
    QTableWidget* table = view.hostTable();
    int tableRow = -1;
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0)->text() == "t1v-n-pod-w-40")
            tableRow = r;
    ASSERT_GE(tableRow, 0);
    const QRect item = table->visualItemRect(table->item(tableRow, 0));
    EXPECT_TRUE(table->viewport()->rect().contains(item)) << "the straggler's row of the table is on screen";
    EXPECT_TRUE(table->item(tableRow, 0)->font().bold());
}

// Scrolled to the straggler's row, the map still says which step each column is: the step axis
// stays at the top of the shown part, over the rows, and a click there opens no cell.
TEST_F(SixtyFourHostsView, TheStepAxisStaysAboveTheScrolledRows)
{
    HostHeatMap* map = view.heatMap();
    QWidget* viewport = map->parentWidget();
    const int shownTop = -map->y(); // the map moves up inside the viewport as it scrolls
    ASSERT_GT(shownTop, HostHeatMap::kAxisHeight) << "the straggler's scroll moved the rows";
    EXPECT_EQ(map->axisTop(), shownTop);
    const QRect firstColumn = map->cellRect(0, 0);
    const QPoint inAxis(firstColumn.left() + firstColumn.width() * 2 / 3, shownTop + HostHeatMap::kAxisHeight / 2);
    EXPECT_EQ(map->cellAt(inAxis), std::make_pair(-1, -1));

    const QImage shown = viewport->grab().toImage();
    const QColor base = map->palette().color(QPalette::Base);
    const QPoint onScreen = map->mapTo(viewport, inAxis);
    EXPECT_EQ(shown.pixelColor(onScreen * shown.devicePixelRatio()), base) << "a heat-map cell under the axis";
    // The label "0" is drawn in the band at the first column's left.
    int ink = 0;
    for (int y = 0; y < HostHeatMap::kAxisHeight; ++y)
        for (int x = firstColumn.left(); x < firstColumn.left() + 20; ++x)
            ink += shown.pixelColor(QPoint(x, y) * shown.devicePixelRatio()) != base;
    EXPECT_GT(ink, 3) << "no step number in the axis band";
}

TEST(HostsView, OneHostShowsItsRowAndASentenceNotAMap)
{
    model::LoadResult loaded = model::loadProfile(TPUSCOPE_TEST_DATA_DIR "/../../resources/demo.xplane.pb");
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    HostsView view(nullptr);
    view.setAnalysis(model::buildProfileAnalysis(loaded.profile));
    view.show();
    test::deliverQueuedEvents();
    EXPECT_FALSE(view.isMapShown());
    EXPECT_TRUE(view.noMapText().contains(QStringLiteral("one host"))) << view.noMapText().toStdString();
    EXPECT_TRUE(view.noMapText().contains(QStringLiteral("several hosts")));
    EXPECT_EQ(view.hostTable()->rowCount(), 1);
    view.setAnalysis(nullptr);
    EXPECT_EQ(view.hostTable()->rowCount(), 0);
}
