// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"

#include <QWidget>

#include <memory>
#include <utility>

class QButtonGroup;
class QLabel;
class QRadioButton;
class QScrollArea;
class QSplitter;
class QTableWidget;

namespace tpuscope::model {
struct HostAnalysis;
struct ProfileAnalysis;
} // namespace tpuscope::model

namespace tpuscope::qt {
class TraceSession;
}

namespace tpuscope::widgets {

/// The hosts × steps grid of the Hosts view: one row per host, one column per step, each cell
/// coloured by the host's step time or its lateness at the step's synchronizing collective
/// (HostAnalysis::stepPs / latenessPs). Unknown cells (NaN) are hatched, never a low colour. The
/// columns share the width; the rows keep a readable height, so 64 hosts scroll rather than shrink.
class HostHeatMap : public QWidget
{
    Q_OBJECT
public:
    enum class Measure { StepTime, Lateness };

    explicit HostHeatMap(QWidget* parent = nullptr);

    void setHosts(std::shared_ptr<const model::HostAnalysis> hosts);
    void setMeasure(Measure measure);
    Measure measure() const { return m_measure; }

    int hostCount() const;
    int stepCount() const;
    /// The value a cell shows (ps), NaN when unknown or out of range.
    double value(int hostRow, int step) const;
    /// The colour scale's ends over the known cells (ps); equal when there is nothing to scale.
    std::pair<double, double> scaleRange() const { return {m_low, m_high}; }
    /// Where a cell is drawn, in this widget's coordinates (empty when out of range).
    QRect cellRect(int hostRow, int step) const;
    /// The cell under `pos`: {host row, step}, or {-1, -1} (also under the step axis).
    std::pair<int, int> cellAt(QPoint pos) const;
    /// Where the step axis is drawn: the top of the part shown (it stays there while the rows
    /// scroll under it).
    int axisTop() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    static constexpr int kLabelWidth = 180;
    static constexpr int kAxisHeight = 20;

signals:
    void cellClicked(int hostRow, int step);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    const std::vector<std::vector<double>>* grid() const;
    int rowHeight() const;
    double columnWidth() const;
    void updateScale();

    std::shared_ptr<const model::HostAnalysis> m_hosts;
    Measure m_measure = Measure::Lateness;
    double m_low = 0, m_high = 0;
};

/// The Hosts view (a centre tab): which host holds a pod's step back. A heat map of hosts × steps
/// (step time or lateness, a toggle, with its colour scale) over the per-host table of
/// `tpuscope-cli hosts` (sortable, "–" for unknown). A click on a cell asks for that host and step
/// in the timeline. A profile with one host shows its row and says why there is no map. It follows
/// the session: each loaded profile replaces what it shows.
class HostsView : public QWidget
{
    Q_OBJECT
public:
    explicit HostsView(tpuscope::qt::TraceSession* session, QWidget* parent = nullptr);
    ~HostsView() override;

    /// What the session hands over after a load; null clears.
    void setAnalysis(std::shared_ptr<const tpuscope::model::ProfileAnalysis> analysis);

    // For tests and the screenshot tool.
    HostHeatMap* heatMap() const { return m_map; }
    QTableWidget* hostTable() const { return m_table; }
    /// The sentence shown instead of the map (one host, or none); empty while the map shows.
    QString noMapText() const;
    bool isMapShown() const;
    void setMeasure(HostHeatMap::Measure measure);
    /// The host row of the straggler the advice names, or -1.
    int stragglerRow() const;
    QString summaryText() const;

signals:
    /// A cell was clicked: host `host` (index into Profile::hosts) in [begin, end) of the timeline.
    void hostStepSelected(uint32_t host, tpuscope::model::TimePs begin, tpuscope::model::TimePs end);

protected:
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void showTable();
    void showScale();
    void openCell(int hostRow, int step);
    /// Scrolls the map and the table to the straggler's row, once per analysis, after a layout:
    /// on a 64-host pod it is otherwise below the fold.
    void revealStragglerLater();
    void revealStraggler();

    std::shared_ptr<const tpuscope::model::ProfileAnalysis> m_analysis;
    QLabel* m_summary = nullptr;
    QWidget* m_mapArea = nullptr; // the toggle, the scale and the scrolling map
    QRadioButton* m_stepTime = nullptr;
    QRadioButton* m_lateness = nullptr;
    QLabel* m_scaleLow = nullptr;
    QLabel* m_scaleHigh = nullptr;
    QWidget* m_scaleBar = nullptr;
    QLabel* m_scaleNote = nullptr;
    QScrollArea* m_scroll = nullptr;
    HostHeatMap* m_map = nullptr;
    QLabel* m_noMap = nullptr;
    QSplitter* m_splitter = nullptr;
    QTableWidget* m_table = nullptr;
    bool m_revealPending = false;
};

} // namespace tpuscope::widgets
