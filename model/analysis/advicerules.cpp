// SPDX-License-Identifier: GPL-3.0-or-later
#include "advicerules.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <unordered_map>

namespace tpuscope::model::advice_detail {

std::string format(const char* fmt, ...)
{
    // Long texts (several sentences with op names) are measured first, not cut at the buffer; a
    // hostile file's huge names are cut at kMaxText, so no text copies them whole.
    constexpr auto kMaxText = 64 * 1024;
    char buffer[2048];
    va_list args, again;
    va_start(args, fmt);
    va_copy(again, args);
    const int n = std::vsnprintf(buffer, sizeof buffer, fmt, args);
    va_end(args);
    std::string out;
    if (n >= static_cast<int>(sizeof buffer)) {
        const int kept = std::min(n, kMaxText);
        out.resize(static_cast<size_t>(kept) + 1);
        std::vsnprintf(out.data(), out.size(), fmt, again);
        out.resize(static_cast<size_t>(kept));
    } else if (n > 0) {
        out.assign(buffer, static_cast<size_t>(n));
    }
    va_end(again);
    return out;
}

std::string pct(double fraction)
{
    return formatPercent(fraction, fraction < 0.1 && fraction > 0 ? 2 : 1);
}

std::string Context::gainText(double totalPs) const
{
    if (steps > 0)
        return formatDurationPs(perStep(totalPs)) + "/step";
    const double share = breakdown.totalTimePs > 0 ? totalPs / breakdown.totalTimePs : 0;
    return pct(share) + " of op time (" + formatDurationPs(perStep(totalPs)) + " per core over the capture)";
}

bool paddingBound(double paddingEfficiency, const OpRow& row, const OpPadding& padding)
{
    const bool mxu = padding.computeCore || padding.source == ShapeSource::LayoutHint;
    // Unknown utilization (no cost data, no peak) is no evidence either way.
    return mxu && row.flopsUtilization.value_or(0) > 0 && paddingEfficiency < 1
        && std::fabs(*row.flopsUtilization - paddingEfficiency) <= kPaddingBoundPoints.value;
}

std::string paddingBoundText(double paddingEfficiency, const OpRow& row)
{
    return format(" %s is padding-bound: its FLOPS utilization (%s) is within %.0f points of the share of its tiles "
                  "that holds data (%s), so the MXU runs at full speed on tiles that are mostly padding; only a "
                  "shape that fills the tiles raises it.",
        row.name.c_str(), pct(row.flopsUtilization.value_or(0)).c_str(), kPaddingBoundPoints.value * 100,
        pct(paddingEfficiency).c_str());
}

std::vector<RowGroup> rowsByGroup(const Context& ctx, const std::vector<const OpRow*>& rows)
{
    std::vector<RowGroup> out;
    std::unordered_map<const OpGroup*, size_t> index;
    for (const OpRow* r : rows) {
        const OpGroup* g = ctx.groups.of(r->op);
        // Rows of no group (not op rows) stand alone.
        const size_t at = g ? index.emplace(g, out.size()).first->second : out.size();
        if (at == out.size())
            out.push_back({g, {}, 0});
        out[at].rows.push_back(r);
        out[at].timePs += r->totalTimePs;
    }
    std::stable_sort(out.begin(), out.end(), [](const RowGroup& x, const RowGroup& y) { return x.timePs > y.timePs; });
    return out;
}

double addRowsAsEvidenceAndWholeGain(Advice& a, const Context& ctx, const std::vector<const OpRow*>& rows, double share)
{
    // One evidence entry per layer group (its largest row), so 256 per-layer psums of 0.02 % each are
    // evidence together, before a single larger op.
    size_t groups = 0;
    for (const RowGroup& g : rowsByGroup(ctx, rows)) {
        const double groupShare = ctx.breakdown.totalTimePs > 0 ? g.timePs / ctx.breakdown.totalTimePs : 0;
        if (groupShare >= kMinOpShare.value || groups < 3)
            addEvidence(a, ctx, g.rows.front()->op);
        ++groups;
    }
    double gain = 0;
    for (const OpRow* r : rows)
        gain += addOpGain(a, ctx, *r, r->totalTimePs * share, false);
    return gain;
}

void addEvidence(Advice& a, const Context& ctx, OpId op)
{
    if (std::find(a.ops.begin(), a.ops.end(), op) != a.ops.end())
        return;
    a.ops.push_back(op);
    a.opNames.push_back(ctx.profile.str(ctx.profile.ops[op].name));
    AdviceEvidence e;
    e.op = op;
    e.name = a.opNames.back();
    const OpAttribution attribution = opAttribution(ctx.profile, op);
    e.frameworkOp = attribution.frameworkOp;
    e.source = attribution.source;
    for (const OpRow& row : ctx.breakdown.rows)
        if (row.op == op) {
            e.timeFraction = row.timeFraction;
            break;
        }
    e.groupTimeFraction = e.timeFraction;
    if (const OpGroup* g = ctx.groups.of(op); g && g->ops > 1) {
        e.group = g->label;
        e.groupOps = g->ops;
        e.groupTimeFraction = g->timeFraction;
    }
    a.evidence.push_back(std::move(e));
}

void nameTopEvidence(Advice& a)
{
    if (a.evidence.empty())
        return;
    const AdviceEvidence& top = a.evidence.front();
    const std::string whose = attributionText({top.frameworkOp, top.source});
    if (whose.empty() || a.detail.find(whose) != std::string::npos)
        return;
    a.detail += " Top evidence: " + top.name + " = " + whose + ".";
}

double saveableTimePs(const OpRow& row, bool usefulWorkStays)
{
    // The useful work runs at the op's place under the roofline (its larger utilization), or at
    // its FLOPS utilization where no roofline position is known.
    const std::optional<double> u = row.rooflineEfficiency ? row.rooflineEfficiency : row.flopsUtilization;
    if (!usefulWorkStays || !u)
        return row.totalTimePs;
    return row.totalTimePs * (1.0 - std::min(1.0, *u));
}

double addOpGain(Advice& a, const Context& ctx, const OpRow& row, double ps, bool usefulWorkStays)
{
    const double gain = std::max(0.0, std::min(ps, saveableTimePs(row, usefulWorkStays)));
    a.gainByOp.emplace_back(row.op, ctx.perStep(gain));
    return gain;
}

std::string opList(const Context& ctx, const std::vector<const OpRow*>& rows, size_t max)
{
    const std::vector<RowGroup> groups = rowsByGroup(ctx, rows);
    const double total = ctx.breakdown.totalTimePs;
    std::string out;
    for (size_t i = 0; i < groups.size() && i < max; ++i) {
        const RowGroup& g = groups[i];
        out += i ? ", " : "";
        if (g.rows.size() > 1)
            out += format("%s (%zu ops, %s)", g.group ? g.group->label.c_str() : g.rows.front()->name.c_str(),
                g.rows.size(), pct(total > 0 ? g.timePs / total : 0).c_str());
        else
            out += g.rows.front()->name + " (" + pct(g.rows.front()->timeFraction) + ")";
    }
    if (groups.size() > max)
        out += format(" and %zu more", groups.size() - max);
    return out;
}

} // namespace tpuscope::model::advice_detail

namespace tpuscope::model {

std::string paddingBoundFinding(const OpRow& row, const OpPadding& padding)
{
    const ArrayPadding* worst = padding.worst();
    if (!worst || !advice_detail::paddingBound(worst->padding.efficiency, row, padding))
        return {};
    return advice_detail::paddingBoundText(worst->padding.efficiency, row).substr(1); // the text leads with a space
}

} // namespace tpuscope::model
