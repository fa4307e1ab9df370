// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 17 point 3 on the demo profile: the Selection table, Esc, search order and dimming,
// non-op event details, the legend, group toggles (keys with the pointer over the timeline:
// tests/app/test_windowkeys.cpp).
#include "../testanalysis.h"
#include "../testsession.h"
#include "detailspanel.h"
#include "rangeselectionview.h"
#include "timelineeventinfo.h"
#include "timelinesearch.h"
#include "timelineview.h"

#include "analysis/rangesummary.h"
#include "loader/loader.h"
#include "qt/rangeselectionmodel.h"
#include "report/report.h"
#include "synth/synth.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QHeaderView>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <QVBoxLayout>

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace tpuscope;
using model::kNone;
using model::OpId;
using model::TimePs;
using model::TrackId;
using model::TrackKind;
using widgets::RangeSelectionView;
using widgets::TimelineSearch;
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

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

/// A timeline and the Selection table over it in one shown window (keys and the pointer need a
/// real window), with a push button to hold the focus.
struct Window
{
    qt::TraceSession session; // the range statistics are its job, as in the application
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
        EXPECT_TRUE(test::showInSession(session, std::move(profile)));
        window.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&window));
    }
    /// Waits until the session's range job delivered the selected range's statistics.
    bool waitForRangeSummary() const
    {
        return QTest::qWaitFor([this] { return !timeline->isRangeSummaryPending(); }, 10'000);
    }
    QPoint timelineCentre() const { return timeline->viewport()->mapToGlobal(timeline->viewport()->rect().center()); }
};

/// Self time of each (program, name) inside [begin, end), summed straight from the events: each
/// event clipped to the range, less every event one level deeper on its line that lies inside it.
std::map<std::string, double> independentRangeTimes(const model::Profile& p, TimePs begin, TimePs end)
{
    std::map<std::string, double> times;
    auto clip = [&](TimePs a, TimePs b) { return double(std::max<TimePs>(0, std::min(b, end) - std::max(a, begin))); };
    for (const model::PlaneId plane : p.tpuCorePlanes()) {
        for (const TrackId id : p.planes[plane].tracks) {
            const model::Track& t = p.tracks[id];
            if (t.kind != TrackKind::XlaOps)
                continue;
            for (size_t i = 0; i < t.size(); ++i) {
                double self = clip(t.start[i], t.end(i));
                if (self <= 0)
                    continue;
                for (size_t j = 0; j < t.size(); ++j)
                    if (t.depth[j] == t.depth[i] + 1 && t.start[j] >= t.start[i] && t.start[j] < t.end(i))
                        self -= clip(t.start[j], std::min(t.end(j), t.end(i)));
                const model::OpInfo& op = p.ops[t.op[i]];
                const std::string program = op.program != kNone ? p.programs[op.program].name : std::string();
                times[program + '\x1f' + p.str(op.name)] += self;
            }
        }
    }
    return times;
}

} // namespace

