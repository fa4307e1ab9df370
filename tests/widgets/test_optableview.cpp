// SPDX-License-Identifier: GPL-3.0-or-later
// The op table view over the op tree model (the model alone: tests/qtmodels/test_optreemodel.cpp).
#include "../qtmodels/optreetestdata.h"
#include "../testanalysis.h"
#include "../testevents.h"
#include "costbardelegate.h"
#include "optableview.h"
#include "qt/optreemodel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDataStream>
#include <QFontMetrics>
#include <QHeaderView>
#include <QIODevice>
#include <QLabel>
#include <QLineEdit>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <gtest/gtest.h>

using namespace tpuscope::model;
using namespace tpuscope::test::optree;
using tpuscope::qt::OpTreeModel;
using tpuscope::widgets::CostBarDelegate;
using tpuscope::widgets::OpFilterProxyModel;
using tpuscope::widgets::OpTableView;

TEST(OpTreeModel, SortsByNumbersNotText)
{
    OpTreeModel model;
    model.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    OpFilterProxyModel proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);

    // fusion.low takes "1 ms", fusion.tiny "500 µs": as text "1 ms" sorts first, as time it must not.
    proxy.sort(OpTreeModel::TotalTimeColumn, Qt::AscendingOrder);
    const QModelIndex loop = findRow(proxy, QStringLiteral("loop fusion"));
    EXPECT_EQ(childNames(proxy, loop), (QStringList {QStringLiteral("fusion.tiny"), QStringLiteral("fusion.low")}));

    proxy.sort(OpTreeModel::TimeFractionColumn, Qt::DescendingOrder);
    EXPECT_EQ(childNames(proxy, {}),
        (QStringList {QStringLiteral("convolution"), QStringLiteral("output fusion"), QStringLiteral("data formatting"),
            QStringLiteral("loop fusion")}));

    proxy.sort(OpTreeModel::OccurrencesColumn, Qt::DescendingOrder);
    EXPECT_EQ(childNames(proxy, {}).first(), QStringLiteral("output fusion")); // 5 occurrences

    proxy.sort(OpTreeModel::FlopsUtilizationColumn, Qt::AscendingOrder);
    EXPECT_EQ(childNames(proxy, {}).first(), QStringLiteral("data formatting")); // 0 %
}

TEST(OpTreeModel, FilterAndTopTimeThroughProxy)
{
    OpTreeModel model;
    model.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    OpFilterProxyModel proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    proxy.sort(OpTreeModel::TimeFractionColumn, Qt::DescendingOrder);

    proxy.setFilterFixedString(QStringLiteral("fusion.l"));
    EXPECT_EQ(countOpRows(proxy), 1);
    EXPECT_EQ(childNames(proxy, {}), QStringList {QStringLiteral("loop fusion")});

    // The category is part of an op's filter text, so a group's name brings up all of it.
    proxy.setFilterFixedString(QStringLiteral("LOOP"));
    EXPECT_EQ(countOpRows(proxy), 2);

    proxy.setFilterFixedString(QStringLiteral("jit_b"));
    EXPECT_EQ(countOpRows(proxy), 2);

    proxy.setFilterFixedString(QStringLiteral("no such op"));
    EXPECT_EQ(proxy.rowCount(), 0);

    // Top 90 %: dot.main (89 %) and fusion.high, which crosses the line.
    proxy.setFilterFixedString({});
    proxy.setTopTimeOnly(true);
    EXPECT_EQ(countOpRows(proxy), 2);
    EXPECT_TRUE(findRow(proxy, QStringLiteral("dot.main")).isValid());
    EXPECT_TRUE(findRow(proxy, QStringLiteral("fusion.high")).isValid());
    EXPECT_FALSE(findRow(proxy, QStringLiteral("copy.1")).isValid());

    model.setGrouping(OpTreeModel::Grouping::Program);
    EXPECT_EQ(countOpRows(proxy), 2);
    proxy.setTopTimeOnly(false);
    EXPECT_EQ(countOpRows(proxy), 5);
}

TEST(OpTableView, FiltersAndRestoresItsState)
{
    OpTableView table;
    table.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    EXPECT_EQ(countOpRows(*table.proxy()), 5);
    table.setFilterText(QStringLiteral("fusion"));
    EXPECT_EQ(countOpRows(*table.proxy()), 3);
    table.setFilterText({});

    table.setGrouping(OpTreeModel::Grouping::Program);
    table.setTopTimeOnly(true);
    table.view()->header()->resizeSection(OpTreeModel::BytesColumn, 155);
    const QByteArray state = table.saveState();

    OpTableView other;
    other.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    EXPECT_FALSE(other.restoreState(QByteArrayLiteral("not a header state")));
    EXPECT_FALSE(other.restoreState({}));
    EXPECT_EQ(other.model()->grouping(), OpTreeModel::Grouping::Category);
    ASSERT_TRUE(other.restoreState(state));
    EXPECT_EQ(other.model()->grouping(), OpTreeModel::Grouping::Program);
    EXPECT_TRUE(other.proxy()->topTimeOnly());
    EXPECT_EQ(other.view()->header()->sectionSize(OpTreeModel::BytesColumn), 155);
}

