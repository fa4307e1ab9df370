// SPDX-License-Identifier: GPL-3.0-or-later
#include "optreemodel.h"
#include "qt/colors.h"
#include "qt/qstrings.h"

#include "analysis/opgroups.h"
#include "report/glossary.h"

#include "report/report.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <unordered_map>

namespace tpuscope::qt {

namespace {

QString percent(double fraction)
{
    return qs(model::formatPercent(fraction));
}

// Mirrors computeOpBreakdown's row key so that every OpId (not only the representative one of a
// row) finds its row.
std::string rowKey(const std::string& program, const std::string& name)
{
    std::string key = program;
    key += '\x1f';
    key += name;
    return key;
}

std::string programNameOf(const model::Profile& profile, const model::OpInfo& op)
{
    if (op.program != model::kNone)
        return profile.programs[op.program].name;
    if (op.hasProgramId)
        return "program " + std::to_string(op.programId);
    return {};
}

/// The metrics an op row and a group row share. A template so that it can fill the model's
/// private Item type without naming it.
template <typename ItemType> void copyRowMetrics(ItemType& item, const model::OpRow& row)
{
    item.row = row;
    item.averagePs = row.occurrences > 0 ? row.totalTimePs / static_cast<double>(row.occurrences) : 0;
}

/// A sortable, bar-drawable value for an optional rate: unknown sorts below every known value.
QVariant optionalValue(const std::optional<double>& v)
{
    return v ? QVariant(*v) : QVariant(-1.0);
}

} // namespace

OpTreeModel::OpTreeModel(QObject* parent)
    : QAbstractItemModel(parent)
{
}

OpTreeModel::~OpTreeModel() = default;

void OpTreeModel::setAnalysis(model::ProfileAnalysisPtr analysis)
{
    beginResetModel();
    m_profile = analysis ? analysis->profile : nullptr;
    m_breakdown = analysis ? std::shared_ptr<const model::OpBreakdown>(analysis, &analysis->breakdown) : nullptr;
    m_categoryClass = m_breakdown ? model::categoryClasses(*m_breakdown) : decltype(m_categoryClass) {};
    m_categoryColors = m_breakdown ? colors::categoryColors(*m_breakdown) : decltype(m_categoryColors) {};
    m_ops.clear();
    m_opRow.clear();
    if (m_profile) {
        const model::OpBreakdown& breakdown = *m_breakdown;
        m_ops.reserve(breakdown.rows.size());
        std::unordered_map<std::string, int> byKey;
        double totalFraction = 0;
        for (const model::OpRow& row : breakdown.rows)
            totalFraction += row.timeFraction;
        double covered = 0;
        for (const model::OpRow& row : breakdown.rows) {
            Item item;
            item.op = row.op;
            item.name = qs(row.name);
            item.program = qs(row.program);
            item.category = qs(row.category);
            item.frameworkOp = qs(row.frameworkOp);
            item.source = qs(row.source);
            copyRowMetrics(item, row);
            // Rows arrive sorted by time, so a running sum finds the top share.
            item.inTopTime = covered < kTopTimeFraction * totalFraction;
            covered += row.timeFraction;
            item.filterText = item.name + QLatin1Char('\n') + item.category + QLatin1Char('\n') + item.program
                + QLatin1Char('\n') + item.frameworkOp + QLatin1Char('\n') + item.source;
            formatItem(item);
            byKey.emplace(rowKey(row.program, row.name), static_cast<int>(m_ops.size()));
            m_ops.push_back(std::move(item));
        }
        m_opRow.assign(m_profile->ops.size(), -1);
        for (model::OpId id = 0; id < m_profile->ops.size(); ++id) {
            const model::OpInfo& op = m_profile->ops[id];
            auto it = byKey.find(rowKey(programNameOf(*m_profile, op), m_profile->str(op.name)));
            if (it != byKey.end())
                m_opRow[id] = it->second;
        }
    }
    rebuildGroups();
    for (Item& item : m_ops)
        item.flagged = shouldFlag(item);
    endResetModel();
}

void OpTreeModel::clear()
{
    setAnalysis(nullptr);
}

void OpTreeModel::setGrouping(Grouping grouping)
{
    if (grouping == m_grouping)
        return;
    beginResetModel();
    m_grouping = grouping;
    rebuildGroups();
    endResetModel();
}

void OpTreeModel::setFlat(bool flat)
{
    if (flat == m_flat)
        return;
    beginResetModel();
    m_flat = flat;
    endResetModel();
}

void OpTreeModel::setLowUtilizationThreshold(double fraction)
{
    fraction = std::clamp(fraction, 0.0, 1.0);
    if (fraction == m_threshold)
        return;
    m_threshold = fraction;
    updateFlags();
}

void OpTreeModel::rebuildGroups()
{
    m_groups.clear();
    m_rowInGroup.assign(m_ops.size(), 0);
    if (!m_profile)
        return;
    std::unordered_map<QString, int> byName;
    for (int i = 0; i < static_cast<int>(m_ops.size()); ++i) {
        Item& op = m_ops[i];
        QString name;
        switch (m_grouping) {
        case Grouping::Category:
            name = op.category.isEmpty() ? tr("(no category)") : op.category;
            break;
        case Grouping::Program:
            name = op.program.isEmpty() ? tr("(no program)") : op.program;
            break;
        case Grouping::FrameworkOp:
            name = op.frameworkOp.isEmpty() ? tr("(no framework op recorded)") : op.frameworkOp;
            break;
        case Grouping::Source:
            name = op.source.isEmpty() ? tr("(no source line recorded)") : op.source;
            break;
        case Grouping::LayerGroup: // named below, once the group's members are known
            name = op.program + QChar(0x1f) + QString::number(op.row.groupKey);
            break;
        }
        auto [it, inserted] = byName.emplace(name, static_cast<int>(m_groups.size()));
        if (inserted) {
            Group group;
            group.item.name = name;
            if (m_grouping == Grouping::Category)
                group.item.category = op.category;
            else if (m_grouping == Grouping::Program)
                group.item.program = op.program;
            else if (m_grouping == Grouping::FrameworkOp)
                group.item.frameworkOp = op.frameworkOp;
            else
                group.item.source = op.source;
            group.item.filterText = name;
            m_groups.push_back(std::move(group));
        }
        op.group = it->second;
        Group& group = m_groups[it->second];
        m_rowInGroup[i] = static_cast<int>(group.children.size());
        group.children.push_back(i);
    }

    if (m_grouping == Grouping::LayerGroup)
        nameLayerGroups();
    updateMatches();
    updateGroupTotals();
}

void OpTreeModel::nameLayerGroups()
{
    // "convolution_bitcast_fusion.* (20 ops)" after its largest op's name; one op keeps its name.
    for (Group& group : m_groups) {
        const auto top = std::max_element(group.children.begin(), group.children.end(),
            [this](int a, int b) { return m_ops[a].row.totalTimePs < m_ops[b].row.totalTimePs; });
        const Item& op = m_ops[*top];
        group.item.name = group.children.size() > 1
            ? qs(model::opNameStem(op.name.toStdString())) + tr(" (%1 ops)").arg(group.children.size())
            : op.name;
        group.item.program = op.program;
        group.item.filterText = group.item.name;
    }
}

void OpTreeModel::updateMatches()
{
    for (Item& op : m_ops)
        op.matches = (!m_topTimeOnly || op.inTopTime) && (!m_lowUtilOnly || op.flagged)
            && (m_filterText.isEmpty() || op.filterText.contains(m_filterText, Qt::CaseInsensitive));
}

void OpTreeModel::updateGroupTotals()
{
    // Group totals come from the op rows that pass the filter, combined by the core as its
    // category rows are (time shares stay shares of the whole op time).
    for (Group& group : m_groups) {
        std::vector<const model::OpRow*> members;
        members.reserve(group.children.size());
        for (int child : group.children)
            if (m_ops[child].matches)
                members.push_back(&m_ops[child].row);
        Item& item = group.item;
        item.matches = !members.empty();
        copyRowMetrics(item, model::combineOpRows(members, m_breakdown->totalTimePs, m_breakdown->device));
        formatItem(item);
    }
}

void OpTreeModel::setFilter(const QString& text, bool topTimeOnly, bool lowUtilizationOnly)
{
    if (text == m_filterText && topTimeOnly == m_topTimeOnly && lowUtilizationOnly == m_lowUtilOnly)
        return;
    m_filterText = text;
    m_topTimeOnly = topTimeOnly;
    m_lowUtilOnly = lowUtilizationOnly;
    if (m_groups.empty())
        return;
    updateMatches();
    updateGroupTotals();
    // Every row may change its MatchesFilterRole, and every group its numbers.
    emitAllChanged({MatchesFilterRole});
}

void OpTreeModel::emitAllChanged(const QList<int>& opRoles)
{
    if (m_flat) {
        if (!m_ops.empty())
            emit dataChanged(index(0, 0), index(static_cast<int>(m_ops.size()) - 1, ColumnCount - 1), opRoles);
        return;
    }
    if (m_groups.empty())
        return;
    emit dataChanged(index(0, 0), index(static_cast<int>(m_groups.size()) - 1, ColumnCount - 1));
    for (int g = 0; g < static_cast<int>(m_groups.size()); ++g) {
        const QModelIndex parent = index(g, 0);
        const int rows = static_cast<int>(m_groups[g].children.size());
        emit dataChanged(index(0, 0, parent), index(rows - 1, ColumnCount - 1, parent), opRoles);
    }
}

int OpTreeModel::matchingOpCount() const
{
    return static_cast<int>(std::count_if(m_ops.begin(), m_ops.end(), [](const Item& i) { return i.matches; }));
}

void OpTreeModel::updateFlags()
{
    for (Item& item : m_ops)
        item.flagged = shouldFlag(item);
    if (m_groups.empty())
        return;
    // "Low utilization only" follows the threshold: which ops match, and so the group totals, change.
    if (m_lowUtilOnly) {
        updateMatches();
        updateGroupTotals();
    }
    emitAllChanged({});
}

bool OpTreeModel::shouldFlag(const Item& item) const
{
    // The core's one definition, for ops of every kind: far from the roofline with enough time to
    // matter. Unknown (no cost data, no peak) is never low.
    return model::isLowUtilizationOp(item.row, m_threshold);
}

int OpTreeModel::flaggedCount() const
{
    return static_cast<int>(std::count_if(m_ops.begin(), m_ops.end(), [](const Item& i) { return i.flagged; }));
}

QString OpTreeModel::flagReason(const Item& item) const
{
    const model::OpRow& row = item.row;
    return tr("Low utilization: %1 of its roofline bound (threshold %2) while this op takes %3 of the op time. "
              "It runs at %4 of the peak FLOP rate and %5 of the HBM bandwidth, at %6 %7: neither roof is near. "
              "Look for padded shapes (see the layout in the details panel), small batches or serialization.")
        .arg(percent(row.rooflineEfficiency.value_or(0)), percent(m_threshold), percent(row.timeFraction),
            percent(row.flopsUtilization.value_or(0)), percent(row.hbmUtilization.value_or(0)),
            QString::number(row.arithmeticIntensity.value_or(0), 'g', 3), qs(model::kIntensityUnit));
}

QString OpTreeModel::toolTip(const Item& item, bool isGroup) const
{
    QString tip = QStringLiteral("<b>%1</b>").arg(item.name.toHtmlEscaped());
    if (!isGroup) {
        if (!item.category.isEmpty())
            tip += QStringLiteral("<br>") + tr("Category: %1").arg(item.category.toHtmlEscaped());
        if (!item.program.isEmpty())
            tip += QStringLiteral("<br>") + tr("Program: %1").arg(item.program.toHtmlEscaped());
        if (!item.frameworkOp.isEmpty())
            tip += QStringLiteral("<br>") + tr("Framework op: %1").arg(item.frameworkOp.toHtmlEscaped());
        if (!item.source.isEmpty())
            tip += QStringLiteral("<br>") + tr("Source: %1").arg(item.source.toHtmlEscaped());
    }
    tip += QStringLiteral("<br>")
        + tr("%1 of op time, %2 occurrences, average %3")
              .arg(item.text[TimeFractionColumn], item.text[OccurrencesColumn], item.text[AverageColumn]);
    tip += QStringLiteral("<br>")
        + tr("FLOPS utilization %1, HBM utilization %2, roofline efficiency %3 (bound by %4)")
              .arg(item.text[FlopsUtilizationColumn], item.text[HbmUtilizationColumn],
                  item.text[RooflineEfficiencyColumn], qs(model::boundByText(item.row.boundBy)));
    if (item.row.arithmeticIntensity)
        tip += QStringLiteral("<br>")
            + tr("Arithmetic intensity %1 %2")
                  .arg(QString::number(*item.row.arithmeticIntensity, 'g', 3), qs(model::kIntensityUnit));
    if (!isGroup && !item.row.hbmFromBreakdown && item.row.hbmBytes > 0)
        tip += QStringLiteral(" ") + tr("(HBM bytes estimated from bytes accessed)");
    if (!item.row.asyncPartner.empty())
        tip += QStringLiteral("<br>")
            + tr("Async pair with %1: its bytes are counted once, rated over the start→done span.")
                  .arg(qs(item.row.asyncPartner).toHtmlEscaped());
    if (const QString why = caveat(item); !why.isEmpty())
        tip += QStringLiteral("<p>") + why.toHtmlEscaped() + QStringLiteral("</p>");
    if (!isGroup && item.flagged)
        tip += QStringLiteral("<p>") + flagReason(item).toHtmlEscaped() + QStringLiteral("</p>");
    return tip;
}

QString OpTreeModel::caveat(const Item& item) const
{
    return m_profile ? qs(model::utilizationCaveat(item.row, m_profile->device)) : QString();
}

void OpTreeModel::formatItem(Item& item)
{
    const model::OpRow& row = item.row;
    item.text[NameColumn] = item.name;
    item.text[TimeFractionColumn] = percent(row.timeFraction);
    item.text[TotalTimeColumn] = qs(model::formatDurationPs(row.totalTimePs));
    item.text[OccurrencesColumn] = QString::number(row.occurrences);
    item.text[AverageColumn] = qs(model::formatDurationPs(item.averagePs));
    item.text[FlopsUtilizationColumn] = qs(model::flopsUtilizationText(row));
    // The same texts as `tpuscope-cli ops`: xprof's columns, then ours.
    item.text[HbmUtilizationColumn] = qs(model::hbmUtilizationText(row));
    item.text[BoundByColumn] = qs(model::boundByText(row.boundBy));
    item.text[RooflineEfficiencyColumn] = qs(model::rooflineEfficiencyText(row));
    item.text[WastedColumn] = qs(model::formatOptionalPercent(row.wastedFraction));
    item.text[TransferRateColumn] = qs(model::transferRateText(row));
    item.text[FlopsColumn] = row.flops > 0 ? qs(model::formatCount(row.flops, "FLOP")) : QString();
    item.text[BytesColumn] = row.bytesAccessed > 0 ? qs(model::formatBytes(row.bytesAccessed)) : QString();
}

QModelIndex OpTreeModel::indexForOp(model::OpId op) const
{
    if (op >= m_opRow.size() || m_opRow[op] < 0)
        return {};
    const int item = m_opRow[op];
    if (m_flat)
        return createIndex(item, 0, quintptr(0));
    return createIndex(m_rowInGroup[item], 0, static_cast<quintptr>(m_ops[item].group + 1));
}

// Group rows carry internal id 0; op rows carry their group's row + 1. Flat, every row is a
// top-level op row (internal id 0, the row indexes m_ops).
QModelIndex OpTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (m_flat)
        return !parent.isValid() && row < static_cast<int>(m_ops.size()) ? createIndex(row, column, quintptr(0))
                                                                         : QModelIndex();
    if (!parent.isValid())
        return row < static_cast<int>(m_groups.size()) ? createIndex(row, column, quintptr(0)) : QModelIndex();
    if (parent.internalId() != 0 || parent.column() != 0 || parent.row() >= static_cast<int>(m_groups.size()))
        return {};
    if (row >= static_cast<int>(m_groups[parent.row()].children.size()))
        return {};
    return createIndex(row, column, static_cast<quintptr>(parent.row() + 1));
}

