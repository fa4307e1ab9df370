// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The straggler advice (rule `straggler`) said in one line for the overview and the share card:
// the late host, how late per step, the cause and the gain. Read from the item's typed numbers
// (`host`, `late_ps_per_step`, `late_fraction`, `cause`) and `gainPs`, never from its prose.

#include "../analysis/advice.h"

#include <string>
#include <string_view>

namespace tpuscope::model {

/// What a `cause` value of the straggler rule means, in a few words ("its input pipeline").
std::string stragglerCauseText(std::string_view cause);

/// "host-3 is 1.2 ms late per step (in 92% of the steps) · cause: its input pipeline · gain up to
/// 1.1 ms/step"; empty when `advice` is not a straggler item or carries no host.
std::string stragglerLine(const Advice& advice);

} // namespace tpuscope::model
