// SPDX-License-Identifier: GPL-3.0-or-later
// What the decoders and the load front door share: the formats, the options and limits a load
// runs under, progress, and the one dispatcher (decodeInto) that takes bytes of any format to a
// ProfileBuilder. Single files (loader.cpp) and every host of a log dir (logdir.cpp) go through
// it; neither calls the other's internals.
#pragma once

#include "../core/profile.h"

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>

namespace tpuscope::model {

class ByteSource;

enum class FileFormat { XSpace, ChromeJson, LegacyTrace, OpProfileJson, ShareFile, Riegeli, Gzip, Unknown };
const char* fileFormatName(FileFormat format);

struct LoadOptions
{
    /// TPU generation to assume ("v5e", "v6e", ...) when the file cannot tell; empty = none.
    std::string deviceOverride;
    /// TPU cores to assume where the file does not record them (op_profile.json); 0 = none.
    int coresOverride = 0;
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
    /// Instructions one HLO module may have; 0 = default: TPUSCOPE_MAX_HLO_INSTRUCTIONS from the
    /// environment, else LoadLimits::kDefaultMaxHloInstructions. A module over it keeps its ops
    /// but not their HLO, with a warning.
    uint64_t maxHloInstructions = 0;
    /// Called once, from the loading thread, with the part of a large profile read so far when
    /// the load is still running after `previewAfterSeconds` (Chrome JSON: the events read so far;
    /// XSpace: the planes decoded so far, up to one time). Empty = no preview.
    ProfileBuilder::PreviewFn preview;
    double previewAfterSeconds = 0.4;
};

/// The limits a load with these options runs under, with the hints its messages give.
LoadLimits effectiveLimits(const LoadOptions& options);
/// The largest value a limit given in MiB may have (1 PiB): larger ones would wrap around when
/// turned into bytes (17592186044417 MiB << 20 is 1 MiB).
inline constexpr uint64_t kMaxLimitMb = 1ull << 30;
/// A limit set in the environment (TPUSCOPE_MEMORY_BUDGET_MB, TPUSCOPE_MAX_EVENTS,
/// TPUSCOPE_MAX_COMPRESSION_RATIO, TPUSCOPE_MAX_HLO_INSTRUCTIONS) that is not a positive number or out of range, in
/// words; empty when every one that is set is usable. Every load checks it first.
std::string environmentLimitsError();
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

/// Detects the format from the first bytes (magic and structure, not the file name).
FileFormat detectFormat(std::string_view head);

/// An op_profile.json of a log-dir host: only that format is accepted, and its totals go on
/// `attachToPlane` of the host's timeline (kNone = a plane of their own).
struct OpProfileTarget
{
    PlaneId attachToPlane = kNone;
};

/// Where the bytes of a decode come from and what it may do with them.
struct DecodeInput
{
    std::string_view bytes;
    /// The mapped file `bytes` live in (its pages are handed back once decoded), or null.
    ByteSource* file = nullptr;
    /// Used in messages and as a format hint only (".riegeli").
    std::string name;
    /// Set for a log-dir host's op_profile.json: that format only, attached to the timeline.
    const OpProfileTarget* opProfile = nullptr;
};

struct DecodeOutcome
{
    std::string error; // without the file name; empty on success
    FileFormat format = FileFormat::Unknown;
    bool compressed = false;
    uint64_t fileBytes = 0;
    uint64_t decodedBytes = 0;
    /// "xspace", "chrome-json.gz", ...: what Profile::load.format says of this input.
    std::string formatLabel() const { return std::string(fileFormatName(format)) + (compressed ? ".gz" : ""); }
};

/// The one decode path of top-level files and log-dir hosts: format detection (on the first MiB
/// of inflated data for gzip), streaming inflate with the size and ratio limits, truncated-stream
/// handling, then the format's decoder into `builder`.
DecodeOutcome decodeInto(const DecodeInput& input, ProfileBuilder& builder, const LoadOptions& options,
    const ProgressFn& progress = {}, std::stop_token stop = {});

/// Opens `path` (mapped, refusing what is not a regular file) and decodes it with decodeInto. A
/// file that shrank while it was read becomes a warning on the builder, prefixed by
/// `warningPrefix`, or part of the error.
DecodeOutcome decodeFileInto(const std::string& path, ProfileBuilder& builder, const LoadOptions& options,
    const ProgressFn& progress = {}, std::stop_token stop = {}, const OpProfileTarget* opProfile = nullptr,
    const std::string& warningPrefix = {});

/// "NAME: out of memory while loading (memory budget …, address-space limit …)": what a load
/// that caught std::bad_alloc reports.
std::string outOfMemoryMessage(const std::string& name, const LoadOptions& options);
/// The same for what comes after the load ("while analysing", "while writing the share file"):
/// "not enough memory for <what> of <name> (memory budget N MiB, ...)".
std::string outOfMemoryMessage(const std::string& name, const LoadOptions& options, const std::string& what);

} // namespace tpuscope::model
