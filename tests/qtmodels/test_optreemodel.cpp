// SPDX-License-Identifier: GPL-3.0-or-later
#include "../testanalysis.h"
#include "optreetestdata.h"
#include "qt/optreemodel.h"

#include "core/profile.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>

#include <gtest/gtest.h>

using namespace tpuscope::model;
using tpuscope::qt::OpTreeModel;
using namespace tpuscope::test::optree;

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

TEST(OpTreeModel, FlagsLowUtilizationOpsOfEveryKind)
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
    // Not a fusion, but 4.5 % of the time far below its (HBM) roofline: flagged as any op is
    // (issue 25.9: the old fusion-only rule missed dynamic-update-slice.33).
    EXPECT_TRUE(flagged("copy.1"));
    EXPECT_FALSE(flagged("dot.main"));
    EXPECT_EQ(model.flaggedCount(), 2);

    const QModelIndex low = findRow(model, QStringLiteral("fusion.low"));
    EXPECT_TRUE(low.data(Qt::BackgroundRole).isValid());
    EXPECT_TRUE(low.data(Qt::ForegroundRole).isValid());
    EXPECT_FALSE(findRow(model, QStringLiteral("fusion.high")).data(Qt::BackgroundRole).isValid());
    const QString tip = low.data(Qt::ToolTipRole).toString();
    EXPECT_TRUE(tip.contains(QStringLiteral("Low utilization: 10.0% of its roofline bound"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("10.0%"))) << tip.toStdString();

    model.setLowUtilizationThreshold(0.05);
    EXPECT_FALSE(flagged("fusion.low"));
    EXPECT_EQ(model.flaggedCount(), 1); // copy.1 is far below 5 % too

    model.setLowUtilizationThreshold(0.7);
    EXPECT_TRUE(flagged("fusion.low"));
    EXPECT_TRUE(flagged("fusion.high"));
    EXPECT_TRUE(flagged("dot.main")); // a convolution at 50 %: every kind is held to the same line
    EXPECT_EQ(model.flaggedCount(), 4);
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
