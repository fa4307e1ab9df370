// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinegeometry.h"
#include "timelineinput.h"
#include "timelinerangeselection.h"
#include "timelinerasterizer.h"
#include "timelinetracks.h"
#include "timescale.h"

#include "analysis/rangesummary.h"
#include "core/profile.h"

#include <QAbstractScrollArea>
#include <QPointer>
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
/// The widget wires its parts: TimelineTracks (groups, rows, colours), TimelineGeometryBuilder
/// (levels of detail), TimelineRasterizer (the frame), TimelineInput (mouse and keys) and
/// TimelineRangeSelection (the selected range and its statistics).
class TimelineView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    enum class ColorMode { Category, FlopsUtilization };

    explicit TimelineView(QWidget* parent = nullptr);
    ~TimelineView() override;

    /// `breakdown` is the profile's op breakdown (the session's analysis, or a preview's); null
    /// while there is none: the utilization colours wait for it. `depthIndex` is the profile's
    /// events by depth row (ProfileAnalysis::depthIndex); without one (tests driving the view
    /// directly) it is built here, a pass over every event on this thread.
    void setProfile(tpuscope::model::ProfilePtr profile,
        std::shared_ptr<const tpuscope::model::OpBreakdown> breakdown = nullptr,
        std::shared_ptr<const tpuscope::model::DepthIndex> depthIndex = nullptr);
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
    std::pair<tpuscope::model::TimePs, tpuscope::model::TimePs> selectedRange() const { return m_range.range(); }
    /// The statistics of the selected range, computed by the session's range job
    /// (TraceSession::requestRangeSummary); null without a selection, while the job runs, and for
    /// a range on a load's preview (no analysis yet). rangeSummaryReady announces it.
    std::shared_ptr<const tpuscope::model::RangeSummary> rangeSummary() const { return m_range.summary(); }
    /// True while the statistics of the selected range are being computed.
    bool isRangeSummaryPending() const { return m_range.isPending(); }
    /// True when a selected range gets statistics: the profile shown is the session's analysed one
    /// (not a load's preview, not a profile set without a session).
    bool hasRangeStatistics() const;
    /// The range statistics in a few lines: the range, the op count and busy share, the top three
    /// ops ("Selection 12 ms · computing…" until the session's job delivers them).
    QStringList selectionSummary() const { return m_range.summaryLines(); }

    /// While a search is active the events of the other ops are dimmed: `matching` is indexed by
    /// OpId; an empty vector ends the dimming.
    void setSearchMatches(std::vector<bool> matching);
    bool isSearchDimming() const { return !m_searchMatches.empty(); }
    bool isDimmedOp(tpuscope::model::OpId op) const;
    /// The colour an op's events are drawn in now (colour mode, dimming).
    QRgb eventColor(tpuscope::model::OpId op) const;

    /// Runs a navigation key's command (TimelineInput::keys) as if the key were pressed on the
    /// timeline: the window's shortcuts call it while the pointer is over the timeline.
    void runCommand(tpuscope::widgets::TimelineCommand command);
    /// True while the pointer is over the timeline's viewport (pointerOverChanged announces it).
    bool isPointerOver() const;
    /// The group header's ▸/▾ toggle in viewport coordinates for a header row at y `rowTop`
    /// (`level` 1: a core group indented under its host's header).
    static QRect headerToggleRect(int rowTop, int level = 0);

    // Hit test in viewport coordinates: (track, event index) or (kNone, 0).
    std::pair<tpuscope::model::TrackId, uint32_t> eventAt(QPoint viewportPos) const;
    /// Top of a track's first depth row in viewport coordinates (-1 when not laid out / collapsed).
    int trackTop(tpuscope::model::TrackId track) const;
    /// A track's row (its depth rows and padding) in viewport coordinates; empty when the track is
    /// hidden (collapsed group, no profile). What the user sees of it is its intersection with
    /// the viewport's rect.
    QRect trackRowRect(tpuscope::model::TrackId track) const;
    /// The tracks of the TPU core groups, in drawing order (the rows that tell a core's story).
    std::vector<tpuscope::model::TrackId> coreTracks() const;
    int eventAreaLeft() const { return kLabelWidth; }
    /// Below the time ruler: where the rows are drawn (viewport coordinates).
    int rowAreaTop() const { return kRulerHeight; }
    int eventAreaWidth() const;

    QStringList groupNames() const;
    /// Tracks shown in a group (whatever its collapsed state).
    std::vector<tpuscope::model::TrackId> groupTracks(int group) const;
    void setGroupCollapsed(int group, bool collapsed);
    bool isGroupCollapsed(int group) const;
    /// With several hosts: whether `group` is a host's header, and the header a core group is under
    /// (-1 for a top-level group).
    bool isHostGroup(int group) const;
    int parentGroup(int group) const;
    /// Shows profile host `host`: unfolds its group and scrolls its header to the top (a pod's
    /// Hosts view opens a host's step here).
    void revealHost(uint32_t host);

    /// Figures of the last geometry build (for tests and the benchmark).
    size_t lastRectCount() const { return m_rasterizer.rectCount(); }
    qint64 lastGeometryBuildNs() const { return m_rasterizer.buildNs(); }
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
    /// The pointer entered (true) or left the timeline's viewport.
    void pointerOverChanged(bool over);

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
    bool viewportEvent(QEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void changeEvent(QEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    friend class TimelineInput; // the input state machine drives zoom, pan, hit tests and selection
    using TimePs = model::TimePs;
    static constexpr int kLabelWidth = TimelineRasterizer::kLabelWidth;
    static constexpr int kRulerHeight = TimelineRasterizer::kRulerHeight;
    static constexpr int kHeaderHeight = TimelineTracks::kHeaderHeight;
    static constexpr int kDepthHeight = TimelineTracks::kDepthHeight;
    static constexpr int kTrackPadding = TimelineTracks::kTrackPadding;
    using Row = TimelineTracks::Row;

    TimeScale scale() const;
    void relayout();
    void updateScrollBars();
    void clearTextCaches();
    void recomputeColors();
    void zoomBy(double factor, double anchorX);
    void panBy(double pixels);
    const Row* rowAtContentY(int y) const;
    int contentY(int viewportY) const;
    QRectF eventRect(model::TrackId track, uint32_t index) const; // viewport coordinates
    void setHoveredEvent(std::pair<model::TrackId, uint32_t> event);
    void updateLegend();

    model::ProfilePtr m_profile;
    std::shared_ptr<const model::OpBreakdown> m_breakdown;
    TimelineGeometryBuilder m_builder;
    TimelineTracks m_tracks; // groups, rows, op colours and numbers, tooltips
    quint64 m_layoutGeneration = 1;
    quint64 m_colorGeneration = 1;
    quint64 m_highlightGeneration = 1;
    TimelineRasterizer m_rasterizer;
    TimelineInput m_input {*this};
    TimelineRangeSelection m_range;

    TimePs m_begin = 0, m_end = 1'000'000;
    TimePs m_fullBegin = 0, m_fullEnd = 1'000'000;
    ColorMode m_colorMode = ColorMode::Category;
    double m_lowUtilThreshold = 0.25;

    model::OpId m_highlightedOp = model::kNone;
    std::vector<std::vector<uint32_t>> m_highlightEvents; // per track
    // The session that finds a selected op's events off the GUI thread (null: found inline).
    QPointer<qt::TraceSession> m_session;

    std::pair<model::TrackId, uint32_t> m_selected {model::kNone, 0};
    std::pair<model::TrackId, uint32_t> m_hovered {model::kNone, 0};
    std::vector<bool> m_searchMatches; // per op; empty: no search dimming

    bool m_updatingScrollBars = false;
    bool m_lodPollPending = false;

    QPointer<TimelineLegend> m_legend;
};

} // namespace tpuscope::widgets

// The search bar is part of the timeline's public interface.
#include "timelinesearch.h"
