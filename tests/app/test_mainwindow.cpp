// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "analysis/opbreakdown.h"
#include "screenshot.h"
#include "shareactions.h"
#include "startpage.h"

#include "../testsession.h"
#include "advicepanel.h"
#include "compareview.h"
#include "detailspanel.h"
#include "isolatedsettings.h"
#include "optableview.h"
#include "overviewview.h"
#include "qt/optreemodel.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "timelineview.h"
#include "utilizationchart.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <gtest/gtest.h>

#include <qcustomplot.h>

using tpuscope::app::MainWindow;
using tpuscope::qt::OpTreeModel;
using tpuscope::qt::TraceSession;
namespace model = tpuscope::model;

namespace {

QString samplePath()
{
    return QStringLiteral(TPUSCOPE_SAMPLES_DIR "/tpu_v6e_inference.xplane.pb");
}

/// Each test gets its own settings file, so the user's layout is never read or written.
class MainWindowTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        if (!QFile::exists(samplePath()))
            GTEST_SKIP() << "sample missing: " << samplePath().toStdString();
        ASSERT_TRUE(m_dir.isValid());
        tpuscope::test::isolateSettings(m_dir, QStringLiteral("tst_widgets"));
    }

    QString writeFile(const QString& name, const QByteArray& bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        EXPECT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(bytes);
        return path;
    }

    QTemporaryDir m_dir;
};

bool waitForLoaded(MainWindow& window, const QString& path)
{
    QSignalSpy loaded(window.session(), &TraceSession::loaded);
    window.openFile(path);
    return loaded.wait(60000);
}

} // namespace

TEST_F(MainWindowTest, OpensTheSampleOffTheGuiThread)
{
    MainWindow window(MainWindow::Options {false, false});
    QSignalSpy started(window.session(), &TraceSession::loadStarted);
    QSignalSpy loaded(window.session(), &TraceSession::loaded);
    QSignalSpy progress(window.session(), &TraceSession::progress);
    window.openFile(samplePath());
    // open() returns at once; the profile arrives later through the event loop.
    EXPECT_EQ(started.count(), 1);
    EXPECT_TRUE(window.session()->isLoading());
    EXPECT_FALSE(window.session()->profile());
    ASSERT_TRUE(loaded.wait(60000));
    ASSERT_TRUE(window.session()->profile());
    EXPECT_GE(progress.count(), 1); // phases reach the start page
    EXPECT_FALSE(window.session()->isLoading());
    EXPECT_TRUE(window.isShowingProfile());
    EXPECT_GT(window.opTable()->model()->opRowCount(), 5);
    EXPECT_EQ(window.timeline()->profile(), window.session()->profile());
    EXPECT_TRUE(window.messageText().isEmpty());
}

