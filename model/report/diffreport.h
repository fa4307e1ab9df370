// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../analysis/diff.h"
#include "report.h"

#include <string>

namespace tpuscope::model {

/// Table (text/csv/tsv/md) or JSON; `top` limits the op rows (0 = all). `beforeFile` and
/// `afterFile` (labels, comparisonLabels; optional) head the summary's Before and After columns.
/// The diff's warnings (unrelated profiles, a different configuration) come first; for unrelated
/// profiles the summary gives no change in step or op time or utilization, as it would mean
/// nothing. Each op row says how it was matched and why it changed (its first reason); the JSON
/// has every reason and the op's per-step test.
std::string diffReport(const ProfileDiff& diff, TableFormat format, size_t top = 0, const std::string& beforeFile = {},
    const std::string& afterFile = {});

} // namespace tpuscope::model
