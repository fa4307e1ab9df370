// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 26 point 1: the window's keys are context shortcuts (app/windowshortcuts), not an event
// filter on the application. A text field keeps the letters it types; with the pointer over the
// timeline and the focus on another widget the navigation keys are the timeline's; Esc leaves the
// search box for the timeline; Ctrl+F and / focus the search box.
#include "../testsession.h"
#include "maintoolbar.h"
#include "mainwindow.h"
#include "optableview.h"
#include "windowshortcuts.h"

#include "qt/rangeselectionmodel.h"
#include "qt/tracesession.h"
#include "rangeselectionview.h"
#include "timelinesearch.h"
#include "timelineview.h"

#include "isolatedsettings.h"
#include "loader/loader.h"
#include "synth/synth.h"

#include <QApplication>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QVBoxLayout>

#include <gtest/gtest.h>

using namespace tpuscope;
using model::TimePs;
using widgets::RangeSelectionView;
using widgets::TimelineView;

namespace {

model::ProfilePtr demoProfile()
{
    std::string bytes, error;
    EXPECT_TRUE(model::syntheticXSpaceBytes({}, bytes, error)) << error;
    auto loaded = model::loadProfileFromBytes(bytes, "demo.xplane.pb");
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.profile;
}

/// Puts the pointer at a global position and lets the window deliver the enter/leave events.
void movePointer(QPoint global)
{
    QCursor::setPos(global);
    QCoreApplication::processEvents();
}

QPoint centreOf(const QWidget* widget)
{
    return widget->mapToGlobal(widget->rect().center());
}

/// A timeline and the Selection table over it in one shown window with the window's shortcuts, a
/// push button to hold the focus and a line edit to type into.
struct Window
{
    qt::TraceSession session;
    QWidget window;
    TimelineView* timeline = nullptr;
    RangeSelectionView* range = nullptr;
    QPushButton* button = nullptr;
    QLineEdit* edit = nullptr;

    explicit Window(model::ProfilePtr profile)
    {
        auto* layout = new QVBoxLayout(&window);
        button = new QPushButton(QStringLiteral("focus"), &window);
        edit = new QLineEdit(&window);
        timeline = new TimelineView(&window);
        range = new RangeSelectionView(timeline, &window);
        layout->addWidget(button);
        layout->addWidget(edit);
        layout->addWidget(timeline, 3);
        layout->addWidget(range, 1);
        window.resize(1200, 800);
        timeline->setSession(&session);
        new app::WindowShortcuts(&window, timeline, nullptr, &session);
        EXPECT_TRUE(test::showInSession(session, std::move(profile)));
        window.show();
        EXPECT_TRUE(QTest::qWaitForWindowActive(&window));
    }
    QPoint timelineCentre() const { return centreOf(timeline->viewport()); }
};

class MainWindowKeys : public ::testing::Test
{
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        tpuscope::test::isolateSettings(m_dir, QStringLiteral("tst_app"));
        m_window = std::make_unique<app::MainWindow>(app::MainWindow::Options {false, false});
        QSignalSpy loaded(m_window->session(), &qt::TraceSession::loaded);
        m_window->openFile(QStringLiteral(TPUSCOPE_TEST_DATA_DIR "/../../resources/demo.xplane.pb"));
        ASSERT_TRUE(loaded.wait(60000));
        m_window->resize(1400, 900);
        m_window->show();
        ASSERT_TRUE(QTest::qWaitForWindowActive(m_window.get()));
        m_window->showTimelineTab();
        QCoreApplication::processEvents();
        timeline = m_window->timeline();
        ASSERT_NE(timeline, nullptr);
        edit = m_window->findChild<widgets::TimelineSearch*>()->lineEdit();
        ASSERT_NE(edit, nullptr);
        ASSERT_TRUE(timeline->isVisible());
        full = timeline->visibleRange();
        ASSERT_GT(full.second, full.first);
    }
    /// The pointer over the timeline: the window's navigation shortcuts are on.
    void pointAtTimeline()
    {
        movePointer(centreOf(timeline->viewport()));
        ASSERT_TRUE(timeline->isPointerOver());
    }
    double span() const { return double(timeline->visibleRange().second - timeline->visibleRange().first); }