// A damaged file opens with what could be read, and the window says so with the loader's own
// words (issue 25.1); the next file's bar says its own warnings or nothing (issue 25.5).
TEST_F(MainWindowTest, LoadWarningsReachTheWindowAndDoNotCarryOver)
{
    QFile sample(samplePath());
    ASSERT_TRUE(sample.open(QIODevice::ReadOnly));
    const QString truncated = writeFile(QStringLiteral("truncated.xplane.pb"), sample.read(500'000));
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(waitForLoaded(window, truncated));
    ASSERT_FALSE(window.session()->profile()->load.warnings.empty());
    const QString damaged = window.messageText();
    EXPECT_TRUE(damaged.contains(QStringLiteral("truncated"))) << damaged.toStdString();
    EXPECT_TRUE(damaged.contains(QStringLiteral("planes read before the damage"))) << damaged.toStdString();

    // The vLLM trace has its own two (cost coverage, unknown generation): listed, not the old ones.
    const QString vllm = QStringLiteral(TPUSCOPE_SAMPLES_DIR "/tpu_vllm_serving.trace.json.gz");
    ASSERT_TRUE(waitForLoaded(window, vllm));
    const QString serving = window.messageText();
    EXPECT_FALSE(serving.contains(QStringLiteral("truncated"))) << serving.toStdString();
    EXPECT_TRUE(serving.contains(QStringLiteral("only cost data for"))) << serving.toStdString();
    EXPECT_TRUE(serving.contains(QStringLiteral("TPU generation is unknown"))) << serving.toStdString();

    ASSERT_TRUE(waitForLoaded(window, samplePath())); // the whole file: nothing to say
    EXPECT_TRUE(window.messageText().isEmpty()) << window.messageText().toStdString();
}

// Every view reads the session's one analysis: a load (with each view shown and painted, the
// advice, charts, details and op table filled) runs the op breakdown exactly once.
TEST_F(MainWindowTest, ALoadComputesTheBreakdownOnce)
{
    MainWindow window(MainWindow::Options {false, false});
    window.resize(1400, 900);
    window.show();
    // A preview (due after 0.4 s, reached under a sanitizer or load) computes a breakdown of its
    // partial profile; this test counts the finished load's, so no preview is due.
    model::LoadOptions options = window.session()->loadOptions();
    options.previewAfterSeconds = 3600;
    window.session()->setLoadOptions(options);
    const uint64_t before = model::opBreakdownComputations();
    ASSERT_TRUE(waitForLoaded(window, samplePath()));
    window.showTimelineTab();
    for (int i = 0; i < 20; ++i)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    window.selection()->setSelectedOp(window.session()->breakdown()->rows.front().op); // details index
    QCoreApplication::processEvents();
    EXPECT_EQ(model::opBreakdownComputations() - before, 1u);
}

// The overview is the landing tab; a step picked there opens the timeline on that step, and the
// timeline opens on the device activity when it covers only part of the span (the v6e sample's
// first ~19 s are host-only warm-up).
TEST_F(MainWindowTest, OverviewIsTheLandingTabAndAStepZoomsTheTimeline)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(waitForLoaded(window, samplePath()));
    auto* overview = qobject_cast<tpuscope::widgets::OverviewView*>(window.viewWidget(QStringLiteral("overview")));
    ASSERT_TRUE(overview);
    QTabWidget* mainTabs = nullptr;
    for (QTabWidget* t : window.findChildren<QTabWidget*>())
        if (t->indexOf(overview) >= 0)
            mainTabs = t;
    ASSERT_TRUE(mainTabs);
    EXPECT_EQ(mainTabs->currentWidget(), overview);
    ASSERT_TRUE(overview->steps());
    EXPECT_EQ(overview->steps()->stepsPerCore, 100);
    // The device runs over almost all of this capture: the timeline shows all of it.
    const model::ProfilePtr profile = window.session()->profile();
    const auto opened = window.timeline()->visibleRange();
    EXPECT_GE(opened.second - opened.first, profile->spanEnd - profile->spanBegin);
    overview->selectStep(10);
    EXPECT_NE(mainTabs->currentWidget(), overview);
    const model::StepRow& step = overview->steps()->steps[10];
    const auto shown = window.timeline()->visibleRange();
    EXPECT_LE(shown.first, step.startPs);
    EXPECT_GE(shown.second, step.endPs);
    EXPECT_LT(shown.second - shown.first, 2 * (step.endPs - step.startPs));
}

TEST_F(MainWindowTest, OverviewAdviceOpensInTheAdvicePanel)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(waitForLoaded(window, QStringLiteral(TPUSCOPE_TEST_DATA_DIR "/../../resources/demo.xplane.pb")));
    auto* overview = qobject_cast<tpuscope::widgets::OverviewView*>(window.viewWidget(QStringLiteral("overview")));
    ASSERT_TRUE(overview);
    // The third item, not the first the panel selects by itself.
    auto* advice = qobject_cast<tpuscope::widgets::AdvicePanel*>(window.viewWidget(QStringLiteral("advice")));
    ASSERT_TRUE(advice);
    ASSERT_EQ(overview->adviceItemCount(), 3);
    overview->activateAdvice(2);
    EXPECT_TRUE(QTest::qWaitFor([&] { return !advice->isComputing(); }, 20'000));
    EXPECT_EQ(advice->currentAdvice(), 2);
    overview->activateAdvice(1); // now computed: at once
    EXPECT_EQ(advice->currentAdvice(), 1);
}

// Issue 25.9: the overview's low-utilization count opens the op table (under the timeline) with
// "Low utilization only" on, listing the ops of every kind it counted.
TEST_F(MainWindowTest, OverviewLowUtilizationCountOpensTheFilteredOpTable)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(waitForLoaded(window, QStringLiteral(TPUSCOPE_TEST_DATA_DIR "/../../resources/demo.xplane.pb")));
    auto* overview = qobject_cast<tpuscope::widgets::OverviewView*>(window.viewWidget(QStringLiteral("overview")));
    auto* table = qobject_cast<tpuscope::widgets::OpTableView*>(window.viewWidget(QStringLiteral("ops")));
    ASSERT_TRUE(overview);
    ASSERT_TRUE(table);
    QTabWidget* mainTabs = nullptr;
    for (QTabWidget* t : window.findChildren<QTabWidget*>())
        if (t->indexOf(overview) >= 0)
            mainTabs = t;
    ASSERT_TRUE(mainTabs);
    EXPECT_EQ(mainTabs->currentWidget(), overview);
    EXPECT_FALSE(table->lowUtilizationOnly());
    ASSERT_EQ(overview->lowUtilizationOpCount(), 3);

    emit overview->lowUtilizationLabel()->linkActivated(QStringLiteral("low-utilization"));
    EXPECT_NE(mainTabs->currentWidget(), overview);
    EXPECT_TRUE(table->isVisibleTo(&window));
    EXPECT_TRUE(table->lowUtilizationOnly());
    // The table lists what the overview counted, the transpose with the fusions.
    EXPECT_EQ(table->shownOpCount(), 3);
    EXPECT_EQ(table->model()->flaggedCount(), 3);
    EXPECT_TRUE(table->exportText(tpuscope::model::TableFormat::Tsv).contains(QStringLiteral("transpose.2")));

    // The toolbar's threshold moves both counts together.
    window.setLowUtilizationThreshold(0.15);
    EXPECT_EQ(overview->lowUtilizationOpCount(), table->model()->flaggedCount());
    EXPECT_EQ(table->shownOpCount(), table->model()->flaggedCount());
}

TEST_F(MainWindowTest, TimelineOpensOnTheBusyRegionOfAMostlyIdleCapture)
{
    const QString vllm = QStringLiteral(TPUSCOPE_SAMPLES_DIR "/tpu_vllm_serving.trace.json.gz");
    if (!QFile::exists(vllm))
        GTEST_SKIP() << "vLLM sample missing";
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(waitForLoaded(window, vllm));
    const model::ProfilePtr profile = window.session()->profile();
    const auto [begin, end] = model::deviceActivityRange(*profile);
    ASSERT_LT(end - begin, (profile->spanEnd - profile->spanBegin) / 5);
    const auto opened = window.timeline()->visibleRange();
    EXPECT_LE(opened.first, begin);
    EXPECT_GE(opened.second, end);
    EXPECT_LT(opened.second - opened.first, 2 * (end - begin));
    window.timeline()->resetZoom();
    EXPECT_GT(window.timeline()->visibleRange().second - window.timeline()->visibleRange().first, 10 * (end - begin));
}

TEST_F(MainWindowTest, TableSelectionReachesTheOtherViews)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(waitForLoaded(window, samplePath()));
    QTreeView* view = window.opTable()->view();
    const QModelIndex group = view->model()->index(0, 0);
    const QModelIndex row = view->model()->index(0, 0, group);
    ASSERT_TRUE(row.isValid());
    const auto op = row.data(OpTreeModel::OpIdRole).toUInt();
    ASSERT_NE(op, model::kNone);

    view->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    EXPECT_EQ(window.selection()->selectedOp(), op);
    EXPECT_EQ(window.timeline()->highlightedOp(), op);
    EXPECT_EQ(window.detailsPanel()->currentOp(), op);
    // The op's events are found by a job of the session, not on the GUI thread: none before the
    // job's result is delivered, all of them after.
    EXPECT_EQ(window.timeline()->highlightedOccurrenceCount(), 0u);
    tpuscope::test::finishJobs(*window.session());
    const model::OpOccurrences expected = model::findOccurrences(*window.session()->profile(), op);
    size_t occurrences = 0;
    for (const auto& onTrack : expected)
        occurrences += onTrack.size();
    ASSERT_GT(occurrences, 0u);
    EXPECT_EQ(window.timeline()->highlightedOccurrenceCount(), occurrences);
    // And the timeline draws from the depth index the load job built, not one of its own.
    ASSERT_TRUE(window.session()->analysis()->depthIndex);
    EXPECT_EQ(window.timeline()->geometryBuilder().depthIndex(), window.session()->analysis()->depthIndex);

    // And back: an event picked on the timeline selects its op's row.
    const model::ProfilePtr profile = window.session()->profile();
    model::TrackId track = model::kNone;
    quint32 index = 0;
    for (model::TrackId t = 0; t < profile->tracks.size() && track == model::kNone; ++t) {
        const model::Track& candidate = profile->tracks[t];
        if (candidate.kind != model::TrackKind::XlaOps)
            continue;
        for (quint32 i = 0; i < candidate.size(); ++i) {
            if (candidate.op[i] != op && window.opTable()->model()->indexForOp(candidate.op[i]).isValid()) {
                track = t;
                index = i;
                break;
            }
        }
    }
    ASSERT_NE(track, model::kNone);
    const model::OpId eventOp = profile->tracks[track].op[index];
    emit window.timeline()->eventSelected(track, index);
    EXPECT_EQ(window.selection()->selectedOp(), eventOp);
    EXPECT_EQ(window.selection()->selectedTrack(), track);
    EXPECT_EQ(window.detailsPanel()->currentOp(), eventOp);
    const QModelIndex current = window.opTable()->proxy()->mapToSource(view->currentIndex());
    EXPECT_EQ(current.siblingAtColumn(0), window.opTable()->model()->indexForOp(eventOp));
}

