// SPDX-License-Identifier: GPL-3.0-or-later
// XSpace load benchmark: generates XSpaces of N events over 8 TPU cores (fixed seed, Appendix B
// of PERFORMANCE.md) into a temp dir, then, each case in its own child process so peak memory
// is per case, times tpuscope's load and a plain libprotobuf arena parse + walk of the same
// file. Prints one JSON line per case.
//
//   bench_load [N ...]          default: 1e5 1e6 1e7
//   bench_load --generate N PATH  only write the input (for profiling with perf)
//   bench_load --load PATH [R]    load an existing file R times (default 3), one line each
#include "loader/gzip.h"
#include "loader/loader.h"

#include "xplane.pb.h"

#include <google/protobuf/arena.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

// Minimal protobuf writer: the generator must make 1e7-event files without building 1e7
// message objects itself.
struct Writer
{
    std::string out;
    void varint(uint64_t v)
    {
        while (v >= 0x80) {
            out += static_cast<char>(v | 0x80);
            v >>= 7;
        }
        out += static_cast<char>(v);
    }
    void tag(uint32_t field, uint32_t type) { varint((uint64_t(field) << 3) | type); }
    void field(uint32_t f, uint64_t v)
    {
        tag(f, 0);
        varint(v);
    }
    void bytes(uint32_t f, std::string_view b)
    {
        tag(f, 2);
        varint(b.size());
        out.append(b);
    }
};

std::string statBytes(int64_t metadataId, int64_t value)
{
    Writer w;
    w.field(1, metadataId);
    w.field(4, static_cast<uint64_t>(value));
    return w.out;
}

