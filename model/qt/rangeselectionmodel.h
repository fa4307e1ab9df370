// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/rangesummary.h"

#include <QAbstractTableModel>
#include <QVector>

#include <memory>

namespace tpuscope::qt {

/// The ops of a selected time range (model::summarizeRange), one row per op, sortable by the
/// numbers behind the text (SortRole). Unknown utilizations read "–" and sort below every known one.
class RangeSelectionModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        CategoryColumn,
        TimeColumn,
        ShareColumn,
        OccurrencesColumn,
        FlopsUtilizationColumn,
        HbmUtilizationColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1, OpRole };

    explicit RangeSelectionModel(QObject* parent = nullptr);

    /// Shows `summary` (shared with whoever computed it: the timeline's range job); null clears.
    void setSummary(std::shared_ptr<const model::RangeSummary> summary);
    void setSummary(model::RangeSummary summary);
    void clear();
    const model::RangeSummary& summary() const;
    /// The object shown (the same one the timeline got), null when empty.
    std::shared_ptr<const model::RangeSummary> sharedSummary() const { return m_summary; }
    bool isEmpty() const { return summary().end <= summary().begin; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const model::RangeSummary> m_summary;
    QVector<QString> m_names; // converted once
    QVector<QString> m_categories;
};

} // namespace tpuscope::qt
