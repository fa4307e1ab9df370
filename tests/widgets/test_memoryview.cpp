// SPDX-License-Identifier: GPL-3.0-or-later
// The Memory tab: chart of the heap over program order, the sortable table of buffers at the
// peak, and a selection that reaches the details panel.
#include "analysis/profileanalysis.h"
#include "memoryview.h"

#include "detailspanel.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "synth/synth.h"

#include "loader/loader.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFile>
#include <QHeaderView>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>

#include <qcustomplot.h>

#include <gtest/gtest.h>

using tpuscope::widgets::MemoryView;
namespace model = tpuscope::model;

namespace {

model::ProfilePtr demoProfile()
{
    std::string bytes, error;
    EXPECT_TRUE(model::syntheticXSpaceBytes({}, bytes, error)) << error;
    auto loaded = model::loadProfileFromBytes(bytes, "demo.xplane.pb");
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.profile;
}

int rowOf(QTableWidget* table, const QString& instruction)
{
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0)->text() == instruction)
            return r;
    return -1;
}

} // namespace

TEST(MemoryView, DemoShowsThePeakAndTheBuffersAtIt)
{
    MemoryView view;
    tpuscope::qt::SelectionState selection;
    view.setSelectionState(&selection);
    model::ProfilePtr profile = demoProfile();
    view.setAnalysis(model::buildProfileAnalysis(profile));
    ASSERT_NE(view.currentModule(), nullptr);
    const model::ModuleMemory& m = *view.currentModule();
    EXPECT_EQ(view.table()->rowCount(), static_cast<int>(m.buffersAtPeak.size()));
    EXPECT_TRUE(view.status()->text().contains(QStringLiteral("89.6%"))) << view.status()->text().toStdString();
    // Heap and unpadded lines over the whole timeline.
    ASSERT_EQ(view.plot()->graphCount(), 2);
    EXPECT_EQ(view.plot()->graph(0)->dataCount(), static_cast<int>(m.timeline.size()));
    EXPECT_GE(view.plot()->itemCount(), 2); // the peak line and its label

    // Sorted by padding, the two batch-16 activations come first.
    view.table()->sortByColumn(4, Qt::DescendingOrder);
    const QString first = view.table()->item(0, 0)->text();
    EXPECT_TRUE(first == QStringLiteral("fusion.7") || first == QStringLiteral("fusion.12")) << first.toStdString();
    view.table()->sortByColumn(1, Qt::AscendingOrder);
    EXPECT_EQ(view.table()->item(0, 1)->text(), QStringLiteral("output"));

    // Selecting fusion.7 selects its op and explains its padding per dimension.
    const int row = rowOf(view.table(), QStringLiteral("fusion.7"));
    ASSERT_GE(row, 0);
    QSignalSpy spy(&view, &MemoryView::opSelected);
    view.table()->selectRow(row);
    ASSERT_EQ(spy.count(), 1);
    const auto op = spy.front().front().value<model::OpId>();
    EXPECT_EQ(profile->str(profile->ops[op].name), "fusion.7");
    EXPECT_EQ(selection.selectedOp(), op);
    const QString details = view.detailsBrowser()->toPlainText();
    EXPECT_TRUE(details.contains(QStringLiteral("dim 0 of size 16 padded to 128 by tile T(8,128)")))
        << details.toStdString();
    EXPECT_TRUE(details.contains(QStringLiteral("batch"))) << details.toStdString();
    if (const QByteArray dir = qgetenv("TPUSCOPE_SHOT_DIR"); !dir.isEmpty()) { // for looking at it
        view.resize(1400, 800);
        view.show();
        QCoreApplication::processEvents();
        view.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/memoryview_selected.png"));
    }

    // A parameter is not an op: no selection, but its details still show.
    const int param = rowOf(view.table(), QStringLiteral("Arg_0.1"));
    ASSERT_GE(param, 0);
    view.table()->selectRow(param);
    EXPECT_EQ(spy.count(), 1);
    EXPECT_TRUE(view.detailsBrowser()->toPlainText().contains(QStringLiteral("dim 3 of size 3 padded to 128")));

    view.setAnalysis(nullptr);
    EXPECT_EQ(view.table()->rowCount(), 0);
}

TEST(MemoryView, SampleModulesAreChosenInTheCombo)
{
    const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
    if (!QFile::exists(QString::fromStdString(path)))
        GTEST_SKIP() << "sample missing";
    auto loaded = model::loadProfile(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    MemoryView view;
    view.setAnalysis(model::buildProfileAnalysis(loaded.profile));
    EXPECT_EQ(view.moduleCombo()->count(), 4);
    // The module with the largest peak is shown first.
    EXPECT_EQ(view.moduleCombo()->currentText(), QStringLiteral("jit_f"));
    EXPECT_EQ(view.table()->rowCount(), 5);
    ASSERT_TRUE(view.showModule(QStringLiteral("jit_convert_element_type")));
    EXPECT_EQ(view.table()->rowCount(), 2);
    EXPECT_TRUE(view.detailsBrowser()->toPlainText().contains(QStringLiteral("No heap-simulator trace")));
    EXPECT_FALSE(view.showModule(QStringLiteral("nope")));
}

TEST(MemoryView, TheHbmCapacityLabelIsWholeInsideAShortChart)
{
    // Issue 25.11: "HBM capacity 29.8 GiB" was cut off by the top of the plot.
    const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
    if (!QFile::exists(QString::fromStdString(path)))
        GTEST_SKIP() << "sample missing";
    auto loaded = model::loadProfile(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    for (const int height : {220, 300, 600}) {
        MemoryView view;
        view.setAnalysis(model::buildProfileAnalysis(loaded.profile));
        view.resize(900, height);
        view.show();
        QCoreApplication::sendPostedEvents();
        QCustomPlot* plot = view.plot();
        plot->replot();
        QCPItemText* label = nullptr;
        for (int i = 0; i < plot->itemCount(); ++i)
            if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)); text && text->text().startsWith("HBM capacity"))
                label = text;
        ASSERT_TRUE(label) << "the jit_f peak (20 GiB of 29.8) comes near the capacity";
        const QRectF text(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition());
        const QRect axes = plot->axisRect()->rect();
        EXPECT_TRUE(QRectF(axes).contains(text)) << "plot " << height << " px: label " << text.top() << ".."
                                                 << text.bottom() << ", axes " << axes.top() << ".." << axes.bottom();
    }
}