TEST_F(MainWindowTest, BadFileShowsAnInlineError)
{
    const QString bad
        = writeFile(QStringLiteral("broken.xplane.pb"), QByteArrayLiteral("\x0a\xff\xff\xff\xff garbage"));
    MainWindow window(MainWindow::Options {false, false});
    window.show();
    QSignalSpy failed(window.session(), &TraceSession::loadFailed);
    window.openFile(bad);
    ASSERT_TRUE(failed.wait(30000));
    EXPECT_FALSE(window.isShowingProfile());
    EXPECT_TRUE(window.startPage()->isErrorVisible());
    EXPECT_TRUE(window.startPage()->errorText().contains(QStringLiteral("broken.xplane.pb")))
        << window.startPage()->errorText().toStdString();

    // With a profile on screen, a failure goes to the message bar and the profile stays.
    ASSERT_TRUE(waitForLoaded(window, samplePath()));
    window.openFile(m_dir.filePath(QStringLiteral("does-not-exist.pb")));
    ASSERT_TRUE(failed.wait(30000));
    EXPECT_TRUE(window.isShowingProfile());
    EXPECT_TRUE(window.messageText().contains(QStringLiteral("does-not-exist.pb")))
        << window.messageText().toStdString();
    EXPECT_TRUE(window.session()->profile());
}

