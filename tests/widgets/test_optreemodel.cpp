// SPDX-License-Identifier: GPL-3.0-or-later
#include "../testanalysis.h"
#include "costbardelegate.h"
#include "optableview.h"
#include "qt/optreemodel.h"

#include "core/profile.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLineEdit>
#include <QTreeView>

#include <gtest/gtest.h>

using namespace tpuscope::model;
using tpuscope::qt::OpTreeModel;
using tpuscope::widgets::CostBarDelegate;
using tpuscope::widgets::OpFilterProxyModel;
using tpuscope::widgets::OpTableView;

namespace {

constexpr TimePs kT = 1'000'000'000; // 1 ms: 100 of these make up the whole op time
constexpr double kPeakTflops = 100;

struct SyntheticOp
{
    const char* name;
    const char* category;
    uint64_t program;
    int occurrences;
    double timeUnits; // total, in kT
    double utilization; // FLOPS utilization to give the op
};

// Time shares: dot.main 89 %, fusion.high 5 %, copy.1 4.5 %, fusion.low 1 % (the flag boundary),
// fusion.tiny 0.5 %. Utilization is set through the FLOPs: flops = util · time_ps · peak_TFLOPs.
const SyntheticOp kOps[] = {
    {"dot.main", "convolution", 1, 1, 89, 0.5},
    {"fusion.high", "output fusion", 2, 5, 5, 0.6},
    {"copy.1", "data formatting", 1, 3, 4.5, 0.0},
    {"fusion.low", "loop fusion", 1, 2, 1, 0.10},
    {"fusion.tiny", "loop fusion", 2, 1, 0.5, 0.01},
};

ProfilePtr makeProfile()
{
    ProfileBuilder b;
    const PlaneId plane = b.addPlane("/device:TPU:0");
    b.profile().planes[plane].peakTflops = kPeakTflops;
    b.profile().planes[plane].peakHbmGbps = 1000;
    const TrackId track = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    b.addProgram(1, "jit_a", nullptr);
    b.addProgram(2, "jit_b", nullptr);
    TimePs t = 0;
    for (const SyntheticOp& s : kOps) {
        OpInfo info;
        info.name = b.intern(s.name);
        info.category = b.intern(s.category);
        info.programId = s.program;
        info.hasProgramId = true;
        info.isXlaOp = true;
        const TimePs duration = static_cast<TimePs>(s.timeUnits * kT / s.occurrences);
        info.flops = s.utilization * static_cast<double>(duration) * kPeakTflops;
        info.bytesAccessed = 1e6;
        const OpId op = b.addOp(info);
        for (int i = 0; i < s.occurrences; ++i) {
            b.addEvent(track, t, duration, op);
            t += duration;
        }
    }
    return b.finish();
}

QModelIndex findRow(const QAbstractItemModel& model, const QString& name, const QModelIndex& parent = {})
{
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        if (index.data().toString() == name)
            return index;
        if (const QModelIndex child = findRow(model, name, index); child.isValid())
            return child;
    }
    return {};
}

int countOpRows(const QAbstractItemModel& model)
{
    int rows = 0;
    for (int g = 0; g < model.rowCount(); ++g)
        rows += model.rowCount(model.index(g, 0));
    return rows;
}

QStringList childNames(const QAbstractItemModel& model, const QModelIndex& parent)
{
    QStringList names;
    for (int row = 0; row < model.rowCount(parent); ++row)
        names << model.index(row, 0, parent).data().toString();
    return names;
}

} // namespace

TEST(OpTreeModel, PassesModelTesterInBothGroupings)
{
    OpTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    EXPECT_EQ(model.rowCount(), 4); // convolution, output fusion, data formatting, loop fusion
    EXPECT_EQ(countOpRows(model), 5);
    EXPECT_EQ(model.rowCount(findRow(model, QStringLiteral("loop fusion"))), 2);

    model.setGrouping(OpTreeModel::Grouping::Program);
    EXPECT_EQ(model.rowCount(), 2);
    EXPECT_EQ(childNames(model, findRow(model, QStringLiteral("jit_b"))),
        (QStringList {QStringLiteral("fusion.high"), QStringLiteral("fusion.tiny")}));
    EXPECT_EQ(countOpRows(model), 5);

    model.setLowUtilizationThreshold(0.7);
    model.clear();
    EXPECT_EQ(model.rowCount(), 0);
}

TEST(OpTreeModel, GroupRowsSumTheirOps)
{
    OpTreeModel model;
    model.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    const QModelIndex loop = findRow(model, QStringLiteral("loop fusion"));
    ASSERT_TRUE(loop.isValid());
    EXPECT_NEAR(
        loop.siblingAtColumn(OpTreeModel::TimeFractionColumn).data(OpTreeModel::SortRole).toDouble(), 0.015, 1e-9);
    EXPECT_EQ(loop.siblingAtColumn(OpTreeModel::OccurrencesColumn).data(OpTreeModel::SortRole).toLongLong(), 3);
    EXPECT_EQ(loop.data(OpTreeModel::OpIdRole).toUInt(), kNone);
    // Group utilization = summed FLOPs over summed time: (0.1·1 + 0.01·0.5) / 1.5.
    EXPECT_NEAR(loop.siblingAtColumn(OpTreeModel::FlopsUtilizationColumn).data(OpTreeModel::SortRole).toDouble(),
        0.105 / 1.5, 1e-6);
}

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

