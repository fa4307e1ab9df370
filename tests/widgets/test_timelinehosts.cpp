// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline of a generated 8-host pod: one collapsible header per host with its cores under it,
// folding one hides exactly its cores, and what is folded stays while the file stays; a one-host
// profile keeps its flat core groups.
#include "timelinerasterizer.h"
#include "timelineview.h"

#include "../testevents.h"
#include "../testpod.h"
#include "loader/loader.h"

#include <QApplication>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QScrollBar>
#include <QTest>

#include <gtest/gtest.h>

#include <set>

using namespace tpuscope;
using model::TrackId;
using widgets::TimelineView;

namespace {

void resizeUnshown(QWidget& w, QSize size)
{
    const QSize old = w.size();
    w.resize(size);
    QResizeEvent event(size, old);
    QApplication::sendEvent(&w, &event);
}

/// The groups that are host headers, in order.
std::vector<int> hostHeaders(const TimelineView& view)
{
    std::vector<int> headers;
    for (int g = 0; g < view.groupNames().size(); ++g)
        if (view.isHostGroup(g))
            headers.push_back(g);
    return headers;
}

std::vector<int> coresOf(const TimelineView& view, int header)
{
    std::vector<int> cores;
    for (int g = 0; g < view.groupNames().size(); ++g)
        if (view.parentGroup(g) == header)
            cores.push_back(g);
    return cores;
}

} // namespace

TEST(TimelineHosts, OneHeaderPerHostWithItsCoresAndFoldingOneHidesExactlyThem)
{
    const test::SynthPodDir pod = test::writeSynthPod("pod:hosts=8,chips=4,late=3:input,steps=6");
    model::LoadResult loaded = model::loadNewestRun(pod.path().toStdString());
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const model::ProfilePtr profile = loaded.profile;
    ASSERT_EQ(profile->hosts.size(), 8u);
    TimelineView view;
    view.setProfile(profile);
    resizeUnshown(view, QSize(1400, 900));

    const std::vector<int> headers = hostHeaders(view);
    ASSERT_EQ(headers.size(), 8u);
    std::set<TrackId> seen;
    for (size_t h = 0; h < headers.size(); ++h) {
        const QString name = view.groupNames()[headers[h]];
        EXPECT_TRUE(name.startsWith(QString::fromStdString(profile->hosts[h]))) << name.toStdString();
        EXPECT_TRUE(name.contains(QStringLiteral("4 cores"))) << name.toStdString();
        EXPECT_TRUE(view.groupTracks(headers[h]).empty()); // a header holds no tracks of its own
        const std::vector<int> cores = coresOf(view, headers[h]);
        ASSERT_EQ(cores.size(), 4u);
        for (int g : cores) {
            // Under its host's header the core group no longer repeats the host's name.
            EXPECT_TRUE(view.groupNames()[g].startsWith(QStringLiteral("TPU:"))) << view.groupNames()[g].toStdString();
            for (TrackId t : view.groupTracks(g)) {
                EXPECT_EQ(profile->planes[profile->tracks[t].plane].host, h);
                seen.insert(t);
            }
        }
    }
    EXPECT_FALSE(seen.empty());

    // Fold host 3 where a user does: its header scrolled to the top, a click on its ▸/▾ toggle.
    // Its cores' tracks leave the layout; every other track keeps its place in it.
    std::set<TrackId> host3;
    for (int g : coresOf(view, headers[3]))
        for (TrackId t : view.groupTracks(g))
            host3.insert(t);
    view.revealHost(3);
    const int headerTop = widgets::TimelineRasterizer::kRulerHeight;
    const TrackId firstOf3 = *view.groupTracks(coresOf(view, headers[3]).front()).begin();
    ASSERT_EQ(view.trackTop(firstOf3),
        headerTop + 2 * widgets::TimelineTracks::kHeaderHeight
            + widgets::TimelineTracks::kTrackPadding); // revealHost put the header at the top
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, TimelineView::headerToggleRect(headerTop).center());
    ASSERT_TRUE(view.isGroupCollapsed(headers[3]));
    for (TrackId t : seen)
        EXPECT_EQ(view.trackTop(t) == -1, host3.count(t) == 1) << t;
    for (int g : coresOf(view, headers[3]))
        EXPECT_FALSE(view.isGroupCollapsed(g)); // the cores keep their own state for the unfold
    view.setGroupCollapsed(headers[3], false);
    for (TrackId t : host3)
        EXPECT_NE(view.trackTop(t), -1);

    // What is folded stays while the file stays (the same file shown again, as after a device change).
    view.setGroupCollapsed(headers[5], true);
    view.setProfile(profile);
    EXPECT_TRUE(view.isGroupCollapsed(hostHeaders(view)[5]));
    EXPECT_FALSE(view.isGroupCollapsed(hostHeaders(view)[3]));

    // Opening a host's step: its header unfolds and comes to the top.
    view.revealHost(5);
    EXPECT_FALSE(view.isGroupCollapsed(hostHeaders(view)[5]));
    const TrackId firstOf5 = view.groupTracks(coresOf(view, hostHeaders(view)[5]).front()).front();
    EXPECT_EQ(view.trackTop(firstOf5),
        widgets::TimelineRasterizer::kRulerHeight + 2 * widgets::TimelineTracks::kHeaderHeight
            + widgets::TimelineTracks::kTrackPadding);
}

TEST(TimelineHosts, OneHostProfileKeepsItsFlatCoreGroups)
{
    model::LoadResult loaded = model::loadProfile(TPUSCOPE_TEST_DATA_DIR "/../../resources/demo.xplane.pb");
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    TimelineView view;
    view.setProfile(loaded.profile);
    EXPECT_TRUE(hostHeaders(view).empty());
    ASSERT_FALSE(view.groupNames().isEmpty());
    EXPECT_TRUE(view.groupNames().front().startsWith(QStringLiteral("TPU:")));
    for (int g = 0; g < view.groupNames().size(); ++g)
        EXPECT_EQ(view.parentGroup(g), -1);
}
