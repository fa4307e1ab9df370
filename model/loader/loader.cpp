// SPDX-License-Identifier: GPL-3.0-or-later
// The load front door: one file (through decodeInto), a log dir (through logdir.h) or bytes in
// memory, finished into an immutable Profile.
#include "loader.h"

#include "core/heaptrim.h"
#include "logdir.h"

#include <chrono>
#include <filesystem>
#include <new>

namespace tpuscope::model {

namespace {

/// A builder set up for one input: its host, limits and preview.
void prepare(ProfileBuilder& builder, const std::string& name, const LoadOptions& options,
    std::chrono::steady_clock::time_point started)
{
    builder.addHost({});
    builder.setLimits(effectiveLimits(options));
    builder.setLoadStart(started);
    builder.profile().load.path = name; // known to previews, too
    if (options.preview) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        builder.setPreview(
            options.preview, std::max(0.0, options.previewAfterSeconds - elapsed), options.deviceOverride);
    }
}

/// The finished profile of a decode, or its error prefixed by the input's name.
LoadResult finishLoad(ProfileBuilder& builder, const DecodeOutcome& decoded, const std::string& name,
    const LoadOptions& options, const ProgressFn& progress)
{
    if (!decoded.error.empty())
        return LoadResult {nullptr, name + ": " + decoded.error};
    Profile& profile = builder.profile();
    profile.load.path = name;
    profile.load.format = decoded.formatLabel();
    profile.load.fileBytes = decoded.fileBytes;
    profile.load.decodedBytes = decoded.decodedBytes;
    if (progress)
        progress("indexing", 1.0);
    // finish() sets load.seconds from the start given to the builder, so it covers the whole load.
    LoadResult result {builder.finish(options.deviceOverride, options.coresOverride), {}};
    // Columns grown by doubling leave their old buffers in the heap, below glibc's mmap
    // threshold; handing them back keeps resident memory at what the profile holds.
    returnFreedHeapToSystem();
    return result;
}

} // namespace

LoadResult loadProfileFromBytes(std::string bytes, const std::string& name, const LoadOptions& options,
    const ProgressFn& progress, std::stop_token stop)
{
    if (const std::string error = environmentLimitsError(); !error.empty())
        return LoadResult {nullptr, error};
    try {
        ProfileBuilder builder;
        prepare(builder, name, options, std::chrono::steady_clock::now());
        const DecodeOutcome decoded = decodeInto(DecodeInput {bytes, nullptr, name}, builder, options, progress, stop);
        return finishLoad(builder, decoded, name, options, progress);
    } catch (const std::bad_alloc&) {
        return LoadResult {nullptr, outOfMemoryMessage(name, options)};
    }
}

LoadResult loadProfile(
    const std::string& path, const LoadOptions& options, const ProgressFn& progress, std::stop_token stop)
{
    if (const std::string error = environmentLimitsError(); !error.empty())
        return LoadResult {nullptr, error};
    // The load boundary of both programs: a structure that does not fit in memory (or in the
    // address space under ulimit -v) ends the load with a message, never an abort.
    try {
        // A TensorBoard logdir, plugins/profile or run directory: open the newest run, all hosts.
        if (std::error_code ec; std::filesystem::is_directory(path, ec))
            return loadNewestRun(path, options, progress, stop);
        ProfileBuilder builder;
        prepare(builder, path, options, std::chrono::steady_clock::now());
        const DecodeOutcome decoded = decodeFileInto(path, builder, options, progress, stop);
        return finishLoad(builder, decoded, path, options, progress);
    } catch (const std::bad_alloc&) {
        return LoadResult {nullptr, outOfMemoryMessage(path, options)};
    }
}

} // namespace tpuscope::model
