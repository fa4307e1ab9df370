// SPDX-License-Identifier: GPL-3.0-or-later
// The Hosts tab inside the main window on a generated 8-host pod: a click on a cell opens that
// host's step in the timeline.
#include "hostsview.h"
#include "mainwindow.h"
#include "qt/tracesession.h"
#include "timelineview.h"

#include "../testevents.h"
#include "../testpod.h"
#include "analysis/hosts.h"
#include "isolatedsettings.h"

#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

using tpuscope::widgets::HostsView;
namespace model = tpuscope::model;
namespace test = tpuscope::test;

TEST(HostsViewWindow, ClickOnHostThreeStepFiveOpensItInTheTimeline)
{
    QTemporaryDir settings;
    tpuscope::test::isolateSettings(settings);
    const test::SynthPodDir pod = test::writeSynthPod("pod:hosts=8,chips=4,late=3:input,steps=12");
    tpuscope::app::MainWindow window(tpuscope::app::MainWindow::Options {false, false});
    auto* view = qobject_cast<HostsView*>(window.viewWidget(QStringLiteral("hosts")));
    ASSERT_NE(view, nullptr);
    QSignalSpy loaded(window.session(), &tpuscope::qt::TraceSession::loaded);
    window.openFile(pod.path());
    ASSERT_TRUE(loaded.wait(60000));
    const model::HostAnalysis& hosts = window.session()->analysis()->hosts;
    ASSERT_EQ(hosts.hosts.size(), 8u);
    ASSERT_GT(hosts.steps, 5);

    QTabWidget* tabs = nullptr;
    for (QTabWidget* t : window.findChildren<QTabWidget*>())
        if (t->indexOf(view) >= 0)
            tabs = t;
    ASSERT_TRUE(tabs);
    window.resize(1600, 1000);
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.show();
    tabs->setCurrentWidget(view);
    test::deliverQueuedEvents();
    ASSERT_TRUE(view->isMapShown());

    QTest::mouseClick(view->heatMap(), Qt::LeftButton, {}, view->heatMap()->cellRect(3, 5).center());
    EXPECT_NE(tabs->currentWidget(), view); // the Timeline tab
    const model::TimePs begin = hosts.stepStartPs[3][5];
    const model::TimePs end = begin + model::TimePs(std::llround(hosts.stepPs[3][5]));
    const auto shown = window.timeline()->visibleRange();
    EXPECT_LE(shown.first, begin);
    EXPECT_GE(shown.second, end);
    EXPECT_LT(shown.second - shown.first, 2 * (end - begin));
    // ... on that host: its header unfolded at the top of the timeline, its first core just under it.
    tpuscope::widgets::TimelineView* timeline = window.timeline();
    int header = -1;
    for (int g = 0; g < timeline->groupNames().size(); ++g)
        if (timeline->isHostGroup(g)
            && timeline->groupNames()[g].startsWith(QString::fromStdString(hosts.hosts[3].name)))
            header = g;
    ASSERT_GE(header, 0);
    EXPECT_FALSE(timeline->isGroupCollapsed(header));
    ASSERT_EQ(timeline->parentGroup(header + 1), header);
    const model::TrackId first = timeline->groupTracks(header + 1).front();
    EXPECT_GE(timeline->trackTop(first), 0);
    EXPECT_LT(timeline->trackTop(first), 100);
}
