// SPDX-License-Identifier: GPL-3.0-or-later
#include "diffmodel.h"

#include "qt/colors.h"
#include "qt/qstrings.h"

#include "report/glossary.h"
#include "report/report.h"

#include <QBrush>
#include <QGuiApplication>
#include <QPalette>

namespace tpuscope::qt {

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

namespace {

double relativeChange(const model::DiffRow& row)
{
    return row.status == model::DiffStatus::Both && row.a.timePs > 0 ? row.timeDeltaPs() / row.a.timePs : 0.0;
}

QString matchedByText(const model::DiffRow& row)
{
    const char* how = model::matchedByName(row.matchedBy);
    return how ? QString::fromLatin1(how) : QString();
}

} // namespace

QVariant DiffModel::sortValue(int r, const model::DiffRow& row, int column) const
{
    switch (column) {
    case NameColumn:
        return m_names[r];
    case BeforeNameColumn:
        return qs(row.a.name);
    case MatchedByColumn:
        return static_cast<int>(row.matchedBy);
    case CategoryColumn:
        return m_categories[r];
    case StatusColumn:
        return static_cast<int>(row.status);
    case TimeAColumn:
        return row.a.timePs;
    case TimeBColumn:
        return row.b.timePs;
    case TimeDeltaColumn:
        return row.timeDeltaPs();
    case TimeDeltaPercentColumn:
        return relativeChange(row);
    case FlopsAColumn:
        return row.a.flopsUtilization.value_or(-1.0); // unknown sorts last
    case FlopsBColumn:
        return row.b.flopsUtilization.value_or(-1.0);
    case WhyColumn:
        return qs(row.explanation());
    }
    return {};
}

QVariant DiffModel::displayValue(int r, const model::DiffRow& row, int column) const
{
    const bool hasA = row.status != model::DiffStatus::New, hasB = row.status != model::DiffStatus::Removed;
    const auto duration = [](double ps) { return qs(model::formatDurationPs(ps)); };
    switch (column) {
    case NameColumn:
        return m_names[r];
    case BeforeNameColumn:
        return hasA && hasB && row.a.name != row.name ? qs(row.a.name) : QString();
    case MatchedByColumn:
        return matchedByText(row);
    case CategoryColumn:
        return m_categories[r];
    case StatusColumn:
        if (row.status == model::DiffStatus::New)
            return tr("new");
        if (row.status == model::DiffStatus::Removed)
            return tr("removed");
        return row.withinNoise() ? tr("within noise") : QString();
    case TimeAColumn:
        return hasA ? duration(row.a.timePs) : QString();
    case TimeBColumn:
        return hasB ? duration(row.b.timePs) : QString();
    case TimeDeltaColumn:
        return qs(model::formatSignedDurationPs(row.timeDeltaPs()));
    case TimeDeltaPercentColumn:
        return hasA && hasB && row.a.timePs > 0 ? qs(model::formatSignedPercent(relativeChange(row))) : QString();
    case FlopsAColumn:
        return hasA ? qs(model::formatOptionalPercent(row.a.flopsUtilization)) : QString();
    case FlopsBColumn:
        return hasB ? qs(model::formatOptionalPercent(row.b.flopsUtilization)) : QString();
    case WhyColumn:
        return qs(row.explanation());
    }
    return {};
}

QVariant DiffModel::toolTip(const model::DiffRow& row, int column) const
{
    if (column == WhyColumn || column == NameColumn || column == BeforeNameColumn) {
        QStringList lines;
        if (row.status == model::DiffStatus::Both && row.a.name != row.name)
            lines << tr("%1 before, %2 after (matched by %3)").arg(qs(row.a.name), qs(row.name), matchedByText(row));
        for (const model::DiffReason& reason : row.reasons)
            lines << qs(reason.text);
        return lines.isEmpty() ? QVariant() : QVariant(lines.join(QLatin1Char('\n')));
    }
    if ((column == TimeDeltaColumn || column == TimeDeltaPercentColumn || column == StatusColumn)
        && row.status == model::DiffStatus::Both)
        return row.test.tested ? tr("Time per step, before against after: %1").arg(qs(row.test.describe()))
                               : tr("Not tested: no per-step op times (a change below %1 counts as noise)")
                                     .arg(qs(model::formatPercent(model::kUntestedNoiseFraction, 0)));
    return {};
}

QVariant DiffModel::data(const QModelIndex& index, int role) const
{
    if (!m_diff || !index.isValid() || index.row() >= rowCount())
        return {};
    const model::DiffRow& row = m_diff->rows[static_cast<size_t>(index.row())];
    switch (role) {
    case SortRole:
        return sortValue(index.row(), row, index.column());
    case Qt::DisplayRole:
        return displayValue(index.row(), row, index.column());
    case Qt::ToolTipRole:
        return toolTip(row, index.column());
    case Qt::TextAlignmentRole:
        return index.column() >= TimeAColumn && index.column() <= FlopsBColumn
            ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
            : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        // Faster is green, slower is red; a change within the noise keeps the palette colour.
        if ((index.column() == TimeDeltaColumn || index.column() == TimeDeltaPercentColumn) && !row.withinNoise()
            && row.timeDeltaPs() != 0)
            return QBrush(row.timeDeltaPs() < 0 ? colors::fasterColor() : colors::slowerColor());
        if (row.status == model::DiffStatus::Removed || (index.column() == StatusColumn && row.withinNoise()))
            return QBrush(colors::mutedTextColor(QGuiApplication::palette()));
        return {};
    }
    return {};
}

QVariant DiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    const bool perStep = m_diff && m_diff->perStep;
    if (role == Qt::ToolTipRole) {
        if (section == MatchedByColumn)
            return qs(model::glossaryTooltip("matched-by"));
        if (section >= TimeAColumn && section <= TimeDeltaPercentColumn)
            return perStep ? tr("Time per step and TPU core") : tr("Time per TPU core over the profile");
        return {};
    }
    switch (section) {
    case NameColumn:
        return tr("Op");
    case BeforeNameColumn:
        return tr("Before name");
    case MatchedByColumn:
        return tr("Matched by");
    case CategoryColumn:
        return tr("Category");
    case StatusColumn:
        return tr("Status");
    case TimeAColumn:
        return perStep ? tr("Before /step/core") : tr("Before /core");
    case TimeBColumn:
        return perStep ? tr("After /step/core") : tr("After /core");
    case TimeDeltaColumn:
        return tr("Δ time");
    case TimeDeltaPercentColumn:
        return tr("Δ %");
    case FlopsAColumn:
        return tr("FLOPS before");
    case FlopsBColumn:
        return tr("FLOPS after");
    case WhyColumn:
        return tr("Why");
    }
    return {};
}

} // namespace tpuscope::qt