TEST(RangeSelection, TableListsTheOpsOfTheRangeOnTheDemo)
{
    const model::ProfilePtr profile = demoProfile();
    ASSERT_TRUE(profile);
    Window w(profile);
    // The second and third step of core 0 (a range that cuts ops at both ends).
    const TimePs span = profile->spanEnd - profile->spanBegin;
    const TimePs begin = profile->spanBegin + span / 7 + 12345, end = profile->spanBegin + span / 3;
    w.timeline->selectRange(begin, end);
    ASSERT_TRUE(w.waitForRangeSummary());

    const qt::RangeSelectionModel* model = w.range->model();
    const model::RangeSummary expected = model::summarizeRange(*profile, begin, end);
    ASSERT_GT(expected.rows.size(), 5u);
    ASSERT_EQ(model->rowCount(), int(expected.rows.size()));
    EXPECT_EQ(model->summary().begin, begin);
    EXPECT_EQ(model->summary().end, end);

    // Every row against the events themselves, by (program, name).
    const auto independent = independentRangeTimes(*profile, begin, end);
    double sum = 0;
    for (int r = 0; r < model->rowCount(); ++r) {
        const model::RangeOpRow& row = model->summary().rows[size_t(r)];
        const auto it = independent.find(row.program + '\x1f' + row.name);
        ASSERT_NE(it, independent.end()) << row.name;
        EXPECT_NEAR(row.timeInRangePs, it->second, 0.5) << row.name;
        EXPECT_EQ(row.name, expected.rows[size_t(r)].name);
        EXPECT_DOUBLE_EQ(row.timeInRangePs, expected.rows[size_t(r)].timeInRangePs);
        EXPECT_EQ(model->index(r, qt::RangeSelectionModel::NameColumn).data().toString(), qs(row.name));
        EXPECT_EQ(model->index(r, qt::RangeSelectionModel::TimeColumn).data().toString(),
            qs(model::formatDurationPs(row.timeInRangePs)));
        EXPECT_EQ(model->index(r, qt::RangeSelectionModel::ShareColumn).data().toString(),
            qs(model::formatPercent(row.rangeShare)));
        const QString flops = model->index(r, qt::RangeSelectionModel::FlopsUtilizationColumn).data().toString();
        EXPECT_EQ(flops, qs(model::formatOptionalPercent(row.flopsUtilization)));
        if (!row.flopsUtilization) {
            EXPECT_EQ(flops, QString::fromUtf8(model::kUnknownText));
        }
        sum += row.timeInRangePs;
    }
    size_t independentNonZero = 0;
    for (const auto& [key, time] : independent)
        independentNonZero += time > 0 ? 1 : 0;
    EXPECT_LE(independentNonZero, size_t(model->rowCount()));
    EXPECT_NEAR(sum, expected.busyPs, 1);
    EXPECT_TRUE(w.range->summaryText().contains(qs(model::formatDurationPs(double(end - begin)))))
        << w.range->summaryText().toStdString();

    // Sorted by time, largest first, and sortable by any column through the proxy.
    auto* view = w.range->view();
    EXPECT_EQ(view->model()->index(0, 0).data().toString(), qs(expected.rows.front().name));
    // Its arrow points down for largest first, like every sortable table (sortarrows.h).
    EXPECT_TRUE(view->horizontalHeader()->property("tpuscopeSortArrows").toBool());
    view->sortByColumn(qt::RangeSelectionModel::NameColumn, Qt::AscendingOrder);
    QStringList names;
    for (int r = 0; r < view->model()->rowCount(); ++r)
        names << view->model()->index(r, qt::RangeSelectionModel::NameColumn).data().toString();
    QStringList sorted = names;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(names, sorted);

    // Esc with the timeline focused clears the range and the table (with the pointer over the
    // timeline and the focus elsewhere it is the window's shortcut: tests/app/test_windowkeys.cpp).
    w.timeline->setFocus();
    QTest::keyClick(w.timeline, Qt::Key_Escape);
    EXPECT_EQ(w.timeline->selectedRange(), std::make_pair(TimePs(0), TimePs(0)));
    EXPECT_EQ(model->rowCount(), 0);
    // A new profile empties it too.
    w.timeline->selectRange(begin, end);
    w.timeline->setProfile(demoProfile());
    EXPECT_EQ(model->rowCount(), 0);
}

