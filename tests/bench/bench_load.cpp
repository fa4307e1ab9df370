// SPDX-License-Identifier: GPL-3.0-or-later
// XSpace load benchmark: generates XSpaces of N events over 8 TPU cores (fixed seed, Appendix B
// of PERFORMANCE.md) into a temp dir, then, each case in its own child process so peak memory
// is per case, times tpuscope's load and a plain libprotobuf arena parse + walk of the same
// file. Prints one JSON line per case.
//
//   bench_load [N ...]          default: 1e5 1e6 1e7
//   bench_load --generate N PATH [CORES]  only write the input (for profiling with perf), over 8
//                                 TPU cores or CORES (1: a single-chip profile, one large plane)
//   bench_load --load PATH [R]    load an existing file R times (default 3), one line each
//   bench_load --gz-ratio FILE.gz [PLAIN] [R]  the .gz load as a ratio of `gzip -dc FILE.gz` and of
//                                 the plain file's load (median of R, default 3), with ISA-L
//                                 (the default) and with zlib (TPUSCOPE_INFLATER=zlib)
//   bench_load --summary-ratio CLI FILE [R]  `CLI summary FILE` against a libprotobuf arena parse +
//                                 walk of FILE (median of R, default 3)
//   bench_load --scale-ratio SMALL BIG [R]  the load of BIG as a multiple of SMALL's, per event, and
//                                 BIG's peak memory (median of R, default 3)
#include "generators.h"
#include "loader/gzip.h"
#include "loader/loader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

using tpuscope::bench::statusKb;

