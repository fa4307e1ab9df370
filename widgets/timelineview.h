// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinegeometry.h"
#include "timelinetracks.h"
#include "timescale.h"

#include "analysis/rangesummary.h"
#include "core/profile.h"

#include <QAbstractScrollArea>
#include <QHash>
#include <QImage>
#include <QPointer>
#include <QStaticText>
#include <QStringList>

#include <memory>
#include <utility>
#include <vector>

namespace tpuscope::model {
struct OpBreakdown;
}

namespace tpuscope::qt {
class SelectionState;
class TraceSession;
class ViewRange;
} // namespace tpuscope::qt

namespace tpuscope::widgets {

class TimelineLegend;

/// The profile timeline: one group per TPU core (Steps, XLA Modules, XLA Ops, other lines, each
/// row showing its nested depths), the remaining planes in one collapsible group, a label column
/// and a time ruler. A single viewport-sized widget paints everything from cached, colour-batched
/// geometry (STYLE.md §2.1); hover, selection and vertical scrolling repaint without rebuilding it.
class TimelineView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    enum class ColorMode { Category, FlopsUtilization };

    explicit TimelineView(QWidget* parent = nullptr);
    ~TimelineView() override;

    /// `breakdown` is the profile's op breakdown (the session's analysis); null while there is none
    /// (a load's preview): the utilization colours wait for it.
    void setProfile(
        tpuscope::model::ProfilePtr profile, std::shared_ptr<const tpuscope::model::OpBreakdown> breakdown = nullptr);
    tpuscope::model::ProfilePtr profile() const { return m_profile; }
    /// Shows the session's profile (and a load's preview); closed() clears.
    void setSession(tpuscope::qt::TraceSession* session);
    /// Highlights the selected op; a clicked event becomes the selection (SelectionState::selectEvent).
    void setSelectionState(tpuscope::qt::SelectionState* selection);
    /// Follows the shared visible range and writes its own to it.
    void setViewRange(tpuscope::qt::ViewRange* range);

    void setColorMode(ColorMode mode);
    ColorMode colorMode() const { return m_colorMode; }
    void setLowUtilizationThreshold(double fraction); // default 0.25: fusions ≥1% of time under it are marked
    double lowUtilizationThreshold() const { return m_lowUtilThreshold; }
    bool isLowUtilizationOp(tpuscope::model::OpId op) const;
    /// The colour the op's boxes are drawn in (the colour module's, per the colour mode).
    QRgb opColor(tpuscope::model::OpId op) const;
    void setHighlightedOp(tpuscope::model::OpId op); // kNone clears; occurrences drawn highlighted
    tpuscope::model::OpId highlightedOp() const { return m_highlightedOp; }
    /// Occurrences of the highlighted op per track (ascending event indices).
    size_t highlightedOccurrenceCount() const;

    void setVisibleRange(tpuscope::model::TimePs begin, tpuscope::model::TimePs end);
    std::pair<tpuscope::model::TimePs, tpuscope::model::TimePs> visibleRange() const;
    void zoomToFirstOccurrence(tpuscope::model::OpId op);
    void resetZoom();

    /// Selects an event (kNone clears) and emits eventSelected for a real event.
    void selectEvent(tpuscope::model::TrackId track, uint32_t index);
    std::pair<tpuscope::model::TrackId, uint32_t> selectedEvent() const { return m_selected; }
    /// Pans/zooms and scrolls so the event is visible and comfortably wide; expands its group.
    void revealEvent(tpuscope::model::TrackId track, uint32_t index);

    /// Selects a time range as a shift-drag would (rangeSelected; begin == end clears it and
    /// emits rangeSelected(0, 0) when a range was selected).
    void selectRange(tpuscope::model::TimePs begin, tpuscope::model::TimePs end);
    std::pair<tpuscope::model::TimePs, tpuscope::model::TimePs> selectedRange() const { return m_rangeSelection; }
    /// The statistics of the selected range, computed by the session's range job
    /// (TraceSession::requestRangeSummary); null without a selection, while the job runs, and for
    /// a range on a load's preview (no analysis yet). rangeSummaryReady announces it.
    std::shared_ptr<const tpuscope::model::RangeSummary> rangeSummary() const { return m_rangeSummary; }
    /// True while the statistics of the selected range are being computed.
    bool isRangeSummaryPending() const { return m_rangeSummaryPending; }
    /// True when a selected range gets statistics: the profile shown is the session's analysed one
    /// (not a load's preview, not a profile set without a session).
    bool hasRangeStatistics() const;
    /// The range statistics in a few lines: the range, the op count and busy share, the top three
    /// ops ("Selection 12 ms · computing…" until the session's job delivers them).
    QStringList selectionSummary() const { return m_selectionSummary; }

