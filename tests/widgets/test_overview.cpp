// SPDX-License-Identifier: GPL-3.0-or-later
#include "overviewview.h"

#include "analysis/advice.h"
#include "analysis/opbreakdown.h"
#include "analysis/profileanalysis.h"
#include "loader/loader.h"
#include "qt/tracesession.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include <gtest/gtest.h>

using namespace tpuscope;

namespace {

model::ProfilePtr load(const std::string& path)
{
    model::LoadResult result = model::loadProfile(path);
    EXPECT_TRUE(result.ok()) << result.error;
    return result.profile;
}

std::string demoPath()
{
    return std::string(TPUSCOPE_TEST_DATA_DIR) + "/../../resources/demo.xplane.pb";
}

/// The overview as the session hands it over after a load.
void show(widgets::OverviewView& view, const model::ProfilePtr& p)
{
    view.setAnalysis(model::buildProfileAnalysis(p));
}

/// Loads `path` in `session`, which the view follows (the core and program pickers ask it).
bool loadInSession(qt::TraceSession& session, const std::string& path)
{
    QSignalSpy loaded(&session, &qt::TraceSession::loaded);
    session.open(QString::fromStdString(path));
    return loaded.wait(60000);
}

int barCount(const widgets::OverviewView& view)
{
    for (int i = 0; i < view.plot()->plottableCount(); ++i)
        if (auto* bars = qobject_cast<QCPBars*>(view.plot()->plottable(i)))
            return bars->data()->size();
    return -1;
}

} // namespace

TEST(OverviewView, DemoShowsTheStepTheFixAndTwentyBars)
{
    model::ProfilePtr p = load(demoPath());
    ASSERT_TRUE(p);
    widgets::OverviewView view(nullptr);
    view.resize(1200, 800);
    show(view, p);
    const QString headline = view.headlineText();
    EXPECT_TRUE(headline.contains(QStringLiteral("TPU v3"))) << headline.toStdString();
    EXPECT_TRUE(headline.contains(QStringLiteral("8 TPU cores"))) << headline.toStdString();
    EXPECT_TRUE(headline.contains(QStringLiteral("1.13 ms"))) << headline.toStdString();
    EXPECT_TRUE(headline.contains(QStringLiteral("device Steps line"))) << headline.toStdString();
    EXPECT_TRUE(headline.contains(QStringLiteral("FLOPS utilization"))) << headline.toStdString();
    // The fix is on screen, not behind a tab.
    ASSERT_EQ(view.adviceItemCount(), 3);
    auto* first = view.findChild<QLabel*>(QStringLiteral("overviewAdvice0"));
    ASSERT_TRUE(first);
    EXPECT_TRUE(first->text().contains(QStringLiteral("use global batch 1024"))) << first->text().toStdString();
    QSignalSpy advice(&view, &widgets::OverviewView::adviceActivated);
    emit first->linkActivated(QStringLiteral("0"));
    view.activateAdvice(2);
    view.activateAdvice(3); // not shown: ignored
    ASSERT_EQ(advice.count(), 2);
    EXPECT_EQ(advice.at(1).at(0).toInt(), 2);

    EXPECT_EQ(barCount(view), 20);
    ASSERT_TRUE(view.steps());
    QSignalSpy step(&view, &widgets::OverviewView::stepSelected);
    view.selectStep(4);
    ASSERT_EQ(step.count(), 1);
    const model::StepRow& row = view.steps()->steps[4];
    EXPECT_EQ(step.at(0).at(0).value<model::TimePs>(), row.startPs);
    EXPECT_EQ(step.at(0).at(1).value<model::TimePs>(), row.endPs);
    view.selectStep(20); // out of range: nothing
    EXPECT_EQ(step.count(), 1);

    // One core's steps come from a session job.
    qt::TraceSession session;
    widgets::OverviewView followed(&session);
    ASSERT_TRUE(loadInSession(session, demoPath()));
    followed.setCore(3);
    EXPECT_EQ(followed.steps()->core, -1); // the job's result arrives through the event loop
    QTRY_COMPARE_WITH_TIMEOUT(followed.steps()->core, 3, 10000);
    EXPECT_EQ(barCount(followed), 20);
    EXPECT_EQ(followed.programTable()->rowCount(), 1);
    EXPECT_EQ(followed.programTable()->item(0, 0)->text(), QStringLiteral("cluster_train_step"));
    // A view shown an analysis by hand has no session to ask: the default steps stay.
    view.setCore(3);
    EXPECT_EQ(view.steps()->core, -1);
}

