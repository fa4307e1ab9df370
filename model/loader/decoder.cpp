// SPDX-License-Identifier: GPL-3.0-or-later
#include "decoder.h"

#include "formats.h"
#include "gzip.h"
#include "inputsource.h"
#include "opprofile.h"
#include "xspacechunks.h"
#include "xspaceloader.h"

#include "sharereader.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sys/resource.h>
#include <unistd.h>

namespace tpuscope::model {

const char* fileFormatName(FileFormat format)
{
    switch (format) {
    case FileFormat::XSpace:
        return "xspace";
    case FileFormat::ChromeJson:
        return "chrome-json";
    case FileFormat::LegacyTrace:
        return "legacy-trace";
    case FileFormat::OpProfileJson:
        return "op-profile-json";
    case FileFormat::ShareFile:
        return "tpuscope-share";
    case FileFormat::Riegeli:
        return "riegeli";
    case FileFormat::Gzip:
        return "gzip";
    case FileFormat::Unknown:
        return "unknown";
    }
    return "unknown";
}

namespace {

uint64_t physicalMemory()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && pageSize > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize) : (8ull << 30);
}

/// A positive integer from the environment, 0 when unset or not a number.
uint64_t environmentNumber(const char* name)
{
    const char* text = std::getenv(name);
    if (!text || !*text)
        return 0;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 10);
    return end && *end == '\0' ? value : 0;
}

std::string_view skipWhitespace(std::string_view s)
{
    size_t i = 0;
    // UTF-8 byte order mark
    if (s.size() >= 3 && static_cast<unsigned char>(s[0]) == 0xEF && static_cast<unsigned char>(s[1]) == 0xBB
        && static_cast<unsigned char>(s[2]) == 0xBF)
        i = 3;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
        ++i;
    return s.substr(i);
}

} // namespace

namespace {

/// The limit in a cgroup memory file ("max" or a byte count); 0 when unlimited or unreadable.
uint64_t cgroupLimitFrom(const std::string& path)
{
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max")
        return 0;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    // cgroup v1 reports "no limit" as a huge page-aligned number.
    return end && *end == '\0' && value < (1ull << 62) ? value : 0;
}

/// memory.max (cgroup v2) or memory.limit_in_bytes (v1) of this process's cgroup; 0 = none.
uint64_t cgroupMemoryLimit()
{
    std::ifstream self("/proc/self/cgroup");
    std::string line;
    uint64_t limit = 0;
    auto consider = [&](uint64_t value) {
        if (value && (!limit || value < limit))
            limit = value;
    };
    while (std::getline(self, line)) {
        // "0::/path" (v2) or "4:memory:/path" (v1)
        const size_t first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos)
            continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        if (controllers.empty()) {
            consider(cgroupLimitFrom("/sys/fs/cgroup" + path + "/memory.max"));
            consider(cgroupLimitFrom("/sys/fs/cgroup/memory.max")); // a container sees its own as the root
        } else if (controllers.find("memory") != std::string::npos) {
            consider(cgroupLimitFrom("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes"));
            consider(cgroupLimitFrom("/sys/fs/cgroup/memory/memory.limit_in_bytes"));
        }
    }
    return limit;
}

uint64_t addressSpaceLimit()
{
    struct rlimit limit
    {
    };
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return 0;
    return static_cast<uint64_t>(limit.rlim_cur);
}

} // namespace

DefaultMemoryBudget defaultMemoryBudget()
{
    DefaultMemoryBudget budget {physicalMemory() / 4 * 3, "3/4 of this machine's RAM"};
    if (const uint64_t as = addressSpaceLimit(); as && as < budget.bytes)
        budget = {as, "the address-space limit (ulimit -v)"};
    if (const uint64_t cgroup = cgroupMemoryLimit(); cgroup && cgroup < budget.bytes)
        budget = {cgroup, "the container's memory limit (cgroup memory.max)"};
    return budget;
}