TEST_F(MainWindowTest, NewerLoadSupersedesOlderOne)
{
    const QString bad = writeFile(QStringLiteral("broken.json"), QByteArrayLiteral("{\"traceEvents\": [ {"));
    TraceSession session;
    QSignalSpy loaded(&session, &TraceSession::loaded);
    QSignalSpy failed(&session, &TraceSession::loadFailed);
    QSignalSpy canceled(&session, &TraceSession::loadCanceled);
    session.open(samplePath());
    session.open(bad); // the sample's result, whenever it comes, must be dropped
    ASSERT_TRUE(failed.wait(30000));
    QSignalSpy(&session, &TraceSession::loaded).wait(1000);
    EXPECT_EQ(loaded.count(), 0);
    EXPECT_FALSE(session.profile());

    session.open(samplePath());
    session.cancel();
    EXPECT_EQ(canceled.count(), 1);
    QSignalSpy(&session, &TraceSession::loaded).wait(1500);
    EXPECT_EQ(loaded.count(), 0);
    EXPECT_FALSE(session.isLoading());
}

TEST_F(MainWindowTest, CorruptSettingsFallBackToDefaults)
{
    {
        QSettings settings;
        settings.setValue(QStringLiteral("mainWindow/state"), QByteArrayLiteral("\x01\x02garbage"));
        settings.setValue(QStringLiteral("mainWindow/geometry"), QStringLiteral("nonsense"));
        settings.setValue(QStringLiteral("mainWindow/splitter"), 42);
        settings.setValue(QStringLiteral("opTable/state"), QByteArrayLiteral("\xff\xff"));
        settings.setValue(QStringLiteral("lowUtilizationThreshold"), QStringLiteral("lots"));
        settings.setValue(QStringLiteral("recentFiles"), 7);
    }
    {
        MainWindow window;
        EXPECT_DOUBLE_EQ(window.lowUtilizationThreshold(), 0.25);
        window.setLowUtilizationThreshold(0.4);
        window.show();
        ASSERT_TRUE(waitForLoaded(window, samplePath()));
        window.close(); // saves
    }
    MainWindow again;
    EXPECT_DOUBLE_EQ(again.lowUtilizationThreshold(), 0.4);
    EXPECT_DOUBLE_EQ(again.opTable()->model()->lowUtilizationThreshold(), 0.4);
    EXPECT_EQ(QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0),
        QFileInfo(samplePath()).absoluteFilePath());
}

