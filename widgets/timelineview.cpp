// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelineview.h"

#include "timelinelegend.h"

#include "analysis/opbreakdown.h"
#include "qt/colors.h"
#include "qt/qstrings.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "qt/viewrange.h"
#include "report/report.h"

#include <QElapsedTimer>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace tpuscope::widgets {

using model::kNone;
using model::OpId;
using model::PlaneKind;
using model::TimePs;
using model::Track;
using model::TrackId;
using model::TrackKind;

namespace {

constexpr int kScrollResolution = 1'000'000'000;
constexpr TimePs kMinRange = 100; // 0.1 ns: deep enough to see single 1 ns events

} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QAbstractScrollArea(parent)
{
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    viewport()->setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    horizontalScrollBar()->setRange(0, 0);
    // With the focus elsewhere, the window's shortcuts (app/windowshortcuts) run the navigation
    // keys while the pointer is over the timeline.
    connect(&m_range, &TimelineRangeSelection::rangeSelected, this, &TimelineView::rangeSelected);
    connect(&m_range, &TimelineRangeSelection::summaryReady, this,
        [this](std::shared_ptr<const model::RangeSummary> summary) {
            viewport()->update();
            emit rangeSummaryReady(std::move(summary));
        });
    connect(horizontalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        if (m_updatingScrollBars)
            return;
        const TimePs duration = m_end - m_begin;
        const double full = double(m_fullEnd - m_fullBegin);
        const TimePs begin = m_fullBegin + TimePs(std::llround(double(value) / kScrollResolution * full));
        setVisibleRange(begin, begin + duration);
    });
}

TimelineView::~TimelineView()
{
    // A legend the main window never adopted is ours to delete; an adopted one only holds data.
    if (m_legend && !m_legend->parent())
        delete m_legend.data();
}

void TimelineView::setProfile(model::ProfilePtr profile, std::shared_ptr<const model::OpBreakdown> breakdown,
    std::shared_ptr<const model::DepthIndex> depthIndex)
{
    m_profile = std::move(profile);
    m_breakdown = std::move(breakdown);
    // The levels of detail are built after the first frame (paintEvent starts them): on two cores
    // they would slow loading and that frame, which draws without them.
    m_builder.setProfile(m_profile, std::move(depthIndex), false);
    m_selected = {kNone, 0};
    m_hovered = {kNone, 0};
    const bool hadRange = m_range.setProfile(m_profile);
    m_searchMatches.clear();
    m_highlightedOp = kNone;
    m_highlightEvents.clear();
    m_rasterizer.clearRows();
    if (m_profile) {
        m_fullBegin = m_profile->spanBegin;
        m_fullEnd = std::max(m_profile->spanEnd, m_profile->spanBegin + 1000);
        // A little margin so the first and last events are not glued to the edges.
        const TimePs margin = std::max<TimePs>(1, (m_fullEnd - m_fullBegin) / 50);
        m_fullBegin -= margin;
        m_fullEnd += margin;
    } else {
        m_fullBegin = 0;
        m_fullEnd = 1'000'000;
    }
    m_tracks.setProfile(m_profile, m_breakdown, m_lowUtilThreshold);
    recomputeColors();
    relayout();
    clearTextCaches();
    m_begin = m_fullBegin;
    m_end = m_fullEnd;
    ++m_highlightGeneration;
    m_rasterizer.invalidate();
    updateScrollBars();
    updateLegend();
    viewport()->update();
    emit visibleRangeChanged(m_begin, m_end);
    if (hadRange)
        emit rangeSelected(0, 0);
}

QRgb TimelineView::categoryPaletteColor(const std::string& category) const
{
    return m_tracks.categoryPaletteColor(category);
}

std::vector<std::pair<QString, QRgb>> TimelineView::legendEntries() const
{
    std::vector<std::pair<QString, QRgb>> entries;
    if (m_colorMode == ColorMode::Category) {
        for (const LegendEntry& e : m_tracks.categoryLegend())
            entries.emplace_back(e.text, e.colors.empty() ? 0 : e.colors.front());
    } else {
        for (const LegendEntry& e : m_tracks.utilizationLegend(palette().color(QPalette::Mid).rgb()))
            entries.emplace_back(e.text, e.colors.front());
    }
    return entries;
}

