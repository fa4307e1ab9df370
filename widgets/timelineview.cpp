// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelineview.h"

#include "analysis/opbreakdown.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "qt/viewrange.h"
#include "report/report.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
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
constexpr QRgb kMarkerColor = qRgb(176, 0, 32);

QString qs(const std::string& s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

/// FORMATS.md §4.3 flameColor(f, brightness, opacity 1, sqrt): red → yellow → green.
QRgb flameColor(double fraction, double brightness = 0.7)
{
    if (std::isnan(fraction))
        return qRgb(int(brightness * 255), int(brightness * 255), int(brightness * 255));
    const double g = std::sqrt(std::clamp(fraction, 0.0, 1.0));
    const double b = brightness * 255;
    if (g < 0.5)
        return qRgb(int(b), int(2 * g * b), 0);
    return qRgb(int(2 * (1 - g) * b), int(b), 0);
}

uint32_t fnv1a(const std::string& s)
{
    uint32_t h = 2166136261u;
    for (unsigned char c : s)
        h = (h ^ c) * 16777619u;
    return h;
}

// Tableau-like palette, readable with dark text, distinguishable on light and dark backgrounds.
constexpr QRgb kCategoryPalette[] = {
    qRgb(78, 121, 167),
    qRgb(242, 142, 43),
    qRgb(118, 183, 178),
    qRgb(89, 161, 79),
    qRgb(237, 201, 72),
    qRgb(176, 122, 161),
    qRgb(255, 157, 167),
    qRgb(156, 117, 95),
    qRgb(160, 203, 232),
    qRgb(255, 190, 125),
    qRgb(140, 209, 125),
    qRgb(182, 153, 45),
    qRgb(73, 152, 148),
    qRgb(212, 166, 200),
    qRgb(134, 188, 182),
    qRgb(225, 87, 89),
};
constexpr size_t kPaletteSize = sizeof(kCategoryPalette) / sizeof(kCategoryPalette[0]);

/// Well-known categories get fixed colours so screenshots stay comparable across profiles.
QRgb knownCategoryColor(const std::string& category, bool& found)
{
    static const std::map<std::string, QRgb, std::less<>> known = {
        {"convolution fusion", kCategoryPalette[0]},
        {"convolution", kCategoryPalette[0]},
        {"loop fusion", kCategoryPalette[1]},
        {"output fusion", kCategoryPalette[8]},
        {"input fusion", kCategoryPalette[2]},
        {"custom fusion", kCategoryPalette[5]},
        {"data formatting", kCategoryPalette[7]},
        {"non-fusion elementwise", kCategoryPalette[3]},
        {"all-reduce", kCategoryPalette[15]},
        {"all-gather", kCategoryPalette[6]},
        {"all-reduce fusion", kCategoryPalette[15]},
        {"all-gather fusion", kCategoryPalette[6]},
        {"copy", kCategoryPalette[11]},
        {"copy-start", kCategoryPalette[11]},
        {"copy-done", kCategoryPalette[11]},
        {"dot", kCategoryPalette[12]},
        {"fusion", kCategoryPalette[4]},
    };
    auto it = known.find(category);
    found = it != known.end();
    return found ? it->second : 0;
}

/// Non-op events (steps, modules, host threads): softer colours by name.
QRgb mutedColor(uint32_t hash)
{
    const int hue = int(hash % 360);
    return QColor::fromHsl(hue, 70, 175).rgb();
}

bool isDark(QRgb c)
{
    return (qRed(c) * 299 + qGreen(c) * 587 + qBlue(c) * 114) / 1000 < 128;
}

int trackKindRank(TrackKind kind)
{
    switch (kind) {
    case TrackKind::Steps:
        return 0;
    case TrackKind::XlaModules:
        return 1;
    case TrackKind::XlaOps:
        return 2;
    case TrackKind::AsyncXlaOps:
        return 3;
    case TrackKind::FrameworkOps:
        return 4;
    default:
        return 5;
    }
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Legend

class TimelineLegend : public QWidget
{
public:
    explicit TimelineLegend(QWidget* parent = nullptr)
        : QWidget(parent)
    {
        setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    }

    void setCategories(std::vector<std::pair<QString, QRgb>> entries)
    {
        m_utilization = false;
        m_entries = std::move(entries);
        updateGeometry();
        update();
    }
    void setThreshold(double threshold) { m_threshold = threshold; }
    void setUtilization(double threshold)
    {
        m_utilization = true;
        m_threshold = threshold;
        updateGeometry();
        update();
    }

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return layoutItems(width, nullptr); }
    QSize sizeHint() const override { return QSize(480, heightForWidth(480)); }
    QSize minimumSizeHint() const override { return QSize(120, fontMetrics().height() + 8); }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.fillRect(rect(), palette().window());
        layoutItems(width(), &p);
    }

private:
    /// Lays out (and paints when p is set) swatch+text items in wrapped lines; returns the height.
    int layoutItems(int width, QPainter* p) const
    {
        const QFontMetrics fm = fontMetrics();
        const int lineHeight = fm.height() + 6;
        const int swatch = fm.height() - 4;
        int x = 4, y = 3;
        auto item = [&](const QString& text, QRgb color, bool marker) {
            const int w = swatch + 4 + fm.horizontalAdvance(text) + 12;
            if (x + w > width && x > 4) {
                x = 4;
                y += lineHeight;
            }
            if (p) {
                const QRect box(x, y + (lineHeight - swatch) / 2 - 2, swatch, swatch);
                if (marker) {
                    p->fillRect(box, palette().base());
                    p->fillRect(QRect(box.left(), box.top(), box.width(), 3), QColor(kMarkerColor));
                    QPolygon tri;
                    tri << box.topLeft() << QPoint(box.left() + swatch / 2, box.top())
                        << QPoint(box.left(), box.top() + swatch / 2);
                    p->setBrush(QColor(kMarkerColor));
                    p->setPen(Qt::NoPen);
                    p->drawPolygon(tri);
                } else {
                    p->fillRect(box, QColor(color));
                }
                p->setPen(palette().color(QPalette::WindowText));
                p->drawText(QRect(x + swatch + 4, y, w, lineHeight - 4), Qt::AlignVCenter | Qt::AlignLeft, text);
            }
            x += w;
        };
        if (m_utilization) {
            const double stops[] = {0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0};
            for (double s : stops)
                item(QStringLiteral("%1%").arg(int(std::lround(s * 100))), flameColor(s), false);
            item(QCoreApplication::translate("TimelineView", "no FLOPS data"), flameColor(std::nan("")), false);
        } else {
            for (const auto& [name, color] : m_entries)
                item(name, color, false);
        }
        item(QCoreApplication::translate("TimelineView", "low-utilization fusion (≥1% of time, below %1% of its roofline)")
                 .arg(int(std::lround(m_threshold * 100))),
            0, true);
        return y + lineHeight + 3;
    }

    bool m_utilization = false;
    double m_threshold = 0.25;
    std::vector<std::pair<QString, QRgb>> m_entries;
};