    QTemporaryDir m_dir;
    std::unique_ptr<app::MainWindow> m_window;
    TimelineView* timeline = nullptr;
    QLineEdit* edit = nullptr;
    std::pair<TimePs, TimePs> full;
};

} // namespace

TEST(TimelineKeys, NavigationKeysWorkWithThePointerOverTheTimeline)
{
    Window w(demoProfile());
    movePointer(w.timelineCentre());
    w.button->setFocus();
    ASSERT_TRUE(w.button->hasFocus());
    const auto full = w.timeline->visibleRange();
    QTest::keyClick(w.button, Qt::Key_W);
    auto r = w.timeline->visibleRange();
    EXPECT_NEAR(double(r.second - r.first), 0.8 * double(full.second - full.first), 2);
    const auto zoomed = r;
    QTest::keyClick(w.button, Qt::Key_D);
    r = w.timeline->visibleRange();
    EXPECT_GT(r.first, zoomed.first);
    QTest::keyClick(w.button, Qt::Key_A);
    EXPECT_EQ(w.timeline->visibleRange(), zoomed);
    QTest::keyClick(w.button, Qt::Key_S);
    r = w.timeline->visibleRange();
    EXPECT_GT(r.second - r.first, zoomed.second - zoomed.first);
    QTest::keyClick(w.button, Qt::Key_0);
    EXPECT_EQ(w.timeline->visibleRange(), full);
    EXPECT_TRUE(w.button->hasFocus()); // the keys did not move the focus

    // In a text field the keys are text.
    w.edit->setFocus();
    QTest::keyClick(w.edit, Qt::Key_W);
    EXPECT_EQ(w.timeline->visibleRange(), full);
    EXPECT_EQ(w.edit->text(), QStringLiteral("w"));

    // With the pointer elsewhere they stay with the focus widget.
    movePointer(centreOf(w.button));
    w.button->setFocus();
    QTest::keyClick(w.button, Qt::Key_W);
    EXPECT_EQ(w.timeline->visibleRange(), full);
}

TEST(TimelineKeys, EscWithThePointerOverTheTimelineClearsTheRange)
{
    const model::ProfilePtr profile = demoProfile();
    ASSERT_TRUE(profile);
    Window w(profile);
    const TimePs span = profile->spanEnd - profile->spanBegin;
    w.timeline->selectRange(profile->spanBegin + span / 7, profile->spanBegin + span / 3);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w.timeline->isRangeSummaryPending(); }, 10'000));
    ASSERT_GT(w.range->model()->rowCount(), 0);
    // Focus in the line edit: Esc is not the timeline's.
    movePointer(w.timelineCentre());
    w.edit->setFocus();
    QTest::keyClick(w.edit, Qt::Key_Escape);
    EXPECT_GT(w.timeline->selectedRange().second, w.timeline->selectedRange().first);
    // Focus on the button: Esc clears the range under the pointer and the table.
    w.button->setFocus();
    QTest::keyClick(w.button, Qt::Key_Escape);
    EXPECT_EQ(w.timeline->selectedRange(), std::make_pair(TimePs(0), TimePs(0)));
    EXPECT_EQ(w.range->model()->rowCount(), 0);
}

TEST_F(MainWindowKeys, TheSearchBoxKeepsTheLettersItTypes)
{
    pointAtTimeline();
    edit->setFocus();
    ASSERT_TRUE(edit->hasFocus());
    for (const Qt::Key key : {Qt::Key_W, Qt::Key_A, Qt::Key_S, Qt::Key_D, Qt::Key_0, Qt::Key_Minus})
        QTest::keyClick(edit, key);
    EXPECT_EQ(edit->text(), QStringLiteral("wasd0-"));
    EXPECT_EQ(timeline->visibleRange(), full);
    EXPECT_TRUE(edit->hasFocus());
    // The toolbar's threshold spin box too: its digits and signs are its own.
    auto* threshold = m_window->findChild<app::MainToolBar*>()->findChild<QSpinBox*>();
    ASSERT_NE(threshold, nullptr);
    threshold->setFocus();
    ASSERT_TRUE(threshold->hasFocus());
    for (const Qt::Key key : {Qt::Key_W, Qt::Key_S, Qt::Key_0, Qt::Key_Minus, Qt::Key_Home})
        QTest::keyClick(QApplication::focusWidget(), key);
    EXPECT_EQ(timeline->visibleRange(), full);
}