TEST(RangeSelection, OneSessionJobPerRangeChangeAndTheNewestWins)
{
    const model::ProfilePtr profile = demoProfile();
    ASSERT_TRUE(profile);
    Window w(profile);
    const TimePs span = profile->spanEnd - profile->spanBegin;
    const TimePs firstBegin = profile->spanBegin + span / 10, firstEnd = profile->spanBegin + span / 5;
    const TimePs begin = profile->spanBegin + span / 4, end = profile->spanBegin + span / 2;
    QSignalSpy ready(w.timeline, &TimelineView::rangeSummaryReady);
    const qt::RangeSelectionModel* model = w.range->model();

    // Off the GUI thread: selectRange returns at once with "computing…" in both views.
    w.timeline->selectRange(firstBegin, firstEnd);
    EXPECT_TRUE(w.timeline->isRangeSummaryPending());
    EXPECT_EQ(w.timeline->rangeSummary(), nullptr);
    ASSERT_EQ(w.timeline->selectionSummary().size(), 1);
    EXPECT_TRUE(w.timeline->selectionSummary()[0].endsWith(QStringLiteral("· computing…")))
        << w.timeline->selectionSummary()[0].toStdString();
    EXPECT_TRUE(w.range->summaryText().contains(QStringLiteral("computing…"))) << w.range->summaryText().toStdString();
    EXPECT_EQ(model->rowCount(), 0);
    // Another Shift+drag before the numbers came: only the newer range's statistics arrive.
    w.timeline->selectRange(begin, end);
    ASSERT_TRUE(w.waitForRangeSummary());
    test::finishJobs(w.session); // the superseded job is done too: its result would be in now
    ASSERT_EQ(ready.count(), 1);
    const auto delivered = ready.at(0).at(0).value<std::shared_ptr<const model::RangeSummary>>();
    ASSERT_TRUE(delivered);
    EXPECT_EQ(delivered->begin, begin);
    EXPECT_EQ(delivered->end, end);
    // The timeline and the Selection table show the same object: one computation for both.
    EXPECT_EQ(w.timeline->rangeSummary(), delivered);
    EXPECT_EQ(model->sharedSummary(), delivered);
    EXPECT_EQ(model->rowCount(), int(delivered->rows.size()));
    EXPECT_EQ(delivered->rows.front().name, model::summarizeRange(*profile, begin, end).rows.front().name);

    // One range change, one summarizeRange.
    const uint64_t before = model::rangeSummaryComputations();
    w.timeline->selectRange(firstBegin, firstEnd);
    ASSERT_TRUE(w.waitForRangeSummary());
    EXPECT_EQ(model::rangeSummaryComputations() - before, 1u);
    EXPECT_EQ(ready.count(), 2);
    EXPECT_EQ(model->sharedSummary(), w.timeline->rangeSummary());

    // Cleared while the job runs: nothing arrives afterwards, both views stay empty.
    w.timeline->selectRange(begin, end);
    w.timeline->selectRange(0, 0);
    test::finishJobs(w.session); // the cleared range's job is done and what it queued delivered
    EXPECT_EQ(ready.count(), 2);
    EXPECT_EQ(w.timeline->rangeSummary(), nullptr);
    EXPECT_TRUE(w.timeline->selectionSummary().isEmpty());
    EXPECT_EQ(model->rowCount(), 0);

    // A profile the session has no analysis of (as a load's preview) gets no statistics and no
    // computation on the GUI thread.
    w.timeline->setProfile(demoProfile());
    const uint64_t beforePreview = model::rangeSummaryComputations();
    w.timeline->selectRange(begin, end);
    EXPECT_FALSE(w.timeline->isRangeSummaryPending());
    EXPECT_FALSE(w.timeline->hasRangeStatistics());
    ASSERT_EQ(w.timeline->selectionSummary().size(), 1);
    EXPECT_TRUE(w.timeline->selectionSummary()[0].endsWith(QStringLiteral("select it again when the load is done")));
    EXPECT_TRUE(w.range->summaryText().contains(QStringLiteral("select it again when the load is done")));
    test::finishJobs(w.session); // a job or a queued call would have computed by now
    EXPECT_EQ(model::rangeSummaryComputations(), beforePreview);
    EXPECT_EQ(model->rowCount(), 0);
}

TEST(TimelineSearch, StartsAtTheEarliestMatchAndDimsTheRest)
{
    const model::ProfilePtr profile = demoProfile();
    Window w(profile);
    // Look at the end of the profile: the first step must still go to the earliest match.
    const TimePs span = profile->spanEnd - profile->spanBegin;
    w.timeline->setVisibleRange(profile->spanEnd - span / 10, profile->spanEnd);
    TimelineSearch search(w.timeline);
    search.setText(QStringLiteral("fusion"));
    search.search();
    ASSERT_GT(search.matchCount(), 10u);
    EXPECT_TRUE(w.timeline->isSearchDimming());
    search.next();
    EXPECT_EQ(search.currentIndex(), 0);
    EXPECT_TRUE(search.statusText().startsWith(QStringLiteral("1 / "))) << search.statusText().toStdString();
    // The selected event is the earliest matching event anywhere.
    TimePs earliest = std::numeric_limits<TimePs>::max();
    for (const model::Track& t : profile->tracks)
        for (size_t i = 0; i < t.size(); ++i)
            if (QString::fromStdString(profile->str(profile->ops[t.op[i]].name)).contains(QStringLiteral("fusion"))) {
                earliest = std::min(earliest, t.start[i]);
                break; // tracks are sorted by start
            }
    const auto [track, event] = w.timeline->selectedEvent();
    ASSERT_NE(track, kNone);
    EXPECT_EQ(profile->tracks[track].start[event], earliest);

    // Matching ops keep their colour, the others are dimmed.
    std::optional<OpId> match, other;
    for (OpId op = 0; op < profile->ops.size(); ++op) {
        const bool matches
            = QString::fromStdString(profile->str(profile->ops[op].name)).contains(QStringLiteral("fusion"));
        (matches ? match : other) = op;
    }
    ASSERT_TRUE(match && other);
    EXPECT_FALSE(w.timeline->isDimmedOp(*match));
    EXPECT_TRUE(w.timeline->isDimmedOp(*other));
    const QRgb dimmed = w.timeline->eventColor(*other);
    search.setText(QString());
    search.search();
    EXPECT_FALSE(w.timeline->isSearchDimming());
    EXPECT_FALSE(w.timeline->isDimmedOp(*other));
    EXPECT_NE(w.timeline->eventColor(*other), dimmed);
}

