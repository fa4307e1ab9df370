// SPDX-License-Identifier: GPL-3.0-or-later
#include "loader.h"

#include "formats.h"
#include "gzip.h"
#include "logdir.h"
#include "xspaceloader.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace tpuscope::model {

const char* fileFormatName(FileFormat format)
{
    switch (format) {
    case FileFormat::XSpace: return "xspace";
    case FileFormat::ChromeJson: return "chrome-json";
    case FileFormat::LegacyTrace: return "legacy-trace";
    case FileFormat::OpProfileJson: return "op-profile-json";
    case FileFormat::ShareFile: return "tpuscope-share";
    case FileFormat::Riegeli: return "riegeli";
    case FileFormat::Gzip: return "gzip";
    case FileFormat::Unknown: return "unknown";
    }
    return "unknown";
}

namespace {

uint64_t defaultDecompressLimit()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    const uint64_t ram = pages > 0 && pageSize > 0 ? static_cast<uint64_t>(pages) * pageSize : (8ull << 30);
    return std::max<uint64_t>(ram / 2, 1ull << 30);
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

LoadResult loadProfileFromBytes(std::string bytes, const std::string& name, const LoadOptions& options,
                                const ProgressFn& progress, std::stop_token stop)
{
    const auto started = std::chrono::steady_clock::now();
    LoadResult result;
    const uint64_t fileBytes = bytes.size();
    auto fail = [&](const std::string& message) {
        result.error = name + ": " + message;
        return result;
    };
    if (bytes.empty())
        return fail("the file is empty");

    FileFormat format = detectFormat(bytes);
    if (format == FileFormat::Unknown && name.ends_with(".riegeli"))
        format = FileFormat::Riegeli;
    bool compressed = false;
    if (format == FileFormat::Gzip) {
        std::string inflated;
        std::string error;
        const uint64_t limit = options.maxDecompressedBytes ? options.maxDecompressedBytes : defaultDecompressLimit();
        auto inflateProgress = [&](double f) {
            if (progress)
                progress("decompressing", f);
        };
        if (!gunzip(bytes, inflated, limit, error, inflateProgress, stop))
            return fail(error);
        bytes = std::move(inflated);
        bytes.shrink_to_fit();
        compressed = true;
        format = detectFormat(bytes);
        if (format == FileFormat::Gzip)
            return fail("gzip inside gzip is not a profile format");
    }

    ProfileBuilder builder;
    builder.addHost({});
    std::string error;
    switch (format) {
    case FileFormat::XSpace: error = decodeXSpace(bytes, builder, 0, progress, stop); break;
    case FileFormat::ChromeJson: error = decodeChromeJson(bytes, builder, 0, progress, stop); break;
    case FileFormat::LegacyTrace: error = decodeLegacyTrace(bytes, builder, 0, progress, stop); break;
    case FileFormat::OpProfileJson: error = decodeOpProfileJson(bytes, builder, progress, stop); break;
    case FileFormat::ShareFile: error = decodeShareFile(bytes, builder, progress, stop); break;
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
    if (!error.empty())
        return fail(error);

    Profile& profile = builder.profile();
    profile.load.path = name;
    profile.load.format = std::string(fileFormatName(format)) + (compressed ? ".gz" : "");
    profile.load.fileBytes = fileBytes;
    profile.load.decodedBytes = bytes.size();
    if (progress)
        progress("indexing", 1.0);
    auto finished = builder.finish(options.deviceOverride);
    // seconds is set after finish so it covers the whole load; the profile is not yet shared.
    const_cast<Profile&>(*finished).load.seconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    result.profile = std::move(finished);
    return result;
}

LoadResult loadProfile(const std::string& path, const LoadOptions& options, const ProgressFn& progress,
                       std::stop_token stop)
{
    const auto started = std::chrono::steady_clock::now();
    // A TensorBoard logdir, plugins/profile or run directory: open the newest run, all hosts.
    if (std::error_code ec; std::filesystem::is_directory(path, ec))
        return loadNewestRun(path, options, progress, stop);
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return LoadResult{nullptr, path + ": cannot open the file for reading"};
    const std::streamoff size = in.tellg();
    if (size < 0)
        return LoadResult{nullptr, path + ": cannot read the file size (is it a directory?)"};
    std::string bytes(static_cast<size_t>(size), '\0');
    in.seekg(0);
    if (size > 0 && !in.read(bytes.data(), size))
        return LoadResult{nullptr, path + ": read error"};
    if (progress)
        progress("reading", 1.0);
    LoadResult result = loadProfileFromBytes(std::move(bytes), path, options, progress, stop);
    if (result.profile)
        const_cast<Profile&>(*result.profile).load.seconds
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

} // namespace tpuscope::model