std::string environmentLimitsError()
{
    struct Limit
    {
        const char* name;
        uint64_t max;
    };
    for (const Limit limit : {Limit {"TPUSCOPE_MEMORY_BUDGET_MB", kMaxLimitMb},
             Limit {"TPUSCOPE_MAX_EVENTS", UINT64_MAX}, Limit {"TPUSCOPE_MAX_COMPRESSION_RATIO", UINT64_MAX},
             Limit {"TPUSCOPE_MAX_HLO_INSTRUCTIONS", UINT64_MAX}}) {
        const char* text = std::getenv(limit.name);
        if (!text || !*text)
            continue;
        char* end = nullptr;
        errno = 0;
        const unsigned long long value = std::strtoull(text, &end, 10);
        if (*text == '-' || errno == ERANGE || !end || *end != '\0' || value == 0 || value > limit.max)
            return std::string(limit.name) + "=" + text + " is not a positive number"
                + (limit.max != UINT64_MAX ? " of at most " + std::to_string(limit.max) : std::string());
    }
    return {};
}

LoadLimits effectiveLimits(const LoadOptions& options)
{
    LoadLimits limits;
    const uint64_t budgetMb = environmentNumber("TPUSCOPE_MEMORY_BUDGET_MB");
    DefaultMemoryBudget fallback;
    if (!options.memoryBudgetBytes && !budgetMb)
        fallback = defaultMemoryBudget();
    limits.memoryBudgetBytes = options.memoryBudgetBytes ? options.memoryBudgetBytes
        : budgetMb                                       ? std::min(budgetMb, kMaxLimitMb) << 20
                                                         : fallback.bytes;
    const uint64_t events = environmentNumber("TPUSCOPE_MAX_EVENTS");
    limits.maxEvents = options.maxEvents ? options.maxEvents : events ? events : UINT64_MAX;
    limits.eventsHint = "raise it with --max-events N (tpuscope-cli) or the environment variable "
                        "TPUSCOPE_MAX_EVENTS=N (tpuscope and tpuscope-cli)";
    const uint64_t instructions = environmentNumber("TPUSCOPE_MAX_HLO_INSTRUCTIONS");
    limits.maxHloInstructions = options.maxHloInstructions ? options.maxHloInstructions
        : instructions                                     ? instructions
                                                           : LoadLimits::kDefaultMaxHloInstructions;
    limits.hloHint = "raise it with --max-hlo-instructions N (tpuscope-cli) or the environment variable "
                     "TPUSCOPE_MAX_HLO_INSTRUCTIONS=N (tpuscope and tpuscope-cli)";
    limits.budgetHint
        = std::string(options.memoryBudgetBytes || budgetMb ? "the budget was set by "
                      + std::string(options.memoryBudgetBytes ? "--memory-budget-mb" : "TPUSCOPE_MEMORY_BUDGET_MB")
                                                            : "the default budget is " + fallback.source)
        + "; raise it with --memory-budget-mb N (tpuscope-cli) or the environment variable "
          "TPUSCOPE_MEMORY_BUDGET_MB=N (tpuscope and tpuscope-cli)";
    return limits;
}

uint64_t effectiveDecompressLimit(const LoadOptions& options)
{
    if (options.maxDecompressedBytes)
        return options.maxDecompressedBytes;
    return std::max<uint64_t>(effectiveLimits(options).memoryBudgetBytes, 1ull << 30);
}

uint64_t effectiveCompressionRatio(const LoadOptions& options)
{
    if (options.maxCompressionRatio)
        return options.maxCompressionRatio;
    const uint64_t fromEnvironment = environmentNumber("TPUSCOPE_MAX_COMPRESSION_RATIO");
    return fromEnvironment ? fromEnvironment : kDefaultMaxCompressionRatio;
}

