// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/diff.h"

#include <QAbstractTableModel>
#include <QVector>

namespace tpuscope::qt {

/// Rows of a before/after comparison (model::ProfileDiff), one per op, sortable by numbers. Times
/// are per step and TPU core (per core without steps), as the diff gives them; a change within the
/// noise (DiffRow::withinNoise) has no colour.
class DiffModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        BeforeNameColumn,
        MatchedByColumn,
        CategoryColumn,
        StatusColumn,
        TimeAColumn,
        TimeBColumn,
        TimeDeltaColumn,
        TimeDeltaPercentColumn,
        FlopsAColumn,
        FlopsBColumn,
        WhyColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit DiffModel(QObject* parent = nullptr);

    void setDiff(std::shared_ptr<const model::ProfileDiff> diff);
    std::shared_ptr<const model::ProfileDiff> diff() const { return m_diff; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant sortValue(int r, const model::DiffRow& row, int column) const;
    QVariant displayValue(int r, const model::DiffRow& row, int column) const;
    QVariant toolTip(const model::DiffRow& row, int column) const;

    std::shared_ptr<const model::ProfileDiff> m_diff;
    QVector<QString> m_names; // converted once
    QVector<QString> m_categories;
};

} // namespace tpuscope::qt
