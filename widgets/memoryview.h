// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/memory.h"
#include "analysis/profileanalysis.h"
#include "core/profile.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QCustomPlot;
class QLabel;
class QTableWidget;
class QTextBrowser;

namespace tpuscope::qt {
class SelectionState;
class TraceSession;
} // namespace tpuscope::qt

namespace tpuscope::widgets {

/// The HBM memory view: per module (chooser), the heap over the heap simulator's program order,
/// padded and unpadded, with the peak marked; the buffers alive at the peak in a sortable table
/// (size, padding, kind); the totals. Selecting a buffer shows its instruction and its padding per
/// dimension below the table, and selects the op when the instruction is a profiled op (so the
/// details panel follows).
class MemoryView : public QWidget
{
    Q_OBJECT
public:
    explicit MemoryView(QWidget* parent = nullptr);
    ~MemoryView() override;

    /// Follows the session's analyses (the view subscribes itself).
    void setSession(tpuscope::qt::TraceSession* session);
    /// Shows the memory view of `analysis` (null: nothing).
    void setAnalysis(const tpuscope::model::ProfileAnalysisPtr& analysis);
    void setSelectionState(tpuscope::qt::SelectionState* selection) { m_selection = selection; }
    /// Shows one module by name; false when it has no buffer assignment.
    bool showModule(const QString& name);

    // For tests and screenshots.
    const tpuscope::model::MemoryReport& report() const { return *m_report; }
    const tpuscope::model::ModuleMemory* currentModule() const;
    QCustomPlot* plot() const { return m_plot; }
    QTableWidget* table() const { return m_table; }
    QComboBox* moduleCombo() const { return m_moduleCombo; }
    QTextBrowser* detailsBrowser() const { return m_details; }
    QLabel* status() const { return m_status; }

signals:
    /// A buffer whose defining instruction is a profiled op was selected.
    void opSelected(tpuscope::model::OpId op);

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    void showCurrentModule();
    void fillChart(const tpuscope::model::ModuleMemory& memory);
    void fillTable(const tpuscope::model::ModuleMemory& memory);
    void showBuffer(int row);
    void showTotals(const tpuscope::model::ModuleMemory& memory);
    tpuscope::model::OpId opFor(const tpuscope::model::BufferAtPeak& buffer) const;

    tpuscope::qt::TraceSession* m_session = nullptr;
    tpuscope::qt::SelectionState* m_selection = nullptr;
    tpuscope::model::ProfilePtr m_profile;
    std::shared_ptr<const tpuscope::model::MemoryReport> m_report; // never null
    QLabel* m_status = nullptr;
    QComboBox* m_moduleCombo = nullptr;
    QCustomPlot* m_plot = nullptr;
    QTableWidget* m_table = nullptr;
    QTextBrowser* m_details = nullptr;
    QString m_totalsHtml;
};

} // namespace tpuscope::widgets
