// SPDX-License-Identifier: GPL-3.0-or-later
#include "diffmodel.h"

#include "qt/colors.h"
#include "qt/qstrings.h"

#include "report/report.h"

#include <QBrush>
#include <QColor>

namespace tpuscope::qt {

namespace {
} // namespace

DiffModel::DiffModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void DiffModel::setDiff(std::shared_ptr<const model::ProfileDiff> diff)
{
    beginResetModel();
    m_diff = std::move(diff);
    m_names.clear();
    m_categories.clear();
    if (m_diff) {
        m_names.reserve(static_cast<int>(m_diff->rows.size()));
        for (const auto& row : m_diff->rows) {
            m_names.push_back(qs(row.name));
            m_categories.push_back(qs(row.category));
        }
    }
    endResetModel();
}

int DiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_diff ? 0 : static_cast<int>(m_diff->rows.size());
}

int DiffModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiffModel::data(const QModelIndex& index, int role) const
{
    if (!m_diff || !index.isValid() || index.row() >= rowCount())
        return {};
    const model::DiffRow& row = m_diff->rows[static_cast<size_t>(index.row())];
    const bool both = row.status == model::DiffStatus::Both;
    const double delta = row.timeDeltaPs();
    const double relative = row.a.timePs > 0 ? delta / row.a.timePs : 0;
    if (role == SortRole) {
        switch (index.column()) {
        case NameColumn: return m_names[index.row()];
        case CategoryColumn: return m_categories[index.row()];
        case StatusColumn: return static_cast<int>(row.status);
        case TimeAColumn: return row.a.timePs;
        case TimeBColumn: return row.b.timePs;
        case TimeDeltaColumn: return delta;
        case TimeDeltaPercentColumn: return both ? relative : 0.0;
        case ShareDeltaColumn: return row.fractionDelta();
        case FlopsAColumn: return row.a.flopsUtilization.value_or(-1.0); // unknown sorts last
        case FlopsBColumn: return row.b.flopsUtilization.value_or(-1.0);
        case OccurrencesAColumn: return static_cast<qlonglong>(row.a.occurrences);
        case OccurrencesBColumn: return static_cast<qlonglong>(row.b.occurrences);
        }
        return {};
    }
    if (role == Qt::DisplayRole) {
        auto duration = [](double ps) { return qs(model::formatDurationPs(ps)); };
        auto signedDuration = [&](double ps) { return (ps > 0 ? QStringLiteral("+") : QString()) + duration(ps); };
        switch (index.column()) {
        case NameColumn: return m_names[index.row()];
        case CategoryColumn: return m_categories[index.row()];
        case StatusColumn:
            if (row.status == model::DiffStatus::New)
                return tr("new");
            if (row.status == model::DiffStatus::Removed)
                return tr("removed");
            return row.matchedByNameOnly ? tr("matched by name") : QString();
        case TimeAColumn: return row.status == model::DiffStatus::New ? QString() : duration(row.a.timePs);
        case TimeBColumn: return row.status == model::DiffStatus::Removed ? QString() : duration(row.b.timePs);
        case TimeDeltaColumn: return signedDuration(delta);
        case TimeDeltaPercentColumn:
            return both && row.a.timePs > 0 ? QString::asprintf("%+.1f%%", relative * 100) : QString();
        case ShareDeltaColumn: return QString::asprintf("%+.2f pt", row.fractionDelta() * 100);
        case FlopsAColumn:
            return row.status == model::DiffStatus::New ? QString() : qs(model::formatOptionalPercent(row.a.flopsUtilization));
        case FlopsBColumn:
            return row.status == model::DiffStatus::Removed ? QString()
                                                            : qs(model::formatOptionalPercent(row.b.flopsUtilization));
        case OccurrencesAColumn: return row.status == model::DiffStatus::New ? QVariant() : QVariant(qlonglong(row.a.occurrences));
        case OccurrencesBColumn: return row.status == model::DiffStatus::Removed ? QVariant() : QVariant(qlonglong(row.b.occurrences));
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() <= StatusColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                              : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && (index.column() == TimeDeltaColumn || index.column() == TimeDeltaPercentColumn)) {
        // Faster is green, slower is red; a time that did not move keeps the palette colour.
        if (delta < 0)
            return QBrush(colors::fasterColor());
        if (delta > 0)
            return QBrush(colors::slowerColor());
    }
    if (role == Qt::ForegroundRole && row.status == model::DiffStatus::Removed)
        return QBrush(QColor(0x80, 0x80, 0x80));
    return {};
}

QVariant DiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    const bool perStep = m_diff && m_diff->perStep;
    switch (section) {
    case NameColumn: return tr("Op");
    case CategoryColumn: return tr("Category");
    case StatusColumn: return tr("Status");
    case TimeAColumn: return perStep ? tr("Before /step") : tr("Before");
    case TimeBColumn: return perStep ? tr("After /step") : tr("After");
    case TimeDeltaColumn: return tr("Δ time");
    case TimeDeltaPercentColumn: return tr("Δ %");
    case ShareDeltaColumn: return tr("Δ share");
    case FlopsAColumn: return tr("FLOPS before");
    case FlopsBColumn: return tr("FLOPS after");
    case OccurrencesAColumn: return tr("Occ. before");
    case OccurrencesBColumn: return tr("Occ. after");
    }
    return {};
}

} // namespace tpuscope::qt
