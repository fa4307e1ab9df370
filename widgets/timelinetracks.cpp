// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinetracks.h"
#include "timelinelegend.h"

#include "qt/colors.h"
#include "qt/qstrings.h"

#include "timelinegeometry.h"
#include "timescale.h"

#include "analysis/opbreakdown.h"
#include "report/report.h"

#include <QColor>

#include <algorithm>
#include <cmath>
#include <map>

namespace tpuscope::widgets {

using model::kNone;
using model::OpId;
using model::PlaneKind;
using model::TimePs;
using model::Track;
using model::TrackId;
using model::TrackKind;

using tpuscope::qt::qs;

namespace {

int trackKindRank(TrackKind kind)
{
    switch (kind) {
    case TrackKind::Steps:
        return 0;
    case TrackKind::XlaModules:
        return 1;
    case TrackKind::XlaOps:
        return 2;
    case TrackKind::AsyncXlaOps:
        return 3;
    case TrackKind::FrameworkOps:
        return 4;
    default:
        return 5;
    }
}

} // namespace

void TimelineTracks::setProfile(
    model::ProfilePtr profile, std::shared_ptr<const model::OpBreakdown> breakdown, double lowUtilizationThreshold)
{
    m_profile = std::move(profile);
    m_breakdown = std::move(breakdown);
    m_lowUtilThreshold = lowUtilizationThreshold;
    m_opNames.clear();
    m_opNameReady.clear();
    if (m_profile) {
        m_opNames.resize(m_profile->ops.size());
        m_opNameReady.assign(m_profile->ops.size(), false);
    }
    computeOpNumbers();
    // Folded groups stay folded while the same file is shown (a device chosen later, the load
    // after its preview); another file starts from the defaults.
    std::map<QString, bool> folded;
    const std::string path = m_profile ? m_profile->load.path : std::string();
    if (path == m_groupsPath)
        for (const Group& g : m_groups)
            folded.emplace(g.name, g.collapsed);
    m_groupsPath = path;
    rebuildGroups();
    for (Group& g : m_groups)
        if (const auto it = folded.find(g.name); it != folded.end())
            g.collapsed = it->second;
    m_rows.clear();
    m_trackRow.assign(m_profile ? m_profile->tracks.size() : 0, -1);
    m_contentHeight = 0;
}

void TimelineTracks::setLowUtilizationThreshold(double fraction)
{
    m_lowUtilThreshold = std::clamp(fraction, 0.0, 1.0);
    computeOpNumbers();
}

bool TimelineTracks::setGroupCollapsed(int group, bool collapsed)
{
    if (group < 0 || group >= int(m_groups.size()) || m_groups[group].collapsed == collapsed)
        return false;
    m_groups[group].collapsed = collapsed;
    return true;
}

int TimelineTracks::groupOfHost(uint32_t host) const
{
    for (int gi = 0; gi < int(m_groups.size()); ++gi)
        if (m_groups[size_t(gi)].host == host && (m_groups[size_t(gi)].hostHeader || m_groups[size_t(gi)].parent < 0))
            return gi;
    return -1;
}

int TimelineTracks::groupOfTrack(TrackId track) const
{
    for (int gi = 0; gi < int(m_groups.size()); ++gi) {
        const auto& tracks = m_groups[size_t(gi)].tracks;
        if (std::find(tracks.begin(), tracks.end(), track) != tracks.end())
            return gi;
    }
    return -1;
}

void TimelineTracks::computeOpNumbers()
{
    m_opFlopsUtil.clear();
    m_opHbmUtil.clear();
    m_opTimeFraction.clear();
    m_lowUtilOps.clear();
    m_categoryLegend.clear();
    if (!m_profile)
        return;
    const size_t nOps = m_profile->ops.size();
    m_opFlopsUtil.assign(nOps, std::nan(""));
    m_opHbmUtil.assign(nOps, std::nan(""));
    m_opTimeFraction.assign(nOps, 0);
    // Without a breakdown (a load's preview) no op has utilization numbers yet.
    static const model::OpBreakdown noBreakdown;
    const model::OpBreakdown& breakdown = m_breakdown ? *m_breakdown : noBreakdown;
    std::map<std::string, double> categoryTime;
    m_lowUtilOps.assign(nOps, false);
    m_opRooflineEfficiency.assign(nOps, std::nan(""));
    for (const model::OpRow& row : breakdown.rows)
        categoryTime[row.category] += row.totalTimePs;
    m_categoryClass = model::categoryClasses(breakdown);
    m_categoryColors.clear();
    for (const auto& [category, color] : qt::colors::categoryColors(breakdown))
        m_categoryColors.emplace(category, color.rgb());
    // Every op gets its row's numbers (ops deduplicated apart share one row). Unknown stays NaN:
    // no cost data or no peak is not 0 %. Low utilization is the core's one definition (far from
    // the roofline), as the op table uses.
    const std::vector<size_t> rowOf = model::rowOfEachOp(*m_profile, breakdown);
    for (OpId op = 0; op < nOps; ++op) {
        if (rowOf[op] == SIZE_MAX)
            continue;
        const model::OpRow& row = breakdown.rows[rowOf[op]];
        m_opTimeFraction[op] = row.timeFraction;
        m_opFlopsUtil[op] = row.flopsUtilization.value_or(std::nan(""));
        m_opHbmUtil[op] = row.hbmUtilization.value_or(std::nan(""));
        m_opRooflineEfficiency[op] = row.rooflineEfficiency.value_or(std::nan(""));
        m_lowUtilOps[op] = m_profile->ops[op].isXlaOp && model::isLowUtilizationOp(row, m_lowUtilThreshold);
    }
    // The legend lists what is drawn: every category of an op with events (by op time, then by
    // name), then the kinds of non-op events present.
    // Per op, not per event: the load recorded each op's first track (OpInfo::firstTrack).
    m_opKind.assign(nOps, OpKind::NotDrawn);
    for (OpId op = 0; op < nOps; ++op) {
        const auto& info = m_profile->ops[op];
        if (info.firstTrack >= m_profile->tracks.size())
            continue;
        const TrackKind trackKind = m_profile->tracks[info.firstTrack].kind;
        m_opKind[op] = info.isXlaOp && info.category != 0 ? OpKind::Category
            : trackKind == TrackKind::Steps               ? OpKind::Step
            : trackKind == TrackKind::XlaModules          ? OpKind::Module
                                                          : OpKind::Other;
    }
    bool drawn[4] = {};
    std::map<std::string, double> drawnCategories;
    for (OpId op = 0; op < nOps; ++op) {
        const OpKind kind = m_opKind[op];
        if (kind == OpKind::NotDrawn)
            continue;
        drawn[int(kind) - 1] = true;
        if (kind == OpKind::Category) {
            const std::string& category = m_profile->str(m_profile->ops[op].category);
            auto it = categoryTime.find(category);
            drawnCategories[category] = it != categoryTime.end() ? it->second : 0;
        }
    }
    std::vector<std::pair<std::string, double>> sorted(drawnCategories.begin(), drawnCategories.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [category, time] : sorted)
        m_categoryLegend.push_back({qs(category), {categoryPaletteColor(category)}});
    if (drawn[int(OpKind::Module) - 1])
        m_categoryLegend.push_back({tr("XLA modules"), {qt::colors::moduleColor().rgb()}});
    // Steps and host events are coloured by name: the swatch shows a few of their colours.
    auto sampleColors = [this](OpKind kind) {
        std::vector<OpId> ops;
        for (OpId op = 0; op < m_opKind.size(); ++op)
            if (m_opKind[op] == kind)
                ops.push_back(op);
        std::vector<QRgb> colors; // up to four, spread over the ops of that kind
        const size_t n = std::min<size_t>(4, ops.size());
        for (size_t i = 0; i < n; ++i)
            colors.push_back(categoryColor(ops[i * ops.size() / n]));
        return colors;
    };
    if (drawn[int(OpKind::Step) - 1])
        m_categoryLegend.push_back({tr("steps (one colour per step)"), sampleColors(OpKind::Step)});
    if (drawn[int(OpKind::Other) - 1])
        m_categoryLegend.push_back(
            {tr("other events: host, async, TraceMe (one colour per name)"), sampleColors(OpKind::Other)});
}

QRgb TimelineTracks::categoryPaletteColor(const std::string& category) const
{
    if (const auto chosen = m_categoryColors.find(category); chosen != m_categoryColors.end())
        return chosen->second;
    const auto it = m_categoryClass.find(category);
    return qt::colors::categoryColor(category, it != m_categoryClass.end() ? it->second : model::OpClass::Compute)
        .rgb();
}

std::vector<TimelineLegendEntry> TimelineTracks::utilizationLegend(QRgb neutral) const
{
    std::vector<TimelineLegendEntry> entries = utilizationScaleEntries();
    bool nonOps = false;
    for (const OpKind kind : m_opKind)
        nonOps = nonOps || (kind != OpKind::NotDrawn && kind != OpKind::Category);
    if (nonOps)
        entries.push_back({tr("not an XLA op (steps, modules, host)"), {neutral}});
    return entries;
}

bool TimelineTracks::isLowUtilizationOp(OpId op) const
{
    return op < m_lowUtilOps.size() && m_lowUtilOps[op];
}

QRgb TimelineTracks::categoryColor(OpId op) const
{
    const auto& info = m_profile->ops[op];
    if (info.isXlaOp && info.category != 0)
        return categoryPaletteColor(m_profile->str(info.category));
    if (op < m_opKind.size() && m_opKind[op] == OpKind::Module)
        return qt::colors::moduleColor().rgb();
    return qt::colors::nameColor(m_profile->str(info.name)).rgb();
}

QRgb TimelineTracks::utilizationColor(OpId op, QRgb neutral) const
{
    if (!m_profile->ops[op].isXlaOp)
        return neutral;
    return qt::colors::utilizationColor(m_opFlopsUtil[op]).rgb();
}

void TimelineTracks::rebuildGroups()
{
    m_groups.clear();
    if (m_profile) {
        const auto& p = *m_profile;
        auto hasContent = [&](TrackId t) { return p.tracks[t].size() > 0; };
        auto sortedTracks = [&](const model::Plane& plane) {
            std::vector<TrackId> tracks;
            for (TrackId t : plane.tracks)
                if (t < p.tracks.size() && hasContent(t))
                    tracks.push_back(t);
            std::stable_sort(tracks.begin(), tracks.end(), [&](TrackId a, TrackId b) {
                const int ra = trackKindRank(p.tracks[a].kind), rb = trackKindRank(p.tracks[b].kind);
                if (ra != rb)
                    return ra < rb;
                return p.tracks[a].sortIndex < p.tracks[b].sortIndex;
            });
            return tracks;
        };
        const auto cores = p.tpuCorePlanes();
        auto coreGroup = [&](const model::Plane& plane) {
            Group g;
            g.tpuCore = true;
            g.host = plane.host;
            g.name = QStringLiteral("TPU:%1").arg(plane.coreIndex);
            if (!plane.deviceType.empty())
                g.name += QStringLiteral("  (") + qs(plane.deviceType) + QChar(u')');
            g.tracks = sortedTracks(plane);
            return g;
        };
        // The hosts with cores, in the order their first core comes.
        std::vector<uint32_t> coreHosts;
        for (model::PlaneId id : cores)
            if (std::find(coreHosts.begin(), coreHosts.end(), p.planes[id].host) == coreHosts.end())
                coreHosts.push_back(p.planes[id].host);
        if (coreHosts.size() <= 1) {
            for (model::PlaneId id : cores)
                if (Group g = coreGroup(p.planes[id]); !g.tracks.empty())
                    m_groups.push_back(std::move(g));
        } else {
            // A pod: one header per host with its cores under it, so 64 hosts × 4 cores fold to 64
            // lines. Past kHostsShownOpen hosts all but the first start folded: expanded they would be
            // tens of thousands of pixels, and the Hosts view unfolds the host it opens.
            constexpr size_t kHostsShownOpen = 8;
            for (uint32_t host : coreHosts) {
                Group header;
                header.hostHeader = true;
                header.host = host;
                header.collapsed = coreHosts.size() > kHostsShownOpen && host != coreHosts.front();
                header.name
                    = host < p.hosts.size() && !p.hosts[host].empty() ? qs(p.hosts[host]) : tr("host %1").arg(host);
                const int headerIndex = int(m_groups.size());
                m_groups.push_back(header);
                int shown = 0;
                for (model::PlaneId id : cores) {
                    if (p.planes[id].host != host)
                        continue;
                    Group g = coreGroup(p.planes[id]);
                    g.parent = headerIndex;
                    if (!g.tracks.empty()) {
                        m_groups.push_back(std::move(g));
                        ++shown;
                    }
                }
                if (shown == 0)
                    m_groups.pop_back();
                else
                    m_groups[size_t(headerIndex)].name
                        += (shown == 1 ? tr("  (1 core)") : tr("  (%1 cores)").arg(shown));
            }
        }
        Group others;
        // The core planes are the TpuCore ones (tpuCorePlanes): told by kind, not by searching the
        // core list per plane, which was quadratic in planes.
        for (model::PlaneId id = 0; id < p.planes.size(); ++id) {
            const model::Plane& plane = p.planes[id];
            if (plane.kind == PlaneKind::Metadata || plane.kind == PlaneKind::TpuCore)
                continue;
            for (TrackId t : sortedTracks(plane))
                others.tracks.push_back(t);
        }
        if (!others.tracks.empty()) {
            others.name = (m_groups.empty() ? tr("Threads") : tr("Host threads and other planes"))
                + QStringLiteral("  (%1)").arg(others.tracks.size());
            // With TPU cores on screen the host rows are mostly noise: start collapsed.
            others.collapsed = !m_groups.empty();
            m_groups.push_back(std::move(others));
        }
    }
}

void TimelineTracks::layout(const TimelineGeometryBuilder& builder)
{
    m_rows.clear();
    m_trackRow.assign(m_profile ? m_profile->tracks.size() : 0, -1);
    int y = 0;
    for (int gi = 0; gi < int(m_groups.size()); ++gi) {
        const Group& g = m_groups[gi];
        // A folded host hides its core groups, headers and all.
        if (g.parent >= 0 && m_groups[size_t(g.parent)].collapsed)
            continue;
        const int level = g.parent >= 0 ? 1 : 0;
        Row header;
        header.header = true;
        header.group = gi;
        header.top = y;
        header.height = kHeaderHeight;
        header.level = level;
        header.label = g.name;
        header.tooltip = g.hostHeader ? g.name : QString();
        m_rows.push_back(header);
        y += kHeaderHeight;
        if (g.collapsed || g.hostHeader)
            continue;
        const bool showPlane = !g.tpuCore;
        for (TrackId t : g.tracks) {
            const Track& track = m_profile->tracks[t];
            Row row;
            row.group = gi;
            row.level = level;
            row.track = t;
            row.top = y;
            row.height = builder.depthCount(t) * kDepthHeight + 2 * kTrackPadding;
            row.label = qs(m_profile->str(track.name));
            if (row.label.isEmpty())
                row.label = tr("(unnamed line)");
            const QString plane = qs(m_profile->str(m_profile->planes[track.plane].name));
            row.tooltip = plane + QStringLiteral(" / ") + row.label
                + tr("\n%1 events, %2 depth levels").arg(track.size()).arg(int(track.maxDepth) + 1);
            if (showPlane && m_profile->planes[track.plane].kind != PlaneKind::Host)
                row.label = plane + QStringLiteral(": ") + row.label;
            m_trackRow[t] = int(m_rows.size());
            m_rows.push_back(row);
            y += row.height;
        }
    }
    m_contentHeight = y;
}

const TimelineTracks::Row* TimelineTracks::rowAtContentY(int y) const
{
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y, [](int v, const Row& r) { return v < r.top; });
    if (it == m_rows.begin())
        return nullptr;
    --it;
    return y < it->top + it->height ? &*it : nullptr;
}

