// SPDX-License-Identifier: GPL-3.0-or-later
// File → Share through the real MainWindow: Copy for Forum (GFM, redacted by default, size
// bounds), the op table PNG (drawn rows with a header), filtered group totals, status messages.
#include "mainwindow.h"
#include "shareactions.h"

#include "compareview.h"
#include "optableview.h"
#include "qt/optreemodel.h"
#include "qt/tracesession.h"

#include "../testsession.h"

#include "analysis/opbreakdown.h"
#include "isolatedsettings.h"
#include "loader/loader.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDialog>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <gtest/gtest.h>

using tpuscope::app::MainWindow;
using tpuscope::app::ShareActions;
using tpuscope::model::ForumPostOptions;
using tpuscope::qt::OpTreeModel;
using tpuscope::qt::TraceSession;

namespace {

QString sample(const char* name)
{
    return QStringLiteral(TPUSCOPE_SAMPLES_DIR "/") + QLatin1String(name);
}

class ShareActionsTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        if (!QFile::exists(sample("tpu_vllm_serving.trace.json.gz"))
            || !QFile::exists(sample("tpu_v6e_inference.xplane.pb")))
            GTEST_SKIP() << "samples missing";
        ASSERT_TRUE(m_dir.isValid());
        tpuscope::test::isolateSettings(m_dir, QStringLiteral("tst_widgets"));
    }

    bool load(MainWindow& window, const QString& path)
    {
        QSignalSpy loaded(window.session(), &TraceSession::loaded);
        window.openFile(path);
        return loaded.wait(60000);
    }

    /// Copy for Forum runs as a session job: true once the post is on the clipboard.
    static bool copyForForum(MainWindow& window, const ForumPostOptions& options)
    {
        QSignalSpy finished(window.shareActions(), &ShareActions::shareFinished);
        return window.shareActions()->copyForForum(options) && finished.wait(60000)
            && finished.front().front().toBool();
    }

    QTemporaryDir m_dir;
};

/// The part of a post outside <details>…</details>.
QString outsideDetails(const QString& markdown)
{
    QString text = markdown;
    text.remove(
        QRegularExpression(QStringLiteral("<details>.*</details>"), QRegularExpression::DotMatchesEverythingOption));
    return text;
}

/// A GFM table: a header row, then a delimiter row (only ---, :---, ---:) with as many cells,
/// then rows with as many cells. Returns the number of tables found; fails on a malformed one.
int checkGfmTables(const QString& markdown)
{
    const QStringList lines = markdown.split(QLatin1Char('\n'));
    const auto cells = [](const QString& line) {
        QString body = line.trimmed();
        body.replace(QStringLiteral("\\|"), QStringLiteral("x"));
        return body.count(QLatin1Char('|')) - 1;
    };
    const QRegularExpression delimiter(QStringLiteral("^\\|( *:?-{3,}:? *\\|)+$"));
    int tables = 0;
    for (int i = 1; i < lines.size(); ++i) {
        if (!delimiter.match(lines[i].trimmed()).hasMatch())
            continue;
        ++tables;
        const int columns = cells(lines[i]);
        EXPECT_TRUE(lines[i - 1].startsWith(QLatin1Char('|'))) << lines[i - 1].toStdString();
        EXPECT_EQ(cells(lines[i - 1]), columns) << "header: " << lines[i - 1].toStdString();
        for (int j = i + 1; j < lines.size() && lines[j].startsWith(QLatin1Char('|')); ++j)
            EXPECT_EQ(cells(lines[j]), columns) << "row: " << lines[j].toStdString();
    }
    return tables;
}

/// Absolute source paths the profile's ops carry (the capture machine's layout).
QSet<QString> absoluteSourcePaths(const tpuscope::model::Profile& profile)
{
    QSet<QString> paths;
    for (const auto& op : profile.ops) {
        const QString source = QString::fromStdString(profile.str(op.source));
        if (source.startsWith(QLatin1Char('/')))
            paths.insert(source.section(QLatin1Char(':'), 0, 0));
    }
    return paths;
}

bool containsAny(const QString& text, const QSet<QString>& needles)
{
    for (const QString& n : needles)
        if (text.contains(n))
            return true;
    return false;
}

} // namespace

