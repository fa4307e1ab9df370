// SPDX-License-Identifier: GPL-3.0-or-later
// Help → Keyboard Shortcuts lists every shortcut the window and the timeline really have, and the About box
// says version, licence, Qt and protobuf.
#include "isolatedsettings.h"
#include "mainwindow.h"
#include "qt/tracesession.h"
#include "shortcutsdialog.h"
#include "timelineview.h"
#include "windowshortcuts.h"

#include <QAction>
#include <QCoreApplication>
#include <QKeyEvent>
#include <QSettings>
#include <QShortcut>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <google/protobuf/stubs/common.h>
#include <gtest/gtest.h>

using tpuscope::app::MainWindow;
using tpuscope::widgets::ShortcutEntry;
using tpuscope::widgets::ShortcutsDialog;
using tpuscope::widgets::TimelineView;

namespace {

class ShortcutsTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        tpuscope::test::isolateSettings(m_dir, QStringLiteral("tst_widgets"));
    }
    QTemporaryDir m_dir;
};

bool listed(const MainWindow& window, const QKeySequence& key, const QString& area = {})
{
    for (const ShortcutEntry& e : window.shortcutEntries())
        if ((area.isEmpty() || e.area == area) && e.sequences.contains(key))
            return true;
    return false;
}

/// True when the timeline handles the key itself (accepts it) rather than passing it on.
bool timelineAccepts(TimelineView* timeline, Qt::Key key)
{
    QKeyEvent press(QEvent::KeyPress, key, Qt::NoModifier);
    press.ignore();
    QCoreApplication::sendEvent(timeline, &press);
    return press.isAccepted();
}

} // namespace

TEST_F(ShortcutsTest, DialogShowsEveryEntryWithItsKeysAndAction)
{
    MainWindow window(MainWindow::Options {false, false});
    const QList<ShortcutEntry> entries = window.shortcutEntries();
    ASSERT_GE(entries.size(), 15);
    const QString html = ShortcutsDialog::html(entries);
    for (const ShortcutEntry& e : entries) {
        EXPECT_TRUE(html.contains(e.keys.toHtmlEscaped())) << e.keys.toStdString();
        EXPECT_TRUE(html.contains(e.action.toHtmlEscaped())) << e.action.toStdString();
        EXPECT_FALSE(e.action.isEmpty());
    }
    for (const char* area : {"Anywhere", "Timeline", "Search box"})
        EXPECT_TRUE(html.contains(QStringLiteral("<h3>%1</h3>").arg(QLatin1String(area)))) << area;
    // The gestures the README teaches are in the list too.
    for (const char* gesture : {"Ctrl+wheel", "Shift+drag or right-drag", "Double-click"})
        EXPECT_TRUE(html.contains(QLatin1String(gesture))) << gesture;
    // And the keys that reach the search box from anywhere.
    EXPECT_TRUE(listed(window, QKeySequence(Qt::CTRL | Qt::Key_F), QStringLiteral("Anywhere")));
    EXPECT_TRUE(listed(window, QKeySequence(Qt::Key_Slash), QStringLiteral("Anywhere")));
    EXPECT_TRUE(listed(window, QKeySequence(Qt::Key_Escape), QStringLiteral("Search box")));
}

TEST_F(ShortcutsTest, EveryShortcutOfTheWindowIsListedAndF1OpensTheList)
{
    MainWindow window(MainWindow::Options {false, false});
    int checked = 0;
    // Each under the area where it works: the menus' anywhere, the timeline's keys on the timeline.
    for (const QAction* action : window.findChildren<QAction*>())
        for (const QKeySequence& key : action->shortcuts()) {
            const QString area = tpuscope::app::WindowShortcuts::areaOf(action);
            EXPECT_TRUE(listed(window, key, area))
                << action->text().toStdString() << ": " << key.toString().toStdString() << " in " << area.toStdString();
            ++checked;
        }
    // No key is bound outside the actions the list is made from.
    EXPECT_TRUE(window.findChildren<QShortcut*>().isEmpty());
    // Open and Close (platform keys; the offscreen platform binds none for Quit), Reset Zoom, F1, ?, Esc.
    EXPECT_GE(checked, 6);

    const QAction* help = nullptr;
    for (const QAction* action : window.findChildren<QAction*>())
        if (action->shortcuts().contains(QKeySequence(Qt::Key_F1)))
            help = action;
    ASSERT_NE(help, nullptr) << "nothing is on F1";
    EXPECT_EQ(help->text(), QStringLiteral("&Keyboard Shortcuts"));
    EXPECT_TRUE(help->shortcuts().contains(QKeySequence(Qt::Key_Question)));
}

TEST_F(ShortcutsTest, EveryTimelineKeyInTheListIsOneTheTimelineHandles)
{
    MainWindow window(MainWindow::Options {false, false});
    QSignalSpy loaded(window.session(), &tpuscope::qt::TraceSession::loaded);
    window.openFile(QStringLiteral(TPUSCOPE_TEST_DATA_DIR "/../../resources/demo.xplane.pb"));
    ASSERT_TRUE(loaded.wait(60000));
    auto* timeline = window.findChild<TimelineView*>();
    ASSERT_NE(timeline, nullptr);

    int keys = 0;
    for (const ShortcutEntry& e : window.shortcutEntries()) {
        if (e.area != QStringLiteral("Timeline"))
            continue;
        for (const QKeySequence& key : e.sequences) {
            const auto k = Qt::Key(key[0].key());
            EXPECT_TRUE(timelineAccepts(timeline, k)) << e.keys.toStdString();
            ++keys;
        }
    }
    EXPECT_GE(keys, 10);
    // And the other way round: the keys the timeline handles are all listed, others are passed on.
    for (Qt::Key k = Qt::Key_0; k <= Qt::Key_Z; k = Qt::Key(k + 1))
        EXPECT_EQ(timelineAccepts(timeline, k), listed(window, QKeySequence(k), QStringLiteral("Timeline")))
            << QKeySequence(k).toString().toStdString();
}

TEST_F(ShortcutsTest, AboutSaysVersionLicenceQtAndProtobuf)
{
    const QString about = MainWindow::aboutHtml();
    EXPECT_TRUE(about.contains(QStringLiteral("GPL-3.0-or-later")));
    EXPECT_TRUE(about.contains(QStringLiteral("Qt " QT_VERSION_STR)));
    EXPECT_TRUE(about.contains(QString::fromLatin1(qVersion())));
    const int v = GOOGLE_PROTOBUF_VERSION;
    EXPECT_TRUE(about.contains(QStringLiteral("protobuf %1.%2.%3").arg(v / 1000000).arg(v / 1000 % 1000).arg(v % 1000)))
        << about.toStdString();
    // Links a user can open: the licence's text and xprof, whose definitions the numbers follow.
    EXPECT_TRUE(about.contains(QStringLiteral("href=\"https://www.gnu.org/licenses/gpl-3.0.html\"")));
    EXPECT_TRUE(about.contains(QStringLiteral("href=\"https://github.com/openxla/xprof\"")));
    EXPECT_FALSE(about.contains(QStringLiteral("%")));
}
