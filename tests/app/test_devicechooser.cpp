// SPDX-License-Identifier: GPL-3.0-or-later
// The GUI device picker (issue 12): an info bar when the generation is unknown or contradicted,
// one click to choose, remembered per file, recomputed without reading the file again.
#include "mainwindow.h"

#include "devicechooser.h"
#include "glossarydialog.h"
#include "isolatedsettings.h"
#include "optableview.h"
#include "qt/optreemodel.h"
#include "qt/tracesession.h"
#include "report/glossary.h"

#include <QCoreApplication>
#include <QFile>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTreeView>

#include <gtest/gtest.h>

using tpuscope::app::MainWindow;
using tpuscope::qt::OpTreeModel;
using tpuscope::qt::TraceSession;
using tpuscope::widgets::DeviceChooser;

namespace {

QString vllmPath()
{
    return QStringLiteral(TPUSCOPE_SAMPLES_DIR "/tpu_vllm_serving.trace.json.gz");
}

class DeviceChooserTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        if (!QFile::exists(vllmPath()))
            GTEST_SKIP() << "sample missing: " << vllmPath().toStdString();
        ASSERT_TRUE(m_dir.isValid());
        tpuscope::test::isolateSettings(m_dir, QStringLiteral("tst_devicechooser"));
    }
    QTemporaryDir m_dir;
};

QPushButton* buttonWithText(QWidget* parent, const QString& text)
{
    for (QPushButton* b : parent->findChildren<QPushButton*>())
        if (b->text() == text)
            return b;
    return nullptr;
}

/// The op table's FLOPS utilization text of its first op row.
QString firstOpFlopsText(MainWindow& window)
{
    QTreeView* tree = window.opTable()->view();
    QAbstractItemModel* m = tree->model();
    const QModelIndex group = m->index(0, 0);
    return m->index(0, OpTreeModel::FlopsUtilizationColumn, group).data().toString();
}

} // namespace

TEST_F(DeviceChooserTest, UnknownGenerationOffersTheOnesTheDataFitAndRecomputesWithoutReading)
{
    MainWindow window;
    window.show();
    QSignalSpy loaded(window.session(), &TraceSession::loaded);
    QSignalSpy started(window.session(), &TraceSession::loadStarted);
    window.openFile(vllmPath());
    ASSERT_TRUE(loaded.wait(60000));
    DeviceChooser* chooser = window.deviceChooser();
    ASSERT_TRUE(chooser);
    EXPECT_TRUE(chooser->message().contains(QStringLiteral("does not record the TPU generation")))
        << chooser->message().toStdString();
    EXPECT_EQ(firstOpFlopsText(window), QStringLiteral("–"));

    QPushButton* use = buttonWithText(chooser, QStringLiteral("Use TPU v7x"));
    ASSERT_TRUE(use);
    const auto before = window.session()->profile();
    const double loadSeconds = window.session()->loadSeconds();
    const int starts = started.count();
    use->click();
    ASSERT_TRUE(loaded.wait(60000));
    const auto after = window.session()->profile();
    // Same events (no second read: no loadStarted, same load time), new device, new numbers.
    EXPECT_EQ(started.count(), starts);
    EXPECT_EQ(window.session()->loadSeconds(), loadSeconds);
    EXPECT_NE(before.get(), after.get());
    EXPECT_EQ(after->eventCount(), before->eventCount());
    EXPECT_EQ(after->device.generation, "v7x");
    EXPECT_TRUE(chooser->message().isEmpty()); // the data fit v7x: nothing to say
    EXPECT_NE(firstOpFlopsText(window), QStringLiteral("–"));

    // The menu shows the choice, and the choice is remembered for this file.
    bool checked = false;
    for (QAction* a : chooser->menu()->actions())
        checked = checked || (a->isChecked() && a->data().toString() == QStringLiteral("v7x"));
    EXPECT_TRUE(checked);
    MainWindow second;
    QSignalSpy secondLoaded(second.session(), &TraceSession::loaded);
    second.openFile(vllmPath());
    ASSERT_TRUE(secondLoaded.wait(60000));
    EXPECT_EQ(second.session()->profile()->device.generation, "v7x");
}

