// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 25 (what a new user meets in the first ten minutes): Compare says when two profiles are
// unrelated and which file is before and after; a window with no file offers no controls that
// have nothing to act on; dark mode is a remembered View menu toggle with visible check boxes;
// the glossary cites what a user can read.
#include "appearance.h"
#include "mainmenus.h"
#include "mainwindow.h"

#include "compareview.h"
#include "glossarydialog.h"
#include "qt/colors.h"
#include "qt/tracesession.h"
#include "report/glossary.h"

#include "../testevents.h"
#include "isolatedsettings.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStyleOptionButton>
#include <QTemporaryDir>
#include <QToolBar>

#include <gtest/gtest.h>

using tpuscope::app::MainWindow;
using tpuscope::qt::TraceSession;
namespace colors = tpuscope::qt::colors;

namespace {

QString sample(const char* name)
{
    return QStringLiteral(TPUSCOPE_SAMPLES_DIR "/") + QLatin1String(name);
}

/// The bundled demo (a TPU v3 origin story), as the file the build embeds.
QString demoPath()
{
    return QStringLiteral(TPUSCOPE_TEST_DATA_DIR "/../../resources/demo.xplane.pb");
}

class FirstMinutesTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        tpuscope::test::isolateSettings(m_dir, QStringLiteral("tst_app"));
    }
    void TearDown() override { tpuscope::app::setDarkMode(false); } // other tests expect the light look

    QTemporaryDir m_dir;
};

/// The largest WCAG contrast between a pixel of `rect` in `image` and `background`.
double strongestContrast(const QImage& image, const QRect& rect, const QColor& background)
{
    double strongest = 1;
    for (int y = rect.top(); y <= rect.bottom(); ++y)
        for (int x = rect.left(); x <= rect.right(); ++x)
            if (image.rect().contains(x, y))
                strongest = std::max(strongest, colors::contrastRatio(image.pixelColor(x, y), background));
    return strongest;
}

} // namespace

// Point 10: the v3 demo against the v6e sample read "0 ops matched … +7859 %" as if it were a result.
TEST_F(FirstMinutesTest, CompareSaysUnrelatedProfilesAreUnrelatedAndWhichFileIsBefore)
{
    if (!QFile::exists(sample("tpu_v6e_inference.xplane.pb")) || !QFile::exists(demoPath()))
        GTEST_SKIP() << "v6e sample or demo missing";
    MainWindow window(MainWindow::Options {false, false});
    QSignalSpy loaded(window.session(), &TraceSession::loaded);
    window.openFile(demoPath());
    ASSERT_TRUE(loaded.wait(60000));
    QSignalSpy ready(&window, &MainWindow::comparisonReady);
    window.compareWith(sample("tpu_v6e_inference.xplane.pb"));
    ASSERT_TRUE(ready.wait(60000));
    ASSERT_TRUE(ready.front().front().toBool());
    const auto diff = window.compareView()->model()->diff();
    ASSERT_TRUE(diff);
    EXPECT_FALSE(diff->related());
    EXPECT_TRUE(diff->differentGeneration());

    const QString summary = window.compareView()->summaryText();
    EXPECT_TRUE(summary.contains(QStringLiteral("<b>Before:</b> demo.xplane.pb (the open profile)")))
        << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("<b>after:</b> tpu_v6e_inference.xplane.pb")));
    EXPECT_TRUE(summary.contains(QStringLiteral("These profiles look unrelated")));
    EXPECT_TRUE(summary.contains(QStringLiteral("Different TPU generations (before v3, after v6e)")));
    // No change in percent that would read as a result (the warning's own coverage figures aside).
    const QString figures = summary.section(QStringLiteral("<br>"), -1);
    EXPECT_FALSE(figures.contains(QLatin1Char('%'))) << figures.toStdString();
    EXPECT_TRUE(
        window.compareView()->markdown().contains(QStringLiteral("> **Warning:** These profiles look unrelated")));

    // Point 12d: exports propose the profiles' names.
    EXPECT_EQ(window.compareView()->suggestedCardName(), QStringLiteral("demo-vs-tpu_v6e_inference-compare.png"));

    // The dialog names the open profile as "before".
    const QString title = tpuscope::app::MainMenus::compareDialogTitle(QStringLiteral("demo.xplane.pb"));
    EXPECT_TRUE(title.contains(QStringLiteral("demo.xplane.pb (before)"))) << title.toStdString();
    EXPECT_TRUE(title.contains(QStringLiteral("after")));
}

