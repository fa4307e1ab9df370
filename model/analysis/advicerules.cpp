// SPDX-License-Identifier: GPL-3.0-or-later
#include "advicerules.h"

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

void addEvidence(Advice& a, const Context& ctx, OpId op)
{
    if (std::find(a.ops.begin(), a.ops.end(), op) != a.ops.end())
        return;
    a.ops.push_back(op);
    a.opNames.push_back(ctx.profile.str(ctx.profile.ops[op].name));
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