void TimelineView::setSession(qt::TraceSession* session)
{
    m_session = session;
    m_range.setSession(session);
    auto showSession = [this, session] {
        const model::ProfileAnalysisPtr analysis = session->analysis();
        setProfile(session->profile(), session->breakdown(), analysis ? analysis->depthIndex : nullptr);
    };
    connect(session, &qt::TraceSession::loaded, this, showSession);
    connect(session, &qt::TraceSession::previewDropped, this, showSession);
    connect(session, &qt::TraceSession::previewReady, this,
        [this](const model::ProfilePtr& partial, const std::shared_ptr<const model::OpBreakdown>& breakdown,
            const std::shared_ptr<const model::DepthIndex>& depthIndex) {
            setProfile(partial, breakdown, depthIndex);
        });
    connect(session, &qt::TraceSession::closed, this, [this] { setProfile(nullptr); });
}

void TimelineView::setSelectionState(qt::SelectionState* selection)
{
    connect(selection, &qt::SelectionState::selectedOpChanged, this, &TimelineView::setHighlightedOp);
    connect(this, &TimelineView::eventSelected, selection, &qt::SelectionState::selectEvent);
}

void TimelineView::setViewRange(qt::ViewRange* range)
{
    connect(range, &qt::ViewRange::rangeChanged, this, &TimelineView::setVisibleRange);
    connect(this, &TimelineView::visibleRangeChanged, range, &qt::ViewRange::setRange);
}

bool TimelineView::isLowUtilizationOp(OpId op) const
{
    return m_tracks.isLowUtilizationOp(op);
}

QRgb TimelineView::opColor(OpId op) const
{
    if (!m_profile || op >= m_profile->ops.size())
        return 0;
    return m_colorMode == ColorMode::Category ? m_tracks.categoryColor(op)
                                              : m_tracks.utilizationColor(op, palette().color(QPalette::Mid).rgb());
}

QRgb TimelineView::eventColor(OpId op) const
{
    if (!m_profile || op >= m_profile->ops.size())
        return 0;
    const QRgb color = m_colorMode == ColorMode::Category
        ? m_tracks.categoryColor(op)
        : m_tracks.utilizationColor(op, palette().color(QPalette::Mid).rgb());
    if (!isDimmedOp(op))
        return color;
    // A quarter of the colour over the background: still there, clearly not a match.
    const QColor base = palette().color(QPalette::Base);
    auto mix = [](int c, int b) { return (c + 3 * b) / 4; };
    return qRgb(mix(qRed(color), base.red()), mix(qGreen(color), base.green()), mix(qBlue(color), base.blue()));
}

bool TimelineView::isDimmedOp(OpId op) const
{
    return !m_searchMatches.empty() && (op >= m_searchMatches.size() || !m_searchMatches[op]);
}

void TimelineView::setSearchMatches(std::vector<bool> matching)
{
    if (!m_profile)
        matching.clear();
    if (matching == m_searchMatches)
        return;
    m_searchMatches = std::move(matching);
    recomputeColors();
    viewport()->update();
}

void TimelineView::recomputeColors()
{
    if (!m_profile)
        return;
    m_builder.setColorFunction([this](OpId op) { return eventColor(op); });
    m_builder.setMarkedOps(m_tracks.lowUtilizationOps());
    ++m_colorGeneration;
}

void TimelineView::setColorMode(ColorMode mode)
{
    if (mode == m_colorMode)
        return;
    m_colorMode = mode;
    recomputeColors();
    updateLegend();
    viewport()->update();
}

void TimelineView::setLowUtilizationThreshold(double fraction)
{
    m_lowUtilThreshold = std::clamp(fraction, 0.0, 1.0);
    m_tracks.setLowUtilizationThreshold(m_lowUtilThreshold);
    recomputeColors();
    updateLegend();
    viewport()->update();
}