// Point 12a: with no file open, the Selection dock and the toolbar's colour, threshold and search
// showed, with nothing to act on.
TEST_F(FirstMinutesTest, WithNoFileOpenOnlyWhatCanActShows)
{
    MainWindow window(MainWindow::Options {false, false});
    window.resize(1280, 720);
    window.show();
    tpuscope::test::deliverQueuedEvents();
    auto* selectionDock = window.findChild<QDockWidget*>(QStringLiteral("selectionDock"));
    ASSERT_TRUE(selectionDock);
    EXPECT_FALSE(selectionDock->isVisible());
    auto* toolBar = window.findChild<QToolBar*>(QStringLiteral("mainToolBar"));
    ASSERT_TRUE(toolBar);
    for (QWidget* control : toolBar->findChildren<QWidget*>())
        if (qobject_cast<QSpinBox*>(control) || qobject_cast<QLineEdit*>(control)) {
            EXPECT_FALSE(control->isVisible()) << control->metaObject()->className();
        }

    if (!QFile::exists(demoPath()))
        return;
    QSignalSpy loaded(window.session(), &TraceSession::loaded);
    window.openFile(demoPath());
    ASSERT_TRUE(loaded.wait(60000));
    tpuscope::test::deliverQueuedEvents(); // the toolbar lays out the controls it shows again
    bool searchShown = false;
    for (QLineEdit* edit : toolBar->findChildren<QLineEdit*>())
        searchShown = searchShown || edit->isVisible();
    EXPECT_TRUE(searchShown);
    EXPECT_EQ(toolBar->findChild<QSpinBox*>()->isVisible(), true);
}

// Point 12b: dark mode was only `--dark`, and a check box was almost invisible in it.
TEST_F(FirstMinutesTest, DarkModeIsARememberedViewToggleWithVisibleCheckBoxes)
{
    MainWindow window(MainWindow::Options {true, false});
    {
        QAction* dark = window.darkModeAction();
        ASSERT_TRUE(dark);
        EXPECT_TRUE(dark->isCheckable());
        EXPECT_FALSE(dark->isChecked());
        dark->trigger();
        EXPECT_TRUE(tpuscope::app::isDarkMode());
        EXPECT_TRUE(colors::isDark(QApplication::palette()));
        EXPECT_TRUE(QSettings().value(tpuscope::app::kDarkModeSettingsKey).toBool());

        // An unchecked box's edge reaches 3:1 against the window (WCAG non-text contrast).
        QCheckBox box(QStringLiteral("Add the share block"));
        box.resize(box.sizeHint());
        const QImage image = box.grab().toImage();
        QStyleOptionButton option;
        option.initFrom(&box);
        const QRect indicator = box.style()->subElementRect(QStyle::SE_CheckBoxIndicator, &option, &box);
        ASSERT_FALSE(indicator.isEmpty());
        const QColor window_ = QApplication::palette().color(QPalette::Window);
        EXPECT_GE(strongestContrast(image, indicator, window_), 3.0);

        dark->trigger();
        EXPECT_FALSE(colors::isDark(QApplication::palette()));
        EXPECT_FALSE(QSettings().value(tpuscope::app::kDarkModeSettingsKey).toBool());
    }
}

// Point 12c: the glossary cited "FORMATS.md §7", a file users do not have.
TEST_F(FirstMinutesTest, GlossaryCitesWhatAUserCanRead)
{
    for (const tpuscope::model::GlossaryEntry& entry : tpuscope::model::glossary())
        EXPECT_EQ(std::string_view(entry.source).find("FORMATS.md"), std::string_view::npos) << entry.source;
    EXPECT_FALSE(tpuscope::widgets::GlossaryDialog::html().contains(QStringLiteral("FORMATS.md")));
    EXPECT_TRUE(tpuscope::widgets::GlossaryDialog::html().contains(QStringLiteral("op_profile.proto")));
}
