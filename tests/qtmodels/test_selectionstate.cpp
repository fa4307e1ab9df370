// SPDX-License-Identifier: GPL-3.0-or-later
// SelectionState (selectEvent resolves a timeline event to its op) and the shared ViewRange.
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "qt/viewrange.h"

#include <QSignalSpy>

#include <gtest/gtest.h>

using namespace tpuscope;
using tpuscope::qt::SelectionState;
using tpuscope::qt::TraceSession;
using tpuscope::qt::ViewRange;

TEST(SelectionState, SelectEventResolvesTheEventsOp)
{
    TraceSession session;
    SelectionState selection;
    selection.setSession(&session);
    QSignalSpy loaded(&session, &TraceSession::loaded);
    session.open(QStringLiteral(TPUSCOPE_TEST_DATA_DIR "/../../resources/demo.xplane.pb"));
    ASSERT_TRUE(loaded.wait(30000));
    const model::Profile& profile = *session.profile();
    model::TrackId track = model::kNone;
    for (model::TrackId t = 0; t < profile.tracks.size() && track == model::kNone; ++t)
        if (profile.tracks[t].kind == model::TrackKind::XlaOps && profile.tracks[t].size() > 3)
            track = t;
    ASSERT_NE(track, model::kNone);

    QSignalSpy opChanged(&selection, &SelectionState::selectedOpChanged);
    QSignalSpy eventChanged(&selection, &SelectionState::selectedEventChanged);
    selection.selectEvent(track, 3);
    EXPECT_EQ(selection.selectedTrack(), track);
    EXPECT_EQ(selection.selectedEventIndex(), 3u);
    EXPECT_EQ(selection.selectedOp(), profile.tracks[track].op[3]);
    EXPECT_EQ(opChanged.count(), 1);
    EXPECT_EQ(eventChanged.count(), 1);
    selection.selectEvent(track, 3); // no change, no signal
    EXPECT_EQ(opChanged.count(), 1);
    EXPECT_EQ(eventChanged.count(), 1);

    // An event that is not in the profile clears the event and keeps the op.
    const model::OpId op = selection.selectedOp();
    selection.selectEvent(track, profile.tracks[track].size() + 10);
    EXPECT_EQ(selection.selectedTrack(), model::kNone);
    EXPECT_EQ(selection.selectedOp(), op);

    // A closed profile clears the selection.
    selection.setHighlightedOps({op});
    session.close();
    EXPECT_EQ(selection.selectedOp(), model::kNone);
    EXPECT_TRUE(selection.highlightedOps().isEmpty());
}

TEST(ViewRange, EmitsOnlyOnChangeAndDeliversACorrection)
{
    ViewRange range;
    QSignalSpy changed(&range, &ViewRange::rangeChanged);
    range.setRange(100, 200);
    range.setRange(100, 200);
    range.setRange(300, 300); // empty: ignored
    ASSERT_EQ(changed.count(), 1);
    EXPECT_EQ(range.begin(), 100);
    EXPECT_EQ(range.end(), 200);

    // A view that clamps what it is given writes its range back during the emission: everyone
    // gets the clamped range next, once, and the first view is not called again with its own.
    int clampCalls = 0;
    QObject::connect(&range, &ViewRange::rangeChanged, &range, [&](model::TimePs begin, model::TimePs end) {
        ++clampCalls;
        range.setRange(std::max<model::TimePs>(begin, 0), end);
    });
    changed.clear();
    range.setRange(-50, 150);
    ASSERT_EQ(changed.count(), 2);
    EXPECT_EQ(changed.at(0).at(0).value<model::TimePs>(), -50);
    EXPECT_EQ(changed.at(1).at(0).value<model::TimePs>(), 0);
    EXPECT_EQ(range.begin(), 0);
    EXPECT_EQ(clampCalls, 2);
}
