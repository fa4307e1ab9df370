// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../analysis/steps.h"
#include "report.h"

#include <string>

namespace tpuscope::model {

/// The table / CSV / Markdown / JSON report of `tpuscope-cli steps`.
std::string stepsReport(const StepAnalysis& steps, TableFormat format);

} // namespace tpuscope::model