TEST(OverviewView, V6eProgramsAndAnotherProgramAsTheStep)
{
    const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "sample missing";
    qt::TraceSession session;
    widgets::OverviewView view(&session);
    ASSERT_TRUE(loadInSession(session, path));
    EXPECT_EQ(view.programTable()->rowCount(), 4);
    EXPECT_EQ(view.programTable()->item(0, 0)->text(), QStringLiteral("jit_f"));
    EXPECT_EQ(barCount(view), 100);
    EXPECT_TRUE(view.headlineText().contains(QStringLiteral("runs of jit_f"))) << view.headlineText().toStdString();
    EXPECT_TRUE(view.headlineText().contains(QStringLiteral("warm-up 18.7 s"))) << view.headlineText().toStdString();
    view.setProgram(QStringLiteral("jit__psum"));
    QTRY_COMPARE_WITH_TIMEOUT(barCount(view), 3, 10000);
    EXPECT_EQ(view.steps()->program, "jit__psum");
    view.setProgram({});
    EXPECT_EQ(barCount(view), 100); // the default steps come with the analysis: at once
}

TEST(OverviewView, EmptyAndCostCoverageHook)
{
    widgets::OverviewView view(nullptr);
    EXPECT_EQ(view.adviceItemCount(), 0);
    EXPECT_EQ(barCount(view), 0);
    view.selectStep(0); // no crash without a profile
    auto* coverage = view.findChild<QLabel*>(QStringLiteral("costCoverage"));
    ASSERT_TRUE(coverage);
    EXPECT_TRUE(coverage->isHidden());
    view.setCostCoverageText(QStringLiteral("costs recorded for 99 % of op time"));
    EXPECT_FALSE(coverage->isHidden());
}

TEST(OverviewView, ProgramColumnsFitTheirCellsAfterADeviceChange)
{
    // Issue 25.11: after a device change the Programs table's columns collapsed.
    const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_vllm_serving.trace.json.gz";
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "sample missing";
    qt::TraceSession session;
    widgets::OverviewView view(&session);
    view.resize(1100, 700);
    view.show();
    ASSERT_TRUE(loadInSession(session, path));
    QTableWidget* table = view.programTable();
    ASSERT_GT(table->rowCount(), 0);
    const auto expectColumnsFit = [table](const char* when) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        const QFontMetrics metrics(table->font());
        for (int column = 1; column < table->columnCount(); ++column)
            for (int row = 0; row < table->rowCount(); ++row)
                EXPECT_GE(table->columnWidth(column), metrics.horizontalAdvance(table->item(row, column)->text()))
                    << when << ": column " << column << " row " << row << " "
                    << table->item(row, column)->text().toStdString();
    };
    expectColumnsFit("after the load");
    QSignalSpy reloaded(&session, &qt::TraceSession::loaded);
    session.chooseDevice(QStringLiteral("v5e")); // the trace records no generation: the device bar's choice
    ASSERT_TRUE(reloaded.wait(60000));
    ASSERT_GT(table->rowCount(), 0);
    expectColumnsFit("after the device change");
}

TEST(OverviewView, LowUtilizationOpsOfEveryKindAreOneClickAway)
{
    // Issue 25.9: the count covers every op kind (the demo's transpose.2 as well as its two
    // fusions) and is a link that asks for the op table's "Low utilization only" list.
    model::ProfilePtr p = load(demoPath());
    ASSERT_TRUE(p);
    widgets::OverviewView view(nullptr);
    view.resize(1200, 800);
    show(view, p);
    QLabel* label = view.lowUtilizationLabel();
    ASSERT_TRUE(label);
    EXPECT_FALSE(label->isHidden());
    EXPECT_EQ(view.lowUtilizationOpCount(), 3);
    EXPECT_TRUE(label->text().contains(QStringLiteral("3 low-utilization ops"))) << label->text().toStdString();
    EXPECT_TRUE(label->text().contains(QStringLiteral("<a href"))) << label->text().toStdString();
    QSignalSpy requested(&view, &widgets::OverviewView::lowUtilizationOpsRequested);
    emit label->linkActivated(QStringLiteral("low-utilization"));
    EXPECT_EQ(requested.count(), 1);

    // The toolbar's threshold moves the count as it moves the table's flags.
    view.setLowUtilizationThreshold(0.01); // below transpose.2's 1.3 %, the lowest
    EXPECT_EQ(view.lowUtilizationOpCount(), 0);
    EXPECT_FALSE(label->text().contains(QStringLiteral("<a href"))) << label->text().toStdString();
    view.activateLowUtilizationLink(); // nothing to list: no request
    EXPECT_EQ(requested.count(), 1);

    // The v5 sample's dynamic-update-slice ops, which the fusion-only count missed.
    const std::string v5 = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v5_training.op_profile.json.gz";
    if (!std::filesystem::exists(v5))
        GTEST_SKIP() << "sample missing";
    widgets::OverviewView other(nullptr);
    show(other, load(v5));
    EXPECT_EQ(other.lowUtilizationOpCount(), 3);
    EXPECT_TRUE(other.lowUtilizationLabel()->text().contains(QStringLiteral("3 low-utilization ops")));
}