FileFormat detectFormat(std::string_view head)
{
    if (isGzip(head))
        return FileFormat::Gzip;
    // Riegeli files open with a fixed 64-byte signature block (first bytes 83 AF 70 D1).
    if (head.size() >= 4 && static_cast<unsigned char>(head[0]) == 0x83 && static_cast<unsigned char>(head[1]) == 0xAF
        && static_cast<unsigned char>(head[2]) == 0x70 && static_cast<unsigned char>(head[3]) == 0xD1)
        return FileFormat::Riegeli;
    // The legacy Trace check is strict (every top-level field must have the Trace shape; JSON
    // text and XSpace planes with a printable name never do) and runs before the looser XSpace
    // probe, which accepts a Trace whose first device is empty.
    if (looksLikeLegacyTrace(head))
        return FileFormat::LegacyTrace;
    // XSpace first: its first tag byte is 0x0A ('\n'), and a plane length of 123 or 91 would
    // otherwise read as whitespace followed by '{' or '['.
    if (looksLikeXSpace(head))
        return FileFormat::XSpace;
    const std::string_view text = skipWhitespace(head);
    if (!text.empty() && (text.front() == '{' || text.front() == '[')) {
        return looksLikeOpProfileJson(text) ? FileFormat::OpProfileJson : FileFormat::ChromeJson;
    }
    if (looksLikeShareFile(head))
        return FileFormat::ShareFile;
    if (looksLikeXSpace(head))
        return FileFormat::XSpace;
    return FileFormat::Unknown;
}

namespace {

// How much inflated text identifies a format, and how far the inflate thread may run ahead of a
// streaming JSON reader (inflated bytes waiting to be parsed are memory, too).
constexpr size_t kDetectBytes = 64 << 10;
constexpr size_t kInflateReadAhead = 64 << 20;
// Until the format is known the stream inflates only a little past what detection asks for; the
// format then sets its own read-ahead (JSON: kInflateReadAhead; the others: none).
constexpr size_t kDetectReadAhead = 2 << 20;

/// Waits for the whole inflated stream, reporting progress and honouring cancel.
std::string_view inflateAll(InflateStream& stream, const ProgressFn& progress, std::stop_token stop)
{
    std::string_view have = stream.waitFor(0);
    for (;;) {
        const std::string_view next = stream.waitFor(have.size() + (16 << 20));
        if (next.size() == have.size() || stop.stop_requested())
            return next;
        have = next;
        if (progress)
            progress("decompressing", stream.fraction(nullptr));
    }
}

} // namespace