void TimelineView::setHighlightedOp(OpId op)
{
    if (!m_profile || op >= m_profile->ops.size())
        op = kNone;
    if (op == m_highlightedOp)
        return;
    m_highlightedOp = op;
    m_highlightEvents.assign(m_profile ? m_profile->tracks.size() : 0, {});
    ++m_highlightGeneration;
    viewport()->update();
    if (op == kNone)
        return;
    // Finding an op's events reads every event: the session does it as a job, so a selection
    // never stalls the GUI thread; the highlight appears when the job is done. Without a session
    // showing this profile (tests, benchmarks driving the view) it is found here.
    const model::ProfileAnalysisPtr analysis = m_session ? m_session->analysis() : nullptr;
    if (!analysis || analysis->profile != m_profile) {
        m_highlightEvents = model::findOccurrences(*m_profile, op);
        return;
    }
    m_session->requestOccurrences(
        op, this, [this, op, profile = m_profile](const std::shared_ptr<const model::OpOccurrences>& found) {
            if (op != m_highlightedOp || profile != m_profile || found->size() != m_profile->tracks.size())
                return; // another op or profile by now, or the search was stopped
            m_highlightEvents = *found;
            ++m_highlightGeneration;
            viewport()->update();
        });
}

size_t TimelineView::highlightedOccurrenceCount() const
{
    size_t n = 0;
    for (const auto& v : m_highlightEvents)
        n += v.size();
    return n;
}

// --- layout ------------------------------------------------------------------------------------

void TimelineView::relayout()
{
    m_tracks.layout(m_builder);
    ++m_layoutGeneration;
    updateScrollBars();
    viewport()->update();
}

QStringList TimelineView::groupNames() const
{
    QStringList names;
    for (const TimelineTracks::Group& g : m_tracks.groups())
        names << g.name;
    return names;
}

std::vector<TrackId> TimelineView::groupTracks(int group) const
{
    if (group < 0 || group >= int(m_tracks.groups().size()))
        return {};
    return m_tracks.groups()[size_t(group)].tracks;
}

void TimelineView::setGroupCollapsed(int group, bool collapsed)
{
    if (m_tracks.setGroupCollapsed(group, collapsed))
        relayout();
}

bool TimelineView::isGroupCollapsed(int group) const
{
    return group >= 0 && group < int(m_tracks.groups().size()) && m_tracks.groups()[size_t(group)].collapsed;
}

bool TimelineView::isHostGroup(int group) const
{
    return group >= 0 && group < int(m_tracks.groups().size()) && m_tracks.groups()[size_t(group)].hostHeader;
}

int TimelineView::parentGroup(int group) const
{
    return group >= 0 && group < int(m_tracks.groups().size()) ? m_tracks.groups()[size_t(group)].parent : -1;
}

void TimelineView::revealHost(uint32_t host)
{
    const int group = m_tracks.groupOfHost(host);
    if (group < 0)
        return;
    setGroupCollapsed(group, false);
    for (const Row& row : m_tracks.rows())
        if (row.header && row.group == group) {
            verticalScrollBar()->setValue(row.top);
            break;
        }
}

int TimelineView::eventAreaWidth() const
{
    return std::max(1, viewport()->width() - kLabelWidth);
}

TimeScale TimelineView::scale() const
{
    return TimeScale(m_begin, m_end, eventAreaWidth());
}

void TimelineView::updateScrollBars()
{
    m_updatingScrollBars = true;
    const int visibleHeight = std::max(0, viewport()->height() - kRulerHeight);
    verticalScrollBar()->setRange(0, std::max(0, m_tracks.contentHeight() - visibleHeight));
    verticalScrollBar()->setPageStep(std::max(1, visibleHeight));
    verticalScrollBar()->setSingleStep(kDepthHeight * 2);
    const double full = double(m_fullEnd - m_fullBegin);
    const double page = std::clamp(double(m_end - m_begin) / full, 0.0, 1.0);
    const int pageStep = std::max(1, int(page * kScrollResolution));
    horizontalScrollBar()->setRange(0, std::max(0, kScrollResolution - pageStep));
    horizontalScrollBar()->setPageStep(pageStep);
    horizontalScrollBar()->setSingleStep(std::max(1, pageStep / 10));
    horizontalScrollBar()->setValue(
        int(std::clamp(double(m_begin - m_fullBegin) / full, 0.0, 1.0) * kScrollResolution));
    m_updatingScrollBars = false;
}