    /// While a search is active the events of the other ops are dimmed: `matching` is indexed by
    /// OpId; an empty vector ends the dimming.
    void setSearchMatches(std::vector<bool> matching);
    bool isSearchDimming() const { return !m_searchMatches.empty(); }
    bool isDimmedOp(tpuscope::model::OpId op) const;
    /// The colour an op's events are drawn in now (colour mode, dimming).
    QRgb eventColor(tpuscope::model::OpId op) const;

    /// True when a key press elsewhere in the window is meant for the timeline: the pointer is over
    /// it and no text field has the focus (the keys are the navigation keys of keyPressEvent).
    bool wantsForwardedKey(const QKeyEvent* event) const;
    /// The group header's ▸/▾ toggle in viewport coordinates for a header row at y `rowTop`.
    static QRect headerToggleRect(int rowTop);

    // Hit test in viewport coordinates: (track, event index) or (kNone, 0).
    std::pair<tpuscope::model::TrackId, uint32_t> eventAt(QPoint viewportPos) const;
    /// Top of a track's first depth row in viewport coordinates (-1 when not laid out / collapsed).
    int trackTop(tpuscope::model::TrackId track) const;
    int eventAreaLeft() const { return kLabelWidth; }
    int eventAreaWidth() const;

    QStringList groupNames() const;
    /// Tracks shown in a group (whatever its collapsed state).
    std::vector<tpuscope::model::TrackId> groupTracks(int group) const;
    void setGroupCollapsed(int group, bool collapsed);
    bool isGroupCollapsed(int group) const;

    /// Figures of the last geometry build (for tests and the benchmark).
    size_t lastRectCount() const { return m_cache.rectCount; }
    qint64 lastGeometryBuildNs() const { return m_cache.buildNs; }
    /// The levels of detail are built off the GUI thread after setProfile; until then zoomed-out
    /// frames merge with sampled colours (TimelineGeometryBuilder).
    bool levelsOfDetailReady() const { return m_builder.levelsOfDetailReady(); }
    void waitForLevelsOfDetail() { m_builder.waitForLevelsOfDetail(); }
    const TimelineGeometryBuilder& geometryBuilder() const { return m_builder; }