DecodeOutcome decodeInto(const DecodeInput& input, ProfileBuilder& builder, const LoadOptions& options,
    const ProgressFn& progress, std::stop_token stop)
{
    std::string_view bytes = input.bytes;
    ByteSource* const file = input.file;
    const std::string& name = input.name;
    const OpProfileTarget* const opProfile = input.opProfile;
    DecodeOutcome outcome;
    outcome.fileBytes = bytes.size();
    auto fail = [&](std::string message) {
        outcome.error = std::move(message);
        return outcome;
    };
    if (bytes.empty())
        return fail("the file is empty");

    FileFormat format = detectFormat(bytes);
    if (format == FileFormat::Unknown && name.ends_with(".riegeli"))
        format = FileFormat::Riegeli;
    ByteSource* source = file;
    std::unique_ptr<InflateStream> stream;
    std::string inflated; // when no address space could be reserved for streaming
    const uint64_t limit = effectiveDecompressLimit(options);
    const uint64_t ratio = effectiveCompressionRatio(options);
    if (format == FileFormat::Gzip) {
        outcome.compressed = true;
        stream = std::make_unique<InflateStream>(bytes, limit, ratio);
        // TPUSCOPE_XSPACE_READ_AHEAD=bytes holds the inflate back from the start, so tests get XSpace
        // planes that arrive while the rest is inflated, whatever the machine's speed.
        const std::optional<size_t> heldBack = xspace::positiveFromEnvironment("TPUSCOPE_XSPACE_READ_AHEAD");
        stream->setReadAhead(heldBack.value_or(kDetectReadAhead));
        std::string error;
        if (stream->start(error)) {
            std::string_view head = stream->waitFor(kDetectBytes);
            format = detectFormat(head);
            if (format == FileFormat::Unknown) {
                // The binary probes read up to 1 MiB before they give up on a format.
                head = stream->waitFor((1 << 20) + 1);
                format = detectFormat(head);
            }
            if (format == FileFormat::ChromeJson && !opProfile) {
                stream->setReadAhead(kInflateReadAhead);
                bytes = head;
                source = stream.get();
            } else if (format == FileFormat::XSpace && !opProfile) {
                // Decoded plane by plane as it arrives, on this thread while the inflate runs on its
                // own (xspacearrival.h): the two overlap. No read-ahead limit: the decoder hands the
                // pages of each line back once decoded, and waits for nothing but its next plane.
                stream->setReadAhead(heldBack.value_or(0));
                bytes = head;
                source = stream.get();
            } else if (format == FileFormat::Unknown && stream->error().empty()) {
                return fail("not a profile tpuscope can read (the gzip file holds neither an XSpace, a Chrome trace, "
                            "a TF1 trace nor op_profile.json)");
            } else {
                stream->setReadAhead(0);
                bytes = inflateAll(*stream, progress, stop); // the other decoders need every byte at once
                if (stop.stop_requested())
                    return fail("cancelled");
                if (!stream->error().empty())
                    return fail(stream->error());
                format = detectFormat(bytes);
                // The XSpace decoder hands inflated lines back once their events are read.
                // So does op_profile once its document is parsed.
                source = format == FileFormat::XSpace || format == FileFormat::OpProfileJson ? stream.get() : nullptr;
            }
        } else {
            stream.reset();
            auto inflateProgress = [&](double f) {
                if (progress)
                    progress("decompressing", f);
            };
            if (!gunzip(bytes, inflated, limit, error, inflateProgress, stop, ratio))
                return fail(error);
            bytes = inflated;
            format = detectFormat(bytes);
            source = nullptr;
        }
        if (format == FileFormat::Gzip)
            return fail("gzip inside gzip is not a profile format");
    }
    outcome.format = format;
    if (opProfile && format != FileFormat::OpProfileJson)
        return fail("expected op_profile JSON, found " + std::string(fileFormatName(format)));

    std::string error;
    switch (format) {
    case FileFormat::XSpace: {
        const bool arriving = stream && source == stream.get();
        bool rereadWhole = false;
        error = decodeXSpace(bytes, builder, 0, progress, stop, source, arriving ? &rereadWhole : nullptr);
        if (rereadWhole) {
            // Times near the int64 limits: planes decoded early could not be moved to the final
            // origin exactly. The inflated pages they used are gone, so the file is inflated again
            // and decoded once it is whole (the builder is untouched so far).
            stream.reset();
            stream = std::make_unique<InflateStream>(input.bytes, limit, ratio);
            std::string streamError;
            if (!stream->start(streamError))
                return fail(streamError);
            source = stream.get();
            bytes = inflateAll(*stream, progress, stop);
            error = decodeXSpace(bytes, builder, 0, progress, stop, source);
        }
        break;
    }
    case FileFormat::ChromeJson:
        error = decodeChromeJson(bytes, builder, 0, progress, stop, source);
        break;
    case FileFormat::LegacyTrace:
        error = decodeLegacyTrace(bytes, builder, 0, progress, stop);
        break;
    case FileFormat::OpProfileJson: {
        OpProfileDecodeOptions o;
        if (opProfile) {
            o.attachToPlane = opProfile->attachToPlane;
            if (opProfile->attachToPlane != kNone)
                o.trackName = "XLA Ops (op_profile totals)";
        }
        error = decodeOpProfile(bytes, builder, o, progress, stop, source);
        break;
    }
    case FileFormat::ShareFile:
        error = decodeShareFile(bytes, builder, progress, stop);
        break;
    case FileFormat::Riegeli:
        return fail("this is a Riegeli file (*.xplane.riegeli), which tpuscope does not read; ask the profiler "
                    "for an *.xplane.pb (e.g. jax.profiler with the default exporter) or a trace.json.gz");
    case FileFormat::Gzip:
    case FileFormat::Unknown:
        return fail("not a profile tpuscope can read (expected an XSpace *.xplane.pb, a Chrome trace *.json[.gz], "
                    "a TF1 trace or op_profile.json)");
    }
    if (stop.stop_requested())
        return fail("cancelled");
    outcome.decodedBytes = bytes.size();
    if (stream && source == stream.get() && format == FileFormat::XSpace) {
        // Read as it was inflated: a gzip error (damage, a limit) fails the load, as it did when
        // the file was inflated first, whatever the decoder made of the bytes before it.
        outcome.decodedBytes = stream->waitFor(0).size();
        if (stream->complete() && !stream->error().empty())
            return fail(stream->error());
    }
    if (stream && source == stream.get() && format == FileFormat::ChromeJson) {
        // The JSON was parsed while it was inflated: a gzip error ended the text early.
        outcome.decodedBytes = stream->waitFor(0).size();
        const std::string gzipError = stream->error();
        if (!gzipError.empty() && stream->stoppedByLimit())
            return fail(gzipError); // a bomb is refused, not shown in part
        if (!gzipError.empty() && !error.empty())
            return fail(gzipError + " (" + error + ")");
        if (!gzipError.empty())
            builder.profile().load.warnings.push_back(gzipError + "; showing the events read before it");
    }
    if (!error.empty())
        return fail(error);
    return outcome;
}