// ---------------------------------------------------------------------------------------------

TimelineView::TimelineView(QWidget* parent)
    : QAbstractScrollArea(parent)
{
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    viewport()->setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    horizontalScrollBar()->setRange(0, 0);
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
    m_breakdown = std::move(breakdown);
    if (m_profile && !m_breakdown) // a preview (part of a file) has no analysis yet
        m_breakdown = std::make_shared<const model::OpBreakdown>(model::computeOpBreakdown(*m_profile));
    // The levels of detail are built after the first frame (paintEvent starts them): on two cores
    // they would slow loading and that frame, which draws without them.
    m_builder.setProfile(m_profile, false);
    m_selected = {kNone, 0};
    m_hovered = {kNone, 0};
    m_rangeSelection = {0, 0};
    m_selectionSummary.clear();
    m_highlightedOp = kNone;
    m_highlightEvents.clear();
    m_opNames.clear();
    m_opNameReady.clear();
    m_cache.rows.clear();
    if (m_profile) {
        m_opNames.resize(m_profile->ops.size());
        m_opNameReady.assign(m_profile->ops.size(), false);
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
    computeUtilization();
    recomputeColors();
    rebuildGroups();
    clearTextCaches();
    m_begin = m_fullBegin;
    m_end = m_fullEnd;
    ++m_highlightGeneration;
    m_cache.valid = false;
    updateScrollBars();
    updateLegend();
    viewport()->update();
    emit visibleRangeChanged(m_begin, m_end);
}

void TimelineView::setSession(qt::TraceSession* session)
{
    auto showSession = [this, session] { setProfile(session->profile(), session->breakdown()); };
    connect(session, &qt::TraceSession::loaded, this, showSession);
    connect(session, &qt::TraceSession::previewDropped, this, showSession);
    connect(session, &qt::TraceSession::previewReady, this, [this](const model::ProfilePtr& p) { setProfile(p); });
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

void TimelineView::computeUtilization()
{
    m_opFlopsUtil.clear();
    m_opHbmUtil.clear();
    m_opTimeFraction.clear();
    m_lowUtilOps.clear();
    m_categoryLegend.clear();
    if (!m_profile)
        return;
    const size_t nOps = m_profile->ops.size();
    m_opFlopsUtil.assign(nOps, std::nan(""));
    m_opHbmUtil.assign(nOps, std::nan(""));
    m_opTimeFraction.assign(nOps, 0);
    const model::OpBreakdown& breakdown = *m_breakdown;
    std::map<std::string, double> categoryTime;
    m_lowUtilOps.assign(nOps, false);
    m_opRooflineEfficiency.assign(nOps, std::nan(""));
    for (const model::OpRow& row : breakdown.rows)
        categoryTime[row.category] += row.totalTimePs;
    // Every op gets its row's numbers (ops deduplicated apart share one row). Unknown stays NaN:
    // no cost data or no peak is not 0 %. Low utilization is the core's one definition (far from
    // the roofline), as the op table uses.
    const std::vector<size_t> rowOf = model::rowOfEachOp(*m_profile, breakdown);
    for (OpId op = 0; op < nOps; ++op) {
        if (rowOf[op] == SIZE_MAX)
            continue;
        const model::OpRow& row = breakdown.rows[rowOf[op]];
        m_opTimeFraction[op] = row.timeFraction;
        m_opFlopsUtil[op] = row.flopsUtilization.value_or(std::nan(""));
        m_opHbmUtil[op] = row.hbmUtilization.value_or(std::nan(""));
        m_opRooflineEfficiency[op] = row.rooflineEfficiency.value_or(std::nan(""));
        m_lowUtilOps[op] = m_profile->ops[op].isXlaOp && model::isFusionCategory(row.category)
            && row.timeFraction >= 0.01 && model::isLowUtilization(row, m_lowUtilThreshold) == true;
    }
    std::vector<std::pair<std::string, double>> sorted(categoryTime.begin(), categoryTime.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (size_t i = 0; i < sorted.size() && i < 14; ++i) {
        bool found = false;
        QRgb color = knownCategoryColor(sorted[i].first, found);
        if (!found)
            color = kCategoryPalette[fnv1a(sorted[i].first) % kPaletteSize];
        m_categoryLegend.emplace_back(qs(sorted[i].first), color);
    }
    if (!m_profile->tracks.empty())
        m_categoryLegend.emplace_back(tr("steps, modules, host (by name)"), mutedColor(fnv1a("step")));
}

bool TimelineView::isLowUtilizationOp(OpId op) const
{
    return op < m_lowUtilOps.size() && m_lowUtilOps[op];
}

QRgb TimelineView::categoryColor(OpId op) const
{
    const auto& info = m_profile->ops[op];
    if (info.isXlaOp && info.category != 0) {
        const std::string& category = m_profile->str(info.category);
        bool found = false;
        const QRgb known = knownCategoryColor(category, found);
        return found ? known : kCategoryPalette[fnv1a(category) % kPaletteSize];
    }
    return mutedColor(fnv1a(m_profile->str(info.name)));
}

QRgb TimelineView::utilizationColor(OpId op) const
{
    if (!m_profile->ops[op].isXlaOp)
        return palette().color(QPalette::Mid).rgb();
    return flameColor(m_opFlopsUtil[op]);
}

void TimelineView::recomputeColors()
{
    if (!m_profile)
        return;
    if (m_colorMode == ColorMode::Category)
        m_builder.setColorFunction([this](OpId op) { return categoryColor(op); });
    else
        m_builder.setColorFunction([this](OpId op) { return utilizationColor(op); });
    m_builder.setMarkedOps(m_lowUtilOps);
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
    computeUtilization();
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

void TimelineView::rebuildGroups()
{
    m_groups.clear();
    if (m_profile) {
        const auto& p = *m_profile;
        auto hasContent = [&](TrackId t) { return p.tracks[t].size() > 0; };
        auto sortedTracks = [&](const model::Plane& plane) {
            std::vector<TrackId> tracks;
            for (TrackId t : plane.tracks)
                if (t < p.tracks.size() && hasContent(t))
                    tracks.push_back(t);
            std::stable_sort(tracks.begin(), tracks.end(), [&](TrackId a, TrackId b) {
                const int ra = trackKindRank(p.tracks[a].kind), rb = trackKindRank(p.tracks[b].kind);
                if (ra != rb)
                    return ra < rb;
                return p.tracks[a].sortIndex < p.tracks[b].sortIndex;
            });
            return tracks;
        };
        const auto cores = p.tpuCorePlanes();
        for (model::PlaneId id : cores) {
            const model::Plane& plane = p.planes[id];
            Group g;
            g.tpuCore = true;
            g.name = QStringLiteral("TPU:%1").arg(plane.coreIndex);
            if (p.hosts.size() > 1 && plane.host < p.hosts.size() && !p.hosts[plane.host].empty())
                g.name = qs(p.hosts[plane.host]) + QStringLiteral(" · ") + g.name;
            if (!plane.deviceType.empty())
                g.name += QStringLiteral("  (") + qs(plane.deviceType) + QChar(u')');
            g.tracks = sortedTracks(plane);
            if (!g.tracks.empty())
                m_groups.push_back(std::move(g));
        }
        Group others;
        std::vector<model::PlaneId> otherPlanes;
        for (model::PlaneId id = 0; id < p.planes.size(); ++id) {
            const model::Plane& plane = p.planes[id];
            if (plane.kind == PlaneKind::Metadata || std::find(cores.begin(), cores.end(), id) != cores.end())
                continue;
            for (TrackId t : sortedTracks(plane))
                others.tracks.push_back(t);
            otherPlanes.push_back(id);
        }
        if (!others.tracks.empty()) {
            others.name = (m_groups.empty() ? tr("Threads") : tr("Host threads and other planes"))
                + QStringLiteral("  (%1)").arg(others.tracks.size());
            // With TPU cores on screen the host rows are mostly noise: start collapsed.
            others.collapsed = !m_groups.empty();
            m_groups.push_back(std::move(others));
        }
    }
    relayout();
}

void TimelineView::relayout()
{
    m_rows.clear();
    m_trackRow.assign(m_profile ? m_profile->tracks.size() : 0, -1);
    int y = 0;
    for (int gi = 0; gi < int(m_groups.size()); ++gi) {
        const Group& g = m_groups[gi];
        Row header;
        header.header = true;
        header.group = gi;
        header.top = y;
        header.height = kHeaderHeight;
        header.label = g.name;
        m_rows.push_back(header);
        y += kHeaderHeight;
        if (g.collapsed)
            continue;
        const bool showPlane = !g.tpuCore;
        for (TrackId t : g.tracks) {
            const Track& track = m_profile->tracks[t];
            Row row;
            row.group = gi;
            row.track = t;
            row.top = y;
            row.height = m_builder.depthCount(t) * kDepthHeight + 2 * kTrackPadding;
            row.label = qs(m_profile->str(track.name));
            if (row.label.isEmpty())
                row.label = tr("(unnamed line)");
            const QString plane = qs(m_profile->str(m_profile->planes[track.plane].name));
            row.tooltip = plane + QStringLiteral(" / ") + row.label
                + tr("\n%1 events, %2 depth levels").arg(track.size()).arg(int(track.maxDepth) + 1);
            if (showPlane && m_profile->planes[track.plane].kind != PlaneKind::Host)
                row.label = plane + QStringLiteral(": ") + row.label;
            m_trackRow[t] = int(m_rows.size());
            m_rows.push_back(row);
            y += row.height;
        }
    }
    m_contentHeight = y;
    ++m_layoutGeneration;
    updateScrollBars();
    viewport()->update();
}

QStringList TimelineView::groupNames() const
{
    QStringList names;
    for (const Group& g : m_groups)
        names << g.name;
    return names;
}

std::vector<TrackId> TimelineView::groupTracks(int group) const
{
    if (group < 0 || group >= int(m_groups.size()))
        return {};
    return m_groups[group].tracks;
}

void TimelineView::setGroupCollapsed(int group, bool collapsed)
{
    if (group < 0 || group >= int(m_groups.size()) || m_groups[group].collapsed == collapsed)
        return;
    m_groups[group].collapsed = collapsed;
    relayout();
}

bool TimelineView::isGroupCollapsed(int group) const
{
    return group >= 0 && group < int(m_groups.size()) && m_groups[group].collapsed;
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
    verticalScrollBar()->setRange(0, std::max(0, m_contentHeight - visibleHeight));
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
    for (int gi = 0; gi < int(m_groups.size()); ++gi) {
        const auto& tracks = m_groups[gi].tracks;
        if (std::find(tracks.begin(), tracks.end(), track) != tracks.end() && m_groups[gi].collapsed)
            setGroupCollapsed(gi, false);
    }
    if (track < m_trackRow.size() && m_trackRow[track] >= 0) {
        const Row& row = m_rows[m_trackRow[track]];
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
    m_rangeSelection = {begin, end};
    computeSelectionSummary();
    viewport()->update();
    if (end > begin)
        emit rangeSelected(begin, end);
}

void TimelineView::computeSelectionSummary()
{
    m_selectionSummary.clear();
    const auto [begin, end] = m_rangeSelection;
    if (!m_profile || end <= begin)
        return;
    model::OpFilter filter;
    filter.rangeBegin = begin;
    filter.rangeEnd = end;
    const model::OpBreakdown b = model::computeOpBreakdown(*m_profile, filter);
    int64_t count = 0;
    for (const auto& row : b.rows)
        count += row.occurrences;
    m_selectionSummary << tr("Selection %1").arg(TimeScale::formatDuration(double(end - begin)));
    if (count == 0) {
        m_selectionSummary << tr("no XLA ops in the range");
        return;
    }
    // Busy time clipped to the range (the op totals below count whole overlapping ops): the
    // top-level events of each core's XLA Ops line.
    double busy = 0;
    int cores = 0;
    for (const model::PlaneId plane : m_profile->tpuCorePlanes()) {
        bool counted = false;
        for (const TrackId t : m_profile->planes[plane].tracks) {
            const Track& track = m_profile->tracks[t];
            if (track.kind != TrackKind::XlaOps)
                continue;
            counted = true;
            const auto [first, last] = m_builder.visibleSpan(t, 0, begin, end);
            for (size_t k = first; k < last; ++k) {
                const uint32_t e = m_builder.depthEvent(t, 0, k);
                busy += double(std::max<TimePs>(0, std::min(end, track.end(e)) - std::max(begin, track.start[e])));
            }
        }
        cores += counted ? 1 : 0;
    }
    const double capacity = double(end - begin) * std::max(1, cores);
    m_selectionSummary << tr("%1 ops · busy %2 of %3 core(s) × range (%4%)")
                              .arg(count)
                              .arg(TimeScale::formatDuration(busy))
                              .arg(std::max(1, cores))
                              .arg(100.0 * busy / capacity, 0, 'f', 1);
    for (size_t i = 0; i < b.rows.size() && i < 3; ++i) {
        const auto& row = b.rows[i];
        m_selectionSummary << QStringLiteral("%1. %2 — %3 (%4%)")
                                  .arg(i + 1)
                                  .arg(qs(row.name))
                                  .arg(TimeScale::formatDuration(row.totalTimePs))
                                  .arg(100.0 * row.timeFraction, 0, 'f', 1);
    }
}

// --- hit testing -------------------------------------------------------------------------------

int TimelineView::contentY(int viewportY) const
{
    return viewportY - kRulerHeight + verticalScrollBar()->value();
}

const TimelineView::Row* TimelineView::rowAtContentY(int y) const
{
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y, [](int v, const Row& r) { return v < r.top; });
    if (it == m_rows.begin())
        return nullptr;
    --it;
    return y < it->top + it->height ? &*it : nullptr;
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
    if (track >= m_trackRow.size() || m_trackRow[track] < 0)
        return -1;
    return m_rows[m_trackRow[track]].top + kTrackPadding + kRulerHeight - verticalScrollBar()->value();
}

QRectF TimelineView::eventRect(TrackId track, uint32_t index) const
{
    if (!m_profile || track >= m_trackRow.size() || m_trackRow[track] < 0 || index >= m_profile->tracks[track].size())
        return {};
    const Track& t = m_profile->tracks[track];
    const TimeScale s = scale();
    const double x0 = std::clamp(s.timeToX(t.start[index]), -4.0, s.width() + 4);
    const double x1 = std::clamp(s.timeToX(t.end(index)), -4.0, s.width() + 4);
    const int top = trackTop(track) + t.depth[index] * kDepthHeight;
    return QRectF(kLabelWidth + x0, top, std::max(1.0, x1 - x0), kDepthHeight - 1);
}

const QString& TimelineView::opName(OpId op) const
{
    static const QString empty;
    if (!m_profile || op >= m_opNames.size())
        return empty;
    if (!m_opNameReady[op]) {
        m_opNames[op] = qs(m_profile->str(m_profile->ops[op].name));
        m_opNameReady[op] = true;
    }
    return m_opNames[op];
}

QString TimelineView::eventTooltip(TrackId track, uint32_t index) const
{
    const Track& t = m_profile->tracks[track];
    const OpId op = t.op[index];
    const auto& info = m_profile->ops[op];
    QString text = QStringLiteral("<b>%1</b>").arg(opName(op).toHtmlEscaped());
    if (info.category)
        text += QStringLiteral("<br>") + tr("category: %1").arg(qs(m_profile->str(info.category)).toHtmlEscaped());
    text += QStringLiteral("<br>") + tr("duration: %1").arg(TimeScale::formatDuration(double(t.duration[index])));
    text += QStringLiteral("<br>")
        + tr("start: %1").arg(TimeScale::formatDuration(double(t.start[index] - m_profile->spanBegin)));
    const auto& device = m_profile->device;
    if (info.isXlaOp) {
        // The op's rates as the breakdown knows them (async pairs over their span, host
        // transfers on the host link); unknown is said so, with the reason.
        if (device.peakTflopsPerCore <= 0) {
            text += QStringLiteral("<br>") + tr("utilization: unknown (no TPU generation: choose a device)");
        } else if (std::isnan(m_opFlopsUtil[op]) && std::isnan(m_opHbmUtil[op])) {
            text += QStringLiteral("<br>") + tr("utilization: unknown (the op records no cost data, or it is a host transfer)");
        } else {
            auto value = [](double u) {
                return std::isnan(u) ? QString::fromUtf8(model::kUnknownText) : QString::number(100 * u, 'f', 1) + QLatin1Char('%');
            };
            text += QStringLiteral("<br>")
                + tr("op average: FLOPS %1, HBM %2, roofline efficiency %3")
                      .arg(value(m_opFlopsUtil[op]), value(m_opHbmUtil[op]), value(m_opRooflineEfficiency[op]));
        }
        if (isLowUtilizationOp(op))
            text += QStringLiteral("<br><span style='color:#b00020'>")
                + tr("low-utilization fusion: %1% of op time, below %2% of its roofline bound")
                      .arg(100 * m_opTimeFraction[op], 0, 'f', 1)
                      .arg(int(std::lround(m_lowUtilThreshold * 100)))
                + QStringLiteral("</span>");
    }
    return text;
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
    for (const Row& row : m_rows) {
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
    for (Row& row : m_rows)
        row.text = QStaticText();
}

const QStaticText* TimelineView::eventLabel(OpId op, qreal available)
{
    if (op >= m_opLabels.size())
        return nullptr;
    const QString& name = opName(op);
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
    for (const Row& row : m_rows) {
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
    if (!m_selectionSummary.isEmpty() && m_drag != DragMode::Select)
        paintSelectionOverlay(p);

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
    for (Row& row : m_rows) {
        const int y = row.top + kRulerHeight - scrollY;
        if (y > height)
            break;
        if (y + row.height < kRulerHeight)
            continue;
        if (row.header) {
            const bool collapsed = m_groups[row.group].collapsed;
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

void TimelineView::paintSelectionOverlay(QPainter& p)
{
    const QFontMetrics fm = fontMetrics();
    int w = 0;
    for (const QString& line : m_selectionSummary)
        w = std::max(w, fm.horizontalAdvance(line));
    w = std::min(w + 16, std::max(120, eventAreaWidth() - 20));
    const int h = int(m_selectionSummary.size()) * fm.height() + 10;
    const QRect box(viewport()->width() - w - 10, kRulerHeight + 8, w, h);
    QColor bg = palette().color(QPalette::ToolTipBase);
    bg.setAlpha(235);
    p.fillRect(box, bg);
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(box.adjusted(0, 0, -1, -1));
    p.setPen(palette().color(QPalette::ToolTipText));
    int y = box.top() + 5;
    for (const QString& line : m_selectionSummary) {
        p.drawText(QRect(box.left() + 8, y, w - 16, fm.height()), Qt::AlignVCenter | Qt::AlignLeft,
            fm.elidedText(line, Qt::ElideMiddle, w - 16));
        y += fm.height();
    }
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
            setGroupCollapsed(row->group, !m_groups[row->group].collapsed);
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
            QToolTip::showText(help->globalPos(), eventTooltip(track, index), viewport());
        } else if (pos.x() < kLabelWidth && pos.y() >= kRulerHeight) {
            const Row* row = rowAtContentY(contentY(pos.y()));
            if (row && !row->tooltip.isEmpty())
                QToolTip::showText(help->globalPos(), row->tooltip, viewport());
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
    m_legend->setThreshold(m_lowUtilThreshold);
    if (m_colorMode == ColorMode::Category)
        m_legend->setCategories(m_categoryLegend);
    else
        m_legend->setUtilization(m_lowUtilThreshold);
}

} // namespace tpuscope::widgets
