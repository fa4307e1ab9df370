// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"
#include "qt/optreemodel.h"
#include "report/report.h"

#include <QImage>

#include <QList>
#include <QSortFilterProxyModel>
#include <QStringList>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTimer;
class QTreeView;

namespace tpuscope::qt {
class SelectionState;
class TraceSession;
} // namespace tpuscope::qt

namespace tpuscope::widgets {

class TimelineLegend;

/// Filters the op tree: op rows match the filter text (name, category or program) and, when
/// asked, belong to the top share of the time or are low-utilization ops. Group rows only show
/// through their children (recursive filtering), so an empty group never stays on screen.
class OpFilterProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit OpFilterProxyModel(QObject* parent = nullptr);

    void setTopTimeOnly(bool enabled);
    bool topTimeOnly() const { return m_topTimeOnly; }
    /// Only the low-utilization ops (OpTreeModel::FlaggedRole), grouped or flat.
    void setLowUtilizationOnly(bool enabled);
    bool lowUtilizationOnly() const { return m_lowUtilOnly; }
    /// The filter box text: filters the rows here and the group totals in the source model.
    void setOpFilterText(const QString& text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    void updateSourceFilter();

    bool m_topTimeOnly = false;
    bool m_lowUtilOnly = false;
};

/// The op-breakdown table: a tree view over OpTreeModel with a debounced filter box, a
/// grouped/flat switch, a category/program/… grouping, "top 90 % of time" and "low utilization
/// only" toggles and utilization bars. Keeps the shared SelectionState in step with its current row.
class OpTableView : public QWidget
{
    Q_OBJECT
public:
    explicit OpTableView(QWidget* parent = nullptr);
    ~OpTableView() override;

    void setSelectionState(qt::SelectionState* selection);
    void setAnalysis(model::ProfileAnalysisPtr analysis);
    /// Follows the session's analysis.
    void setSession(qt::TraceSession* session);
    void setLowUtilizationThreshold(double fraction);
    void setGrouping(qt::OpTreeModel::Grouping grouping);
    /// Flat: one row per op, no group parents (the grouping choice is kept for Grouped).
    void setFlat(bool flat);
    bool isFlat() const { return m_model->isFlat(); }
    void setTopTimeOnly(bool enabled);
    /// Only the low-utilization ops of every kind (model::isLowUtilizationOp), in either mode.
    void setLowUtilizationOnly(bool enabled);
    bool lowUtilizationOnly() const { return m_proxy->lowUtilizationOnly(); }
    /// What the overview's count asks for: the low-utilization ops only, the top-of-time cut and
    /// the filter text cleared so that every one of them shows, the first one current.
    void showLowUtilizationOps();
    /// Op rows the filters let through (either mode).
    int shownOpCount() const;
    /// Applies a filter at once (the filter box waits 300 ms after the last key press).
    void setFilterText(const QString& text);

    /// Makes `op` the current row (expanding its group); false when it has no row.
    bool selectOp(model::OpId op);
    /// Selects the rows of several ops at once (e.g. an advice item's evidence).
    void selectOps(const QList<quint32>& ops);

    qt::OpTreeModel* model() const { return m_model; }
    OpFilterProxyModel* proxy() const { return m_proxy; }
    QTreeView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filter; }
    QComboBox* layoutCombo() const { return m_layoutMode; }
    QCheckBox* lowUtilizationBox() const { return m_lowOnly; }
    QLabel* countLabel() const { return m_count; }
    /// The utilization colour legend under the table (the bars' tint and the low-utilization row).
    TimelineLegend* legend() const { return m_legend; }

    /// The rows as shown (current grouping, sort, filter and visible columns, collapsed groups
    /// included) as a Markdown table, CSV or TSV, for pasting into a forum post or a spreadsheet.
    QString exportText(model::TableFormat format) const;
    /// The same rows as a table; `groupRows` receives the indices of the group rows.
    model::Table exportTable(std::vector<size_t>* groupRows = nullptr) const;
    /// The rows as shown, drawn under `header` lines (for "Export PNG").
    QImage renderImage(const QStringList& header = {}) const;
    /// Copies exportText(format) to the clipboard.
    void copyAs(model::TableFormat format) const;

    /// Rows the default layout keeps visible without scrolling (issue 25.2: at 1280×720 too).
    static constexpr int kPreferredVisibleRows = 8;
    /// The height that shows `rows` table rows whole: filter bar, header, rows and a horizontal
    /// scroll bar (the columns may be wider than the pane).
    int heightForRows(int rows) const;
    /// kPreferredVisibleRows rows high: what the window's default layout gives the table.
    QSize sizeHint() const override;

    /// Header layout, sort column, grouping and toggles; restoreState ignores unusable data.
    QByteArray saveState() const;
    bool restoreState(const QByteArray& state);

signals:
    void opSelected(tpuscope::model::OpId op);
    /// Double-click or Enter on an op row.
    void opActivated(tpuscope::model::OpId op);
    /// The context menu's Copy as / Export PNG (done by the window's share actions, which report
    /// in the status bar).
    void copyRequested(tpuscope::model::TableFormat format);
    void exportPngRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void updateLegend();
    void fitNameColumn();
    void onCurrentChanged(const QModelIndex& current);
    void onActivated(const QModelIndex& index);
    void applyFilter();
    void updateCountLabel();
    void resizeColumnsToData();
    model::OpId opAt(const QModelIndex& proxyIndex) const;

    qt::OpTreeModel* m_model = nullptr;
    OpFilterProxyModel* m_proxy = nullptr;
    QTreeView* m_view = nullptr;
    QLineEdit* m_filter = nullptr;
    QComboBox* m_layoutMode = nullptr; // Grouped / Flat
    QComboBox* m_grouping = nullptr;
    QCheckBox* m_topOnly = nullptr;
    QCheckBox* m_lowOnly = nullptr;
    QLabel* m_count = nullptr;
    TimelineLegend* m_legend = nullptr;
    QTimer* m_filterTimer = nullptr;
    qt::SelectionState* m_selection = nullptr;
    bool m_syncing = false;
    bool m_headerRestored = false;
};

} // namespace tpuscope::widgets