void generate(size_t n, const std::string& path)
{
    static const char* kinds[] = {"fusion", "convolution", "all-reduce", "copy", "dot", "reduce", "transpose",
        "broadcast", "select", "dynamic-update-slice"};
    std::mt19937_64 rnd(42);
    std::ofstream file(path, std::ios::binary);
    const size_t perCore = n / 8;
    for (int core = 0; core < 8; ++core) {
        Writer plane;
        plane.field(1, core + 1);
        plane.bytes(2, "/device:TPU:" + std::to_string(core));
        const size_t count = core < 7 ? perCore : n - 7 * perCore;
        Writer steps, ops;
        steps.field(1, 1);
        steps.bytes(2, "Steps");
        steps.field(3, 1'000'000'000);
        ops.field(1, 2);
        ops.bytes(2, "XLA Ops");
        ops.field(3, 1'000'000'000);
        int64_t offset = 0, step = 0;
        for (size_t j = 0; j < count; ++j) {
            if (j % 1000 == 0) {
                Writer e;
                e.field(1, 3001);
                e.field(2, offset);
                e.field(3, 21'000'000'000);
                e.bytes(4, statBytes(3, step++));
                steps.bytes(4, e.out);
            }
            const int64_t duration = static_cast<int64_t>(200 + rnd() % 39800) * 1000;
            Writer e;
            e.field(1, 1 + rnd() % 3000);
            e.field(2, offset);
            e.field(3, duration);
            e.bytes(4, statBytes(1, step));
            ops.bytes(4, e.out);
            offset += duration + static_cast<int64_t>(10 + rnd() % 1990) * 1000;
        }
        plane.bytes(3, steps.out);
        plane.bytes(3, ops.out);
        for (int i = 0; i < 3000; ++i) {
            Writer md;
            md.field(1, i + 1);
            const std::string name = std::string(kinds[i % 10]) + "." + std::to_string(i);
            md.bytes(2, "%" + name + " = f32[128,1024]{1,0:T(8,128)} " + kinds[i % 10] + "(...)");
            md.bytes(4, name);
            md.bytes(5, statBytes(2, static_cast<int64_t>(rnd() % (1u << 30))));
            Writer entry;
            entry.field(1, i + 1);
            entry.bytes(2, md.out);
            plane.bytes(4, entry.out);
        }
        {
            Writer md;
            md.field(1, 3001);
            md.bytes(2, "train_step");
            Writer entry;
            entry.field(1, 3001);
            entry.bytes(2, md.out);
            plane.bytes(4, entry.out);
        }
        const char* statNames[] = {"group_id", "flops", "step_num"};
        for (int s = 0; s < 3; ++s) {
            Writer md;
            md.field(1, s + 1);
            md.bytes(2, statNames[s]);
            Writer entry;
            entry.field(1, s + 1);
            entry.bytes(2, md.out);
            plane.bytes(5, entry.out);
        }
        Writer space;
        space.bytes(1, plane.out);
        file.write(space.out.data(), static_cast<std::streamsize>(space.out.size()));
    }
}

long statusKb(const char* key)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(key, 0) == 0)
            return std::atol(line.c_str() + std::strlen(key));
    return 0;
}

double seconds(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

struct Record
{
    int64_t start, duration;
    uint32_t name;
    uint16_t track, pad;
};

// gzip -6 of a file, in-process (the bench must not depend on a gzip binary).
void gzipFile(const std::string& from, const std::string& to)
{
    std::ifstream in(from, std::ios::binary);
    gzFile out = gzopen(to.c_str(), "wb6");
    std::vector<char> buffer(1 << 20);
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
        gzwrite(out, buffer.data(), static_cast<unsigned>(in.gcount()));
    gzclose(out);
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
    const long baseKb = statusKb("VmRSS:");
    const auto t0 = std::chrono::steady_clock::now();
    std::ifstream in(path, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    google::protobuf::Arena arena;
    auto* space = google::protobuf::Arena::CreateMessage<tensorflow::profiler::XSpace>(&arena);
    if (!space->ParseFromString(data)) {
        std::printf("{\"error\":\"libprotobuf parse failed\"}\n");
        return;
    }
    std::vector<Record> records;
    records.reserve(n + n / 1000 + 16);
    uint16_t track = 0;
    for (const auto& plane : space->planes())
        for (const auto& line : plane.lines()) {
            for (const auto& e : line.events())
                records.push_back({line.timestamp_ns() * 1000 + e.offset_ps(), e.duration_ps(),
                    static_cast<uint32_t>(e.metadata_id()), track, 0});
            ++track;
        }
    const double s = seconds(t0);
    const long peakKb = statusKb("VmHWM:");
    std::printf("{\"case\":\"xspace-%zu\",\"reader\":\"libprotobuf-arena\",\"bytes\":%ju,\"events\":%zu,"
                "\"seconds\":%.4f,\"events_per_s\":%.0f,\"mb_per_s\":%.1f,\"peak_bytes_per_event\":%.1f}\n",
        n, bytes, records.size(), s, records.size() / s, bytes / s / 1e6, (peakKb - baseKb) * 1024.0 / n);
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
        generate(static_cast<size_t>(std::atof(argv[2])), argv[3]);
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
        sizes.push_back(static_cast<size_t>(std::atof(argv[i])));
    if (sizes.empty())
        sizes = {100'000, 1'000'000, 10'000'000};
    const auto dir = std::filesystem::temp_directory_path() / ("tpuscope-bench-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::fprintf(stderr, "machine: %ld cores; inputs in %s\n", sysconf(_SC_NPROCESSORS_ONLN), dir.c_str());
    for (size_t n : sizes) {
        const std::string path = (dir / ("bench_" + std::to_string(n) + ".xplane.pb")).string();
        generate(n, path);
        const auto bytes = std::filesystem::file_size(path);
        // Warm the page cache, then alternate readers so both see the same conditions.
        inChild([&] { std::ifstream(path, std::ios::binary).ignore(std::numeric_limits<std::streamsize>::max()); });
        for (int repeat = 0; repeat < 2; ++repeat) {
            inChild([&] { measureTpuscope(path, n, bytes); });
            inChild([&] { measureLibprotobuf(path, n, bytes); });
        }
        // xspace.gz: mb_per_s is of inflated bytes, so it compares with the plain file's.
        const std::string gzPath = path + ".gz";
        gzipFile(path, gzPath);
        const auto gzBytes = std::filesystem::file_size(gzPath);
        std::filesystem::remove(path);
        inChild([&] { std::ifstream(gzPath, std::ios::binary).ignore(std::numeric_limits<std::streamsize>::max()); });
        for (int repeat = 0; repeat < 2; ++repeat) {
            inChild([&] { measureGunzip(gzPath, n, gzBytes); });
            inChild([&] { measureTpuscope(gzPath, n, gzBytes, "xspace.gz"); });
        }
        std::filesystem::remove(gzPath);
    }
    std::filesystem::remove_all(dir);
    return 0;
}
