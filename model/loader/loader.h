// SPDX-License-Identifier: GPL-3.0-or-later
// The load front door: a profile file, a log dir (its newest run) or bytes in memory, in any
// format, to an immutable Profile. Decoder-facing types (formats, options, limits, progress)
// are in decoder.h; log-dir runs (findRuns, loadRun of a run already scanned) in logdir.h.
#pragma once

#include "decoder.h"

#include <stop_token>
#include <string>

namespace tpuscope::model {

struct LoadResult
{
    ProfilePtr profile;
    std::string error; // user-facing; empty on success
    bool ok() const { return profile != nullptr; }
};

/// Opens a profile file (any supported format, plain or gzip-compressed) or a log dir. Never
/// throws; bad input gives a LoadResult with a message that names the file, the problem and the
/// offset, and running out of memory gives "out of memory while loading …" with the limits in
/// force.
LoadResult loadProfile(const std::string& path, const LoadOptions& options = {}, const ProgressFn& progress = {},
    std::stop_token stop = {});

/// Same, for bytes already in memory (`name` is used in messages and as a format hint).
LoadResult loadProfileFromBytes(std::string bytes, const std::string& name, const LoadOptions& options = {},
    const ProgressFn& progress = {}, std::stop_token stop = {});

} // namespace tpuscope::model
