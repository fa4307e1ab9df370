// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/opbreakdown.h"
#include "core/profile.h"

#include <QPointF>
#include <QSize>
#include <QWidget>

#include <memory>

class QCustomPlot;
class QCPGraph;
class QLabel;

namespace tpuscope::model {
struct ProfileAnalysis;
struct Roofline;
} // namespace tpuscope::model

namespace tpuscope::qt {
class SelectionState;
class TraceSession;
} // namespace tpuscope::qt

namespace tpuscope::widgets {

/// Roofline plot (FORMATS.md §7): one point per op at (FLOP per HBM byte, achieved TFLOP/s per core)
/// on log-log axes under min(intensity × peak HBM bandwidth, peak FLOP/s), coloured by category.
/// Hover shows the op, click selects it.
class RooflineChart : public QWidget
{
    Q_OBJECT
public:
    explicit RooflineChart(QWidget* parent = nullptr);
    ~RooflineChart() override;

    /// Plots the ops of a profile's analysis (its op breakdown, computed with the load); null clears.
    void setAnalysis(std::shared_ptr<const tpuscope::model::ProfileAnalysis> analysis);
    /// Follows the session's analysis.
    void setSession(tpuscope::qt::TraceSession* session);
    /// Marks the selected op; a clicked point selects its op.
    void setSelectionState(tpuscope::qt::SelectionState* selection);
    void setSelectedOp(tpuscope::model::OpId op);

    // Hit testing (also used by tests instead of pixel-exact mouse events).
    /// The op whose point is nearest to `pos` (plot widget pixels) within a few pixels, or kNone.
    tpuscope::model::OpId opAt(const QPointF& pos) const;
    /// Pixel position of an op's point in the plot widget; false when the op is not plotted.
    bool pointPosition(tpuscope::model::OpId op, QPointF* pos) const;
    tpuscope::model::OpId selectedOp() const { return m_selected; }
    QCustomPlot* plot() const { return m_plot; }
    /// The plot's minimum size; the Charts dock opens at least this tall.
    static const QSize kMinimumPlotSize;
    const tpuscope::model::Roofline& roofline() const { return *m_roofline; }

signals:
    void opSelected(tpuscope::model::OpId op);

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    void applyPalette();
    void updateSelection();
    void showTooltip(const QPoint& pos);

    tpuscope::model::ProfilePtr m_profile;
    std::shared_ptr<const tpuscope::model::ProfileAnalysis> m_analysis;
    std::shared_ptr<const tpuscope::model::Roofline> m_roofline; // never null
    QCustomPlot* m_plot = nullptr;
    QLabel* m_status = nullptr;
    QCPGraph* m_rooflineGraph = nullptr;
    QCPGraph* m_selectionGraph = nullptr;
    tpuscope::model::OpId m_selected = tpuscope::model::kNone;
};

} // namespace tpuscope::widgets
