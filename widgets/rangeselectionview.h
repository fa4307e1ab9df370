// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"
#include "qt/rangeselectionmodel.h"

#include <QPointer>
#include <QWidget>

#include <memory>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace tpuscope::widgets {

class TimelineView;

/// The "Selection" table: every op that ran in the timeline's selected range (Shift+drag), with
/// its time in the range, its share of the range and its utilizations, sortable by any column.
/// It follows the timeline it is given: a new range fills it with the statistics the timeline got
/// from the session's range job (rangeSummaryReady), Esc or a new profile empties it.
class RangeSelectionView : public QWidget
{
    Q_OBJECT
public:
    explicit RangeSelectionView(TimelineView* timeline, QWidget* parent = nullptr);

    /// The line above the table ("Selection 1.2 ms · 35 ops · busy 80.0% of 2 cores × range").
    QString summaryText() const;
    qt::RangeSelectionModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }

signals:
    /// A row was activated (double-click, Enter): its representative op.
    void opActivated(tpuscope::model::OpId op);

private:
    void showRange(model::TimePs begin, model::TimePs end);
    void showSummary(std::shared_ptr<const model::RangeSummary> summary);
    void raiseDock();

    QPointer<TimelineView> m_timeline;
    qt::RangeSelectionModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLabel* m_summary;
};

} // namespace tpuscope::widgets