double seconds(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Inflate alone (tpuscope's gunzip over the file in memory): MB/s of output.
void measureGunzip(const std::string& path, size_t n, uintmax_t bytes)
{
    std::ifstream in(path, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto t0 = std::chrono::steady_clock::now();
    std::string out, error;
    if (!tpuscope::model::gunzip(data, out, 1ull << 40, error)) {
        std::printf("{\"error\":\"%s\"}\n", error.c_str());
        return;
    }
    const double s = seconds(t0);
    std::printf("{\"case\":\"xspace.gz-%zu\",\"reader\":\"tpuscope-gunzip\",\"bytes\":%ju,\"inflated_bytes\":%zu,"
                "\"seconds\":%.4f,\"mb_per_s\":%.1f}\n",
        n, bytes, out.size(), s, out.size() / s / 1e6);
}

// Child process: one measurement, printed as fields of the JSON line.
void measureTpuscope(const std::string& path, size_t n, uintmax_t bytes, const char* format = "xspace")
{
    const long baseKb = statusKb("VmRSS:");
    const auto t0 = std::chrono::steady_clock::now();
    auto result = tpuscope::model::loadProfile(path);
    const double s = seconds(t0);
    if (!result.ok()) {
        std::printf("{\"error\":\"%s\"}\n", result.error.c_str());
        return;
    }
    const long rssKb = statusKb("VmRSS:");
    const long peakKb = statusKb("VmHWM:");
    if (n == 0) // --load: size from the file
        n = result.profile->eventCount();
    std::printf("{\"case\":\"%s-%zu\",\"reader\":\"tpuscope\",\"bytes\":%ju,\"events\":%zu,\"seconds\":%.4f,"
                "\"events_per_s\":%.0f,\"mb_per_s\":%.1f,\"resident_bytes_per_event\":%.1f,"
                "\"peak_bytes_per_event\":%.1f,\"peak_over_resident_mb\":%.1f}\n",
        format, n, bytes, result.profile->eventCount(), s, result.profile->eventCount() / s,
        result.profile->load.decodedBytes / s / 1e6, (rssKb - baseKb) * 1024.0 / n, (peakKb - baseKb) * 1024.0 / n,
        (peakKb - rssKb) / 1024.0);
}

void measureLibprotobuf(const std::string& path, size_t n, uintmax_t bytes)
{
    const tpuscope::bench::ProtobufWalk walk = tpuscope::bench::libprotobufArenaWalk(path);
    if (!walk.ok) {
        std::printf("{\"error\":\"%s\"}\n", walk.error.c_str());
        return;
    }
    std::printf("{\"case\":\"xspace-%zu\",\"reader\":\"libprotobuf-arena\",\"bytes\":%ju,\"events\":%ju,"
                "\"seconds\":%.4f,\"parse_seconds\":%.4f,\"events_per_s\":%.0f,\"mb_per_s\":%.1f,"
                "\"peak_bytes_per_event\":%.1f}\n",
        n, bytes, static_cast<uintmax_t>(walk.events), walk.seconds, walk.parseSeconds, walk.events / walk.seconds,
        bytes / walk.seconds / 1e6, walk.peakBytesPerEvent);
}

std::string machine()
{
    const std::vector<double> load = tpuscope::bench::loadAverage();
    char out[160];
    std::snprintf(out, sizeof out, "\"machine_cores\":%ld,\"loadavg\":[%.2f,%.2f,%.2f]", sysconf(_SC_NPROCESSORS_ONLN),
        load.size() > 0 ? load[0] : 0, load.size() > 1 ? load[1] : 0, load.size() > 2 ? load[2] : 0);
    return out;
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// CPU seconds (user + system) of the children waited for so far: on a shared machine the wall
// clock measures the neighbours too, the CPU time less so.
double childrenCpuSeconds()
{
    rusage usage {};
    getrusage(RUSAGE_CHILDREN, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double childrenUserSeconds()
{
    rusage usage {};
    getrusage(RUSAGE_CHILDREN, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6;
}

// One load in a fresh child (so each run starts cold in memory): its seconds (-1 on failure), its
// events and its peak memory above the child's start.
struct ChildLoad
{
    double seconds = -1;
    double events = 0;
    double peakGiB = 0;
};

ChildLoad childLoad(const std::string& path, const char* inflater = nullptr)
{
    const std::string text = tpuscope::bench::runInChild([&] {
        if (inflater)
            setenv("TPUSCOPE_INFLATER", inflater, 1);
        const long baseKb = statusKb("VmRSS:");
        const auto t0 = std::chrono::steady_clock::now();
        const auto result = tpuscope::model::loadProfile(path);
        const double s = seconds(t0);
        return result.ok() ? std::to_string(s) + " " + std::to_string(result.profile->eventCount()) + " "
                + std::to_string((statusKb("VmHWM:") - baseKb) / 1048576.0)
                           : std::string("-1 0 0");
    });
    ChildLoad load;
    std::sscanf(text.c_str(), "%lf %lf %lf", &load.seconds, &load.events, &load.peakGiB);
    return load;
}

// Issue 24 point 2: the .gz load against `gzip -dc` of the same file (the speed of the disk's
// decompressor alone; zlib in-process when there is no gzip binary) and against the plain load.
struct Series
{
    std::vector<double> wall, cpu, user;
    template <typename Fn> void time(Fn fn)
    {
        const double cpu0 = childrenCpuSeconds(), user0 = childrenUserSeconds();
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        wall.push_back(seconds(t0));
        cpu.push_back(childrenCpuSeconds() - cpu0);
        user.push_back(childrenUserSeconds() - user0);
    }
};

void measureGzipRatio(const std::string& gzPath, const std::string& plainPath, size_t n, int repeats)
{
    Series gzipDc, fast, slow, plain;
    bool haveGzip = std::system("command -v gzip >/dev/null 2>&1") == 0;
    for (int r = 0; r < repeats; ++r) {
        gzipDc.time([&] {
            if (haveGzip)
                haveGzip = std::system(("gzip -dc '" + gzPath + "' >/dev/null").c_str()) == 0;
            if (!haveGzip)
                tpuscope::bench::runInChild([&] {
                    std::ifstream in(gzPath, std::ios::binary);
                    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), out,
                        error;
                    tpuscope::model::gunzip(data, out, 1ull << 40, error);
                    return std::string();
                });
        });
        fast.time([&] { childLoad(gzPath); });
        slow.time([&] { childLoad(gzPath, "zlib"); });
        if (!plainPath.empty())
            plain.time([&] { childLoad(plainPath); });
    }
    const double reference = median(gzipDc.wall), f = median(fast.wall), z = median(slow.wall), p = median(plain.wall);
    const double referenceCpu = median(gzipDc.cpu), fCpu = median(fast.cpu), zCpu = median(slow.cpu),
                 pCpu = median(plain.cpu);
    std::printf("{\"case\":\"xspace.gz-%zu\",\"reader\":\"ratio\",\"reference\":\"%s\",\"repeats\":%d,"
                "\"gzip_dc_seconds\":%.4f,\"load_seconds\":%.4f,\"load_zlib_seconds\":%.4f,"
                "\"plain_load_seconds\":%.4f,\"ratio_to_gzip_dc\":%.2f,\"zlib_ratio_to_gzip_dc\":%.2f,"
                "\"ratio_to_plain\":%.2f,\"ns_per_event\":%.1f,\"gzip_dc_cpu_seconds\":%.4f,\"load_cpu_seconds\":%.4f,"
                "\"load_zlib_cpu_seconds\":%.4f,\"plain_load_cpu_seconds\":%.4f,\"cpu_ratio_to_gzip_dc\":%.2f,"
                "\"zlib_cpu_ratio_to_gzip_dc\":%.2f,\"cpu_ns_per_event\":%.1f,%s}\n",
        n, haveGzip ? "gzip -dc" : "zlib gunzip", repeats, reference, f, z, p, f / reference, z / reference,
        p > 0 ? f / p : 0, n ? f * 1e9 / n : 0, referenceCpu, fCpu, zCpu, pCpu, fCpu / referenceCpu,
        zCpu / referenceCpu, n ? fCpu * 1e9 / n : 0, machine().c_str());
    std::fflush(stdout);
}

// Issue 24 point 1: `tpuscope-cli summary FILE` (the real command, its output dropped) against a
// plain libprotobuf arena parse + walk of the same file, each in a fresh process, alternating.
void measureSummaryRatio(const std::string& cli, const std::string& path, int repeats)
{
    Series summary, protobuf;
    tpuscope::bench::warmPageCache(path);
    for (int r = 0; r < repeats; ++r) {
        summary.time([&] { std::system(("'" + cli + "' summary '" + path + "' >/dev/null 2>&1").c_str()); });
        protobuf.time([&] {
            tpuscope::bench::runInChild([&] {
                const tpuscope::bench::ProtobufWalk walk = tpuscope::bench::libprotobufArenaWalk(path);
                return std::to_string(walk.events);
            });
        });
    }
    // The walk's system time is mostly the kernel zeroing its ~200 B per event of fresh arena
    // pages, which on a VM that hands freed memory back to its host costs several times its user
    // time: user_ratio (summary wall against the walk's user time) does not depend on that.
    const double s = median(summary.wall), p = median(protobuf.wall), pUser = median(protobuf.user);
    std::printf("{\"case\":\"summary-vs-libprotobuf\",\"file\":\"%s\",\"repeats\":%d,\"summary_seconds\":%.4f,"
                "\"libprotobuf_seconds\":%.4f,\"ratio\":%.3f,\"summary_cpu_seconds\":%.4f,"
                "\"libprotobuf_cpu_seconds\":%.4f,\"cpu_ratio\":%.3f,\"libprotobuf_user_seconds\":%.4f,"
                "\"user_ratio\":%.3f,%s}\n",
        std::filesystem::path(path).filename().c_str(), repeats, s, p, s / p, median(summary.cpu), median(protobuf.cpu),
        median(summary.cpu) / median(protobuf.cpu), pUser, pUser > 0 ? s / pUser : 0, machine().c_str());
    std::fflush(stdout);
}

// Issue 24 point 3: the load of a large file as a multiple of a small one's, its cost per event
// against the small one's, and its peak memory. Each load in a fresh process, alternating.
void measureScaleRatio(const std::string& small, const std::string& big, int repeats)
{
    Series smallSeries, bigSeries;
    ChildLoad smallLoad, bigLoad;
    for (int r = 0; r < repeats; ++r) {
        smallSeries.time([&] { smallLoad = childLoad(small); });
        bigSeries.time([&] { bigLoad = childLoad(big); });
    }
    const double s = median(smallSeries.wall), b = median(bigSeries.wall);
    const double sCpu = median(smallSeries.cpu), bCpu = median(bigSeries.cpu);
    std::printf("{\"case\":\"scale\",\"small_events\":%.0f,\"big_events\":%.0f,\"repeats\":%d,\"small_seconds\":%.3f,"
                "\"big_seconds\":%.3f,\"time_ratio\":%.2f,\"event_ratio\":%.2f,\"per_event_ratio\":%.2f,"
                "\"small_cpu_seconds\":%.3f,\"big_cpu_seconds\":%.3f,\"cpu_time_ratio\":%.2f,"
                "\"big_ns_per_event\":%.1f,\"big_peak_gib\":%.2f,%s}\n",
        smallLoad.events, bigLoad.events, repeats, s, b, b / s, bigLoad.events / smallLoad.events,
        (b / bigLoad.events) / (s / smallLoad.events), sCpu, bCpu, bCpu / sCpu, b * 1e9 / bigLoad.events,
        bigLoad.peakGiB, machine().c_str());
    std::fflush(stdout);
}

template <typename Fn> void inChild(Fn fn)
{
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        fn();
        std::fflush(stdout);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc >= 4 && std::strcmp(argv[1], "--generate") == 0) {
        std::string error;
        const int cores = argc >= 5 ? std::max(1, std::atoi(argv[4])) : 8;
        if (!tpuscope::bench::generateXSpace(tpuscope::bench::parseCount(argv[2]), argv[3], {}, 6, &error, cores)) {
            std::fprintf(stderr, "bench_load: %s\n", error.c_str());
            return 1;
        }
        return 0;
    }
    if (argc >= 3 && std::strcmp(argv[1], "--load") == 0) {
        const std::string path = argv[2];
        const int repeats = argc >= 4 ? std::atoi(argv[3]) : 3;
        const auto bytes = std::filesystem::file_size(path);
        for (int r = 0; r < repeats; ++r)
            inChild([&] { measureTpuscope(path, 0, bytes); });
        return 0;
    }
    if (argc >= 4 && std::strcmp(argv[1], "--summary-ratio") == 0) {
        measureSummaryRatio(argv[2], argv[3], argc >= 5 ? std::max(1, std::atoi(argv[4])) : 3);
        return 0;
    }
    if (argc >= 4 && std::strcmp(argv[1], "--scale-ratio") == 0) {
        measureScaleRatio(argv[2], argv[3], argc >= 5 ? std::max(1, std::atoi(argv[4])) : 3);
        return 0;
    }
    if (argc >= 3 && std::strcmp(argv[1], "--gz-ratio") == 0) {
        // PLAIN is optional: an existing file is one, else the argument is the repeat count ("1e7.xplane.pb"
        // would read as 1 by atoi).
        const std::string plain = argc >= 4 && std::filesystem::is_regular_file(argv[3]) ? argv[3] : "";
        const int repeats = argc >= 5 ? std::atoi(argv[4]) : argc == 4 && plain.empty() ? std::atoi(argv[3]) : 3;
        // Counted in a child: a load here would start the worker pool, which a forked child lacks.
        const std::string probe = tpuscope::bench::runInChild([&] {
            const auto result = tpuscope::model::loadProfile(argv[2]);
            return result.ok() ? std::to_string(result.profile->eventCount()) : "error: " + result.error;
        });
        const size_t n = std::strtoull(probe.c_str(), nullptr, 10);
        if (n == 0) {
            std::fprintf(stderr, "bench_load: %s\n", probe.c_str());
            return 1;
        }
        measureGzipRatio(argv[2], plain, n, std::max(1, repeats));
        return 0;
    }
    std::vector<size_t> sizes;
    for (int i = 1; i < argc; ++i)
        sizes.push_back(tpuscope::bench::parseCount(argv[i]));
    if (sizes.empty())
        sizes = {100'000, 1'000'000, 10'000'000};
    const auto dir = std::filesystem::temp_directory_path() / ("tpuscope-bench-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::fprintf(stderr, "machine: %ld cores; inputs in %s\n", sysconf(_SC_NPROCESSORS_ONLN), dir.c_str());
    for (size_t n : sizes) {
        const std::string path = (dir / ("bench_" + std::to_string(n) + ".xplane.pb")).string();
        std::string error;
        if (!tpuscope::bench::generateXSpace(n, path, path + ".gz", 6, &error)) {
            std::fprintf(stderr, "bench_load: %s\n", error.c_str());
            return 1;
        }
        const auto bytes = std::filesystem::file_size(path);
        // Warm the page cache, then alternate readers so both see the same conditions.
        tpuscope::bench::warmPageCache(path);
        for (int repeat = 0; repeat < 2; ++repeat) {
            inChild([&] { measureTpuscope(path, n, bytes); });
            inChild([&] { measureLibprotobuf(path, n, bytes); });
        }
        // xspace.gz: mb_per_s is of inflated bytes, so it compares with the plain file's.
        const std::string gzPath = path + ".gz";
        const auto gzBytes = std::filesystem::file_size(gzPath);
        tpuscope::bench::warmPageCache(gzPath);
        measureGzipRatio(gzPath, path, n, 3);
        std::filesystem::remove(path);
        for (int repeat = 0; repeat < 2; ++repeat) {
            inChild([&] { measureGunzip(gzPath, n, gzBytes); });
            inChild([&] { measureTpuscope(gzPath, n, gzBytes, "xspace.gz"); });
        }
        std::filesystem::remove(gzPath);
    }
    std::filesystem::remove_all(dir);
    return 0;
}