TEST(TimelineEventInfo, StepAndModuleEventsShowTheirOwnDetails)
{
    const model::ProfilePtr profile = demoProfile();
    TrackId steps = kNone, modules = kNone;
    const model::PlaneId core0 = profile->tpuCorePlanes().at(0);
    for (const TrackId t : profile->planes[core0].tracks) {
        if (profile->tracks[t].kind == TrackKind::Steps)
            steps = t;
        if (profile->tracks[t].kind == TrackKind::XlaModules)
            modules = t;
    }
    ASSERT_NE(steps, kNone);
    ASSERT_NE(modules, kNone);
    widgets::DetailsPanel details;
    details.setAnalysis(tpuscope::test::analysisOf(profile));
    // As SelectionState orders them: the event, then its op.
    const model::Track& s = profile->tracks[steps];
    details.setTimelineEvent(steps, 2);
    details.showOp(s.op[2]);
    const QString md = details.markdown();
    EXPECT_FALSE(md.contains(u'`')) << md.toStdString();
    EXPECT_FALSE(md.contains(QStringLiteral("none on the"))) << md.toStdString();
    EXPECT_TRUE(md.contains(QStringLiteral("Step"))) << md.toStdString();
    EXPECT_TRUE(md.contains(qs(model::formatDurationPs(double(s.duration[2]))))) << md.toStdString();
    EXPECT_TRUE(md.contains(QStringLiteral("+") + qs(model::formatDurationPs(double(s.start[2] - profile->spanBegin)))))
        << md.toStdString();
    EXPECT_TRUE(md.contains(QStringLiteral("Step number"))) << md.toStdString();
    // What the step ran: the module that starts inside it on the same core.
    EXPECT_TRUE(md.contains(QStringLiteral("Program"))) << md.toStdString();
    EXPECT_TRUE(md.contains(QStringLiteral("cluster_train_step"))) << md.toStdString();
    EXPECT_TRUE(md.contains(qs(profile->str(profile->ops[s.op[2]].name)))) << md.toStdString();

    // A module run: its duration, its program and the step it ran in.
    const model::Track& m = profile->tracks[modules];
    details.setTimelineEvent(modules, 1);
    details.showOp(m.op[1]);
    const QString mmd = details.markdown();
    EXPECT_TRUE(mmd.contains(QStringLiteral("XLA module run"))) << mmd.toStdString();
    EXPECT_TRUE(mmd.contains(QStringLiteral("Program"))) << mmd.toStdString();
    EXPECT_TRUE(mmd.contains(qs(model::formatDurationPs(double(m.duration[1]))))) << mmd.toStdString();
    EXPECT_TRUE(mmd.contains(QStringLiteral("Step number"))) << mmd.toStdString();
    EXPECT_FALSE(mmd.contains(u'`'));
    // Another run of the same module changes the figures without a new op.
    details.setTimelineEvent(modules, 3);
    EXPECT_TRUE(details.markdown().contains(qs(model::formatDurationPs(double(m.duration[3])))));

    // An op chosen elsewhere (no event) without a breakdown row: no backticks either.
    details.setTimelineEvent(kNone, 0);
    details.showOp(s.op[2]);
    EXPECT_FALSE(details.markdown().contains(u'`'));
}