void TimelineView::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

void TimelineView::scrollContentsBy(int, int)
{
    // Everything is painted from the cache; no pixel scrolling of the viewport.
    viewport()->update();
}

void TimelineView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange && m_profile) {
        recomputeColors(); // neutral colours come from the palette
        viewport()->update();
    }
    if (event->type() == QEvent::FontChange) {
        clearTextCaches(); // label widths and elisions depend on the font
        viewport()->update();
    }
    QAbstractScrollArea::changeEvent(event);
}

// --- visible range -----------------------------------------------------------------------------

void TimelineView::setVisibleRange(TimePs begin, TimePs end)
{
    if (end < begin)
        std::swap(begin, end);
    const TimePs full = m_fullEnd - m_fullBegin;
    TimePs duration = std::clamp<TimePs>(end - begin, kMinRange, full);
    if (end - begin < kMinRange) {
        const TimePs centre = begin + (end - begin) / 2;
        begin = centre - duration / 2;
    }
    begin = std::clamp<TimePs>(begin, m_fullBegin, m_fullEnd - duration);
    end = begin + duration;
    if (begin == m_begin && end == m_end)
        return;
    m_begin = begin;
    m_end = end;
    updateScrollBars();
    viewport()->update();
    emit visibleRangeChanged(m_begin, m_end);
}

std::pair<TimePs, TimePs> TimelineView::visibleRange() const
{
    return {m_begin, m_end};
}

void TimelineView::resetZoom()
{
    setVisibleRange(m_fullBegin, m_fullEnd);
}

void TimelineView::zoomBy(double factor, double anchorX)
{
    const TimeScale s = scale();
    anchorX = std::clamp(anchorX, 0.0, s.width());
    const TimePs anchor = s.xToTime(anchorX);
    const double duration = std::max(double(kMinRange), double(m_end - m_begin) * factor);
    const TimePs begin = anchor - TimePs(std::llround(anchorX / s.width() * duration));
    setVisibleRange(begin, begin + TimePs(std::llround(duration)));
}

void TimelineView::panBy(double pixels)
{
    const TimePs delta = TimePs(std::llround(pixels * scale().psPerPixel()));
    setVisibleRange(m_begin + delta, m_end + delta);
}

void TimelineView::zoomToFirstOccurrence(OpId op)
{
    if (!m_profile || op >= m_profile->ops.size())
        return;
    TrackId bestTrack = kNone;
    uint32_t bestEvent = 0;
    TimePs bestStart = std::numeric_limits<TimePs>::max();
    for (TrackId t = 0; t < m_profile->tracks.size(); ++t) {
        const auto& track = m_profile->tracks[t];
        for (size_t i = 0; i < track.size(); ++i) {
            if (track.op[i] == op) {
                // Tracks are sorted by start: the first hit is this track's earliest.
                if (track.start[i] < bestStart) {
                    bestStart = track.start[i];
                    bestTrack = t;
                    bestEvent = uint32_t(i);
                }
                break;
            }
        }
    }
    if (bestTrack == kNone)
        return;
    revealEvent(bestTrack, bestEvent);
    // Selected without eventSelected: the caller already knows the op (no feedback loop).
    m_selected = {bestTrack, bestEvent};
    viewport()->update();
}