namespace {

/// What a load says about a mapped file that another process truncated while it was read.
std::string shrankMessage(const std::string& path, uint64_t mappedBytes)
{
    std::error_code ec;
    const auto now = std::filesystem::file_size(path, ec);
    return "the file shrank while it was read (from " + std::to_string(mappedBytes) + " bytes"
        + (ec ? std::string() : " to " + std::to_string(now)) + "); it was read as truncated";
}

} // namespace

DecodeOutcome decodeFileInto(const std::string& path, ProfileBuilder& builder, const LoadOptions& options,
    const ProgressFn& progress, std::stop_token stop, const OpProfileTarget* opProfile,
    const std::string& warningPrefix)
{
    MappedFile file;
    DecodeOutcome outcome;
    if (!file.open(path, outcome.error))
        return outcome;
    if (progress)
        progress("reading", 1.0);
    outcome = decodeInto(DecodeInput {file.bytes(), &file, path, opProfile}, builder, options, progress, stop);
    if (file.shrank()) {
        const std::string shrank = shrankMessage(path, file.bytes().size());
        if (!outcome.error.empty())
            outcome.error = shrank + " (" + outcome.error + ")";
        else
            builder.profile().load.warnings.push_back(warningPrefix + shrank);
    }
    return outcome;
}

std::string outOfMemoryMessage(const std::string& name, const LoadOptions& options)
{
    return outOfMemoryMessage(name, options, "loading");
}

std::string outOfMemoryMessage(const std::string& name, const LoadOptions& options, const std::string& what)
{
    const LoadLimits limits = effectiveLimits(options);
    std::string message = name
        + (what == "loading" ? std::string(": out of memory while loading") : ": not enough memory for " + what)
        + " (memory budget " + std::to_string(limits.memoryBudgetBytes >> 20) + " MiB";
    if (const uint64_t as = addressSpaceLimit())
        message += ", address-space limit " + std::to_string(as >> 20) + " MiB";
    if (const uint64_t cgroup = cgroupMemoryLimit())
        message += ", container limit " + std::to_string(cgroup >> 20) + " MiB";
    return message + "); the file needs more memory than this process may use";
}

} // namespace tpuscope::model
