// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Shared, Qt-free code of the benchmarks (bench_load, bench_json, bench_suite): the seeded input
// generators of PERFORMANCE.md (Appendix A Chrome JSON, Appendix B XSpace), the libprotobuf-arena
// reference reader, and small process/memory helpers. Generated inputs are measurement data only:
// they go to a temp dir and never into git.

#include "synth/benchinputs.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tpuscope::bench {

// The seeded input generators live in the synth library (model/synth/benchinputs.h), shared with
// the CLI's synth command and the tests.
using model::generateChromeJson;
using model::generateXSpace;
using model::JsonStyle;

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
