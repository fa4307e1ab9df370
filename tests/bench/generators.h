// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Shared, Qt-free code of the benchmarks (bench_load, bench_json, bench_suite): the seeded input
// generators of PERFORMANCE.md (Appendix A Chrome JSON, Appendix B XSpace), the libprotobuf-arena
// reference reader, and small process/memory helpers. Generated inputs are measurement data only:
// they go to a temp dir and never into git.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tpuscope::bench {

/// Arg style of the Chrome JSON generator: "appendixA" (long_name + flops, as PERFORMANCE.md
/// Appendix A) or "tsl" (the args jax.profiler really writes: hlo_category, long_name,
/// model_flops, bytes_accessed, shape_with_layout, tf_op, source, device_offset_ps,
/// device_duration_ps).
enum class JsonStyle { AppendixA, Tsl };

/// Writes an XSpace of `n` XLA-op events over 8 TPU cores (plus one step event per 1000 ops on a
/// "Steps" line), fixed seed, as PERFORMANCE.md Appendix B. Writes `plainPath` and, when
/// `gzPath` is not empty, the same bytes gzip-compressed at `gzLevel` in the same pass. Files are
/// written under a temporary name and renamed when complete, so an existing file is always
/// whole. Returns false (with `error`) when a file cannot be written.
bool generateXSpace(uint64_t n, const std::string& plainPath, const std::string& gzPath = {}, int gzLevel = 6,
    std::string* error = nullptr);

/// Writes a Chrome trace JSON of `n` 'X' events (every 1000th on a core is a step event) over 8
/// TPU-core "XLA Ops" tracks with a 3000-name vocabulary, fixed seed, as PERFORMANCE.md Appendix
/// A; gz as for generateXSpace.
bool generateChromeJson(uint64_t n, JsonStyle style, const std::string& plainPath, const std::string& gzPath = {},
    int gzLevel = 6, std::string* error = nullptr);

/// Result of the reference reader: libprotobuf arena parse of the file plus a walk that copies
/// every event into a packed 32-byte record (what a viewer needs at the least).
struct ProtobufWalk
{
    bool ok = false;
    std::string error;
    uint64_t events = 0;
    uint64_t bytes = 0; // of the (uncompressed) input
    double readSeconds = 0; // file → memory
    double parseSeconds = 0; // ParseFromArray on an arena
    double walkSeconds = 0; // events → packed records
    double seconds = 0; // all three: the figure tpuscope's load is compared with
    double peakBytesPerEvent = 0; // VmHWM growth over the reader, per event (meaningful in a fresh child)
};
/// Reads a plain (not gzipped) XSpace file with libprotobuf; run it in a child (runInChild) so
/// the peak is its own.
ProtobufWalk libprotobufArenaWalk(const std::string& path);

/// Reads the whole file once so that the measured runs find it in the page cache.
bool warmPageCache(const std::string& path);
/// gzip of a file at `level`, in-process (the benchmarks must not depend on a gzip binary).
bool gzipFile(const std::string& from, const std::string& to, int level = 6);

/// A field of /proc/self/status in kB ("VmRSS:", "VmHWM:"); 0 when unavailable.
long statusKb(const char* key);
/// Resets VmHWM to the current RSS (writes 5 to /proc/self/clear_refs); false where unsupported.
bool resetPeakRss();
/// The three load averages of /proc/loadavg (zeros when unreadable).
std::vector<double> loadAverage();

/// Runs `fn` in a forked child and returns what it returned (through a pipe), so that memory
/// figures are per call and a crash cannot take the driver down. Empty on a failed child.
std::string runInChild(const std::function<std::string()>& fn);

/// "1e6", "1000000", "2.5e5" → count; 0 for text that is not a positive number.
uint64_t parseCount(const std::string& text);
/// Seconds of a steady clock since `since`.
double secondsSince(int64_t sinceNs);
int64_t steadyNs();

} // namespace tpuscope::bench