TEST(Screenshot, ParsesSizes)
{
    QSize size;
    EXPECT_TRUE(tpuscope::app::parseScreenshotSize(QStringLiteral("1600x1000"), &size));
    EXPECT_EQ(size, QSize(1600, 1000));
    EXPECT_FALSE(tpuscope::app::parseScreenshotSize(QStringLiteral("1600"), &size));
    EXPECT_FALSE(tpuscope::app::parseScreenshotSize(QStringLiteral("0x10"), &size));
    EXPECT_FALSE(tpuscope::app::parseScreenshotSize(QStringLiteral("-5x100"), &size));
    EXPECT_TRUE(tpuscope::app::isKnownScreenshotView(QStringLiteral("fusion:fusion.3")));
    EXPECT_FALSE(tpuscope::app::isKnownScreenshotView(QStringLiteral("fusion:")));
    EXPECT_FALSE(tpuscope::app::isKnownScreenshotView(QStringLiteral("flamegraph")));
}

TEST_F(MainWindowTest, ScreenshotCommandWritesAPng)
{
    const QString gui = QStringLiteral(TPUSCOPE_GUI_PATH);
    if (!QFile::exists(gui))
        GTEST_SKIP() << "tpuscope binary missing";
    auto run = [&](const QStringList& args, QString* errors) {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        process.setProcessEnvironment(env);
        process.start(gui, args);
        EXPECT_TRUE(process.waitForFinished(120000));
        *errors = QString::fromLocal8Bit(process.readAllStandardError());
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    };

    for (const QString& view : {QStringLiteral("ops"), QStringLiteral("window")}) {
        const QString out = m_dir.filePath(view + QStringLiteral(".png"));
        QString errors;
        ASSERT_EQ(run({samplePath(), QStringLiteral("--screenshot"), out, QStringLiteral("--view"), view,
                          QStringLiteral("--size"), QStringLiteral("900x640")},
                      &errors),
            0)
            << errors.toStdString();
        const QImage image(out);
        ASSERT_FALSE(image.isNull()) << view.toStdString();
        EXPECT_EQ(image.size(), QSize(900, 640));
        // Not a blank canvas: a real table has many distinct colours (text, bars, flags).
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 4)
            for (int x = 0; x < image.width(); x += 4)
                colours.insert(image.pixel(x, y));
        EXPECT_GT(colours.size(), 20) << view.toStdString();
    }

    QString errors;
    EXPECT_NE(run({m_dir.filePath(QStringLiteral("missing.pb")), QStringLiteral("--screenshot"),
                      m_dir.filePath(QStringLiteral("x.png"))},
                  &errors),
        0);
    EXPECT_TRUE(errors.contains(QStringLiteral("missing.pb"))) << errors.toStdString();
    EXPECT_FALSE(QFile::exists(m_dir.filePath(QStringLiteral("x.png"))));

    // Issue 27, failure 11: never over the input (a copy here, never the sample), nor over a link
    // to it; and a private file replaced stays private.
    const QString input = m_dir.filePath(QStringLiteral("input.xplane.pb"));
    ASSERT_TRUE(QFile::copy(samplePath(), input));
    const QString link = m_dir.filePath(QStringLiteral("link.png"));
    ASSERT_TRUE(QFile::link(input, link));
    const QByteArray before = [&] {
        QFile f(input);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }();
    for (const QString& target : {input, link}) {
        EXPECT_EQ(run({input, QStringLiteral("--screenshot"), target}, &errors), 2) << target.toStdString();
        EXPECT_TRUE(errors.contains(QStringLiteral("refusing to write"))) << errors.toStdString();
    }
    QFile after(input);
    ASSERT_TRUE(after.open(QIODevice::ReadOnly));
    EXPECT_EQ(after.readAll(), before);
    const QString privatePng = m_dir.filePath(QStringLiteral("private.png"));
    {
        QFile f(privatePng);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("old");
    }
    ASSERT_TRUE(QFile::setPermissions(privatePng, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    ASSERT_EQ(run({input, QStringLiteral("--screenshot"), privatePng, QStringLiteral("--view"), QStringLiteral("ops")},
                  &errors),
        0)
        << errors.toStdString();
    EXPECT_FALSE(QImage(privatePng).isNull());
    // The user, group and other bits (0x0FFF) say 0600: read and write for the user only.
    EXPECT_EQ(QFile::permissions(privatePng) & 0x0FFF, QFileDevice::ReadUser | QFileDevice::WriteUser);
}

TEST_F(MainWindowTest, OpTableExportsAsShownAsMarkdownAndCsv)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(waitForLoaded(window, samplePath()));
    const QString markdown = window.opTable()->exportText(model::TableFormat::Markdown);
    const QStringList lines = markdown.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    ASSERT_GE(lines.size(), 3);
    // A Markdown table: header and separator have the same number of cells as every row.
    const auto cells
        = [](const QString& line) { return line.count(QLatin1Char('|')) - line.count(QStringLiteral("\\|")); };
    EXPECT_TRUE(lines[1].startsWith(QStringLiteral("| ---")));
    for (const QString& line : lines)
        EXPECT_EQ(cells(line), cells(lines[0])) << line.toStdString();
    EXPECT_TRUE(markdown.contains(QStringLiteral("↳ copy-done.4")));
    EXPECT_TRUE(markdown.contains(QStringLiteral("copy-done")));

    // Hidden columns and the filter are respected: the export is the table as shown.
    window.opTable()->view()->header()->setSectionHidden(OpTreeModel::BytesColumn, true);
    window.opTable()->setFilterText(QStringLiteral("broadcast_add"));
    const QString csv = window.opTable()->exportText(model::TableFormat::Csv);
    EXPECT_FALSE(csv.contains(QStringLiteral("Bytes")));
    EXPECT_FALSE(csv.contains(QStringLiteral("copy-done.4")));
    EXPECT_EQ(csv.count(QStringLiteral("broadcast_add_fusion")), 3);
    EXPECT_FALSE(window.opTable()->renderImage().isNull());
}

