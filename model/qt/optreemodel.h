// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/opbreakdown.h"
#include "analysis/profileanalysis.h"
#include "core/profile.h"

#include <QAbstractItemModel>
#include <QColor>
#include <QString>

#include <array>
#include <memory>
#include <unordered_map>
#include <vector>

namespace tpuscope::qt {

/// The op breakdown as a two-level tree: category, program, framework op or source line → op
/// (switchable), or flat: one top-level row per op, no group rows.
///
/// Built once from computeOpBreakdown rows; every display string is formatted when the data
/// arrives (heaptrack's qtStrings idea), so data() only indexes vectors. Sorting goes through the
/// numeric SortRole, never through display text. Ops of any kind that take a noticeable share of the
/// time far below their roofline (model::isLowUtilizationOp) are "flagged": they get their own colours
/// and a tooltip with the reason.
class OpTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        TimeFractionColumn,
        TotalTimeColumn,
        OccurrencesColumn,
        AverageColumn,
        FlopsUtilizationColumn,
        HbmUtilizationColumn,
        BoundByColumn,
        RooflineEfficiencyColumn,
        WastedColumn,
        TransferRateColumn, // host link, ICI or async-pair rate: what a transfer is rated by (as the CLI)
        FlopsColumn,
        BytesColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole, // double (qlonglong for occurrences, QString for names)
        OpIdRole, // quint32; model::kNone on group rows
        FlaggedRole, // bool: low-utilization op (model::isLowUtilizationOp)
        InTopTimeRole, // bool: among the ops that make up the top 90 % of time
        BarFractionRole, // double 0..1 for bar-drawing columns (time %, utilizations)
        FilterTextRole, // QString matched by the filter box: name, category and program
        MatchesFilterRole, // bool: the op row passes setFilter (group rows: some child does)
    };
    /// LayerGroup: ops repeated per layer (model::groupOps: name stem and HLO up to operand names).
    enum class Grouping { Category, Program, FrameworkOp, Source, LayerGroup };

    /// Default flag threshold: roofline efficiency below the core's low-utilization setting.
    static constexpr double kDefaultLowUtilizationThreshold = model::kDefaultLowUtilizationThreshold;
    /// Ops below this share of the time are never flagged: fixing them would not pay.
    static constexpr double kFlagMinTimeFraction = model::kLowUtilizationMinShare;
    /// The "top of time" toggle keeps ops until this share of time is covered.
    static constexpr double kTopTimeFraction = 0.9;

    explicit OpTreeModel(QObject* parent = nullptr);
    ~OpTreeModel() override;

    /// Shows a profile with its op breakdown, both from its analysis (the session builds it off
    /// the GUI thread); null clears.
    void setAnalysis(model::ProfileAnalysisPtr analysis);
    void clear();
    model::ProfilePtr profile() const { return m_profile; }

    void setGrouping(Grouping grouping);
    Grouping grouping() const { return m_grouping; }
    /// Flat: every op is a top-level row (sortable as one list); the grouping is kept for later.
    void setFlat(bool flat);
    bool isFlat() const { return m_flat; }

    void setLowUtilizationThreshold(double fraction);
    double lowUtilizationThreshold() const { return m_threshold; }

    /// The op filter: op rows whose filter text contains `text` (case-insensitive) and, with
    /// `topTimeOnly`, that are among the top 90 % of time, and with `lowUtilizationOnly`, that are
    /// flagged (low-utilization ops). Group rows then total only their matching ops, so a filtered
    /// table, its Markdown copy and its PNG agree with what is shown.
    void setFilter(const QString& text, bool topTimeOnly, bool lowUtilizationOnly = false);
    QString filterText() const { return m_filterText; }
    bool topTimeOnly() const { return m_topTimeOnly; }
    bool lowUtilizationOnly() const { return m_lowUtilOnly; }
    /// Op rows passing the filter (all of them without one).
    int matchingOpCount() const;
    /// Index (column 0) of the row showing `op`, or invalid when the op has no row.
    QModelIndex indexForOp(model::OpId op) const;
    int opRowCount() const { return static_cast<int>(m_ops.size()); }
    int flaggedCount() const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Item
    {
        model::OpId op = model::kNone;
        int group = -1; // for ops: index into m_groups
        QString name;
        QString program;
        QString category;
        QString frameworkOp; // attribution.h; empty when not recorded
        QString source;
        QString filterText;
        model::OpRow row; // the core's numbers; unknown rates stay empty
        double averagePs = 0;
        bool flagged = false;
        bool inTopTime = false;
        bool matches = true; // passes the filter
        std::array<QString, ColumnCount> text;
    };
    struct Group
    {
        Item item;
        std::vector<int> children; // indices into m_ops
    };

    void rebuildGroups();
    void nameLayerGroups();
    void updateMatches();
    void updateGroupTotals();
    void updateFlags();
    void emitAllChanged(const QList<int>& opRoles);
    bool shouldFlag(const Item& item) const;
    QString flagReason(const Item& item) const;
    QString toolTip(const Item& item, bool isGroup) const;
    const Item* itemAt(const QModelIndex& index) const;
    static void formatItem(Item& item);
    QString caveat(const Item& item) const;

    model::ProfilePtr m_profile;
    std::shared_ptr<const model::OpBreakdown> m_breakdown;
    std::unordered_map<std::string, model::OpClass> m_categoryClass; // model::categoryClasses(*m_breakdown)
    std::unordered_map<std::string, QColor> m_categoryColors; // colors::categoryColors(*m_breakdown)
    model::OpClass categoryClass(const QString& category) const;
    Grouping m_grouping = Grouping::Category;
    double m_threshold = kDefaultLowUtilizationThreshold;
    QString m_filterText;
    bool m_topTimeOnly = false;
    bool m_lowUtilOnly = false;
    bool m_flat = false;
    std::vector<Item> m_ops;
    std::vector<Group> m_groups;
    std::vector<int> m_opRow; // per OpId: index into m_ops, -1 when not shown
    std::vector<int> m_rowInGroup; // per m_ops entry: its row under its group (its top-level row when flat)
};

} // namespace tpuscope::qt
