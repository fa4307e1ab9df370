// SPDX-License-Identifier: GPL-3.0-or-later
// TensorBoard log directories: <logdir>/plugins/profile/<run>/<host files> (FORMATS.md §0).
#pragma once

#include "loader.h"

#include <string>
#include <vector>

namespace tpuscope::model {

/// The files of one host in a run.
struct RunHost
{
    std::string name; // from the file name ("t1v-n-9eb622fc-w-0"); empty for TF1 `trace` / `op_profile.json`
    std::string timeline; // file giving the timeline: *.xplane.pb, else TF1 `trace`, else *.trace.json.gz, else
                          // *.xplane.riegeli
    FileFormat timelineFormat = FileFormat::Unknown; // judged by the file name
    std::string opProfile; // op_profile.json; opened only when the timeline is not an XSpace (which has op costs)
    std::vector<std::string> ignored; // files of this host not opened (e.g. the trace.json.gz beside an xplane.pb)
};

struct ProfileRun
{
    std::string name; // run directory name, e.g. "2026_01_11_21_26_41"
    std::string label; // path relative to the directory searched ("train/plugins/profile/2026_…")
    std::string path; // the run directory
    int64_t mtime = 0; // newest host file, seconds since the epoch
    std::vector<RunHost> hosts;
};

/// Runs under `path`, which may be a TensorBoard logdir (also with train/, eval/ subdirectories),
/// a plugins/profile directory or a run directory itself. Newest first: by the run name when it
/// is a `YYYY_MM_DD_HH_MM_SS` timestamp, else by file time. Empty when nothing is found.
std::vector<ProfileRun> findRuns(const std::string& path);

/// Loads every host of a run into one profile, hosts decoded in parallel (on the shared
/// WorkerPool, with each host's planes: hosts × planes never multiply threads) and merged with their time origins
/// aligned. A host file that cannot be read becomes a warning naming it; the load fails only when no host can be read.
/// `progress` is called from the calling thread only.
LoadResult loadRun(
    const ProfileRun& run, const LoadOptions& options = {}, const ProgressFn& progress = {}, std::stop_token stop = {});

/// findRuns + loadRun of the newest run, with a clear error when the directory holds no run.
LoadResult loadNewestRun(const std::string& directory, const LoadOptions& options = {}, const ProgressFn& progress = {},
    std::stop_token stop = {});

/// Appends an unfinished profile (still owned by its builder) to `target`: hosts appended,
/// strings re-interned, ops and programs deduplicated, event times shifted by `shiftPs`.
void mergeProfile(Profile& source, ProfileBuilder& target, TimePs shiftPs);

} // namespace tpuscope::model
