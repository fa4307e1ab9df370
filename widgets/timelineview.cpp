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

#include <QAbstractSpinBox>
#include <QApplication>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextEdit>
#include <QTextLayout>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <cstring>
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
constexpr int kMinLabelWidthPx = 28;
const QRgb kMarkerColor = qt::colors::lowUtilizationMark().rgb();

using tpuscope::qt::qs;

bool isDark(QRgb c)
{
    return (qRed(c) * 299 + qGreen(c) * 587 + qBlue(c) * 114) / 1000 < 128;
}

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
    // The navigation keys work whenever the pointer is over the timeline, not only after a
    // click gave it the focus (wantsForwardedKey).
    qApp->installEventFilter(this);
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

void TimelineView::setProfile(model::ProfilePtr profile, std::shared_ptr<const model::OpBreakdown> breakdown)
{
    m_profile = std::move(profile);
    m_breakdown = std::move(breakdown); // null on a preview: no utilization colours until the load ends
    // The levels of detail are built after the first frame (paintEvent starts them): on two cores
    // they would slow loading and that frame, which draws without them.
    m_builder.setProfile(m_profile, false);
    m_selected = {kNone, 0};
    m_hovered = {kNone, 0};
    const bool hadRange = m_rangeSelection.second > m_rangeSelection.first;
    m_rangeSelection = {0, 0};
    m_rangeSummary.reset();
    m_rangeSummaryPending = false;
    m_selectionSummary.clear();
    m_searchMatches.clear();
    m_highlightedOp = kNone;
    m_highlightEvents.clear();
    m_cache.rows.clear();
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
    m_cache.valid = false;
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
    auto showSession = [this, session] { setProfile(session->profile(), session->breakdown()); };
    connect(session, &qt::TraceSession::loaded, this, showSession);
    connect(session, &qt::TraceSession::previewDropped, this, showSession);
    connect(session, &qt::TraceSession::previewReady, this,
        [this](const model::ProfilePtr& partial, const std::shared_ptr<const model::OpBreakdown>& breakdown) {
            setProfile(partial, breakdown);
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
    if (op != kNone) {
        for (size_t t = 0; t < m_profile->tracks.size(); ++t) {
            const auto& ops = m_profile->tracks[t].op;
            for (size_t i = 0; i < ops.size(); ++i)
                if (ops[i] == op)
                    m_highlightEvents[t].push_back(static_cast<uint32_t>(i));
        }
    }
    ++m_highlightGeneration;
    viewport()->update();
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
    // Vertically: expand the group and scroll the row into view.
    for (int gi = 0; gi < int(m_tracks.groups().size()); ++gi) {
        const auto& tracks = m_tracks.groups()[size_t(gi)].tracks;
        if (std::find(tracks.begin(), tracks.end(), track) != tracks.end() && m_tracks.groups()[size_t(gi)].collapsed)
            setGroupCollapsed(gi, false);
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
    if (end < begin)
        std::swap(begin, end);
    if (end <= begin)
        begin = end = 0;
    const bool hadRange = m_rangeSelection.second > m_rangeSelection.first;
    m_rangeSelection = {begin, end};
    requestSelectionSummary();
    viewport()->update();
    if (end > begin || hadRange)
        emit rangeSelected(begin, end);
}

bool TimelineView::hasRangeStatistics() const
{
    return m_profile && m_session && m_session->analysis() && m_session->analysis()->profile == m_profile;
}

void TimelineView::requestSelectionSummary()
{
    m_rangeSummary.reset();
    const auto [begin, end] = m_rangeSelection;
    m_rangeSummaryPending = end > begin && hasRangeStatistics();
    updateSelectionSummaryLines();
    if (!m_rangeSummaryPending)
        return;
    // A newer range (Shift+drag again) supersedes this request in the session; a result that
    // arrives for a range no longer selected (cleared, another profile) is dropped here too.
    m_session->requestRangeSummary(
        begin, end, this, [this, begin, end](std::shared_ptr<const model::RangeSummary> summary) {
            if (m_rangeSelection != std::make_pair(begin, end) || !m_rangeSummaryPending)
                return;
            m_rangeSummary = std::move(summary);
            m_rangeSummaryPending = false;
            updateSelectionSummaryLines();
            viewport()->update();
            emit rangeSummaryReady(m_rangeSummary);
        });
}

void TimelineView::updateSelectionSummaryLines()
{
    m_selectionSummary.clear();
    const auto [begin, end] = m_rangeSelection;
    if (!m_profile || end <= begin)
        return;
    const QString range = tr("Selection %1").arg(TimeScale::formatDuration(double(end - begin)));
    if (!m_rangeSummary) {
        m_selectionSummary << (m_rangeSummaryPending ? tr("%1 · computing…").arg(range)
                                                     : tr("%1 · select it again when the load is done").arg(range));
        return;
    }
    m_selectionSummary << range;
    const model::RangeSummary& s = *m_rangeSummary;
    if (s.occurrences == 0) {
        m_selectionSummary << tr("no XLA ops in the range");
        return;
    }
    const int cores = std::max(1, s.cores);
    m_selectionSummary << tr("%1 ops · busy %2 of %3 core(s) × range (%4%)")
                              .arg(s.occurrences)
                              .arg(TimeScale::formatDuration(s.busyPs))
                              .arg(cores)
                              .arg(100.0 * s.busyShare, 0, 'f', 1);
    for (size_t i = 0; i < s.rows.size() && i < 3; ++i) {
        const auto& row = s.rows[i];
        m_selectionSummary << QStringLiteral("%1. %2 — %3 (%4%)")
                                  .arg(i + 1)
                                  .arg(qs(row.name))
                                  .arg(TimeScale::formatDuration(row.timeInRangePs))
                                  .arg(100.0 * row.rangeShare, 0, 'f', 1);
    }
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

void TimelineView::ensureGeometry(int visibleTop, int visibleBottom)
{
    const int width = eventAreaWidth();
    if (m_cache.valid && m_cache.begin == m_begin && m_cache.end == m_end && m_cache.width == width
        && m_cache.layoutGeneration == m_layoutGeneration && m_cache.colorGeneration == m_colorGeneration
        && m_cache.highlightGeneration == m_highlightGeneration && visibleTop >= m_cache.contentTop
        && visibleBottom <= m_cache.contentBottom && m_cache.lodReady == m_builder.levelsOfDetailReady())
        return;
    QElapsedTimer timer;
    timer.start();
    const TimeScale s = scale();
    m_cache.lodReady = m_builder.levelsOfDetailReady(); // before building: may turn true meanwhile
    // Only rows on screen, plus half a page either way so small vertical scrolls reuse the build.
    const int margin = std::max(kDepthHeight, (visibleBottom - visibleTop) / 2);
    const int contentTop = visibleTop - margin, contentBottom = visibleBottom + margin;
    for (RowImage& row : m_cache.rows)
        m_imagePool.push_back(std::move(row.image));
    m_cache.rows.clear();
    m_cache.triangles.clear();
    m_cache.highlights.clear();
    m_cache.labels.clear();
    m_cache.rectCount = 0;
    std::vector<TimelineRect>& rects = m_rectScratch;
    for (const Row& row : m_tracks.rows()) {
        if (row.top >= contentBottom)
            break;
        if (row.header || row.top + row.height <= contentTop)
            continue;
        rects.clear();
        m_builder.buildTrack(row.track, s, rects);
        m_cache.rectCount += rects.size();
        const int top = row.top + kTrackPadding;
        const int depths = std::max(1, m_builder.depthCount(row.track));
        const QSize size(width, depths * kDepthHeight - 1);
        RowImage image;
        image.top = top;
        auto pooled
            = std::find_if(m_imagePool.begin(), m_imagePool.end(), [&](const QImage& i) { return i.size() == size; });
        if (pooled != m_imagePool.end()) {
            image.image = std::move(*pooled);
            m_imagePool.erase(pooled);
        } else {
            image.image = QImage(size, QImage::Format_ARGB32_Premultiplied);
        }
        rasteriseRow(rects, depths, width, image.image);
        m_cache.rows.push_back(std::move(image));
        for (const TimelineRect& r : rects) {
            const double w = r.x1 - r.x0;
            if (r.marked && w >= 10)
                m_cache.triangles.append(QRectF(r.x0, top + r.depth * kDepthHeight, w, 3));
            if (r.event != kNone && w >= kMinLabelWidthPx)
                m_cache.labels.push_back(
                    {QRectF(r.x0, top + r.depth * kDepthHeight, w, kDepthHeight - 1), row.track, r.event, r.color});
        }
        if (row.track < m_highlightEvents.size() && !m_highlightEvents[row.track].empty()) {
            m_highlightScratch.clear();
            m_builder.buildSubset(row.track, m_highlightEvents[row.track], s, m_highlightScratch);
            for (const TimelineRect& r : m_highlightScratch)
                m_cache.highlights.append(
                    QRectF(r.x0, top + r.depth * kDepthHeight, std::max(1.0f, r.x1 - r.x0), kDepthHeight - 1));
        }
    }
    m_imagePool.clear();
    m_cache.valid = true;
    m_cache.begin = m_begin;
    m_cache.end = m_end;
    m_cache.width = width;
    m_cache.contentTop = contentTop;
    m_cache.contentBottom = contentBottom;
    m_cache.layoutGeneration = m_layoutGeneration;
    m_cache.colorGeneration = m_colorGeneration;
    m_cache.highlightGeneration = m_highlightGeneration;
    m_cache.buildNs = timer.nsecsElapsed();
}

void TimelineView::rasteriseRow(const std::vector<TimelineRect>& rects, int depths, int width, QImage& image) const
{
    // The pixels QPainter would fill for the integer rect of each TimelineRect (rounded ends, at
    // least one pixel), without its per-rect cost: a zoomed-out frame has ~10k one-pixel rects.
    constexpr int kLineHeight = kDepthHeight - 1;
    constexpr int kMarkerLines = 3;
    image.fill(Qt::transparent);
    auto span = [width](const TimelineRect& r) {
        const int x0 = int(std::lround(r.x0));
        const int x1 = std::max(x0 + 1, int(std::lround(r.x1)));
        return std::pair<int, int>(std::clamp(x0, 0, width), std::clamp(x1, 0, width));
    };
    // Depth d's events go to the scanline below its marker lines first. Merged runs over exact
    // events: a run sharing a pixel with a long event (a short op between two long ones) stays
    // visible, so the boundaries between back-to-back long events do too.
    std::vector<uint8_t> used(size_t(depths), 0); // 1: has events, 2: has markers
    for (const bool runs : {false, true}) {
        for (const TimelineRect& r : rects) {
            if (r.depth >= depths || (r.event == kNone) != runs)
                continue;
            auto* line = reinterpret_cast<QRgb*>(image.scanLine(r.depth * kDepthHeight + kMarkerLines));
            const auto [x0, x1] = span(r);
            std::fill(line + x0, line + x1, r.color | 0xff000000u);
            used[r.depth] |= r.marked ? 3 : 1;
        }
    }
    const size_t bytes = size_t(width) * sizeof(QRgb);
    const QRgb marker = kMarkerColor | 0xff000000u;
    for (int d = 0; d < depths; ++d) {
        if (!used[d])
            continue;
        const int y0 = d * kDepthHeight;
        const uchar* source = image.constScanLine(y0 + kMarkerLines);
        for (int y = 0; y < kLineHeight; ++y)
            if (y != kMarkerLines)
                std::memcpy(image.scanLine(y0 + y), source, bytes);
        if (!(used[d] & 2))
            continue;
        for (const TimelineRect& r : rects) {
            if (r.depth != d || !r.marked)
                continue;
            const auto [x0, x1] = span(r);
            for (int y = 0; y < kMarkerLines; ++y) {
                auto* line = reinterpret_cast<QRgb*>(image.scanLine(y0 + y));
                std::fill(line + x0, line + x1, marker);
            }
        }
    }
}

void TimelineView::clearTextCaches()
{
    m_opLabels.assign(m_profile ? m_profile->ops.size() : 0, OpLabel());
    m_labelTexts.clear();
    m_ellipsisWidth = -1;
    for (Row& row : m_tracks.rows())
        row.text = QStaticText();
}

const QStaticText* TimelineView::eventLabel(OpId op, qreal available)
{
    if (op >= m_opLabels.size())
        return nullptr;
    const QString& name = m_tracks.opName(op);
    if (name.isEmpty())
        return nullptr;
    const QFontMetricsF fm(font());
    OpLabel& label = m_opLabels[op];
    if (label.fullWidth < 0)
        label.fullWidth = fm.horizontalAdvance(name);
    qsizetype keep = name.size();
    if (label.fullWidth > available) {
        // Elide as Qt::ElideRight does, from widths measured once per name: elidedText() per
        // label per frame was a third of a zoomed-out frame.
        if (m_ellipsisWidth < 0)
            m_ellipsisWidth = fm.horizontalAdvance(QString(QChar(0x2026)));
        if (label.prefixWidth.empty()) {
            // No label is wider than the screen: a few hundred characters are plenty.
            const QString head = name.left(400);
            QTextLayout layout(head, font());
            layout.beginLayout();
            QTextLine line = layout.createLine();
            line.setLineWidth(1e9);
            layout.endLayout();
            label.prefixWidth.resize(size_t(head.size()) + 1);
            for (qsizetype i = 0; i <= head.size(); ++i)
                label.prefixWidth[size_t(i)] = line.cursorToX(int(i));
        }
        const auto& widths = label.prefixWidth;
        keep = qsizetype(std::upper_bound(widths.begin(), widths.end(), available - m_ellipsisWidth) - widths.begin())
            - 1;
        if (keep > 0 && name[keep - 1].isHighSurrogate())
            --keep;
        if (keep <= 0)
            return nullptr;
    }
    const quint64 key = (quint64(op) << 24) | quint64(keep);
    auto it = m_labelTexts.find(key);
    if (it == m_labelTexts.end()) {
        if (m_labelTexts.size() > 50'000)
            m_labelTexts.clear(); // zooming through very many ops: start over rather than grow
        QStaticText text(keep == name.size() ? name : name.left(keep) + QChar(0x2026));
        text.setTextFormat(Qt::PlainText);
        it = m_labelTexts.insert(key, text);
    }
    return &it.value();
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
    ensureGeometry(visibleTop, visibleBottom);
    if (!m_cache.lodReady && !m_lodPollPending) {
        m_builder.startLevelsOfDetail();
        // Redraw with the exact colours once the worker is done.
        m_lodPollPending = true;
        QTimer::singleShot(100, this, [this] {
            m_lodPollPending = false;
            viewport()->update();
        });
    }

    p.save();
    p.setClipRect(eventArea);
    p.translate(kLabelWidth, kRulerHeight - scrollY);
    const QColor alternate = pal.color(QPalette::AlternateBase);
    const QColor headerColor = pal.color(QPalette::Button);
    const QColor gridColor = pal.color(QPalette::Midlight);
    // Row stripes and group header bars.
    int stripe = 0;
    for (const Row& row : m_tracks.rows()) {
        if (row.top > visibleBottom)
            break;
        if (row.header) {
            stripe = 0;
            if (row.top + row.height >= visibleTop)
                p.fillRect(QRect(0, row.top, eventArea.width(), row.height), headerColor);
            continue;
        }
        if ((stripe++ % 2) == 1 && row.top + row.height >= visibleTop)
            p.fillRect(QRect(0, row.top, eventArea.width(), row.height), alternate);
    }
    // Ruler grid lines behind the events.
    const TimeScale::Ticks ticks = s.ticks(m_profile->spanBegin);
    p.setPen(gridColor);
    for (const auto& tick : ticks.ticks)
        if (tick.major)
            p.drawLine(QPointF(tick.x, visibleTop), QPointF(tick.x, visibleBottom));

    // Events (and marker bars): one pre-rasterised image per visible track row.
    for (const RowImage& row : m_cache.rows) {
        if (row.top + row.image.height() < visibleTop || row.top > visibleBottom)
            continue;
        p.drawImage(QPoint(0, row.top), row.image);
    }
    if (!m_cache.triangles.isEmpty()) {
        // Triangles on rects wide enough to carry them make the marker findable at a glance.
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(kMarkerColor));
        for (const QRectF& r : m_cache.triangles) {
            if (r.bottom() < visibleTop || r.top() > visibleBottom)
                continue;
            const QPointF tri[3] = {r.topLeft(), r.topLeft() + QPointF(8, 0), r.topLeft() + QPointF(0, 8)};
            p.drawPolygon(tri, 3);
        }
    }

    // Labels inside rects wide enough for text.
    const qreal textHeight = QFontMetricsF(font()).height();
    const QColor light(Qt::white), dark(Qt::black);
    for (const LabelItem& l : m_cache.labels) {
        if (l.rect.bottom() < visibleTop || l.rect.top() > visibleBottom)
            continue;
        const QRectF visible = l.rect.intersected(QRectF(0, l.rect.top(), eventArea.width(), l.rect.height()));
        if (visible.width() < kMinLabelWidthPx)
            continue;
        const QStaticText* text = eventLabel(m_profile->tracks[l.track].op[l.event], int(visible.width()) - 6);
        if (!text)
            continue;
        p.setPen(isDark(l.color) ? light : dark);
        p.drawStaticText(QPointF(visible.left() + 3, visible.top() + (visible.height() - textHeight) / 2), *text);
    }

    // Highlighted occurrences: outlines in the highlight colour.
    if (!m_cache.highlights.isEmpty()) {
        QPen pen(pal.color(QPalette::Highlight), 2);
        pen.setJoinStyle(Qt::MiterJoin);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawRects(m_cache.highlights.constData(), int(m_cache.highlights.size()));
    }
    p.restore();

    // Overlays in viewport coordinates, clipped to the event area.
    p.save();
    p.setClipRect(eventArea);
    if (m_rangeSelection.second > m_rangeSelection.first || m_drag == DragMode::Select) {
        const TimePs a
            = m_drag == DragMode::Select ? std::min(m_selectAnchor, m_selectCurrent) : m_rangeSelection.first;
        const TimePs b
            = m_drag == DragMode::Select ? std::max(m_selectAnchor, m_selectCurrent) : m_rangeSelection.second;
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

    paintLabels(p);
    paintRuler(p, s);

    emit framePainted(timer.nsecsElapsed());
}

void TimelineView::paintLabels(QPainter& p)
{
    const QPalette& pal = palette();
    const int scrollY = verticalScrollBar()->value();
    const int height = viewport()->height();
    p.save();
    p.setClipRect(QRect(0, kRulerHeight, viewport()->width(), height - kRulerHeight));
    p.fillRect(QRect(0, kRulerHeight, kLabelWidth, height - kRulerHeight), pal.window());
    const QFontMetrics fm = fontMetrics();
    QFont bold = font();
    bold.setBold(true);
    const qreal textHeight = QFontMetricsF(font()).height();
    const qreal boldHeight = QFontMetricsF(bold).height();
    for (Row& row : m_tracks.rows()) {
        const int y = row.top + kRulerHeight - scrollY;
        if (y > height)
            break;
        if (y + row.height < kRulerHeight)
            continue;
        if (row.header) {
            const bool collapsed = m_tracks.groups()[size_t(row.group)].collapsed;
            p.fillRect(QRect(0, y, kLabelWidth, row.height), pal.button());
            p.setPen(pal.color(QPalette::Mid));
            p.drawLine(0, y, viewport()->width(), y);
            p.setPen(pal.color(QPalette::ButtonText));
            p.setFont(bold);
            if (row.text.text().isEmpty()) {
                // Header text may run across the event area: header rows carry no events.
                row.text.setText((collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + row.label);
                row.text.setTextFormat(Qt::PlainText);
            }
            p.drawStaticText(QPointF(6, y + (row.height - boldHeight) / 2), row.text);
            p.setFont(font());
            continue;
        }
        p.setPen(pal.color(QPalette::WindowText));
        if (row.text.text().isEmpty()) {
            row.text.setText(fm.elidedText(row.label, Qt::ElideMiddle, kLabelWidth - 22));
            row.text.setTextFormat(Qt::PlainText);
        }
        p.drawStaticText(QPointF(16, y + kTrackPadding + (kDepthHeight - textHeight) / 2), row.text);
        p.setPen(pal.color(QPalette::Midlight));
        p.drawLine(0, y + row.height - 1, viewport()->width(), y + row.height - 1);
    }
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(kLabelWidth - 1, kRulerHeight, kLabelWidth - 1, height);
    p.restore();
}

void TimelineView::paintRuler(QPainter& p, const TimeScale& s)
{
    const QPalette& pal = palette();
    const int width = viewport()->width();
    p.fillRect(QRect(0, 0, width, kRulerHeight), pal.window());
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(0, kRulerHeight - 1, width, kRulerHeight - 1);
    const TimeScale::Ticks ticks = s.ticks(m_profile->spanBegin);
    const QFontMetrics fm = fontMetrics();
    p.save();
    p.setClipRect(QRect(kLabelWidth, 0, width - kLabelWidth, kRulerHeight));
    for (const auto& tick : ticks.ticks) {
        const double x = kLabelWidth + tick.x;
        p.setPen(pal.color(tick.major ? QPalette::WindowText : QPalette::Mid));
        p.drawLine(QPointF(x, kRulerHeight - (tick.major ? 8 : 4)), QPointF(x, kRulerHeight - 1));
        if (tick.major) {
            p.setPen(pal.color(QPalette::WindowText));
            p.drawText(QPointF(x + 3, fm.ascent() + 2), TimeScale::tickLabel(ticks, tick.time));
        }
    }
    p.restore();
    // The corner says what the labels are relative to and how much is on screen.
    p.setPen(pal.color(QPalette::WindowText));
    QString corner = tr("span %1").arg(TimeScale::formatDuration(double(m_end - m_begin)));
    if (ticks.base != m_profile->spanBegin)
        corner = tr("+%1 · %2")
                     .arg(TimeScale::formatDuration(double(ticks.base - m_profile->spanBegin)),
                         TimeScale::formatDuration(double(m_end - m_begin)));
    p.drawText(QRect(6, 0, kLabelWidth - 10, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
        fm.elidedText(corner, Qt::ElideRight, kLabelWidth - 10));
}

// --- input -------------------------------------------------------------------------------------

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    m_pressPos = event->position().toPoint();
    m_pressBegin = m_begin;
    m_pressEnd = m_end;
    const bool select = event->button() == Qt::RightButton
        || (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
    if (select && m_pressPos.x() >= kLabelWidth) {
        m_drag = DragMode::Select;
        m_selectAnchor = m_selectCurrent = scale().xToTime(m_pressPos.x() - kLabelWidth);
    } else if (event->button() == Qt::LeftButton) {
        m_drag = DragMode::PendingClick;
    }
    event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    m_lastMousePos = pos;
    if (m_drag == DragMode::PendingClick && (pos - m_pressPos).manhattanLength() > 3 && m_pressPos.x() >= kLabelWidth)
        m_drag = DragMode::Pan;
    if (m_drag == DragMode::Pan) {
        const double psPerPx = double(m_pressEnd - m_pressBegin) / eventAreaWidth();
        const TimePs delta = TimePs(std::llround((m_pressPos.x() - pos.x()) * psPerPx));
        setVisibleRange(m_pressBegin + delta, m_pressEnd + delta);
        const int dy = m_pressPos.y() - pos.y();
        if (dy != 0) {
            verticalScrollBar()->setValue(verticalScrollBar()->value() + dy);
            m_pressPos.setY(pos.y());
        }
    } else if (m_drag == DragMode::Select) {
        m_selectCurrent = scale().xToTime(std::clamp(pos.x() - kLabelWidth, 0, eventAreaWidth()));
        viewport()->update();
    } else if (m_drag == DragMode::None) {
        const auto hovered = eventAt(pos);
        if (hovered != m_hovered) {
            m_hovered = hovered;
            viewport()->update();
        }
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    if (m_drag == DragMode::PendingClick) {
        const Row* row = pos.y() >= kRulerHeight ? rowAtContentY(contentY(pos.y())) : nullptr;
        if (row && row->header) {
            // Only the ▸/▾ toggle collapses: a click that merely gives the timeline the focus
            // must not fold a group away.
            const int top = row->top + kRulerHeight - verticalScrollBar()->value();
            if (headerToggleRect(top).contains(pos))
                setGroupCollapsed(row->group, !m_tracks.groups()[size_t(row->group)].collapsed);
        } else if (pos.x() >= kLabelWidth) {
            const auto [track, index] = eventAt(pos);
            selectEvent(track, index);
        }
    } else if (m_drag == DragMode::Select) {
        m_drag = DragMode::None;
        const double widthPx = std::abs(double(m_selectCurrent - m_selectAnchor)) * scale().pixelsPerPs();
        if (widthPx >= 3)
            selectRange(std::min(m_selectAnchor, m_selectCurrent), std::max(m_selectAnchor, m_selectCurrent));
        else
            selectRange(0, 0);
    }
    m_drag = DragMode::None;
    viewport()->update();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event)
{
    const auto [track, index] = eventAt(event->position().toPoint());
    if (track != kNone) {
        const Track& t = m_profile->tracks[track];
        const TimePs margin = std::max<TimePs>(t.duration[index] / 10, 1);
        setVisibleRange(t.start[index] - margin, t.end(index) + margin);
    }
}

void TimelineView::wheelEvent(QWheelEvent* event)
{
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ControlModifier) {
        const double steps = delta.y() / 120.0;
        zoomBy(std::pow(0.8, steps), event->position().x() - kLabelWidth);
        event->accept();
    } else if (event->modifiers() & Qt::ShiftModifier || std::abs(delta.x()) > std::abs(delta.y())) {
        const int d = delta.x() != 0 ? delta.x() : delta.y();
        panBy(-d / 120.0 * eventAreaWidth() / 10);
        event->accept();
    } else {
        QAbstractScrollArea::wheelEvent(event); // plain wheel scrolls rows
    }
}

QRect TimelineView::headerToggleRect(int rowTop)
{
    // The arrow is drawn at x = 6; a few pixels of slack either side keep it easy to hit.
    return QRect(0, rowTop, 24, kHeaderHeight);
}

namespace {

bool isNavigationKey(const QKeyEvent* event)
{
    const Qt::KeyboardModifiers modifiers = event->modifiers() & ~Qt::KeypadModifier;
    if (modifiers != Qt::NoModifier && modifiers != Qt::ShiftModifier)
        return false;
    switch (event->key()) {
    case Qt::Key_W:
    case Qt::Key_A:
    case Qt::Key_S:
    case Qt::Key_D:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
    case Qt::Key_Minus:
    case Qt::Key_Z:
    case Qt::Key_0:
    case Qt::Key_Home:
    case Qt::Key_Escape:
        return true;
    default:
        return false;
    }
}

bool isTextField(const QWidget* w)
{
    if (!w)
        return false;
    if (qobject_cast<const QLineEdit*>(w) || qobject_cast<const QAbstractSpinBox*>(w))
        return true;
    if (const auto* edit = qobject_cast<const QTextEdit*>(w))
        return !edit->isReadOnly();
    if (const auto* edit = qobject_cast<const QPlainTextEdit*>(w))
        return !edit->isReadOnly();
    return false;
}

} // namespace

bool TimelineView::wantsForwardedKey(const QKeyEvent* event) const
{
    if (!m_profile || !isVisible() || !isNavigationKey(event))
        return false;
    if (event->key() == Qt::Key_Escape && m_rangeSelection.second <= m_rangeSelection.first)
        return false; // nothing to clear: Esc keeps its other meanings (cancel a load)
    QWidget* focus = QApplication::focusWidget();
    if (isTextField(focus) || QApplication::activePopupWidget() || QApplication::activeModalWidget())
        return false;
    if (focus && focus->window() != window())
        return false;
    const QPoint pos = viewport()->mapFromGlobal(QCursor::pos());
    if (!viewport()->rect().contains(pos))
        return false;
    // Another window (a dialog, a floating dock) on top of the timeline takes the pointer.
    const QWidget* under = QApplication::widgetAt(QCursor::pos());
    return under && (under == viewport() || under == this || isAncestorOf(under));
}

bool TimelineView::event(QEvent* event)
{
    // With a range selected, Esc is ours: the window's Esc shortcut (cancel a load) would
    // otherwise take it before keyPressEvent.
    if (event->type() == QEvent::ShortcutOverride) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (isNavigationKey(key)
            && (key->key() != Qt::Key_Escape || m_rangeSelection.second > m_rangeSelection.first)) {
            event->accept();
            return true;
        }
    }
    return QAbstractScrollArea::event(event);
}

bool TimelineView::eventFilter(QObject* watched, QEvent* event)
{
    const QEvent::Type type = event->type();
    if ((type == QEvent::KeyPress || type == QEvent::ShortcutOverride) && watched->isWidgetType() && watched != this
        && watched != viewport()) {
        auto* key = static_cast<QKeyEvent*>(event);
        // The first receiver is the focus widget (or the window without one); propagation to
        // its parents would see the event again.
        auto* receiver = static_cast<QWidget*>(watched);
        const bool first
            = receiver == QApplication::focusWidget() || (!QApplication::focusWidget() && receiver->isWindow());
        if (first && wantsForwardedKey(key)) {
            if (type == QEvent::ShortcutOverride) {
                event->accept(); // deliver it as a key press, not to a shortcut
                return true;
            }
            keyPressEvent(key);
            return true;
        }
    }
    return QAbstractScrollArea::eventFilter(watched, event);
}

void TimelineView::keyPressEvent(QKeyEvent* event)
{
    const double width = eventAreaWidth();
    const QPoint mouse = viewport()->mapFromGlobal(QCursor::pos());
    const double anchor
        = viewport()->rect().contains(mouse) && mouse.x() >= kLabelWidth ? mouse.x() - kLabelWidth : width / 2;
    switch (event->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(0.8, anchor);
        break;
    case Qt::Key_S:
    case Qt::Key_Minus:
        zoomBy(1.25, anchor);
        break;
    case Qt::Key_A:
        panBy(-width / 10);
        break;
    case Qt::Key_D:
        panBy(width / 10);
        break;
    case Qt::Key_Z:
        if (m_rangeSelection.second > m_rangeSelection.first)
            setVisibleRange(m_rangeSelection.first, m_rangeSelection.second);
        break;
    case Qt::Key_0:
    case Qt::Key_Home:
        resetZoom();
        break;
    case Qt::Key_Escape:
        selectRange(0, 0);
        break;
    default:
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    event->accept();
}

bool TimelineView::viewportEvent(QEvent* event)
{
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