TEST(OpTableView, FilterBoxIsDebounced)
{
    OpTableView table;
    table.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    table.filterEdit()->setText(QStringLiteral("fusion.low"));
    EXPECT_EQ(countOpRows(*table.proxy()), 5); // not yet: waits for typing to pause
    tpuscope::test::deliverQueuedEvents();
    EXPECT_EQ(countOpRows(*table.proxy()), 5) << "filtered before typing paused";
    // The pause is a single-shot timer of at least 250 ms, and the filter applies when it fires.
    QTimer* pause = nullptr;
    for (QTimer* timer : table.findChildren<QTimer*>())
        if (timer->isActive() && timer->isSingleShot())
            pause = timer;
    ASSERT_TRUE(pause);
    EXPECT_GE(pause->interval(), 250);
    EXPECT_TRUE(QTest::qWaitFor([&] { return countOpRows(*table.proxy()) == 1; }, 10'000));
}

TEST(CostBarDelegate, UtilizationRunsRedToGreen)
{
    const QPalette palette;
    EXPECT_EQ(CostBarDelegate::barColor(0, CostBarDelegate::Scheme::Utilization, palette).hue(), 0);
    // The one utilization scale (colors::utilizationColor, flame with the sqrt curve): yellow at 25 %.
    EXPECT_EQ(CostBarDelegate::barColor(0.25, CostBarDelegate::Scheme::Utilization, palette).hue(), 60);
    EXPECT_EQ(CostBarDelegate::barColor(1, CostBarDelegate::Scheme::Utilization, palette).hue(), 120);
    EXPECT_EQ(CostBarDelegate::barColor(7, CostBarDelegate::Scheme::Utilization, palette).hue(), 120);
}

TEST(CostBarDelegate, AUtilizationBarStaysLeftOfItsNumber)
{
    // Issue 25.11: a full bar ran under "84.2%" and the number was hard to read.
    const QFontMetrics metrics(QApplication::font());
    for (const int width : {70, 90, 140}) {
        const QRect cell(10, 0, width, 22);
        for (const QString& text : {QStringLiteral("100.0%"), QStringLiteral("84.2%"), QStringLiteral("0.0%")}) {
            const int textWidth = metrics.horizontalAdvance(text);
            const QRect textRect(cell.right() - tpuscope::widgets::CostBarDelegate::kTextGap - textWidth, cell.top(),
                textWidth, cell.height());
            const QRect bar = tpuscope::widgets::CostBarDelegate::barRect(cell, 1.0, textWidth);
            EXPECT_FALSE(bar.intersects(textRect)) << width << " " << text.toStdString();
            EXPECT_TRUE(cell.contains(bar) || bar.isEmpty());
            if (width >= 90) {
                EXPECT_GT(bar.width(), 10) << "a full bar still shows in a " << width << "-px cell";
            }
        }
    }
}

namespace {

/// Op rows of a flat proxy: its top-level rows, none with children.
int countFlatRows(const QAbstractItemModel& model)
{
    int rows = 0;
    for (int r = 0; r < model.rowCount(); ++r) {
        EXPECT_EQ(model.rowCount(model.index(r, 0)), 0) << "a flat row has children";
        ++rows;
    }
    return rows;
}

} // namespace

TEST(OpTreeModel, FlatListsEveryOpAsOneSortableList)
{
    // Issue 25.9: a flat, ungrouped op list, under the model tester in both modes.
    OpTreeModel model;
    QAbstractItemModelTester sourceTester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    OpFilterProxyModel proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    proxy.sort(OpTreeModel::TotalTimeColumn, Qt::AscendingOrder);

    model.setFlat(true);
    EXPECT_EQ(countFlatRows(proxy), 5);
    // Ops of different categories sort as one list, no category parents.
    EXPECT_EQ(childNames(proxy, {}),
        (QStringList {QStringLiteral("fusion.tiny"), QStringLiteral("fusion.low"), QStringLiteral("copy.1"),
            QStringLiteral("fusion.high"), QStringLiteral("dot.main")}));
    for (OpId id = 0; id < model.profile()->ops.size(); ++id) {
        const QModelIndex index = model.indexForOp(id);
        ASSERT_TRUE(index.isValid());
        EXPECT_FALSE(index.parent().isValid());
        EXPECT_EQ(index.data(OpTreeModel::OpIdRole).toUInt(), id);
    }
    proxy.setFilterFixedString(QStringLiteral("fusion"));
    EXPECT_EQ(countFlatRows(proxy), 3);
    proxy.setFilterFixedString({});

    // "Low utilization only" in both modes: fusion.low and copy.1 (not a fusion) at the default 25 %.
    proxy.setLowUtilizationOnly(true);
    EXPECT_EQ(childNames(proxy, {}), (QStringList {QStringLiteral("fusion.low"), QStringLiteral("copy.1")}));
    model.setFlat(false);
    EXPECT_EQ(countOpRows(proxy), 2);
    EXPECT_TRUE(findRow(proxy, QStringLiteral("copy.1")).isValid());
    EXPECT_TRUE(findRow(proxy, QStringLiteral("fusion.low")).isValid());
    // The threshold moves the filter: at 70 % fusion.high (60 %) and dot.main (50 %) are low too.
    model.setLowUtilizationThreshold(0.7);
    EXPECT_EQ(countOpRows(proxy), 4);
    model.setFlat(true);
    EXPECT_EQ(countFlatRows(proxy), 4);
    proxy.setLowUtilizationOnly(false);
    EXPECT_EQ(countFlatRows(proxy), 5);
}

TEST(OpTableView, FlatAndLowUtilizationOnlyAreChosenAndRemembered)
{
    OpTableView table;
    table.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    // The count names the low-utilization ops of every kind, in the model's words.
    EXPECT_TRUE(table.countLabel()->text().contains(QStringLiteral("2 low-utilization ops")))
        << table.countLabel()->text().toStdString();

    table.layoutCombo()->setCurrentIndex(table.layoutCombo()->findData(true));
    EXPECT_TRUE(table.isFlat());
    EXPECT_EQ(table.shownOpCount(), 5);
    table.lowUtilizationBox()->setChecked(true);
    EXPECT_TRUE(table.lowUtilizationOnly());
    EXPECT_EQ(table.shownOpCount(), 2);
    EXPECT_TRUE(table.countLabel()->text().startsWith(QStringLiteral("2 of 5 ops")))
        << table.countLabel()->text().toStdString();
    // The export follows what is shown: two op rows, none of them bold group rows.
    std::vector<size_t> groupRows;
    EXPECT_EQ(table.exportTable(&groupRows).rows.size(), 2u);
    EXPECT_TRUE(groupRows.empty());

    const QByteArray state = table.saveState();
    OpTableView other;
    other.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    ASSERT_TRUE(other.restoreState(state));
    EXPECT_TRUE(other.isFlat());
    EXPECT_TRUE(other.lowUtilizationOnly());
    EXPECT_TRUE(other.lowUtilizationBox()->isChecked());
    EXPECT_EQ(other.shownOpCount(), 2);

    // What the overview's link asks for: the filter text and the top-of-time cut give way.
    OpTableView third;
    third.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    third.setFilterText(QStringLiteral("dot"));
    third.setTopTimeOnly(true);
    third.showLowUtilizationOps();
    EXPECT_FALSE(third.isFlat()); // the mode is the user's
    EXPECT_TRUE(third.lowUtilizationOnly());
    EXPECT_FALSE(third.proxy()->topTimeOnly());
    EXPECT_TRUE(third.filterEdit()->text().isEmpty());
    EXPECT_EQ(third.shownOpCount(), 2);
    EXPECT_TRUE(third.view()->currentIndex().data(OpTreeModel::FlaggedRole).toBool());
}

TEST(OpTableView, ReadsAVersionOneState)
{
    // A state saved before Flat and "Low utilization only" existed: grouping and top-of-time only.
    OpTableView table;
    table.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    QByteArray old;
    {
        QDataStream stream(&old, QIODevice::WriteOnly);
        stream << quint32(0x4f505456) << quint32(1) << table.view()->header()->saveState()
               << static_cast<qint32>(OpTreeModel::Grouping::Program) << true;
    }
    OpTableView other;
    other.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    ASSERT_TRUE(other.restoreState(old));
    EXPECT_EQ(other.model()->grouping(), OpTreeModel::Grouping::Program);
    EXPECT_TRUE(other.proxy()->topTimeOnly());
    EXPECT_FALSE(other.isFlat());
    EXPECT_FALSE(other.lowUtilizationOnly());
}