TEST_F(MainWindowTest, ShareTextRoundTripsThroughTheClipboard)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(waitForLoaded(window, samplePath()));
    const double before = window.session()->breakdown()->totalTimePs;
    // Copy for Forum with the share block: the whole post goes back in (the block sits in <details>).
    tpuscope::model::ForumPostOptions options;
    options.includeShareBlock = true;
    QSignalSpy copied(window.shareActions(), &tpuscope::app::ShareActions::shareFinished);
    ASSERT_TRUE(window.shareActions()->copyForForum(options));
    ASSERT_TRUE(copied.wait(60000)); // the post is built off the GUI thread
    EXPECT_TRUE(QApplication::clipboard()->text().contains(QStringLiteral("<details>")));
    EXPECT_TRUE(QApplication::clipboard()->text().contains(QStringLiteral("```tpuscope")));
    QSignalSpy loaded(window.session(), &TraceSession::loaded);
    window.openShareTextFromClipboard();
    ASSERT_TRUE(loaded.wait(60000));
    EXPECT_EQ(window.session()->profile()->load.format, "tpuscope-share");
    EXPECT_NEAR(window.session()->breakdown()->totalTimePs, before, before * 1e-9);

    QApplication::clipboard()->setText(QStringLiteral("```tpuscope\nnot base64 at all\n```"));
    window.openShareTextFromClipboard();
    EXPECT_FALSE(window.messageText().isEmpty()); // damaged text: a visible message, the profile stays
    EXPECT_TRUE(window.session()->profile());
}

