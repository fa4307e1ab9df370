// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../analysis/diff.h"
#include "report.h"

#include <string>

namespace tpuscope::model {

/// Table (text/csv/tsv/md) or JSON; `top` limits the op rows (0 = all).
std::string diffReport(const ProfileDiff& diff, TableFormat format, size_t top = 0);

} // namespace tpuscope::model
