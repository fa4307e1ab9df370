// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 27, failure 6: a file's op name is never rendered as rich text. With the name
// "<img src=...><table>…" every label that shows it (details title, subtitle, status bar, ...)
// is plain text, or escapes it, and 6,000 nested tables neither crash nor hang the window.
#include "mainwindow.h"

#include "../model/robustnessinputs.h"
#include "detailspanel.h"
#include "qt/tracesession.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

#include <gtest/gtest.h>

using tpuscope::app::MainWindow;
using tpuscope::qt::TraceSession;

TEST(RichText, AFileNameFullOfTagsShowsAsWritten)
{
    std::string nested;
    for (int i = 0; i < 6000; ++i)
        nested += "<table><tr><td>";
    const std::string name = "<img src=/etc/passwd><a href='https://evil.example'>SECURITY ALERT</a>" + nested;
    const std::string path = tpuscope::test::tempDir("richtext") + "/richtext.xplane.pb";
    tpuscope::test::writeFile(path, tpuscope::test::xspaceWithOneOpNamed(name));

    MainWindow window;
    window.show();
    QSignalSpy loaded(window.session(), &TraceSession::loaded);
    window.openFile(QString::fromStdString(path));
    ASSERT_TRUE(loaded.wait(60000));
    ASSERT_TRUE(window.detailsPanel()->showOpByName(QString::fromStdString(name)));
    QCoreApplication::processEvents();

    int shown = 0;
    for (QLabel* label : window.findChildren<QLabel*>()) {
        if (!label->text().contains(QStringLiteral("evil.example")))
            continue;
        ++shown;
        // Plain text, or rich text in which the name is escaped: no tag of the file's survives.
        const bool plain = label->textFormat() == Qt::PlainText;
        EXPECT_TRUE(plain || !label->text().contains(QStringLiteral("<img"))) << label->objectName().toStdString();
    }
    EXPECT_GE(shown, 1); // the details title shows the name
}

// The hostile corpus (tests/data/hostile): a share file whose device type is 6,000 nested tables
// with a "SECURITY ALERT" link and terminal controls opens, and no label renders it.
TEST(RichText, AShareFileWithMarkupInItsDeviceTypeOpensAsText)
{
    MainWindow window;
    window.show();
    QSignalSpy loaded(window.session(), &TraceSession::loaded);
    window.openFile(QString::fromStdString(tpuscope::test::dataPath("hostile/share_markup_names.tpuscope")));
    ASSERT_TRUE(loaded.wait(60000));
    QCoreApplication::processEvents();
    for (QLabel* label : window.findChildren<QLabel*>()) {
        if (!label->text().contains(QStringLiteral("SECURITY ALERT"))
            && !label->text().contains(QStringLiteral("evil")))
            continue;
        EXPECT_TRUE(label->textFormat() == Qt::PlainText || !label->text().contains(QStringLiteral("<img")))
            << label->objectName().toStdString();
    }
}

// HLO whose 30 fusions call themselves and each other around a ring: the fusion view shows each
// fusion's instructions once (the cycles are dropped when the module is read), not 25 million rows.
TEST(RichText, SelfCallingFusionsShowABoundedTree)
{
    for (const char* file :
        {"hostile/xspace_self_calling_fusions.xplane.pb", "hostile/share_self_calling_fusions.tpuscope"}) {
        SCOPED_TRACE(file);
        MainWindow window;
        window.show();
        QSignalSpy loaded(window.session(), &TraceSession::loaded);
        window.openFile(QString::fromStdString(tpuscope::test::dataPath(file)));
        ASSERT_TRUE(loaded.wait(60000));
        ASSERT_TRUE(window.detailsPanel()->showOpByName(QStringLiteral("fusion.1")));
        QCoreApplication::processEvents();
        int rows = 0;
        for (QTreeWidgetItemIterator it(window.detailsPanel()->fusedTree()); *it; ++it)
            ++rows;
        EXPECT_GE(rows, 1);
        EXPECT_LE(rows, 200);
    }
}