TEST_F(DeviceChooserTest, ContradictedDeviceIsCalledOutInTheBar)
{
    MainWindow window;
    window.setDeviceOverride(QStringLiteral("v6e"));
    QSignalSpy loaded(window.session(), &TraceSession::loaded);
    window.openFile(vllmPath());
    ASSERT_TRUE(loaded.wait(60000));
    const QString text = window.deviceChooser()->message();
    EXPECT_TRUE(text.contains(QStringLiteral("contradict TPU v6e"))) << text.toStdString();
    EXPECT_TRUE(buttonWithText(window.deviceChooser(), QStringLiteral("Use TPU v7x")));
    // Back to the file's own: unknown again.
    for (QAction* a : window.deviceChooser()->menu()->actions())
        if (a->isCheckable() && a->data().toString().isEmpty())
            a->trigger();
    ASSERT_TRUE(loaded.wait(60000));
    EXPECT_EQ(window.session()->profile()->device.peakTflopsPerCore, 0);
    EXPECT_EQ(firstOpFlopsText(window), QStringLiteral("–"));
}

TEST(Glossary, DialogAndColumnTooltipsReadTheOneList)
{
    const QString html = tpuscope::widgets::GlossaryDialog::html();
    for (const tpuscope::model::GlossaryEntry& e : tpuscope::model::glossary())
        EXPECT_TRUE(html.contains(QString::fromUtf8(e.term).toHtmlEscaped())) << e.key;
    OpTreeModel model;
    const QString tip
        = model.headerData(OpTreeModel::RooflineEfficiencyColumn, Qt::Horizontal, Qt::ToolTipRole).toString();
    EXPECT_EQ(tip.toStdString(), tpuscope::model::glossaryTooltip("roofline-efficiency"));
}

// Issue 22, point 3: an op_profile records no core count; the bar says so, offers the count with
// the replica groups' lower bound as its minimum, and a chosen count reaches every view's numbers
// through the same session job (no second read).
TEST_F(DeviceChooserTest, CoresNotRecordedAreSetInTheBar)
{
    const QString v5 = QStringLiteral(TPUSCOPE_SAMPLES_DIR "/tpu_v5_training.op_profile.json.gz");
    if (!QFile::exists(v5))
        GTEST_SKIP() << "sample missing: " << v5.toStdString();
    MainWindow window;
    window.show();
    QSignalSpy loaded(window.session(), &TraceSession::loaded);
    QSignalSpy started(window.session(), &TraceSession::loadStarted);
    window.openFile(v5);
    ASSERT_TRUE(loaded.wait(60000));
    DeviceChooser* chooser = window.deviceChooser();
    EXPECT_TRUE(chooser->message().contains(QStringLiteral("at least 4 from the replica groups")))
        << chooser->message().toStdString();
    QSpinBox* cores = chooser->findChild<QSpinBox*>();
    ASSERT_TRUE(cores);
    EXPECT_FALSE(cores->isHidden());
    EXPECT_EQ(cores->minimum(), 4);
    EXPECT_EQ(cores->value(), 4);
    const auto before = window.session()->analysis();
    ASSERT_TRUE(before);
    EXPECT_EQ(before->advice.cores, 4);

    const int starts = started.count();
    cores->setValue(8);
    QPushButton* apply = buttonWithText(chooser, QStringLiteral("Apply"));
    ASSERT_TRUE(apply);
    apply->click();
    ASSERT_TRUE(loaded.wait(60000));
    EXPECT_EQ(started.count(), starts);
    const auto after = window.session()->analysis();
    EXPECT_EQ(after->profile->device.cores, 8);
    EXPECT_EQ(after->breakdown.coresRepresented, 8);
    EXPECT_EQ(after->advice.cores, 8);
    EXPECT_EQ(after->steps.cores, 8);
    ASSERT_EQ(after->advice.advice.size(), before->advice.advice.size());
    for (size_t i = 0; i < after->advice.advice.size(); ++i)
        if (before->advice.advice[i].gainPs > 0) {
            EXPECT_NEAR(after->advice.advice[i].gainPs, before->advice.advice[i].gainPs / 2,
                1e-6 * before->advice.advice[i].gainPs);
        }
}