void TimelineView::revealEvent(TrackId track, uint32_t index)
{
    if (!m_profile || track >= m_profile->tracks.size() || index >= m_profile->tracks[track].size())
        return;
    const Track& t = m_profile->tracks[track];
    const TimePs start = t.start[index];
    const TimePs duration = std::max<TimePs>(t.duration[index], 1);
    const TimeScale s = scale();
    const double widthPx = duration * s.pixelsPerPs();
    const bool inside = start >= m_begin && start + duration <= m_end;
    if (inside && widthPx >= 4)
        ; // already visible and wide enough: keep the user's zoom
    else if (widthPx >= 4 && duration < (m_end - m_begin)) {
        const TimePs range = m_end - m_begin;
        const TimePs begin = start + duration / 2 - range / 2;
        setVisibleRange(begin, begin + range);
    } else {
        // Zoom so the event takes about a third of the width.
        const TimePs range = std::max<TimePs>(kMinRange, duration * 3);
        const TimePs begin = start + duration / 2 - range / 2;
        setVisibleRange(begin, begin + range);
    }
    // Vertically: expand the group (and its host's) and scroll the row into view.
    if (const int gi = m_tracks.groupOfTrack(track); gi >= 0) {
        setGroupCollapsed(gi, false);
        setGroupCollapsed(m_tracks.groups()[size_t(gi)].parent, false);
    }
    if (m_tracks.rowOfTrack(track) >= 0) {
        const Row& row = m_tracks.rows()[size_t(m_tracks.rowOfTrack(track))];
        const int y = row.top + kTrackPadding + t.depth[index] * kDepthHeight;
        const int visibleHeight = viewport()->height() - kRulerHeight;
        const int scroll = verticalScrollBar()->value();
        if (y < scroll || y + kDepthHeight > scroll + visibleHeight)
            verticalScrollBar()->setValue(std::max(0, y - visibleHeight / 3));
    }
}

void TimelineView::selectEvent(TrackId track, uint32_t index)
{
    if (!m_profile || track >= m_profile->tracks.size() || index >= m_profile->tracks[track].size())
        track = kNone, index = 0;
    m_selected = {track, index};
    viewport()->update();
    if (track != kNone)
        emit eventSelected(track, index);
}

void TimelineView::selectRange(TimePs begin, TimePs end)
{
    m_range.select(begin, end);
    viewport()->update();
}

bool TimelineView::hasRangeStatistics() const
{
    return m_range.hasStatistics();
}

// --- hit testing -------------------------------------------------------------------------------

int TimelineView::contentY(int viewportY) const
{
    return viewportY - kRulerHeight + verticalScrollBar()->value();
}

const TimelineView::Row* TimelineView::rowAtContentY(int y) const
{
    return m_tracks.rowAtContentY(y);
}

std::pair<TrackId, uint32_t> TimelineView::eventAt(QPoint pos) const
{
    if (!m_profile || pos.x() < kLabelWidth || pos.y() < kRulerHeight)
        return {kNone, 0};
    const Row* row = rowAtContentY(contentY(pos.y()));
    if (!row || row->header)
        return {kNone, 0};
    const int local = contentY(pos.y()) - row->top - kTrackPadding;
    if (local < 0)
        return {kNone, 0};
    const int depth = local / kDepthHeight;
    const TimeScale s = scale();
    const double x = pos.x() - kLabelWidth;
    const TimePs t = s.xToTime(x);
    // A few pixels of slack so narrow events can be hit at all.
    const TimePs tolerance = TimePs(std::ceil(3 * s.psPerPixel()));
    const uint32_t e = m_builder.eventAt(row->track, depth, t, tolerance);
    if (e == kNone)
        return {kNone, 0};
    return {row->track, e};
}

int TimelineView::trackTop(TrackId track) const
{
    if (m_tracks.rowOfTrack(track) < 0)
        return -1;
    return m_tracks.rows()[size_t(m_tracks.rowOfTrack(track))].top + kTrackPadding + kRulerHeight
        - verticalScrollBar()->value();
}

QRect TimelineView::trackRowRect(TrackId track) const
{
    const int row = m_tracks.rowOfTrack(track);
    if (row < 0)
        return {};
    const TimelineTracks::Row& r = m_tracks.rows()[size_t(row)];
    return {0, r.top + kRulerHeight - verticalScrollBar()->value(), viewport()->width(), r.height};
}

