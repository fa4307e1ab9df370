// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../analysis/gate.h"
#include "report.h"

#include <string>

namespace tpuscope::model {

/// The gate's verdict as text, JSON or Markdown (a pull-request comment: a headline, what differs,
/// one table of the checks with each one's size, budget and confidence). Other formats are text.
/// `beforeLabel` and `afterLabel` name the two profiles (comparisonLabels).
std::string gateReport(const GateVerdict& verdict, const ProfileDiff& diff, TableFormat format,
    const std::string& beforeLabel, const std::string& afterLabel);

} // namespace tpuscope::model
