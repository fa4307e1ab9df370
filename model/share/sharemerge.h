// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The reduce step of a pod too large for one machine: the share files of the hosts of one run,
// each written where its profile lives (`tpuscope-cli share HOST.xplane.pb`), merged into one
// share file whose hosts table and straggler answer are the raw run folder's.
//
// What is merged: the hosts and their core planes (in input order), each core's step windows,
// program runs and host timing on one time base (the files' origins, as the log-dir loader
// aligns hosts), the op rows summed by (program, name, category), the "other" chunks summed by
// their rank within a category (each stays below 1 % of op time), the programs with their HLO
// (the first file's), the host link summed. The advice is not copied: a file's advice is about
// one host, and the reader computes the pod's from the merged data.

#include "../core/profile.h"

#include <cstddef>
#include <span>
#include <string>

namespace tpuscope::model {

struct ShareMergeInput
{
    std::string name; // for messages: the file's path
    std::string bytes; // the share file
};

struct ShareMergeResult
{
    std::string bytes; // the merged share file: header line + gzip(JSON)
    std::string json;
    std::string error; // names the input and what does not match
    size_t hosts = 0;
    size_t cores = 0;
    size_t stepsPerCore = 0; // step windows kept per core (the fewest over the cores)
    bool ok() const { return error.empty(); }
};

/// Merges the share files of the hosts of one run. Refuses (error, no bytes) files that are not
/// share files or fail their schema, files of different devices, programs or redactions, a host
/// named twice, more than kMaxShareHosts hosts or kMaxShareCorePlanes cores, and files recorded
/// more than a day apart. `limits` bound what each input may claim, as when it is opened.
ShareMergeResult mergeShareFiles(std::span<const ShareMergeInput> inputs, const LoadLimits& limits);

} // namespace tpuscope::model
