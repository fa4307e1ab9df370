// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../core/profile.h"

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>

namespace tpuscope::model {

enum class FileFormat { XSpace, ChromeJson, LegacyTrace, OpProfileJson, ShareFile, Riegeli, Gzip, Unknown };
const char* fileFormatName(FileFormat format);

struct LoadOptions
{
    /// TPU generation to assume ("v5e", "v6e", ...) when the file cannot tell; empty = none.
    std::string deviceOverride;
    /// Refuse to inflate more than this many bytes (gzip bombs); 0 = default (the memory budget,
    /// at least 1 GiB). A streamed JSON document does not stay in memory, so this only caps work.
    uint64_t maxDecompressedBytes = 0;
    /// Refuse gzip data inflating by more than this ratio once past 256 MiB (bombs that stay under
    /// the size limit); 0 = default: TPUSCOPE_MAX_COMPRESSION_RATIO from the environment, else 200.
    uint64_t maxCompressionRatio = 0;
    /// Memory the profile may take while it is built; 0 = default: TPUSCOPE_MEMORY_BUDGET_MB from
    /// the environment, else the smallest of 3/4 of the machine's RAM, the address-space limit
    /// (RLIMIT_AS, ulimit -v) and the cgroup's memory limit (memory.max).
    uint64_t memoryBudgetBytes = 0;
    /// Events to load at most; 0 = default: TPUSCOPE_MAX_EVENTS from the environment, else what the
    /// memory budget holds.
    uint64_t maxEvents = 0;
    /// Called once, from the loading thread, with the part of a large profile read so far when
    /// the load is still running after `previewAfterSeconds` (formats read front to back: Chrome
    /// JSON). Empty = no preview.
    ProfileBuilder::PreviewFn preview;
    double previewAfterSeconds = 0.4;
};

/// The limits a load with these options runs under, with the hints its messages give.
LoadLimits effectiveLimits(const LoadOptions& options);
/// The inflate limit a load with these options uses.
uint64_t effectiveDecompressLimit(const LoadOptions& options);
/// The compression-ratio guard a load with these options uses.
uint64_t effectiveCompressionRatio(const LoadOptions& options);

/// The memory a load may use when nothing sets a budget, and which bound gave it.
struct DefaultMemoryBudget
{
    uint64_t bytes = 0;
    std::string source; // "3/4 of this machine's RAM", "the address-space limit (ulimit -v)", ...
};
DefaultMemoryBudget defaultMemoryBudget();

/// Called with a phase name and 0..1; throttled by the loader (at most ~1000 calls per load).
using ProgressFn = std::function<void(std::string_view phase, double fraction)>;

struct LoadResult
{
    ProfilePtr profile;
    std::string error; // user-facing; empty on success
    bool ok() const { return profile != nullptr; }
};

/// Detects the format from the first bytes (magic and structure, not the file name).
FileFormat detectFormat(std::string_view head);

/// Opens a profile file (any supported format, plain or gzip-compressed). Never throws;
/// bad input gives a LoadResult with a message that names the file, the problem and the offset,
/// and running out of memory gives "out of memory while loading …" with the limits in force.
LoadResult loadProfile(const std::string& path, const LoadOptions& options = {}, const ProgressFn& progress = {},
    std::stop_token stop = {});

/// Same, for bytes already in memory (`name` is used in messages and as a format hint).
LoadResult loadProfileFromBytes(std::string bytes, const std::string& name, const LoadOptions& options = {},
    const ProgressFn& progress = {}, std::stop_token stop = {});

} // namespace tpuscope::model