TEST_F(MainWindowTest, CompareWithShowsPerOpDeltas)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(waitForLoaded(window, samplePath()));
    // The same profile on both sides: every op matched, nothing moved.
    QSignalSpy ready(&window, &MainWindow::comparisonReady);
    window.compareWith(samplePath());
    ASSERT_TRUE(ready.wait(60000));
    EXPECT_TRUE(ready.front().front().toBool());
    const auto diff = window.compareView()->model()->diff();
    ASSERT_TRUE(diff);
    QAbstractItemModelTester tester(
        window.compareView()->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    EXPECT_EQ(window.compareView()->model()->rowCount(), static_cast<int>(diff->rows.size()));
    EXPECT_EQ(diff->added, 0u);
    EXPECT_EQ(diff->removed, 0u);
    EXPECT_EQ(diff->matched, window.session()->breakdown()->rows.size());
    for (const auto& row : diff->rows)
        EXPECT_DOUBLE_EQ(row.timeDeltaPs(), 0.0) << row.name;
    EXPECT_TRUE(window.compareView()->markdown().contains(QStringLiteral("| ---")));
    const QImage card = window.compareView()->renderCard();
    EXPECT_EQ(card.width(), 1200);
    EXPECT_GT(card.height(), 300);

    // A missing file: a visible message, the open profile stays.
    ready.clear();
    window.compareWith(m_dir.filePath(QStringLiteral("missing.xplane.pb")));
    ASSERT_TRUE(ready.wait(60000));
    EXPECT_FALSE(ready.front().front().toBool());
    EXPECT_FALSE(window.messageText().isEmpty());
    EXPECT_TRUE(window.session()->profile());
}

