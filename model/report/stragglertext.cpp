// SPDX-License-Identifier: GPL-3.0-or-later
#include "stragglertext.h"

#include "../core/format.h"

namespace tpuscope::model {

std::string stragglerCauseText(std::string_view cause)
{
    if (cause == "input")
        return "its input pipeline (its chips start the step late)";
    if (cause == "slowchip")
        return "a slow chip (the same ops take longer there)";
    if (cause == "hosttransfer")
        return "its host transfers";
    return "not clear from its own data";
}

std::string stragglerLine(const Advice& advice)
{
    if (advice.id != AdviceRuleId::Straggler)
        return {};
    const AdviceValue* host = advice.numbers.find("host");
    if (!host || host->kind != AdviceValue::Kind::Text || host->text.empty())
        return {};
    std::string line = "host " + host->text;
    const AdviceValue* intermittent = advice.numbers.find("intermittent");
    const AdviceValue* whenLate = advice.numbers.find("late_ps_when_late");
    const AdviceValue* lateSteps = advice.numbers.find("late_steps");
    const AdviceValue* steps = advice.numbers.find("steps");
    if (intermittent && intermittent->number != 0 && whenLate && lateSteps && steps)
        // An intermittent straggler: how late when it is, and how often.
        line += " is " + formatDurationPs(whenLate->number) + " late in " + formatCount(lateSteps->number) + " of "
            + formatCount(steps->number) + " steps (intermittent)";
    else if (const AdviceValue* late = advice.numbers.find("late_ps_per_step");
             late && late->kind == AdviceValue::Kind::Number)
        line += " is " + formatDurationPs(late->number) + " late per step";
    else
        line += " is late";
    if (const AdviceValue* share = advice.numbers.find("late_fraction");
        share && share->kind == AdviceValue::Kind::Number && !(intermittent && intermittent->number != 0))
        line += " (last in " + formatPercent(share->number, 0) + " of the steps)";
    const AdviceValue* cause = advice.numbers.find("cause");
    line += " \u00B7 cause: " + stragglerCauseText(cause && cause->kind == AdviceValue::Kind::Text ? cause->text : "");
    if (advice.gainPs > 0)
        line += " \u00B7 gain up to " + formatDurationPs(advice.gainPs) + "/step if it kept up";
    return line;
}

} // namespace tpuscope::model
