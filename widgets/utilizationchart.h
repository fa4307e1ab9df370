// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"

#include <QPointer>
#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPGraph;
class QLabel;
class QTimer;

namespace tpuscope::model {
struct ProfileAnalysis;
struct UtilizationSeries;
} // namespace tpuscope::model

namespace tpuscope::qt {
class TraceSession;
class ViewRange;
} // namespace tpuscope::qt

namespace tpuscope::widgets {

/// FLOPS and HBM-bandwidth utilization over time (average per bucket as a line, the per-bucket peak
/// as a light band above it). The x range follows the timeline; dragging or wheel-zooming the chart
/// moves the timeline through rangeChanged. Buckets are recomputed for the visible range (debounced).
class UtilizationChart : public QWidget
{
    Q_OBJECT
public:
    explicit UtilizationChart(QWidget* parent = nullptr);
    ~UtilizationChart() override;

    /// Shows a profile's analysis (its whole-span series first); null clears.
    void setAnalysis(std::shared_ptr<const tpuscope::model::ProfileAnalysis> analysis);
    /// Follows the session's analysis; series for other ranges and cores are computed as jobs of
    /// this session (TraceSession::requestUtilization). Without a session the chart shows the
    /// analysis' whole-span series only.
    void setSession(tpuscope::qt::TraceSession* session);
    /// Follows the shared visible range and writes the range dragged or zoomed here to it.
    void setViewRange(tpuscope::qt::ViewRange* range);
    /// Syncs the x range with the timeline; does not emit rangeChanged.
    void setVisibleRange(tpuscope::model::TimePs begin, tpuscope::model::TimePs end);
    void setCore(int core); // ordinal of Profile::tpuCorePlanes(); -1 = all

    // For tests and the screenshot tool.
    QCustomPlot* plot() const { return m_plot; }
    int core() const { return m_core; }
    /// Asks for the visible range's series now instead of after the debounce delay; it arrives
    /// from the session's job (isComputing() turns false).
    void flush();
    /// True while a series for the range shown is on its way (debounce or session job): a grab
    /// now would show the previous range's buckets.
    bool isComputing() const;
    /// Number of points of the FLOPS line currently shown.
    int pointCount() const;
    /// The header's note beside the title (peaks, "no TPU ops", or what a preview waits for).
    QString statusText() const;
    /// Value shown at a bucket index (percent of peak, or absolute when the peak is unknown).
    double flopsValueAt(int index) const;

    /// Lines the time axis up with the timeline: the plot's axis rect starts at `timeline`'s x =
    /// `eventLeft` and ends at its right edge, on screen, whenever either widget moves or resizes.
    /// Null (or a timeline not above the chart, e.g. a floating dock) leaves the margins automatic.
    void alignTimeAxisWith(QWidget* timeline, int eventLeft);
    /// The axis rect's left and right edges in global coordinates (tests check the alignment).
    std::pair<int, int> timeAxisGlobalSpan() const;

signals:
    void rangeChanged(tpuscope::model::TimePs begin, tpuscope::model::TimePs end);

protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void updateAxisAlignment();
    void onXRangeChanged();
    void recompute();
    void applySeries(const tpuscope::model::UtilizationSeries& series);
    void showPreview(const tpuscope::model::Profile& partial);
    void applyPalette();
    void rebuildCoreCombo();
    void updateHover(const QPoint& pos);

    std::shared_ptr<const tpuscope::model::ProfileAnalysis> m_analysis;
    tpuscope::model::ProfilePtr m_profile;
    tpuscope::qt::TraceSession* m_session = nullptr;
    tpuscope::qt::ViewRange* m_viewRange = nullptr; // the shared visible range (setViewRange)
    QCustomPlot* m_plot = nullptr;
    QPointer<QWidget> m_alignTimeline;
    int m_alignEventLeft = 0;
    QComboBox* m_coreCombo = nullptr;
    QCheckBox* m_peaksBox = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_legend = nullptr;
    QLabel* m_implausibleLabel = nullptr;
    QCPGraph* m_flops = nullptr;
    QCPGraph* m_flopsPeak = nullptr;
    QCPGraph* m_hbm = nullptr;
    QCPGraph* m_hbmPeak = nullptr;
    QTimer* m_followTimer = nullptr;
    QTimer* m_recomputeTimer = nullptr;
    int m_generation = 0;
    bool m_computing = false; // a session request for the range shown is in flight
    QTimer* m_emitTimer = nullptr;
    int m_core = -1;
    bool m_settingRange = false;
    bool m_percent = true; // peaks known: both series in % of peak on one axis
    double m_computedBegin = 0, m_computedEnd = 0;
};

} // namespace tpuscope::widgets
