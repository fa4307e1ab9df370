// SPDX-License-Identifier: GPL-3.0-or-later
// XSpace load benchmark: generates XSpaces of N events over 8 TPU cores (fixed seed, Appendix B
// of PERFORMANCE.md) into a temp dir, then, each case in its own child process so peak memory
// is per case, times tpuscope's load and a plain libprotobuf arena parse + walk of the same
// file. Prints one JSON line per case.
//
//   bench_load [N ...]          default: 1e5 1e6 1e7
//   bench_load --generate N PATH  only write the input (for profiling with perf)
//   bench_load --load PATH [R]    load an existing file R times (default 3), one line each
#include "generators.h"
#include "loader/gzip.h"
#include "loader/loader.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
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
        if (!tpuscope::bench::generateXSpace(tpuscope::bench::parseCount(argv[2]), argv[3], {}, 6, &error)) {
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
        std::filesystem::remove(path);
        tpuscope::bench::warmPageCache(gzPath);
        for (int repeat = 0; repeat < 2; ++repeat) {
            inChild([&] { measureGunzip(gzPath, n, gzBytes); });
            inChild([&] { measureTpuscope(gzPath, n, gzBytes, "xspace.gz"); });
        }
        std::filesystem::remove(gzPath);
    }
    std::filesystem::remove_all(dir);
    return 0;
}
