// SPDX-License-Identifier: GPL-3.0-or-later
// The Memory tab inside the main window: it follows the session and a buffer reaches the details.
#include "detailspanel.h"
#include "isolatedsettings.h"
#include "mainwindow.h"
#include "memoryview.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"

#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>

#include <gtest/gtest.h>

using tpuscope::widgets::MemoryView;
namespace model = tpuscope::model;

namespace {

int rowOf(QTableWidget* table, const QString& instruction)
{
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0)->text() == instruction)
            return r;
    return -1;
}

} // namespace

TEST(MemoryView, MainWindowTabFollowsTheSessionAndReachesTheDetailsPanel)
{
    const QString sample = QStringLiteral(TPUSCOPE_SAMPLES_DIR "/tpu_v6e_inference.xplane.pb");
    if (!QFile::exists(sample))
        GTEST_SKIP() << "sample missing";
    QTemporaryDir dir;
    tpuscope::test::isolateSettings(dir);
    tpuscope::app::MainWindow window(tpuscope::app::MainWindow::Options {false, false});
    auto* view = qobject_cast<MemoryView*>(window.viewWidget(QStringLiteral("memory")));
    ASSERT_NE(view, nullptr);
    QSignalSpy loaded(window.session(), &tpuscope::qt::TraceSession::loaded);
    window.openFile(sample);
    ASSERT_TRUE(loaded.wait(60000));
    ASSERT_EQ(view->report().modules.size(), 4u);
    EXPECT_EQ(&view->report(), &window.session()->analysis()->memory); // the session's, not computed again
    const int row = rowOf(view->table(), QStringLiteral("broadcast_add_fusion.2"));
    ASSERT_GE(row, 0);
    view->table()->selectRow(row);
    ASSERT_NE(window.selection()->selectedOp(), model::kNone);
    EXPECT_EQ(window.detailsPanel()->currentOp(), window.selection()->selectedOp());
}
