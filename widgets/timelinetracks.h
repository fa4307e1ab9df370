// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/opbreakdown.h"
#include "core/profile.h"

#include <QCoreApplication>
#include <QRgb>
#include <QStaticText>
#include <QString>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace tpuscope::widgets {

class TimelineGeometryBuilder;

/// One legend entry: a text and its swatch (several colours for kinds coloured by name).
struct TimelineLegendEntry
{
    QString text;
    std::vector<QRgb> colors;
};

/// The timeline's track set (Qt Creator's TimelineModel seam, not a QAbstractItemModel): which
/// groups and rows a profile shows and in which order, their labels and tooltips, each op's
/// colour, utilization and low-utilization mark, and the category legend that follows from them.
/// No painting and no widget: the view lays rows out from it and draws.
class TimelineTracks
{
    Q_DECLARE_TR_FUNCTIONS(TimelineTracks)
public:
    static constexpr int kHeaderHeight = 20;
    static constexpr int kDepthHeight = 18;
    static constexpr int kTrackPadding = 3; // above and below a track's depth rows
    static constexpr int kLevelIndent = 12; // a host's core groups sit this far right of its header

    struct Group
    {
        QString name;
        bool collapsed = false;
        bool tpuCore = false;
        std::vector<model::TrackId> tracks;
        /// With several hosts: the host's own header (no tracks; its core groups follow it) ...
        bool hostHeader = false;
        uint32_t host = UINT32_MAX; // Profile::hosts index of a host header or a core group
        /// ... and, for a core group under one, that header's index (-1: a top-level group).
        int parent = -1;
    };
    struct Row
    {
        bool header = false;
        int group = 0;
        model::TrackId track = model::kNone;
        int top = 0; // content coordinates (0 = just below the ruler when scrolled to the top)
        int height = 0;
        int level = 0; // 1 inside a host's group (indented), else 0
        QString label;
        QString tooltip;
        QStaticText text; // the label as drawn (elided, laid out once by the view; empty until painted)
    };

    /// Groups one per TPU core (Steps, XLA Modules, XLA Ops, other lines), under one header per
    /// host when the profile has several hosts, the other planes in one group (collapsed when there
    /// are cores), and every op's numbers from the op breakdown. What the user folded stays folded
    /// when the same file is shown again (a device chosen later, the load after its preview).
    /// `breakdown` is the profile's op breakdown (computeOpBreakdown, no filter): the session's.
    void setProfile(
        model::ProfilePtr profile, std::shared_ptr<const model::OpBreakdown> breakdown, double lowUtilizationThreshold);
    const model::ProfilePtr& profile() const { return m_profile; }
    void setLowUtilizationThreshold(double fraction);
    double lowUtilizationThreshold() const { return m_lowUtilThreshold; }

    /// Rows from the groups (collapsed groups show their header only, a collapsed host hides its
    /// core groups); depth rows per track come from the builder.
    void layout(const TimelineGeometryBuilder& builder);
    const std::vector<Group>& groups() const { return m_groups; }
    /// False when nothing changed; the caller lays out again.
    bool setGroupCollapsed(int group, bool collapsed);
    /// The header of profile host `host` (several hosts), else its first core group; -1 if none.
    int groupOfHost(uint32_t host) const;
    /// The group holding `track`, -1 if none.
    int groupOfTrack(model::TrackId track) const;
    std::vector<Row>& rows() { return m_rows; }
    const std::vector<Row>& rows() const { return m_rows; }
    /// Index in rows() of a track's row, -1 when hidden.
    int rowOfTrack(model::TrackId track) const { return track < m_trackRow.size() ? m_trackRow[track] : -1; }
    int contentHeight() const { return m_contentHeight; }
    const Row* rowAtContentY(int y) const;

    const QString& opName(model::OpId op) const;
    bool isLowUtilizationOp(model::OpId op) const;
    const std::vector<bool>& lowUtilizationOps() const { return m_lowUtilOps; }
    /// Colour by HLO category (XLA ops), the module colour, or a muted colour by name.
    QRgb categoryColor(model::OpId op) const;
    /// Flame colour of the op's FLOPS utilization; `neutral` for events that are not XLA ops.
    QRgb utilizationColor(model::OpId op, QRgb neutral) const;
    /// The colour of an HLO category (fixed for well-known ones, else a palette colour by name).
    /// A category's colour (qt::colors::categoryColor with the class holding most of its time).
    QRgb categoryPaletteColor(const std::string& category) const;
    /// Every category drawn (by op time), then the kinds of non-op events present.
    const std::vector<TimelineLegendEntry>& categoryLegend() const { return m_categoryLegend; }
    std::vector<TimelineLegendEntry> utilizationLegend(QRgb neutral) const;
    /// Rich-text tooltip of an event: name, category, duration, start, the op's rates.
    QString eventTooltip(model::TrackId track, uint32_t index) const;

private:
    void rebuildGroups();
    void computeOpNumbers();

    /// What each op's events are drawn as (the legend lists exactly the kinds present).
    enum class OpKind : uint8_t { NotDrawn, Category, Module, Step, Other };

    std::shared_ptr<const model::OpBreakdown> m_breakdown;
    model::ProfilePtr m_profile;
    double m_lowUtilThreshold = 0.25;
    std::vector<Group> m_groups;
    std::vector<Row> m_rows;
    std::vector<int> m_trackRow; // TrackId → index in m_rows, -1 when hidden
    int m_contentHeight = 0;
    std::string m_groupsPath; // the file the groups (and what is folded in them) are of
    std::vector<double> m_opFlopsUtil; // per op, NaN when the op has no breakdown row
    std::vector<double> m_opHbmUtil;
    std::vector<double> m_opRooflineEfficiency; // NaN when unknown
    std::vector<double> m_opTimeFraction;
    std::vector<bool> m_lowUtilOps;
    std::vector<OpKind> m_opKind;
    std::unordered_map<std::string, model::OpClass> m_categoryClass; // from the breakdown's rows
    std::unordered_map<std::string, QRgb> m_categoryColors; // qt::colors::categoryColors of the breakdown
    std::vector<TimelineLegendEntry> m_categoryLegend;
    mutable std::vector<QString> m_opNames;
    mutable std::vector<bool> m_opNameReady;
};

} // namespace tpuscope::widgets
