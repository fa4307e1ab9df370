// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The per-host section of a share file ("host_timing"): each core's timing at the step's
// synchronizing collective per step, and the time base the step windows are measured from, so
// that the hosts analysis (and the straggler rule) of a share file — one host's, a whole pod's or
// a merge of per-host ones (sharemerge.h) — gives the raw run folder's answer.
//
//   "host_timing": {"sync_collective": op name, "other_wait_measured": bool,
//                   "other_wait_scope": "profile" | "host",
//                   "origin_ns": the profile's origin (ns), "span_begin_ps": the step windows' zero
//                   (ps after the origin),
//                   "cores": [{"plane", "sync_start_ps": [...], "sync_ps": [...], "last_op_end_ps": [...],
//                              "other_wait_ps": [...]}]}
//
// Per core and step: the synchronizing collective's start and the last op's end after the step
// window's start, the collective's duration, and the wait in the step's other collectives; -1 where
// unknown. A core lists at most as many steps as its step window list (the same first steps).
// Cost: four small integers per host × core × step, ~10 bytes compressed (see README).

#include "../analysis/profileanalysis.h"
#include "../report/jsonwriter.h"

#include <cstddef>
#include <string>
#include <vector>

namespace tpuscope::model {

/// The step windows a share file keeps per core: every core the same number, so the hosts of a
/// pod are matched on the same steps, and kMaxShareStepWindows in all.
size_t shareStepWindowsPerCore(size_t cores);

namespace share_detail {

/// Writes "host_timing" for the first `windowsPerCore[c]` steps of each core; `syncName` is the
/// synchronizing collective's name as the file writes names (redacted or hashed). Nothing when the
/// analysis found no steps on the cores.
void writeHostTiming(JsonWriter& w, const ProfileAnalysis& analysis, const std::vector<size_t>& windowsPerCore,
    const std::string& syncName);

} // namespace share_detail

} // namespace tpuscope::model