TEST_F(MainWindowKeys, EscInTheSearchBoxGivesTheTimelineTheKeys)
{
    pointAtTimeline();
    edit->setFocus();
    QTest::keyClicks(edit, QStringLiteral("fusion"));
    QTest::keyClick(edit, Qt::Key_Escape);
    EXPECT_TRUE(timeline->hasFocus());
    EXPECT_EQ(edit->text(), QStringLiteral("fusion"));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
    EXPECT_NEAR(span(), 0.8 * double(full.second - full.first), 2);
    const auto zoomed = timeline->visibleRange();
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_D);
    EXPECT_GT(timeline->visibleRange().first, zoomed.first);
    EXPECT_EQ(edit->text(), QStringLiteral("fusion"));
    // With the pointer away from the timeline too: the focus is the timeline's.
    movePointer(centreOf(m_window->opTable()->view()));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_0);
    EXPECT_EQ(timeline->visibleRange(), full);
}

TEST_F(MainWindowKeys, EnterInTheSearchBoxStepsAndGivesTheTimelineTheKeys)
{
    pointAtTimeline();
    edit->setFocus();
    QTest::keyClicks(edit, QStringLiteral("fusion"));
    auto* search = m_window->findChild<widgets::TimelineSearch*>();
    search->search();
    ASSERT_GT(search->matchCount(), 1u);
    QTest::keyClick(edit, Qt::Key_Return);
    EXPECT_EQ(search->currentIndex(), 0);
    EXPECT_TRUE(timeline->hasFocus());
    EXPECT_EQ(timeline->selectedEvent(), search->match(0));
    // The letters that follow move the timeline; none reaches the box.
    const double before = span();
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_S);
    EXPECT_GT(span(), before);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
    EXPECT_NEAR(span(), before, 2);
    EXPECT_EQ(edit->text(), QStringLiteral("fusion"));
    // Enter on the timeline goes on stepping; Shift+Enter steps back.
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
    EXPECT_EQ(search->currentIndex(), 1);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return, Qt::ShiftModifier);
    EXPECT_EQ(search->currentIndex(), 0);
    EXPECT_TRUE(timeline->hasFocus());
}

TEST_F(MainWindowKeys, CtrlFAndSlashFocusTheSearchBox)
{
    timeline->setFocus();
    ASSERT_TRUE(timeline->hasFocus());
    QTest::keyClick(timeline, Qt::Key_F, Qt::ControlModifier);
    EXPECT_TRUE(edit->hasFocus());
    QTest::keyClicks(edit, QStringLiteral("conv"));
    QTest::keyClick(edit, Qt::Key_Escape);
    ASSERT_TRUE(timeline->hasFocus());
    // "/" focuses the box with its text selected, and is not typed into it.
    QTest::keyClick(timeline, Qt::Key_Slash);
    EXPECT_TRUE(edit->hasFocus());
    EXPECT_EQ(edit->text(), QStringLiteral("conv"));
    EXPECT_EQ(edit->selectedText(), QStringLiteral("conv"));
    // In the box, "/" is text.
    QTest::keyClick(edit, Qt::Key_End);
    QTest::keyClick(edit, Qt::Key_Slash);
    EXPECT_EQ(edit->text(), QStringLiteral("conv/"));
    // From another view of the window, and from the Overview tab (the window shows the timeline).
    m_window->opTable()->view()->setFocus();
    ASSERT_TRUE(m_window->opTable()->view()->hasFocus());
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_F, Qt::ControlModifier);
    EXPECT_TRUE(edit->hasFocus());
    EXPECT_EQ(timeline->visibleRange(), full);
}
