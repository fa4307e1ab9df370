// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What every advice rule shares: the context it reads and the helpers that word its numbers.
// Internal to the advice engine: rules live in advice*.cpp files and are called from computeAdvice;
// a new rule goes into a file of its own and one line in computeAdvice (ARCHITECTURE.md).

#include "../report/report.h"
#include "advice.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tpuscope::model::advice_detail {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/// A share as text, with two decimals below 10 %.
std::string pct(double fraction);

struct Context
{
    const Profile& profile;
    const OpBreakdown& breakdown;
    int64_t steps = 0;
    int cores = 1;
    std::vector<OpPadding> paddings; // by breakdown row
    BatchInference batch;

    /// Time per step per core of a total over all cores.
    double perStep(double totalPs) const { return totalPs / std::max(1, cores) / std::max<int64_t>(1, steps); }
    std::string perStepText(double totalPs) const
    {
        return formatDurationPs(perStep(totalPs)) + (steps > 0 ? "/step" : " per core over the profile");
    }
    std::string layer(OpId op) const
    {
        const OpInfo& info = profile.ops[op];
        std::string text = profile.str(info.tfOp);
        if (!text.empty() && text.back() == ':')
            text.pop_back();
        const std::string& source = profile.str(info.source);
        if (!source.empty())
            text += (text.empty() ? "" : ", ") + source;
        return text;
    }
};

/// Adds an op to an item's evidence once.
void addEvidence(Advice& a, const Context& ctx, OpId op);
/// "fusion.3 (58.0 %), fusion.12 (9.1 %) and 3 more".
std::string opList(const Context& ctx, const std::vector<const OpRow*>& rows, size_t max = 4);

void memoryPaddingRule(const Context&, std::vector<Advice>&, double share, double minPeak, double atCapacity);

} // namespace tpuscope::model::advice_detail