const QString& TimelineTracks::opName(OpId op) const
{
    static const QString empty;
    if (!m_profile || op >= m_opNames.size())
        return empty;
    if (!m_opNameReady[op]) {
        m_opNames[op] = qs(m_profile->str(m_profile->ops[op].name));
        m_opNameReady[op] = true;
    }
    return m_opNames[op];
}

QString TimelineTracks::eventTooltip(TrackId track, uint32_t index) const
{
    const Track& t = m_profile->tracks[track];
    const OpId op = t.op[index];
    const auto& info = m_profile->ops[op];
    QString text = QStringLiteral("<b>%1</b>").arg(opName(op).toHtmlEscaped());
    if (info.category)
        text += QStringLiteral("<br>") + tr("category: %1").arg(qs(m_profile->str(info.category)).toHtmlEscaped());
    text += QStringLiteral("<br>") + tr("duration: %1").arg(TimeScale::formatDuration(double(t.duration[index])));
    text += QStringLiteral("<br>")
        + tr("start: %1").arg(TimeScale::formatDuration(double(t.start[index] - m_profile->spanBegin)));
    const auto& device = m_profile->device;
    if (info.isXlaOp) {
        // The op's rates as the breakdown knows them (async pairs over their span, host
        // transfers on the host link); unknown is said so, with the reason.
        if (device.peakTflopsPerCore <= 0) {
            text += QStringLiteral("<br>") + tr("utilization: unknown (no TPU generation: choose a device)");
        } else if (std::isnan(m_opFlopsUtil[op]) && std::isnan(m_opHbmUtil[op])) {
            text += QStringLiteral("<br>")
                + tr("utilization: unknown (the op records no cost data, or it is a host transfer)");
        } else {
            auto value = [](double u) {
                return std::isnan(u) ? QString::fromUtf8(model::kUnknownText)
                                     : QString::number(100 * u, 'f', 1) + QLatin1Char('%');
            };
            text += QStringLiteral("<br>")
                + tr("op average: FLOPS %1, HBM %2, roofline efficiency %3")
                      .arg(value(m_opFlopsUtil[op]), value(m_opHbmUtil[op]), value(m_opRooflineEfficiency[op]));
        }
        if (isLowUtilizationOp(op))
            text += QStringLiteral("<br><span style='color:#b00020'>")
                + tr("low-utilization op: %1% of op time, below %2% of its roofline bound")
                      .arg(100 * m_opTimeFraction[op], 0, 'f', 1)
                      .arg(int(std::lround(m_lowUtilThreshold * 100)))
                + QStringLiteral("</span>");
    }
    return text;
}

} // namespace tpuscope::widgets
