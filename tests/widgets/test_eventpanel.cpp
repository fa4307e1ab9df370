// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 25 point 7: a clicked XLA op event leads the Details panel with its own section (start,
// duration, core, step, program, its place among the op's occurrences, its own rates), the op's
// totals follow under their own heading, Copy carries both, and the facts are selectable.
#include "../testanalysis.h"
#include "../testsession.h"
#include "detailspanel.h"

#include "analysis/eventoccurrence.h"
#include "core/format.h"
#include "loader/loader.h"
#include "qt/selectionstate.h"
#include "synth/synth.h"

#include <QLabel>
#include <QTextBrowser>

#include <gtest/gtest.h>

using namespace tpuscope;
using model::kNone;
using model::TrackId;
using model::TrackKind;

namespace {

model::ProfilePtr demoProfile()
{
    static const model::ProfilePtr profile = [] {
        std::string bytes, error;
        EXPECT_TRUE(model::syntheticXSpaceBytes({}, bytes, error)) << error;
        auto loaded = model::loadProfileFromBytes(bytes, "demo.xplane.pb");
        EXPECT_TRUE(loaded.ok()) << loaded.error;
        return loaded.profile;
    }();
    return profile;
}

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

/// Core 0's XLA Ops line and an event on it in the middle of the profile (inside a step).
std::pair<TrackId, uint32_t> middleOpEvent(const model::Profile& p)
{
    for (const TrackId t : p.planes[p.tpuCorePlanes().at(0)].tracks)
        if (p.tracks[t].kind == TrackKind::XlaOps && p.tracks[t].size() > 2)
            return {t, uint32_t(p.tracks[t].size() / 2)};
    return {kNone, 0};
}

} // namespace

TEST(EventPanel, AnOpEventLeadsWithThisOccurrenceAndCopiesIt)
{
    const model::ProfilePtr p = demoProfile();
    const auto analysis = test::analysisOf(p);
    const auto [track, index] = middleOpEvent(*p);
    ASSERT_NE(track, kNone);
    const model::Track& t = p->tracks[track];
    widgets::DetailsPanel details;
    details.setAnalysis(analysis);
    // As SelectionState orders them: the event, then its op.
    details.setTimelineEvent(track, index);
    details.showOp(t.op[index]);
    const QString md = details.markdown();
    const model::EventOccurrence e = model::describeEventOccurrence(*analysis, track, index);
    ASSERT_TRUE(e.found && e.xlaOp);
    ASSERT_TRUE(e.stepIndex) << "the demo's middle event lies in a step";

    const qsizetype occurrence = md.indexOf(QStringLiteral("### This occurrence"));
    const qsizetype totals = md.indexOf(QStringLiteral("### The op's totals over all"));
    ASSERT_GE(occurrence, 0) << md.toStdString();
    ASSERT_GT(totals, occurrence) << md.toStdString();
    const QString section = md.mid(occurrence, totals - occurrence);
    // Start (the ruler's formatter), duration, core, step, program.
    EXPECT_TRUE(section.contains(QStringLiteral("**Start:** ") + qs(model::formatEventTime(e.startPs, e.durationPs))))
        << section.toStdString();
    EXPECT_TRUE(
        section.contains(QStringLiteral("**Duration:** ") + qs(model::formatDurationPs(double(t.duration[index])))))
        << section.toStdString();
    EXPECT_TRUE(section.contains(
        QStringLiteral("**Core:** ") + qs(p->str(p->planes[t.plane].name)) + " / " + qs(p->str(t.name))))
        << section.toStdString();
    const QString stepPlace = QStringLiteral("step %1 of %2").arg(*e.stepIndex + 1).arg(e.stepCount);
    EXPECT_TRUE(section.contains(QStringLiteral("**Step:** ")) && section.contains(stepPlace)) << section.toStdString();
    ASSERT_FALSE(e.program.empty());
    EXPECT_TRUE(section.contains(QStringLiteral("**Program:** ") + qs(e.program))) << section.toStdString();
    // Its place among the op's occurrences and its own rates, labelled as this occurrence's.
    EXPECT_TRUE(section.contains(
        QStringLiteral("**Occurrence:** %1 of %2 on this core").arg(e.occurrenceOnCore).arg(e.occurrencesOnCore)))
        << section.toStdString();
    EXPECT_TRUE(section.contains(QStringLiteral("median ") + qs(model::formatDurationPs(e.medianPs))))
        << section.toStdString();
    EXPECT_TRUE(section.contains(
        QStringLiteral("**FLOPS utilization, this occurrence:** ") + qs(model::formatUtilization(e.flopsUtilization))))
        << section.toStdString();
    // The op's totals stay, after it.
    EXPECT_TRUE(md.mid(totals).contains(QStringLiteral("**Occurrences:**"))) << md.toStdString();

    // The facts are selectable text.
    EXPECT_TRUE(details.browser()->textInteractionFlags() & Qt::TextSelectableByMouse);
    EXPECT_TRUE(details.subtitleLabel()->textInteractionFlags() & Qt::TextSelectableByMouse);

    // The op chosen elsewhere (no event): the totals under their old heading, no occurrence.
    details.setTimelineEvent(kNone, 0);
    details.showOp(t.op[index]);
    EXPECT_FALSE(details.markdown().contains(QStringLiteral("This occurrence")));
    EXPECT_TRUE(details.markdown().contains(QStringLiteral("### Performance")));
}

TEST(EventPanel, TheComparisonIsASessionJobAndAnotherEventSupersedesIt)
{
    const model::ProfilePtr p = demoProfile();
    qt::TraceSession session;
    qt::SelectionState selection;
    selection.setSession(&session);
    widgets::DetailsPanel details;
    details.setSession(&session);
    details.setSelectionState(&selection);
    QObject::connect(
        &selection, &qt::SelectionState::selectedEventChanged, &details, &widgets::DetailsPanel::setTimelineEvent);
    ASSERT_TRUE(test::showInSession(session, p)); // the panel follows the session from here
    const auto [track, index] = middleOpEvent(*p);
    ASSERT_NE(track, kNone);
    selection.selectEvent(track, index - 1);
    selection.selectEvent(track, index);
    // Where and when show at once; the occurrences are being counted.
    EXPECT_TRUE(details.isOccurrencePending());
    EXPECT_TRUE(details.markdown().contains(QStringLiteral("### This occurrence"))) << details.markdown().toStdString();
    test::finishJobs(session);
    EXPECT_FALSE(details.isOccurrencePending());
    const model::EventOccurrence e = model::describeEventOccurrence(*session.analysis(), track, index);
    EXPECT_TRUE(details.markdown().contains(
        QStringLiteral("**Occurrence:** %1 of %2 on this core").arg(e.occurrenceOnCore).arg(e.occurrencesOnCore)))
        << details.markdown().toStdString();
}