TEST(OpTreeModel, FlagsLowUtilizationFusions)
{
    OpTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setAnalysis(tpuscope::test::analysisOf(makeProfile()));
    auto flagged = [&](const char* name) {
        const QModelIndex index = findRow(model, QString::fromLatin1(name));
        EXPECT_TRUE(index.isValid()) << name;
        return index.data(OpTreeModel::FlaggedRole).toBool();
    };
    // Default threshold 25 %: the 1 %-of-time fusion at 10 % is flagged.
    EXPECT_TRUE(flagged("fusion.low"));
    EXPECT_FALSE(flagged("fusion.high")); // 60 %: above the threshold
    EXPECT_FALSE(flagged("fusion.tiny")); // 1 % util but only 0.5 % of the time
    EXPECT_FALSE(flagged("copy.1")); // 0 % but not a fusion
    EXPECT_FALSE(flagged("dot.main"));
    EXPECT_EQ(model.flaggedCount(), 1);

    const QModelIndex low = findRow(model, QStringLiteral("fusion.low"));
    EXPECT_TRUE(low.data(Qt::BackgroundRole).isValid());
    EXPECT_TRUE(low.data(Qt::ForegroundRole).isValid());
    EXPECT_FALSE(findRow(model, QStringLiteral("fusion.high")).data(Qt::BackgroundRole).isValid());
    const QString tip = low.data(Qt::ToolTipRole).toString();
    EXPECT_TRUE(tip.contains(QStringLiteral("Low utilization: 10.0% of its roofline bound"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("10.0%"))) << tip.toStdString();

    model.setLowUtilizationThreshold(0.05);
    EXPECT_FALSE(flagged("fusion.low"));
    EXPECT_EQ(model.flaggedCount(), 0);

    model.setLowUtilizationThreshold(0.7);
    EXPECT_TRUE(flagged("fusion.low"));
    EXPECT_TRUE(flagged("fusion.high"));
    EXPECT_EQ(model.flaggedCount(), 2);
}

TEST(OpTreeModel, FindsRowsByOpId)
{
    const ProfilePtr profile = makeProfile();
    OpTreeModel model;
    model.setAnalysis(tpuscope::test::analysisOf(profile));
    for (OpId id = 0; id < profile->ops.size(); ++id) {
        const QModelIndex index = model.indexForOp(id);
        ASSERT_TRUE(index.isValid());
        EXPECT_EQ(index.data(OpTreeModel::OpIdRole).toUInt(), id);
        EXPECT_EQ(index.data().toString().toStdString(), profile->str(profile->ops[id].name));
    }
    EXPECT_FALSE(model.indexForOp(static_cast<OpId>(profile->ops.size())).isValid());
    model.setGrouping(OpTreeModel::Grouping::Program);
    EXPECT_EQ(model.indexForOp(0).data(OpTreeModel::OpIdRole).toUInt(), 0u);
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
    QElapsedTimer timer;
    timer.start();
    while (countOpRows(*table.proxy()) != 1 && timer.elapsed() < 3000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    EXPECT_EQ(countOpRows(*table.proxy()), 1);
    EXPECT_GE(timer.elapsed(), 250);
}

TEST(CostBarDelegate, UtilizationRunsRedToGreen)
{
    const QPalette palette;
    EXPECT_EQ(CostBarDelegate::barColor(0, CostBarDelegate::Scheme::Utilization, palette).hue(), 0);
    EXPECT_EQ(CostBarDelegate::barColor(0.5, CostBarDelegate::Scheme::Utilization, palette).hue(), 60);
    EXPECT_EQ(CostBarDelegate::barColor(1, CostBarDelegate::Scheme::Utilization, palette).hue(), 120);
    EXPECT_EQ(CostBarDelegate::barColor(7, CostBarDelegate::Scheme::Utilization, palette).hue(), 120);
}

TEST(OpTreeModel, GroupsByFrameworkOpAndBySourceLine)
{
    ProfileBuilder b;
    const PlaneId plane = b.addPlane("/device:TPU:0");
    const TrackId track = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    struct Def
    {
        const char* name;
        const char* tfOp;
        const char* source;
        TimePs duration;
    };
    const Def defs[] = {{"fusion.1", "net/conv1/Conv2D:Conv2D", "net.py:10", 50},
        {"fusion.2", "net/conv1/Conv2D:Conv2D", "net.py:10", 30}, {"copy.1", "net/input:Transpose", "net.py:3", 15},
        {"copy.2", "", "", 5}};
    TimePs t = 0;
    for (const Def& d : defs) {
        OpInfo info;
        info.name = b.intern(d.name);
        info.category = b.intern("loop fusion");
        info.tfOp = b.intern(d.tfOp);
        info.source = b.intern(d.source);
        info.isXlaOp = true;
        const OpId op = b.addOp(info);
        b.addEvent(track, t, d.duration, op);
        t += d.duration;
    }
    OpTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setAnalysis(tpuscope::test::analysisOf(b.finish()));
    model.setGrouping(OpTreeModel::Grouping::FrameworkOp);
    EXPECT_EQ(model.rowCount(), 3);
    const QModelIndex conv = findRow(model, QStringLiteral("net/conv1/Conv2D"));
    ASSERT_TRUE(conv.isValid());
    EXPECT_EQ(childNames(model, conv), (QStringList {QStringLiteral("fusion.1"), QStringLiteral("fusion.2")}));
    EXPECT_NEAR(
        conv.siblingAtColumn(OpTreeModel::TimeFractionColumn).data(OpTreeModel::SortRole).toDouble(), 0.8, 1e-9);
    EXPECT_TRUE(findRow(model, QStringLiteral("(no framework op recorded)")).isValid());

    model.setGrouping(OpTreeModel::Grouping::Source);
    EXPECT_EQ(model.rowCount(), 3);
    EXPECT_EQ(childNames(model, findRow(model, QStringLiteral("net.py:3"))), (QStringList {QStringLiteral("copy.1")}));
    EXPECT_EQ(countOpRows(model), 4);
}