    QWidget* legendWidget(); // a small widget showing the colour legend (categories or util thresholds)
    using LegendEntry = TimelineLegendEntry;
    /// The legend as drawn for the colour mode: text and first swatch colour (without the marker entry).
    std::vector<std::pair<QString, QRgb>> legendEntries() const;
    /// The colour of an HLO category of the shown profile (by the op class of most of its time).
    QRgb categoryPaletteColor(const std::string& category) const;

signals:
    void eventSelected(tpuscope::model::TrackId track, quint32 index);
    void rangeSelected(tpuscope::model::TimePs begin, tpuscope::model::TimePs end);
    /// The session's statistics of the selected range arrived (the Selection table shows the same
    /// object); a cleared or newer range never gets an older range's statistics.
    void rangeSummaryReady(std::shared_ptr<const tpuscope::model::RangeSummary> summary);
    void visibleRangeChanged(tpuscope::model::TimePs begin, tpuscope::model::TimePs end);
    void framePainted(qint64 nanoseconds);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void changeEvent(QEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    using TimePs = model::TimePs;
    static constexpr int kLabelWidth = 190;
    static constexpr int kRulerHeight = 24;
    static constexpr int kHeaderHeight = TimelineTracks::kHeaderHeight;
    static constexpr int kDepthHeight = TimelineTracks::kDepthHeight;
    static constexpr int kTrackPadding = TimelineTracks::kTrackPadding;
    using Row = TimelineTracks::Row;
    struct LabelItem
    {
        QRectF rect;
        model::TrackId track;
        uint32_t event;
        QRgb color;
    };
    /// A track row's events rasterised once per geometry build: one scanline per depth filled
    /// span by span, copied down the row (markers on the top three lines), so a frame blits one
    /// image per row however many rects or colours there are.
    struct RowImage
    {
        int top = 0; // content y of the first depth row
        QImage image; // eventAreaWidth × depth rows, transparent where no event
    };
    struct GeometryCache
    {
        bool valid = false;
        TimePs begin = 0, end = 0;
        int width = 0;
        int contentTop = 0, contentBottom = 0; // rows intersecting this content-y range are built
        bool lodReady = false;
        quint64 layoutGeneration = 0, colorGeneration = 0, highlightGeneration = 0;
        std::vector<RowImage> rows;
        QList<QRectF> triangles; // marked rects wide enough for the marker's triangle
        QList<QRectF> highlights;
        std::vector<LabelItem> labels;
        size_t rectCount = 0;
        qint64 buildNs = 0;
    };
    /// Per-op label text: the width of the full name, the widths of its prefixes (only once the
    /// name had to be elided) and laid-out texts per number of characters kept.
    struct OpLabel
    {
        qreal fullWidth = -1; // < 0: not measured yet
        std::vector<qreal> prefixWidth; // prefixWidth[i] = width of the first i characters
    };
    enum class DragMode { None, PendingClick, Pan, Select };

    TimeScale scale() const;
    void relayout();
    void updateScrollBars();
    void ensureGeometry(int visibleTop, int visibleBottom);
    void rasteriseRow(const std::vector<TimelineRect>& rects, int depths, int width, QImage& image) const;
    /// The text drawn in an event rect `available` px wide (elided like Qt::ElideRight), or
    /// nullptr when not even one character fits.
    const QStaticText* eventLabel(model::OpId op, qreal available);
    void clearTextCaches();
    void recomputeColors();
    void zoomBy(double factor, double anchorX);
    void panBy(double pixels);
    const Row* rowAtContentY(int y) const;
    int contentY(int viewportY) const;
    QRectF eventRect(model::TrackId track, uint32_t index) const; // viewport coordinates
    /// Asks the session for the selected range's statistics (or shows why there are none).
    void requestSelectionSummary();
    void updateSelectionSummaryLines();
    void paintRuler(QPainter& p, const TimeScale& s);
    void paintLabels(QPainter& p);
    void updateLegend();

    model::ProfilePtr m_profile;
    std::shared_ptr<const model::OpBreakdown> m_breakdown;
    TimelineGeometryBuilder m_builder;
    TimelineTracks m_tracks; // groups, rows, op colours and numbers, tooltips
    quint64 m_layoutGeneration = 1;
    quint64 m_colorGeneration = 1;
    quint64 m_highlightGeneration = 1;
    GeometryCache m_cache;

    TimePs m_begin = 0, m_end = 1'000'000;
    TimePs m_fullBegin = 0, m_fullEnd = 1'000'000;
    ColorMode m_colorMode = ColorMode::Category;
    double m_lowUtilThreshold = 0.25;
    std::vector<OpLabel> m_opLabels;
    QHash<quint64, QStaticText> m_labelTexts; // (op << 24 | characters kept) → text
    qreal m_ellipsisWidth = -1;
    std::vector<TimelineRect> m_rectScratch, m_highlightScratch; // reused by every build
    std::vector<QImage> m_imagePool; // row images of the previous build, reused when sizes match

    model::OpId m_highlightedOp = model::kNone;
    std::vector<std::vector<uint32_t>> m_highlightEvents; // per track

    std::pair<model::TrackId, uint32_t> m_selected {model::kNone, 0};
    std::pair<model::TrackId, uint32_t> m_hovered {model::kNone, 0};
    std::pair<TimePs, TimePs> m_rangeSelection {0, 0};
    std::shared_ptr<const model::RangeSummary> m_rangeSummary;
    bool m_rangeSummaryPending = false;
    QStringList m_selectionSummary;
    QPointer<qt::TraceSession> m_session;
    std::vector<bool> m_searchMatches; // per op; empty: no search dimming

    DragMode m_drag = DragMode::None;
    QPoint m_pressPos;
    TimePs m_pressBegin = 0, m_pressEnd = 0;
    TimePs m_selectAnchor = 0, m_selectCurrent = 0;
    QPoint m_lastMousePos {-1, -1};
    bool m_updatingScrollBars = false;
    bool m_lodPollPending = false;

    QPointer<TimelineLegend> m_legend;
};

} // namespace tpuscope::widgets

// The search bar is part of the timeline's public interface.
#include "timelinesearch.h"
