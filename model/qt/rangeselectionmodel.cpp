// SPDX-License-Identifier: GPL-3.0-or-later
#include "rangeselectionmodel.h"
#include "qstrings.h"

#include "report/report.h"

namespace tpuscope::qt {

namespace {

using tpuscope::qt::qs;

} // namespace

RangeSelectionModel::RangeSelectionModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void RangeSelectionModel::setSummary(std::shared_ptr<const model::RangeSummary> summary)
{
    beginResetModel();
    m_summary = std::move(summary);
    m_names.clear();
    m_categories.clear();
    const model::RangeSummary& shown = this->summary();
    m_names.reserve(qsizetype(shown.rows.size()));
    m_categories.reserve(qsizetype(shown.rows.size()));
    for (const model::RangeOpRow& row : shown.rows) {
        m_names << qs(row.name);
        m_categories << qs(row.category);
    }
    endResetModel();
}

void RangeSelectionModel::setSummary(model::RangeSummary summary)
{
    setSummary(std::make_shared<const model::RangeSummary>(std::move(summary)));
}

void RangeSelectionModel::clear()
{
    setSummary(std::shared_ptr<const model::RangeSummary>());
}

const model::RangeSummary& RangeSelectionModel::summary() const
{
    static const model::RangeSummary empty;
    return m_summary ? *m_summary : empty;
}

int RangeSelectionModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(summary().rows.size());
}

int RangeSelectionModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RangeSelectionModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const model::RangeOpRow& row = m_summary->rows[size_t(index.row())];
    const int column = index.column();
    if (role == OpRole)
        return QVariant::fromValue(quint32(row.op));
    if (role == Qt::TextAlignmentRole)
        return column >= TimeColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role == SortRole) {
        switch (column) {
        case NameColumn:
            return m_names[index.row()];
        case CategoryColumn:
            return m_categories[index.row()];
        case TimeColumn:
            return row.timeInRangePs;
        case ShareColumn:
            return row.rangeShare;
        case OccurrencesColumn:
            return qlonglong(row.occurrences);
        case FlopsUtilizationColumn:
            return row.flopsUtilization.value_or(-1.0); // unknown sorts below 0 %
        case HbmUtilizationColumn:
            return row.hbmUtilization.value_or(-1.0);
        default:
            return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (column) {
        case NameColumn:
            return m_names[index.row()];
        case CategoryColumn:
            return m_categories[index.row()];
        case TimeColumn:
            return qs(model::formatDurationPs(row.timeInRangePs));
        case ShareColumn:
            return qs(model::formatPercent(row.rangeShare));
        case OccurrencesColumn:
            return QString::number(row.occurrences);
        case FlopsUtilizationColumn:
            return qs(model::formatOptionalPercent(row.flopsUtilization));
        case HbmUtilizationColumn:
            return qs(model::formatOptionalPercent(row.hbmUtilization));
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && column == NameColumn && !row.program.empty())
        return tr("%1\nprogram: %2").arg(m_names[index.row()], qs(row.program));
    return {};
}

QVariant RangeSelectionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn:
            return tr("Op");
        case CategoryColumn:
            return tr("Category");
        case TimeColumn:
            return tr("Time in range");
        case ShareColumn:
            return tr("Share of range");
        case OccurrencesColumn:
            return tr("Occurrences");
        case FlopsUtilizationColumn:
            return tr("FLOPS util");
        case HbmUtilizationColumn:
            return tr("HBM util");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case TimeColumn:
            return tr("Self time of the op inside the range: each occurrence clipped to the range, less the ops "
                      "nested in it");
        case ShareColumn:
            return tr("Time in range over the range length × the TPU cores counted");
        case OccurrencesColumn:
            return tr("Occurrences overlapping the range");
        case FlopsUtilizationColumn:
            return tr("FLOPS utilization of the overlapping occurrences (– when unknown: no cost data or no "
                      "device peak)");
        case HbmUtilizationColumn:
            return tr("HBM bandwidth utilization of the overlapping occurrences (– when unknown)");
        }
    }
    return {};
}

} // namespace tpuscope::qt