TEST_F(ShareActionsTest, ForumMarkdownIsGfmBoundedAndRedactedByDefault)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(load(window, sample("tpu_vllm_serving.trace.json.gz")));
    const QSet<QString> paths = absoluteSourcePaths(*window.session()->profile());
    ASSERT_FALSE(paths.isEmpty()) << "the vLLM sample records absolute source paths";

    ASSERT_TRUE(copyForForum(window, ForumPostOptions {}));
    const QString post = QApplication::clipboard()->text();
    EXPECT_LE(post.toUtf8().size(), qsizetype(tpuscope::model::kForumReadableLimitBytes));
    EXPECT_TRUE(post.startsWith(QStringLiteral("### tpuscope: ")));
    EXPECT_TRUE(post.contains(QStringLiteral("FLOPS utilization"))) << post.toStdString();
    EXPECT_TRUE(post.contains(QStringLiteral("Cost coverage: cost data for")));
    EXPECT_EQ(checkGfmTables(post), 1) << post.toStdString();
    EXPECT_TRUE(post.contains(QStringLiteral("| # | Op |")));
    EXPECT_TRUE(post.contains(QStringLiteral("**Advice**")));
    EXPECT_FALSE(post.contains(QStringLiteral("```tpuscope"))); // the share block is opt-in
    EXPECT_FALSE(containsAny(post, paths)) << post.toStdString();
    EXPECT_FALSE(post.contains(QStringLiteral("/mnt/")));
    EXPECT_FALSE(post.contains(QStringLiteral("/home/")));
    EXPECT_TRUE(post.contains(QStringLiteral("redacted: source paths")));

    EXPECT_FALSE(post.contains(QStringLiteral("tpu_vllm_serving"))); // the file name is a path too

    // With the share block: folded under the post, and base64 only inside <details>.
    ForumPostOptions withBlock;
    withBlock.includeShareBlock = true;
    ASSERT_TRUE(copyForForum(window, withBlock));
    const QString full = QApplication::clipboard()->text();
    const qsizetype details = full.indexOf(QStringLiteral("<details>"));
    ASSERT_GT(details, 0);
    EXPECT_GT(full.indexOf(QStringLiteral("```tpuscope")), details);
    EXPECT_TRUE(full.trimmed().endsWith(QStringLiteral("</details>")));
    EXPECT_FALSE(containsAny(full, paths));
    const QRegularExpression base64Line(QStringLiteral("^[A-Za-z0-9+/=]{60,}$"), QRegularExpression::MultilineOption);
    EXPECT_TRUE(base64Line.match(full).hasMatch());
    EXPECT_FALSE(base64Line.match(outsideDetails(full)).hasMatch());
    EXPECT_TRUE(window.statusBar()->currentMessage().contains(QStringLiteral("share block included")))
        << window.statusBar()->currentMessage().toStdString();
}

TEST_F(ShareActionsTest, ForumEvidenceNamesLayerAndSourceUnlessRedacted)
{
    MainWindow window(MainWindow::Options {false, false});
    if (!QFile::exists(sample("tpu_v5_training.op_profile.json.gz")))
        GTEST_SKIP() << "sample missing";
    ASSERT_TRUE(load(window, sample("tpu_v5_training.op_profile.json.gz")));
    const auto& profile = *window.session()->profile();
    QSet<QString> sources;
    for (const auto& op : profile.ops)
        if (const QString s = QString::fromStdString(profile.str(op.source)); !s.isEmpty())
            sources.insert(s);
    ASSERT_FALSE(sources.isEmpty());

    // Not redacted: the evidence says whose code it is (layer and source line): the redaction
    // check below can fail.
    ForumPostOptions open;
    open.redaction = {};
    ASSERT_TRUE(copyForForum(window, open));
    const QString unredacted = QApplication::clipboard()->text();
    EXPECT_TRUE(containsAny(unredacted, sources)) << unredacted.toStdString();
    EXPECT_TRUE(unredacted.contains(QStringLiteral(", source `"))) << unredacted.toStdString();
    EXPECT_TRUE(unredacted.contains(QStringLiteral(", layer `jit(train_step)")));
    EXPECT_TRUE(unredacted.contains(QStringLiteral("tpu_v5_training.op_profile.json.gz")));
    EXPECT_LE(unredacted.toUtf8().size(), qsizetype(tpuscope::model::kForumReadableLimitBytes));
    EXPECT_EQ(checkGfmTables(unredacted), 1);

    // The default (paths) keeps the layer and drops every source line and the file name.
    ASSERT_TRUE(copyForForum(window, ForumPostOptions {}));
    const QString redacted = QApplication::clipboard()->text();
    EXPECT_FALSE(containsAny(redacted, sources)) << redacted.toStdString();
    EXPECT_FALSE(redacted.contains(QStringLiteral("tpu_v5_training")));
    EXPECT_TRUE(redacted.contains(QStringLiteral(", layer `jit(train_step)")));
}

