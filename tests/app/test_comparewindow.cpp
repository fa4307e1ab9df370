// SPDX-License-Identifier: GPL-3.0-or-later
// The Compare dock in the window (issue 43): a pod's log dir against another, and the origin story
// against itself recompiled at global batch 1024.
#include "compareview.h"
#include "mainwindow.h"
#include "qt/diffmodel.h"
#include "qt/tracesession.h"

#include "../testpod.h"
#include "isolatedsettings.h"
#include "synth/synth.h"

#include <QAction>
#include <QFile>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>

#include <gtest/gtest.h>

using tpuscope::app::MainWindow;
using tpuscope::qt::DiffModel;
using tpuscope::qt::TraceSession;
namespace model = tpuscope::model;
namespace test = tpuscope::test;

namespace {

bool compare(MainWindow& window, const QString& before, const QString& after)
{
    QSignalSpy loaded(window.session(), &TraceSession::loaded);
    window.openFile(before);
    if (!loaded.wait(60000))
        return false;
    QSignalSpy ready(&window, &MainWindow::comparisonReady);
    window.compareWith(after);
    return ready.wait(60000) && ready.front().front().toBool();
}

/// The model row whose op had `name` before.
int rowBefore(const DiffModel& m, const std::string& name)
{
    for (int r = 0; r < m.rowCount(); ++r)
        if (m.diff()->rows[static_cast<size_t>(r)].a.name == name)
            return r;
    return -1;
}

} // namespace

TEST(CompareWindow, LogDirsAreLabelledByTheirLogDirAndFiguresArePerStepAndCore)
{
    QTemporaryDir settings;
    test::isolateSettings(settings);
    const test::SynthPodDir late = test::writeSynthPod("pod:hosts=4,chips=4,late=2:input");
    const test::SynthPodDir onTime = test::writeSynthPod("pod:hosts=4,chips=4");
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(compare(window, late.path(), onTime.path()));

    // File → Compare with Log Directory… is there once a profile is shown.
    bool logDirAction = false;
    for (QAction* action : window.findChildren<QAction*>())
        logDirAction |= action->text() == QStringLiteral("Compare with &Log Directory…") && action->isEnabled();
    EXPECT_TRUE(logDirAction);

    const QString summary = window.compareView()->summaryText();
    const QString lateName = QFileInfo(late.path()).fileName(), onTimeName = QFileInfo(onTime.path()).fileName();
    EXPECT_TRUE(summary.contains(QStringLiteral("<b>Before:</b> ") + lateName + QStringLiteral(" · 2024_")))
        << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("<b>after:</b> ") + onTimeName + QStringLiteral(" · 2024_")));
    EXPECT_TRUE(summary.contains(QStringLiteral("per step and core")));

    const DiffModel& m = *window.compareView()->model();
    const auto diff = m.diff();
    ASSERT_TRUE(diff && diff->perStep);
    EXPECT_EQ(m.headerData(DiffModel::TimeAColumn, Qt::Horizontal).toString(), QStringLiteral("Before /step/core"));
    EXPECT_EQ(m.headerData(DiffModel::MatchedByColumn, Qt::Horizontal).toString(), QStringLiteral("Matched by"));
    int noise = 0;
    for (int r = 0; r < m.rowCount(); ++r) {
        const model::DiffRow& row = diff->rows[static_cast<size_t>(r)];
        EXPECT_LT(row.a.timePs, diff->a.stepPs) << row.name; // per step and core, within its step
        EXPECT_EQ(m.index(r, DiffModel::MatchedByColumn).data().toString(), QStringLiteral("name"));
        // A change within the noise has no colour, however many picoseconds it moved.
        if (row.withinNoise()) {
            ++noise;
            EXPECT_FALSE(m.index(r, DiffModel::TimeDeltaColumn).data(Qt::ForegroundRole).isValid()) << row.name;
            EXPECT_FALSE(m.index(r, DiffModel::TimeDeltaPercentColumn).data(Qt::ForegroundRole).isValid());
        } else if (row.timeDeltaPs() != 0) {
            EXPECT_TRUE(m.index(r, DiffModel::TimeDeltaColumn).data(Qt::ForegroundRole).isValid()) << row.name;
        }
    }
    EXPECT_GT(noise, 0);
    EXPECT_TRUE(window.compareView()->suggestedCardName().startsWith(lateName + QStringLiteral("_2024_")))
        << window.compareView()->suggestedCardName().toStdString();
}

TEST(CompareWindow, TheRecompiledDemoIsMatchedAndExplained)
{
    QTemporaryDir settings;
    test::isolateSettings(settings);
    QTemporaryDir files;
    ASSERT_TRUE(files.isValid());
    QString paths[2];
    const char* scenarios[] = {"origin-story", "origin-story:global_batch=1024"};
    for (int i = 0; i < 2; ++i) {
        model::SynthOptions options;
        std::string error;
        ASSERT_TRUE(model::parseSynthScenario(scenarios[i], options, error)) << error;
        paths[i] = files.filePath(i == 0 ? QStringLiteral("before.xplane.pb") : QStringLiteral("after.xplane.pb"));
        ASSERT_TRUE(model::writeSyntheticXSpace(options, paths[i].toStdString(), error)) << error;
    }
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(compare(window, paths[0], paths[1]));
    const DiffModel& m = *window.compareView()->model();
    ASSERT_EQ(m.diff()->added + m.diff()->removed, 0u);
    const int conv = rowBefore(m, "fusion.3");
    ASSERT_GE(conv, 0);
    EXPECT_EQ(m.index(conv, DiffModel::MatchedByColumn).data().toString(), QStringLiteral("fingerprint"));
    EXPECT_EQ(m.index(conv, DiffModel::BeforeNameColumn).data().toString(), QStringLiteral("fusion.3"));
    EXPECT_EQ(m.index(conv, DiffModel::WhyColumn).data().toString(),
        QStringLiteral("per-core batch 16 \u2192 128: tile efficiency 12.5% \u2192 100%"));
    const QString summary = window.compareView()->summaryText();
    EXPECT_TRUE(summary.contains(QStringLiteral("examples/s"))) << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("Different global batch (before 128, after 1024)")));
    // The view opens on the diff's ranking: the largest change of time per step first.
    const QAbstractItemModel* shown = window.compareView()->view()->model();
    EXPECT_EQ(shown->index(0, DiffModel::NameColumn).data().toString().toStdString(), m.diff()->rows.front().name);
    // The card and the Markdown read the same diff.
    EXPECT_TRUE(window.compareView()->markdown().contains(QStringLiteral("| fingerprint |")));
    EXPECT_FALSE(window.compareView()->renderCard().isNull());
}
