// SPDX-License-Identifier: GPL-3.0-or-later
// Chrome trace JSON load benchmark (PERFORMANCE.md §2, Appendix A layout): N 'X' events over
// 8 TPU-core "XLA Ops" tracks, one step event per 1000 ops, a 3000-name vocabulary. Two arg
// styles: "appendixA" (long_name + flops, as the PERFORMANCE.md generator) and "tsl" (the args
// jax.profiler really writes: hlo_category, long_name, model_flops, bytes_accessed,
// shape_with_layout, tf_op, source, device_offset_ps, device_duration_ps).
// Each case runs loadProfile in a forked child so that peak RSS is per case.
//
// usage: bench_json [--events 1e6,5e6] [--style appendixA|tsl|both] [--no-gz] [--gz-level N] [--keep DIR]
// prints one JSON line per case.
#include "generators.h"
#include "loader/loader.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

// Loads in a child process; the child prints the JSON line.
void runCase(const std::string& name, const std::string& path, uint64_t expectedEvents)
{
    fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
        const auto t0 = std::chrono::steady_clock::now();
        auto result = tpuscope::model::loadProfile(path);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!result.ok()) {
            fprintf(stderr, "%s: %s\n", name.c_str(), result.error.c_str());
            _exit(1);
        }
        rusage usage {};
        getrusage(RUSAGE_SELF, &usage);
        const double bytes = static_cast<double>(result.profile->load.decodedBytes);
        const double events = static_cast<double>(result.profile->eventCount());
        printf("{\"case\":\"%s\",\"bytes\":%.0f,\"file_bytes\":%llu,\"events\":%.0f,\"seconds\":%.3f,\"mb_per_s\":%.1f,"
               "\"events_per_s\":%.0f,\"peak_rss_mb\":%.1f,\"cpu_seconds\":%.3f%s}\n",
            name.c_str(), bytes, static_cast<unsigned long long>(result.profile->load.fileBytes), events, seconds,
            bytes / 1e6 / seconds, events / seconds, usage.ru_maxrss / 1024.0,
            usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6,
            static_cast<uint64_t>(events) == expectedEvents ? "" : ",\"error\":\"event count mismatch\"");
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<uint64_t> sizes = {1'000'000, 5'000'000};
    std::string style = "appendixA";
    bool gz = true;
    int gzLevel = 6;
    int repeats = 1;
    std::string keep;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--events") {
            sizes.clear();
            std::string list = next();
            for (size_t pos = 0; pos <= list.size();) {
                const size_t comma = std::min(list.find(',', pos), list.size());
                sizes.push_back(tpuscope::bench::parseCount(list.substr(pos, comma - pos)));
                pos = comma + 1;
            }
        } else if (a == "--style") {
            style = next();
        } else if (a == "--no-gz") {
            gz = false;
        } else if (a == "--gz-level") {
            gzLevel = std::atoi(next().c_str());
        } else if (a == "--repeat") {
            repeats = std::max(1, std::atoi(next().c_str()));
        } else if (a == "--keep") {
            keep = next();
        } else {
            fprintf(stderr,
                "usage: bench_json [--events 1e6,5e6] [--style appendixA|tsl|both] [--no-gz] "
                "[--gz-level N] [--repeat N] [--keep DIR]\n");
            return 2;
        }
    }
    namespace fs = std::filesystem;
    fs::path dir;
    if (keep.empty()) {
        std::string tmpl = (fs::temp_directory_path() / "tpuscope-bench-json-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) {
            perror("mkdtemp");
            return 1;
        }
        dir = tmpl;
    } else {
        dir = keep;
        fs::create_directories(dir);
    }
    std::vector<std::string> styles
        = style == "both" ? std::vector<std::string> {"appendixA", "tsl"} : std::vector<std::string> {style};
    for (const auto& s : styles) {
        for (uint64_t n : sizes) {
            const std::string base = (dir / (s + "_" + std::to_string(n))).string();
            const std::string plain = base + ".json", packed = gz ? base + ".json.gz" : std::string();
            std::string error;
            if ((!fs::exists(plain) || (gz && !fs::exists(packed)))
                && !tpuscope::bench::generateChromeJson(n,
                    s == "tsl" ? tpuscope::bench::JsonStyle::Tsl : tpuscope::bench::JsonStyle::AppendixA, plain, packed,
                    gzLevel, &error)) {
                fprintf(stderr, "bench_json: %s\n", error.c_str());
                return 1;
            }
            // Warm the page cache as the protocol asks.
            for (const auto& p : {plain, packed})
                if (!p.empty())
                    tpuscope::bench::warmPageCache(p);
            // n ops + the step events are all 'X' events; every 1000th event is a step.
            for (int r = 0; r < repeats; ++r) {
                runCase(s + "_" + std::to_string(n) + "_json", plain, n);
                if (gz)
                    runCase(s + "_" + std::to_string(n) + "_json_gz", packed, n);
            }
        }
    }
    if (keep.empty())
        fs::remove_all(dir);
    return 0;
}