TEST_F(ShareActionsTest, ShareBlockOverTheLimitIsLeftOutWithANote)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(load(window, sample("tpu_v6e_inference.xplane.pb")));
    ForumPostOptions options;
    options.includeShareBlock = true;
    options.shareLimit = 4096; // smaller than post + block
    ASSERT_TRUE(copyForForum(window, options));
    const QString post = QApplication::clipboard()->text();
    EXPECT_FALSE(post.contains(QStringLiteral("```tpuscope")));
    EXPECT_FALSE(post.contains(QStringLiteral("<details>")));
    EXPECT_TRUE(post.contains(QStringLiteral("The share block"))) << post.toStdString();
    EXPECT_TRUE(window.statusBar()->currentMessage().contains(QStringLiteral("share block left out")))
        << window.statusBar()->currentMessage().toStdString();
}

// The share file is built by a session job from the shown analysis: the call returns before
// anything is written (the result can only arrive through the event loop), shareFinished follows,
// the bytes are what the core builds from that analysis, and no breakdown is computed again.
TEST_F(ShareActionsTest, ShareFileIsWrittenByASessionJobFromTheAnalysis)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(load(window, sample("tpu_v6e_inference.xplane.pb")));
    const QString path = m_dir.filePath(QStringLiteral("v6e.tpuscope"));
    const tpuscope::model::ShareRedaction redaction = ShareActions::redactionForChoice(1);
    const uint64_t breakdownsBefore = tpuscope::model::opBreakdownComputations();
    QSignalSpy finished(window.shareActions(), &ShareActions::shareFinished);
    ASSERT_TRUE(window.shareActions()->saveShareFile(path, redaction));
    EXPECT_FALSE(QFile::exists(path));
    EXPECT_EQ(window.statusBar()->currentMessage(), QStringLiteral("Writing the share file…"));
    ASSERT_TRUE(finished.wait(60000));
    EXPECT_TRUE(finished.front().front().toBool());
    EXPECT_EQ(tpuscope::model::opBreakdownComputations() - breakdownsBefore, 0u);
    EXPECT_TRUE(window.statusBar()->currentMessage().startsWith(QStringLiteral("Saved v6e.tpuscope (")))
        << window.statusBar()->currentMessage().toStdString();

    tpuscope::model::ShareOptions options;
    options.redaction = redaction;
    const tpuscope::model::ShareResult expected
        = tpuscope::model::buildShareFile(*window.session()->analysis(), options);
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_EQ(file.readAll().toStdString(), expected.bytes);
    const tpuscope::model::LoadResult back = tpuscope::model::loadProfile(path.toStdString());
    ASSERT_TRUE(back.ok()) << back.error;
    EXPECT_FALSE(back.profile->ops.empty());
}

// Copy for Forum runs as a session job too: nothing reaches the clipboard before the event loop
// delivers it, and of two quick requests only the newer one is copied.
TEST_F(ShareActionsTest, ForumPostIsBuiltOffTheGuiThreadAndTheNewerRequestWins)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(load(window, sample("tpu_v6e_inference.xplane.pb")));
    QApplication::clipboard()->setText(QStringLiteral("before"));
    QSignalSpy finished(window.shareActions(), &ShareActions::shareFinished);
    ForumPostOptions older;
    older.topOps = 3;
    older.includeShareBlock = true;
    ASSERT_TRUE(window.shareActions()->copyForForum(older));
    const ForumPostOptions newer;
    ASSERT_TRUE(window.shareActions()->copyForForum(newer));
    EXPECT_EQ(QApplication::clipboard()->text(), QStringLiteral("before"));
    ASSERT_TRUE(finished.wait(60000));
    tpuscope::test::finishJobs(*window.session()); // the superseded job is done: its result would be in
    EXPECT_EQ(finished.count(), 1);
    const tpuscope::model::ForumPost expected = tpuscope::model::buildForumPost(*window.session()->analysis(), newer);
    EXPECT_EQ(QApplication::clipboard()->text(), QString::fromStdString(expected.markdown));
    EXPECT_FALSE(QApplication::clipboard()->text().contains(QStringLiteral("<details>")));
}