TEST(TimelineLegend, ListsExactlyTheCategoriesDrawn)
{
    const model::ProfilePtr profile = demoProfile();
    TimelineView view;
    view.setProfile(profile);
    // What is drawn: the category of every XLA op with events, and the kinds of the other events.
    std::set<QString> categories;
    bool steps = false, modules = false, other = false;
    std::set<QRgb> categoryColors;
    for (const model::Track& t : profile->tracks) {
        for (const OpId op : t.op) {
            const model::OpInfo& info = profile->ops[op];
            if (info.isXlaOp && info.category) {
                categories.insert(qs(profile->str(info.category)));
                categoryColors.insert(view.eventColor(op));
            } else if (t.kind == TrackKind::Steps) {
                steps = true;
            } else if (t.kind == TrackKind::XlaModules) {
                modules = true;
            } else {
                other = true;
            }
        }
    }
    ASSERT_FALSE(categories.empty());
    ASSERT_TRUE(steps && modules);
    std::set<QString> listed;
    QRgb moduleColor = 0;
    bool stepsEntry = false;
    for (const auto& [text, color] : view.legendEntries()) {
        if (text == QStringLiteral("XLA modules"))
            moduleColor = color;
        else if (text.startsWith(QStringLiteral("steps")))
            stepsEntry = true;
        else if (!text.startsWith(QStringLiteral("other events")))
            listed.insert(text);
    }
    EXPECT_EQ(listed, categories);
    EXPECT_TRUE(stepsEntry);
    EXPECT_EQ(other, view.legendEntries().back().first.startsWith(QStringLiteral("other events")));
    // Every module run is drawn in the module colour, which no op category uses.
    ASSERT_NE(moduleColor, 0u);
    for (const model::Track& t : profile->tracks) {
        if (t.kind != TrackKind::XlaModules)
            continue;
        for (const OpId op : t.op) {
            EXPECT_EQ(view.eventColor(op), moduleColor);
        }
    }
    EXPECT_EQ(categoryColors.count(moduleColor), 0u);
    for (const char* category : {"input fusion", "loop fusion", "output fusion", "convolution fusion", "custom fusion"})
        EXPECT_NE(view.categoryPaletteColor(category), moduleColor) << category;
    // The utilization mode has its own entries.
    view.setColorMode(TimelineView::ColorMode::FlopsUtilization);
    EXPECT_EQ(view.legendEntries().front().first, QStringLiteral("0%"));
}

TEST(TimelineKeys, OnlyTheHeaderToggleCollapsesAGroup)
{
    Window w(demoProfile());
    ASSERT_FALSE(w.timeline->isGroupCollapsed(0));
    QWidget* viewport = w.timeline->viewport();
    const int headerY = w.timeline->trackTop(w.timeline->groupTracks(0).front()) - 3 - 10; // the header row above
    // A click on the header text and one in the event area beside it: no collapse.
    QTest::mouseClick(viewport, Qt::LeftButton, {}, QPoint(120, headerY));
    EXPECT_FALSE(w.timeline->isGroupCollapsed(0));
    QTest::mouseClick(viewport, Qt::LeftButton, {}, QPoint(600, headerY));
    EXPECT_FALSE(w.timeline->isGroupCollapsed(0));
    // A click in a track row selects, it never collapses.
    const int rowY = w.timeline->trackTop(w.timeline->groupTracks(0).front()) + 5;
    QTest::mouseClick(viewport, Qt::LeftButton, {}, QPoint(600, rowY));
    EXPECT_FALSE(w.timeline->isGroupCollapsed(0));
    // The ▸/▾ toggle does.
    ASSERT_TRUE(TimelineView::headerToggleRect(headerY - 10).contains(QPoint(10, headerY)));
    QTest::mouseClick(viewport, Qt::LeftButton, {}, QPoint(10, headerY));
    EXPECT_TRUE(w.timeline->isGroupCollapsed(0));
    QTest::mouseClick(viewport, Qt::LeftButton, {}, QPoint(10, headerY));
    EXPECT_FALSE(w.timeline->isGroupCollapsed(0));
}