QModelIndex OpTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int OpTreeModel::rowCount(const QModelIndex& parent) const
{
    if (m_flat)
        return parent.isValid() ? 0 : static_cast<int>(m_ops.size());
    if (!parent.isValid())
        return static_cast<int>(m_groups.size());
    if (parent.internalId() != 0 || parent.column() != 0)
        return 0;
    return static_cast<int>(m_groups[parent.row()].children.size());
}

int OpTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

const OpTreeModel::Item* OpTreeModel::itemAt(const QModelIndex& index) const
{
    if (!index.isValid())
        return nullptr;
    if (m_flat)
        return &m_ops[index.row()];
    if (index.internalId() == 0)
        return &m_groups[index.row()].item;
    const Group& group = m_groups[index.internalId() - 1];
    return &m_ops[group.children[index.row()]];
}

model::OpClass OpTreeModel::categoryClass(const QString& category) const
{
    const auto it = m_categoryClass.find(category.toStdString());
    return it != m_categoryClass.end() ? it->second : model::OpClass::Compute;
}

QVariant OpTreeModel::data(const QModelIndex& index, int role) const
{
    const Item* item = itemAt(index);
    if (!item)
        return {};
    const bool isGroup = !m_flat && index.internalId() == 0;
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return item->text[column];
    case Qt::ToolTipRole:
        return toolTip(*item, isGroup);
    case Qt::DecorationRole:
        // The category swatch: the same colour as the op's boxes on the timeline and its roofline points.
        if (column == NameColumn && !item->category.isEmpty() && (!isGroup || m_grouping == Grouping::Category)) {
            if (const auto it = m_categoryColors.find(item->category.toStdString()); it != m_categoryColors.end())
                return it->second;
            return colors::categoryColor(item->category.toStdString(), categoryClass(item->category));
        }
        return {};
    case Qt::TextAlignmentRole:
        if (column != NameColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::FontRole:
        if (isGroup && column == NameColumn) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::BackgroundRole:
        if (item->flagged)
            return QBrush(colors::lowUtilizationRowBackground(QGuiApplication::palette()));
        return {};
    case Qt::ForegroundRole:
        if (item->flagged)
            return QBrush(colors::lowUtilizationRowText(QGuiApplication::palette()));
        return {};
    case SortRole:
        switch (column) {
        case NameColumn:
            return item->name;
        case TimeFractionColumn:
            return item->row.timeFraction;
        case TotalTimeColumn:
            return item->row.totalTimePs;
        case OccurrencesColumn:
            return static_cast<qlonglong>(item->row.occurrences);
        case AverageColumn:
            return item->averagePs;
        case FlopsUtilizationColumn:
            return optionalValue(item->row.flopsUtilizationUncapped);
        case HbmUtilizationColumn:
            return optionalValue(item->row.hbmUtilizationUncapped);
        case BoundByColumn:
            return item->text[BoundByColumn];
        case RooflineEfficiencyColumn:
            return optionalValue(item->row.rooflineEfficiency);
        case WastedColumn:
            return optionalValue(item->row.wastedFraction);
        case TransferRateColumn:
            return optionalValue(model::transferRateGbps(item->row));
        case FlopsColumn:
            return item->row.flops;
        case BytesColumn:
            return item->row.bytesAccessed;
        }
        return {};
    case OpIdRole:
        return static_cast<quint32>(item->op);
    case FlaggedRole:
        return item->flagged;
    case InTopTimeRole:
        return isGroup || item->inTopTime;
    case BarFractionRole:
        switch (column) {
        // No bar for an unknown value: an empty bar would read as zero.
        case TimeFractionColumn:
            return item->row.timeFraction;
        case FlopsUtilizationColumn:
            return item->row.flopsUtilization ? QVariant(*item->row.flopsUtilization) : QVariant();
        case HbmUtilizationColumn:
            // A bar only for ops on the HBM roof: a host transfer's or collective's HBM figure is
            // not what it is limited by (its rate is in the transfer-rate column).
            return item->row.hbmUtilization && item->row.ratedAgainst == model::RatedAgainst::Roofline
                ? QVariant(*item->row.hbmUtilization)
                : QVariant();
        case RooflineEfficiencyColumn:
            return item->row.rooflineEfficiency ? QVariant(*item->row.rooflineEfficiency) : QVariant();
        case WastedColumn:
            return item->row.wastedFraction ? QVariant(*item->row.wastedFraction) : QVariant();
        }
        return {};
    case FilterTextRole:
        return item->filterText;
    case MatchesFilterRole:
        return item->matches;
    }
    return {};
}