TEST_F(ShareActionsTest, ForumCopyReportsWhatItCopied)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(load(window, sample("tpu_v6e_inference.xplane.pb")));
    ASSERT_TRUE(copyForForum(window, ForumPostOptions {}));
    const QString message = window.statusBar()->currentMessage();
    const QRegularExpression expected(QStringLiteral(
        "^Copied [0-9.]+ (B|KiB|KB) of Markdown \\(top [0-9]+ ops, [0-9]+ advice items?, paths redacted\\)$"));
    EXPECT_TRUE(expected.match(message).hasMatch()) << message.toStdString();
}

TEST_F(ShareActionsTest, FilteredGroupRowsTotalTheOpsShown)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(load(window, sample("tpu_v6e_inference.xplane.pb")));
    auto* table = window.opTable();
    auto* proxy = table->view()->model();
    const auto groupTotal = [&](const QString& name) {
        for (int g = 0; g < proxy->rowCount(); ++g)
            if (proxy->index(g, 0).data().toString() == name)
                return proxy->index(g, OpTreeModel::TotalTimeColumn).data(OpTreeModel::SortRole).toDouble();
        return -1.0;
    };
    table->setFilterText({});
    const double unfiltered = groupTotal(QStringLiteral("copy-done"));
    ASSERT_GT(unfiltered, 0) << "the v6e sample's copy-done ops";

    table->setFilterText(QStringLiteral("copy-done.4"));
    ASSERT_GT(proxy->rowCount(), 0);
    for (int g = 0; g < proxy->rowCount(); ++g) {
        const QModelIndex group = proxy->index(g, 0);
        double children = 0, childShare = 0;
        int rows = proxy->rowCount(group);
        for (int r = 0; r < rows; ++r) {
            children += proxy->index(r, OpTreeModel::TotalTimeColumn, group).data(OpTreeModel::SortRole).toDouble();
            childShare
                += proxy->index(r, OpTreeModel::TimeFractionColumn, group).data(OpTreeModel::SortRole).toDouble();
        }
        const double total = proxy->index(g, OpTreeModel::TotalTimeColumn).data(OpTreeModel::SortRole).toDouble();
        const double share = proxy->index(g, OpTreeModel::TimeFractionColumn).data(OpTreeModel::SortRole).toDouble();
        EXPECT_NEAR(total, children, children * 1e-9) << group.data().toString().toStdString();
        EXPECT_NEAR(share, childShare, 1e-9);
        EXPECT_EQ(proxy->index(g, OpTreeModel::OccurrencesColumn).data().toString(),
            rows == 1 ? proxy->index(0, OpTreeModel::OccurrencesColumn, group).data().toString()
                      : proxy->index(g, OpTreeModel::OccurrencesColumn).data().toString());
    }
    const double filtered = groupTotal(QStringLiteral("copy-done"));
    EXPECT_GT(filtered, 0);
    EXPECT_LT(filtered, unfiltered);

    // The Markdown copy shows the same filtered group total as the table.
    window.shareActions()->copyOpTable(tpuscope::model::TableFormat::Markdown);
    const QString markdown = QApplication::clipboard()->text();
    QString groupLine;
    for (const QString& line : markdown.split(QLatin1Char('\n')))
        if (line.startsWith(QStringLiteral("| copy-done |")))
            groupLine = line;
    ASSERT_FALSE(groupLine.isEmpty()) << markdown.toStdString();
    QString shown;
    for (int g = 0; g < proxy->rowCount(); ++g)
        if (proxy->index(g, 0).data().toString() == QStringLiteral("copy-done"))
            shown = proxy->index(g, OpTreeModel::TotalTimeColumn).data().toString();
    EXPECT_TRUE(groupLine.contains(QStringLiteral("| ") + shown + QStringLiteral(" |"))) << groupLine.toStdString();
    const QString message = window.statusBar()->currentMessage();
    EXPECT_TRUE(message.startsWith(QStringLiteral("Copied "))) << message.toStdString();
    EXPECT_TRUE(message.contains(QStringLiteral("of Markdown (")));
    EXPECT_TRUE(message.contains(QStringLiteral("filtered: ")));

    // Clearing the filter restores the full totals.
    table->setFilterText({});
    EXPECT_DOUBLE_EQ(groupTotal(QStringLiteral("copy-done")), unfiltered);
}

