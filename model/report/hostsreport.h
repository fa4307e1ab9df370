// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../analysis/hosts.h"
#include "report.h"

#include <string>

namespace tpuscope::model {

/// The table / CSV / Markdown / JSON report of `tpuscope-cli hosts`: one row per host.
std::string hostsReport(const HostAnalysis& hosts, TableFormat format);

} // namespace tpuscope::model