QVariant OpTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn:
            return tr("Name");
        case TimeFractionColumn:
            return tr("Time %");
        case TotalTimeColumn:
            return tr("Total time");
        case OccurrencesColumn:
            return tr("Occurrences");
        case AverageColumn:
            return tr("Average");
        case FlopsUtilizationColumn:
            return tr("FLOPS util");
        case HbmUtilizationColumn:
            return tr("HBM util");
        case BoundByColumn:
            return tr("Bound by");
        case TransferRateColumn:
            return tr("Transfer rate");
        case RooflineEfficiencyColumn:
            return tr("Roofline eff");
        case WastedColumn:
            return tr("Wasted %");
        case FlopsColumn:
            return tr("FLOPs");
        case BytesColumn:
            return tr("Bytes");
        }
    } else if (role == Qt::ToolTipRole) {
        switch (section) {
        case NameColumn:
            return tr("HLO op, grouped by category or program");
        case TimeFractionColumn:
            return tr("Share of the total op time on the TPU cores");
        case TotalTimeColumn:
            return tr("Time summed over all occurrences and cores");
        case OccurrencesColumn:
            return tr("How often the op ran, over all cores");
        case AverageColumn:
            return tr("Total time ÷ occurrences");
        case FlopsUtilizationColumn:
            return qs(model::glossaryTooltip("flops-utilization"));
        case HbmUtilizationColumn:
            return qs(model::glossaryTooltip("hbm-utilization"));
        case BoundByColumn:
            return qs(model::glossaryTooltip("bound-by"));
        case TransferRateColumn:
            return qs(model::glossaryTooltip("host-link") + " " + model::glossaryTooltip("ici-utilization") + " "
                + model::glossaryTooltip("transfer-rate"));
        case RooflineEfficiencyColumn:
            return qs(model::glossaryTooltip("roofline-efficiency"));
        case WastedColumn:
            return qs(model::glossaryTooltip("wasted-time"));
        case FlopsColumn:
            return tr("FLOPs over all occurrences (device-normalized)");
        case BytesColumn:
            return tr("Bytes accessed over all occurrences");
        }
    } else if (role == Qt::TextAlignmentRole) {
        return QVariant::fromValue(
            section == NameColumn ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

} // namespace tpuscope::qt