TEST_F(ShareActionsTest, OpTablePngHasAHeaderAndIsWrittenSafely)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(load(window, sample("tpu_v6e_inference.xplane.pb")));
    window.opTable()->setFilterText(QStringLiteral("copy"));
    const QStringList header = window.shareActions()->tableImageHeader();
    ASSERT_GE(header.size(), 7);
    EXPECT_EQ(header[1], QStringLiteral("File: (name redacted)")); // the default redaction: paths
    EXPECT_EQ(header[2], QStringLiteral("Device: TPU v6 Lite, 4 TPU cores"));
    EXPECT_EQ(header[3], QStringLiteral("Grouping: by category"));
    EXPECT_TRUE(header[4].startsWith(QStringLiteral("Filter: \"copy\" ("))) << header[4].toStdString();
    EXPECT_EQ(header[5], QStringLiteral("Redaction: paths redacted"));
    EXPECT_TRUE(header[6].startsWith(
        QStringLiteral("Date: ") + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd"))));

    // A symlink planted at the target: the export replaces the link, never writes through it.
    const QString victim = m_dir.filePath(QStringLiteral("victim.txt"));
    {
        QFile file(victim);
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write("keep me");
    }
    const QString path = m_dir.filePath(QStringLiteral("op-table.png"));
    ASSERT_TRUE(QFile::link(victim, path));
    ASSERT_TRUE(window.shareActions()->exportOpTablePng(path));
    {
        QFile file(victim);
        ASSERT_TRUE(file.open(QIODevice::ReadOnly));
        EXPECT_EQ(file.readAll(), QByteArray("keep me"));
    }
    EXPECT_FALSE(QFileInfo(path).isSymLink());

    QImage image(path);
    ASSERT_FALSE(image.isNull());
    const QString message = window.statusBar()->currentMessage();
    EXPECT_EQ(message, QStringLiteral("Saved op-table.png (%1×%2)").arg(image.width()).arg(image.height()));
    // Drawn from the rows: header band + one row per shown row (at least groups + ops), not a grab.
    const tpuscope::model::Table rows = window.opTable()->exportTable();
    EXPECT_GE(image.height(), 22 * int(rows.rows.size() + 1));
    EXPECT_GE(image.width(), 480);
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    EXPECT_GT(colours.size(), 10) << "the image is blank";

    const QString card = m_dir.filePath(QStringLiteral("card.png"));
    ASSERT_TRUE(window.shareActions()->saveShareCard(card));
    const QImage cardImage(card);
    ASSERT_FALSE(cardImage.isNull());
    EXPECT_EQ(window.statusBar()->currentMessage(),
        QStringLiteral("Saved card.png (%1×%2) and copied it to the clipboard")
            .arg(cardImage.width())
            .arg(cardImage.height()));

    // The open profile is never overwritten.
    EXPECT_FALSE(window.shareActions()->exportOpTablePng(sample("tpu_v6e_inference.xplane.pb")));
    EXPECT_TRUE(window.messageText().contains(QStringLiteral("Could not write"))) << window.messageText().toStdString();
}

TEST_F(ShareActionsTest, ComparisonCopyReportsInTheStatusBar)
{
    MainWindow window(MainWindow::Options {false, false});
    ASSERT_TRUE(load(window, sample("tpu_v6e_inference.xplane.pb")));
    QSignalSpy ready(&window, &MainWindow::comparisonReady);
    window.compareWith(sample("tpu_v6e_inference.xplane.pb"));
    ASSERT_TRUE(ready.wait(60000));
    QPushButton* copy = nullptr;
    for (QPushButton* button : window.compareView()->findChildren<QPushButton*>())
        if (button->text() == QStringLiteral("Copy as Markdown"))
            copy = button;
    ASSERT_TRUE(copy);
    copy->click();
    EXPECT_EQ(QApplication::clipboard()->text(), window.compareView()->markdown());
    EXPECT_TRUE(window.statusBar()->currentMessage().startsWith(QStringLiteral("Copied ")))
        << window.statusBar()->currentMessage().toStdString();
    EXPECT_TRUE(window.statusBar()->currentMessage().endsWith(QStringLiteral("of Markdown (the comparison)")));
}

// Issue 25 point 3: one redaction setting serves every export. By default it removes local paths,
// user and host names: the op table's Markdown and PNG of the v6e sample grouped by source line
// carried experimental/users/<name>/… paths, Save Share File offered "No redaction" first.
TEST_F(ShareActionsTest, EveryExportUsesOneRememberedRedactionSettingThatRemovesPathsByDefault)
{
    {
        MainWindow window(MainWindow::Options {true, false}); // the setting lives in QSettings
        ShareActions* share = window.shareActions();
        EXPECT_EQ(share->redaction().paths, true);
        EXPECT_EQ(share->redaction().names, false);
        ASSERT_TRUE(load(window, sample("tpu_v6e_inference.xplane.pb")));
        window.opTable()->setGrouping(OpTreeModel::Grouping::Source);
        const QString shown = QString::fromStdString(
            tpuscope::model::renderTable(window.opTable()->exportTable(), tpuscope::model::TableFormat::Markdown));
        ASSERT_TRUE(shown.contains(QStringLiteral("/users/"))) << "the sample no longer carries user paths";

        share->copyOpTable(tpuscope::model::TableFormat::Markdown);
        const QString copied = QApplication::clipboard()->text();
        EXPECT_FALSE(copied.contains(QStringLiteral("/users/"))) << copied.toStdString();
        EXPECT_TRUE(copied.contains(QRegularExpression(QStringLiteral(R"(\\?\[path\\?\])")))) << copied.toStdString();
        EXPECT_TRUE(window.statusBar()->currentMessage().endsWith(QStringLiteral("paths redacted)")))
            << window.statusBar()->currentMessage().toStdString();
        for (const auto& row : share->redactedOpTable().rows)
            for (const std::string& cell : row)
                EXPECT_EQ(cell.find("/users/"), std::string::npos) << cell;
        const QStringList header = share->tableImageHeader();
        EXPECT_TRUE(header.contains(QStringLiteral("File: (name redacted)"))) << header.join('\n').toStdString();
        EXPECT_TRUE(header.contains(QStringLiteral("Redaction: paths redacted"))) << header.join('\n').toStdString();

        // The export dialogs open on the setting (here Save Share File, cancelled).
        int offered = -1;
        QTimer::singleShot(0, &window, [&offered] {
            if (auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget())) {
                if (auto* choice = dialog->findChild<QComboBox*>(QStringLiteral("redaction")))
                    offered = choice->currentIndex();
                dialog->reject();
            }
        });
        share->saveShareFile();
        EXPECT_EQ(offered, 1);
        EXPECT_EQ(ShareActions::redactionChoices().value(offered), QStringLiteral("Remove paths, user and host names"));

        // A change anywhere is the setting of every export, and is remembered.
        share->setRedaction({});
        share->copyOpTable(tpuscope::model::TableFormat::Markdown);
        EXPECT_TRUE(QApplication::clipboard()->text().contains(QStringLiteral("/users/")));
        EXPECT_TRUE(share->tableImageHeader().contains(QStringLiteral("File: tpu_v6e_inference.xplane.pb")));
        EXPECT_EQ(share->suggestedFileName(QStringLiteral(".tpuscope")), QStringLiteral("tpu_v6e_inference.tpuscope"));
        EXPECT_EQ(share->suggestedFileName(QStringLiteral("-ops.png")), QStringLiteral("tpu_v6e_inference-ops.png"));
    }
    MainWindow again(MainWindow::Options {true, false});
    EXPECT_FALSE(again.shareActions()->redaction().any());
}
