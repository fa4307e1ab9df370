// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/opbreakdown.h"
#include "analysis/steps.h"
#include "core/profile.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QCustomPlot;
class QCPBars;
class QLabel;
class QTableWidget;
class QVBoxLayout;

namespace tpuscope::model {
struct AdviceReport;
struct OpBreakdown;
struct ProfileAnalysis;
} // namespace tpuscope::model

namespace tpuscope::qt {
class TraceSession;
}

namespace tpuscope::widgets {

/// The first page after a load: what the device is and how long a step takes (the headline), the
/// top three pieces of advice, a stacked bar per step (compute / collectives / host transfer /
/// infeed / idle, with warm-up and tail marked) and the programs on the XLA Modules line.
/// It follows the session: each loaded profile replaces what it shows.
class OverviewView : public QWidget
{
    Q_OBJECT
public:
    explicit OverviewView(tpuscope::qt::TraceSession* session, QWidget* parent = nullptr);
    ~OverviewView() override;

    /// Shows a profile with its analysis (what the session hands over after a load); null clears.
    void setAnalysis(std::shared_ptr<const tpuscope::model::ProfileAnalysis> analysis);

    /// The cost-coverage sentence of the headline (how much op time has FLOPs/bytes recorded);
    /// issue 12's cost-coverage figure goes here. Hidden while empty.
    void setCostCoverageText(const QString& text);

    /// The "Low utilization below" setting the count uses (as the op table's flag does).
    void setLowUtilizationThreshold(double fraction);
    /// How many low-utilization ops the link counts (model::countLowUtilizationOps); empty when
    /// unknown (no peaks or no cost data), and the line is hidden.
    std::optional<int> lowUtilizationOpCount() const;
    /// The line with the count ("3 low-utilization ops"), a link while the count is above zero.
    QLabel* lowUtilizationLabel() const { return m_lowUtil; }
    /// Activates the count's link as a click does (emits lowUtilizationOpsRequested).
    void activateLowUtilizationLink();

    /// One core (ordinal of Profile::tpuCorePlanes()) or -1 for the average over all cores.
    void setCore(int core);
    /// Steps of another program (its runs on the XLA Modules line); empty = the default step.
    void setProgram(const QString& program);

    // For tests and the screenshot tool.
    const tpuscope::model::StepAnalysis* steps() const { return m_shown.get(); }
    QString headlineText() const;
    int adviceItemCount() const { return m_adviceShown; }
    /// The text of shown advice item `index` (its title and the lines under it, as rich text).
    QString adviceItemText(int index) const;
    QCustomPlot* plot() const { return m_plot; }
    QTableWidget* programTable() const { return m_programs; }
    /// Selects step `index` as a click on its bar does (emits stepSelected).
    void selectStep(int index);
    /// Activates advice item `index` of the ones shown as a click does (emits adviceActivated with
    /// its index in AdviceReport::advice).
    void activateAdvice(int index);

signals:
    /// A step was selected: the timeline should show [begin, end).
    void stepSelected(tpuscope::model::TimePs begin, tpuscope::model::TimePs end);
    /// An advice item was clicked: `index` into AdviceReport::advice.
    void adviceActivated(int index);
    /// The low-utilization count was clicked: list those ops (the op table, "Low utilization only").
    void lowUtilizationOpsRequested();

protected:
    void changeEvent(QEvent* event) override;

private:
    void showHeadline();
    void showLowUtilization();
    void showAdvice();
    void showSteps();
    void showPrograms();
    void recomputeSteps();
    void applyPalette();

    tpuscope::qt::TraceSession* m_session = nullptr;
    std::shared_ptr<const tpuscope::model::ProfileAnalysis>
        m_analysis; // what the view shows; its helpers answer the pickers
    tpuscope::model::ProfilePtr m_profile;
    std::shared_ptr<const tpuscope::model::OpBreakdown> m_breakdown;
    std::shared_ptr<const tpuscope::model::StepAnalysis> m_defaultSteps; // all cores, default step
    std::shared_ptr<const tpuscope::model::StepAnalysis> m_shown; // what the chart shows now
    std::shared_ptr<const tpuscope::model::AdviceReport> m_advice;
    int m_core = -1;
    QString m_program;
    int m_adviceShown = 0;
    std::vector<int> m_adviceIndices; // of each item shown, its index in AdviceReport::advice

    QLabel* m_headline = nullptr;
    QLabel* m_costCoverage = nullptr;
    QLabel* m_lowUtil = nullptr;
    double m_lowUtilThreshold = tpuscope::model::kDefaultLowUtilizationThreshold;
    QLabel* m_adviceTitle = nullptr;
    QVBoxLayout* m_adviceList = nullptr;
    QLabel* m_stepStatus = nullptr;
    QLabel* m_legend = nullptr;
    QComboBox* m_coreCombo = nullptr;
    QCustomPlot* m_plot = nullptr;
    std::vector<QCPBars*> m_bars; // compute, collectives, host transfer, infeed, idle (bottom to top)
    QTableWidget* m_programs = nullptr;
};

} // namespace tpuscope::widgets