std::vector<TrackId> TimelineView::coreTracks() const
{
    std::vector<TrackId> tracks;
    for (const TimelineTracks::Group& group : m_tracks.groups())
        if (group.tpuCore)
            tracks.insert(tracks.end(), group.tracks.begin(), group.tracks.end());
    return tracks;
}

QRectF TimelineView::eventRect(TrackId track, uint32_t index) const
{
    if (!m_profile || m_tracks.rowOfTrack(track) < 0 || index >= m_profile->tracks[track].size())
        return {};
    const Track& t = m_profile->tracks[track];
    const TimeScale s = scale();
    const double x0 = std::clamp(s.timeToX(t.start[index]), -4.0, s.width() + 4);
    const double x1 = std::clamp(s.timeToX(t.end(index)), -4.0, s.width() + 4);
    const int top = trackTop(track) + t.depth[index] * kDepthHeight;
    return QRectF(kLabelWidth + x0, top, std::max(1.0, x1 - x0), kDepthHeight - 1);
}

// --- painting ----------------------------------------------------------------------------------

void TimelineView::clearTextCaches()
{
    m_rasterizer.clearTextCaches(m_profile ? m_profile->ops.size() : 0);
    for (Row& row : m_tracks.rows())
        row.text = QStaticText();
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QElapsedTimer timer;
    timer.start();
    QPainter p(viewport());
    // Everything is axis-aligned: no antialiasing, fillRect/drawRects only.
    p.setRenderHint(QPainter::Antialiasing, false);
    const QPalette& pal = palette();
    const QRect area = viewport()->rect();

    if (!m_profile) {
        p.fillRect(area, pal.base());
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(area, Qt::AlignCenter, tr("No profile loaded"));
        emit framePainted(timer.nsecsElapsed());
        return;
    }

    const TimeScale s = scale();
    const int scrollY = verticalScrollBar()->value();
    const QRect eventArea(kLabelWidth, kRulerHeight, area.width() - kLabelWidth, area.height() - kRulerHeight);
    const int visibleTop = scrollY, visibleBottom = scrollY + eventArea.height();
    // The label column and the ruler paint their own background.
    p.fillRect(eventArea, pal.base());
    m_rasterizer.ensureGeometry(m_builder, m_tracks, m_highlightEvents,
        {s, eventAreaWidth(), m_layoutGeneration, m_colorGeneration, m_highlightGeneration}, visibleTop, visibleBottom);
    if (!m_rasterizer.builtWithLevelsOfDetail() && !m_lodPollPending) {
        m_builder.startLevelsOfDetail();
        // Redraw with the exact colours once the worker is done.
        m_lodPollPending = true;
        QTimer::singleShot(100, this, [this] {
            m_lodPollPending = false;
            viewport()->update();
        });
    }

    m_rasterizer.paintEvents(p, font(), pal, m_tracks, *m_profile, s, eventArea, scrollY);

    // Overlays in viewport coordinates, clipped to the event area.
    p.save();
    p.setClipRect(eventArea);
    if (m_range.hasRange() || m_input.isSelectingRange()) {
        const auto [a, b] = m_input.isSelectingRange() ? m_input.draggedRange() : m_range.range();
        const double x0 = kLabelWidth + std::clamp(s.timeToX(a), -2.0, s.width() + 2);
        const double x1 = kLabelWidth + std::clamp(s.timeToX(b), -2.0, s.width() + 2);
        QColor fill = pal.color(QPalette::Highlight);
        fill.setAlpha(50);
        p.fillRect(QRectF(x0, eventArea.top(), x1 - x0, eventArea.height()), fill);
        p.setPen(pal.color(QPalette::Highlight));
        p.drawLine(QPointF(x0, eventArea.top()), QPointF(x0, eventArea.bottom()));
        p.drawLine(QPointF(x1, eventArea.top()), QPointF(x1, eventArea.bottom()));
    }
    if (m_hovered.first != kNone && m_hovered != m_selected) {
        p.setPen(QPen(pal.color(QPalette::Text), 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(eventRect(m_hovered.first, m_hovered.second).adjusted(0, 0, -1, -1));
    }
    if (m_selected.first != kNone) {
        const QRectF r = eventRect(m_selected.first, m_selected.second);
        if (!r.isEmpty()) {
            p.setPen(QPen(pal.color(QPalette::Text), 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(-1, -1, 0, 0));
        }
    }
    p.restore();

    m_rasterizer.paintLabelColumn(p, font(), pal, m_tracks, scrollY, viewport()->size());
    m_rasterizer.paintRuler(p, font(), pal, *m_profile, s, viewport()->width());

    emit framePainted(timer.nsecsElapsed());
}

// --- input -------------------------------------------------------------------------------------

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    m_input.mousePress(event);
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    m_input.mouseMove(event);
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    m_input.mouseRelease(event);
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event)
{
    m_input.mouseDoubleClick(event);
}

void TimelineView::wheelEvent(QWheelEvent* event)
{
    if (!m_input.wheel(event))
        QAbstractScrollArea::wheelEvent(event); // plain wheel scrolls rows
}

void TimelineView::setHoveredEvent(std::pair<TrackId, uint32_t> event)
{
    if (event != m_hovered) {
        m_hovered = event;
        viewport()->update();
    }
}

QRect TimelineView::headerToggleRect(int rowTop, int level)
{
    // The arrow is drawn at x = 6 (indented by its level); a few pixels of slack either side keep it easy to hit.
    return QRect(level * TimelineTracks::kLevelIndent, rowTop, 24, kHeaderHeight);
}

bool TimelineView::event(QEvent* event)
{
    // With a range selected, Esc is ours: the window's Esc shortcut (cancel a load) would
    // otherwise take it before keyPressEvent.
    if (event->type() == QEvent::ShortcutOverride && m_input.overridesShortcut(static_cast<QKeyEvent*>(event))) {
        event->accept();
        return true;
    }
    return QAbstractScrollArea::event(event);
}

void TimelineView::keyPressEvent(QKeyEvent* event)
{
    if (!m_input.keyPress(event))
        QAbstractScrollArea::keyPressEvent(event);
}

void TimelineView::runCommand(TimelineCommand command)
{
    if (m_profile)
        m_input.run(command);
}

bool TimelineView::isPointerOver() const
{
    return viewport()->underMouse();
}

bool TimelineView::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::Enter || event->type() == QEvent::Leave)
        emit pointerOverChanged(event->type() == QEvent::Enter);
    if (event->type() == QEvent::ToolTip && m_profile) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QPoint pos = help->pos();
        const auto [track, index] = eventAt(pos);
        if (track != kNone) {
            QToolTip::showText(help->globalPos(), m_tracks.eventTooltip(track, index), viewport());
        } else if (pos.x() < kLabelWidth && pos.y() >= kRulerHeight) {
            const Row* row = rowAtContentY(contentY(pos.y()));
            if (row && !row->tooltip.isEmpty())
                QToolTip::showText(help->globalPos(), qt::plainToolTip(row->tooltip), viewport());
            else
                QToolTip::hideText();
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void TimelineView::leaveEvent(QEvent* event)
{
    if (m_hovered.first != kNone) {
        m_hovered = {kNone, 0};
        viewport()->update();
    }
    QAbstractScrollArea::leaveEvent(event);
}

// --- legend ------------------------------------------------------------------------------------

QWidget* TimelineView::legendWidget()
{
    if (!m_legend) {
        m_legend = new TimelineLegend();
        updateLegend();
    }
    return m_legend;
}

void TimelineView::updateLegend()
{
    if (!m_legend)
        return;
    m_legend->setEntries(m_colorMode == ColorMode::Category
            ? m_tracks.categoryLegend()
            : m_tracks.utilizationLegend(palette().color(QPalette::Mid).rgb()),
        m_lowUtilThreshold);
}

} // namespace tpuscope::widgets