// A large JSON trace shows its first events on the timeline while the rest is still read; the
// op table waits for the whole file (its totals would be wrong before).
TEST_F(MainWindowTest, LargeJsonShowsAPreviewOnTheTimelineWhileLoading)
{
    QByteArray json = QByteArrayLiteral("{\"traceEvents\":[{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\","
                                        "\"args\":{\"name\":\"/device:TPU:0\"}},{\"ph\":\"M\",\"pid\":1,\"tid\":1,"
                                        "\"name\":\"thread_name\",\"args\":{\"name\":\"XLA Ops\"}}");
    const int events = 400000;
    for (int i = 0; i < events; ++i)
        json += QStringLiteral(",{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%1,\"dur\":5,\"name\":\"fusion.%2\"}")
                    .arg(i * 10)
                    .arg(i % 97)
                    .toUtf8();
    json += "]}";
    const QString path = writeFile(QStringLiteral("big.json"), json);

    MainWindow window(MainWindow::Options {false, false});
    model::LoadOptions options;
    options.previewAfterSeconds = 0; // the first check point (65,536 events) hands one over
    window.session()->setLoadOptions(options);
    QSignalSpy preview(window.session(), &TraceSession::previewReady);
    QSignalSpy loaded(window.session(), &TraceSession::loaded);
    window.openFile(path);
    ASSERT_TRUE(preview.wait(60000) || preview.count() == 1);
    // The preview brings its partial profile's op breakdown, computed in a job of the load (the
    // timeline computes none), so the utilization colours work on the preview too.
    const auto partial = preview.at(0).at(0).value<model::ProfilePtr>();
    const auto previewBreakdown = preview.at(0).at(1).value<std::shared_ptr<const model::OpBreakdown>>();
    ASSERT_TRUE(partial);
    ASSERT_TRUE(previewBreakdown);
    const model::OpBreakdown expected = model::computeOpBreakdown(*partial);
    ASSERT_EQ(previewBreakdown->rows.size(), expected.rows.size());
    EXPECT_DOUBLE_EQ(previewBreakdown->rows.front().totalTimePs, expected.rows.front().totalTimePs);
    EXPECT_EQ(previewBreakdown->rows.size(), 97u); // fusion.0 … fusion.96, all among the first events
    if (loaded.isEmpty()) { // the preview is still what the window shows
        ASSERT_TRUE(window.timeline()->profile());
        EXPECT_LT(window.timeline()->profile()->eventCount(), size_t(events));
        EXPECT_GT(window.timeline()->profile()->eventCount(), size_t(0));
        EXPECT_TRUE(window.isShowingProfile());
        EXPECT_TRUE(window.messageText().contains(QStringLiteral("Still reading big.json")))
            << window.messageText().toStdString();
        EXPECT_EQ(window.opTable()->model()->opRowCount(), 0);
        // The chart waits too, and says for what, on the partial profile's time axis (not on a
        // 0-1 ms axis of no profile).
        auto* chart = window.findChild<tpuscope::widgets::UtilizationChart*>();
        ASSERT_TRUE(chart);
        EXPECT_TRUE(chart->statusText().contains(QStringLiteral("when the whole file is read")))
            << chart->statusText().toStdString();
        EXPECT_EQ(chart->pointCount(), 0);
        EXPECT_GE(chart->plot()->xAxis->range().upper, static_cast<double>(partial->spanBegin));
    }
    ASSERT_TRUE(loaded.count() == 1 || loaded.wait(60000));
    auto* chart = window.findChild<tpuscope::widgets::UtilizationChart*>();
    EXPECT_FALSE(chart->statusText().contains(QStringLiteral("when the whole file is read")));
    EXPECT_EQ(preview.count(), 1);
    EXPECT_EQ(window.timeline()->profile()->eventCount(), size_t(events));
    // The preview's note is gone; what the bar says now is the whole file's own warnings (a Chrome
    // trace without costs or a generation: utilizations unknown).
    EXPECT_FALSE(window.messageText().contains(QStringLiteral("Still reading"))) << window.messageText().toStdString();
    EXPECT_TRUE(window.messageText().contains(QStringLiteral("TPU generation is unknown")))
        << window.messageText().toStdString();
    EXPECT_GT(window.opTable()->model()->opRowCount(), 50);
}
