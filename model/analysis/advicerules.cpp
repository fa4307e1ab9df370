// SPDX-License-Identifier: GPL-3.0-or-later
#include "advicerules.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace tpuscope::model::advice_detail {

std::string format(const char* fmt, ...)
{
    char buffer[2048];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buffer, sizeof buffer, fmt, args);
    va_end(args);
    return buffer;
}

std::string pct(double fraction)
{
    return formatPercent(fraction, fraction < 0.1 && fraction > 0 ? 2 : 1);
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

double addRowsAsEvidenceAndWholeGain(Advice& a, const Context& ctx, const std::vector<const OpRow*>& rows, double share)
{
    for (const OpRow* r : rows)
        if (r->timeFraction >= kMinOpShare.value || a.ops.size() < 3)
            addEvidence(a, ctx, r->op);
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
    std::string out;
    for (size_t i = 0; i < rows.size() && i < max; ++i)
        out += (i ? ", " : "") + rows[i]->name + " (" + pct(rows[i]->timeFraction) + ")";
    if (rows.size() > max)
        out += format(" and %zu more", rows.size() - max);
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
