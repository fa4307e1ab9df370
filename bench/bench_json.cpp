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
#include "loader/loader.h"

#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

struct Writer
{
    FILE* file = nullptr;
    gzFile gz = nullptr;
    std::string buffer;

    void flush()
    {
        if (file)
            fwrite(buffer.data(), 1, buffer.size(), file);
        if (gz)
            gzwrite(gz, buffer.data(), static_cast<unsigned>(buffer.size()));
        buffer.clear();
    }
    void put(const std::string& s)
    {
        buffer += s;
        if (buffer.size() > (4u << 20))
            flush();
    }
};

std::string us(int64_t ns)
{
    char text[48];
    snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
    return text;
}

// Writes the trace into both a plain and (optionally) a gzip file in one pass.
void generate(uint64_t n, bool tsl, const std::string& plainPath, const std::string& gzPath, int gzLevel)
{
    constexpr int kCores = 8, kOpsPerStep = 1000;
    std::mt19937_64 rnd(42);
    auto uniform = [&](int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rnd() % (hi - lo + 1)); };
    const char* kinds[] = {"fusion", "convolution", "all-reduce", "copy", "dot", "reduce", "transpose", "broadcast",
        "select", "dynamic-update-slice"};
    const char* categories[] = {"loop fusion", "convolution fusion", "all-reduce", "data formatting", "convolution",
        "reduce", "data formatting", "broadcast", "non-fusion elementwise", "dynamic-update-slice"};
    std::vector<std::string> vocab, args;
    for (int i = 0; i < 3000; ++i) {
        const std::string kind = kinds[i % 10];
        const std::string name = kind + "." + std::to_string(i);
        vocab.push_back(name);
        const uint64_t flops = rnd() % (1u << 30);
        if (!tsl) {
            args.push_back("{\"long_name\":\"" + name + " = f32[128,1024]{1,0} " + kind + "(p0, p1)\",\"flops\":\""
                + std::to_string(flops) + "\"}");
        } else {
            args.push_back("{\"bytes_accessed\":\"" + std::to_string(flops / 7) + "\",\"hlo_category\":\""
                + categories[i % 10] + "\",\"long_name\":\"%" + name + " = bf16[8,128,1024]{2,1,0:T(8,128)(2,1)} "
                + kind + "(bf16[8,128,1024]{2,1,0:T(8,128)(2,1)} %param.1, bf16[1024]{0:T(1024)} %param.2)"
                + "\",\"model_flops\":\"" + std::to_string(flops)
                + "\",\"shape_with_layout\":\"bf16[8,128,1024]{2,1,0:T(8,128)(2,1)}\",\"source\":"
                + "\"/src/model/layers.py:" + std::to_string(100 + i % 400) + "\",\"tf_op\":\"jit(step)/" + kind
                + ":\"");
        }
    }
    Writer w;
    w.file = fopen(plainPath.c_str(), "wb");
    if (!gzPath.empty())
        w.gz = gzopen(gzPath.c_str(), ("wb" + std::to_string(gzLevel)).c_str());
    w.put("{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},\"traceEvents\":[\n");
    for (int c = 0; c < kCores; ++c) {
        w.put("{\"ph\":\"M\",\"pid\":" + std::to_string(c + 1)
            + ",\"name\":\"process_name\",\"args\":{\"name\":\"/device:TPU:" + std::to_string(c) + "\"}},\n");
        w.put("{\"ph\":\"M\",\"pid\":" + std::to_string(c + 1)
            + ",\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"XLA Ops\"}},\n");
    }
    const uint64_t perCore = n / kCores;
    uint64_t emitted = 0;
    bool first = true;
    std::vector<int64_t> durs, gaps;
    for (int c = 0; c < kCores; ++c) {
        const int pid = c + 1;
        int64_t t = 1'000'000'000;
        uint64_t i = 0;
        const uint64_t count = c < kCores - 1 ? perCore : n - emitted;
        while (i < count) {
            const uint64_t k = std::min<uint64_t>(kOpsPerStep - 1, count - i - 1);
            durs.resize(k);
            gaps.resize(k);
            int64_t stepDur = 1000;
            for (uint64_t j = 0; j < k; ++j) {
                durs[j] = uniform(200, 40000);
                gaps[j] = uniform(10, 2000);
                stepDur += durs[j] + gaps[j];
            }
            const std::string step = std::to_string(i / kOpsPerStep);
            w.put(std::string(first ? "" : ",\n") + "{\"ph\":\"X\",\"pid\":" + std::to_string(pid)
                + ",\"tid\":1,\"ts\":" + us(t) + ",\"dur\":" + us(stepDur) + ",\"name\":\"step " + step
                + "\",\"args\":{\"step_num\":\"" + step + "\"}}");
            first = false;
            ++i;
            int64_t tt = t + 500;
            for (uint64_t j = 0; j < k; ++j) {
                const size_t v = rnd() % vocab.size();
                std::string event = ",\n{\"ph\":\"X\",\"pid\":" + std::to_string(pid) + ",\"tid\":1,\"ts\":" + us(tt)
                    + ",\"dur\":" + us(durs[j]) + ",\"name\":\"" + vocab[v] + "\",\"args\":" + args[v];
                if (tsl) // per-occurrence stats close the args object
                    event += ",\"device_duration_ps\":\"" + std::to_string(durs[j] * 1000)
                        + "\",\"device_offset_ps\":\"" + std::to_string((tt - 1'000'000'000) * 1000) + "\"}";
                event += "}";
                w.put(event);
                tt += durs[j] + gaps[j];
                ++i;
            }
            t += stepDur + 5000;
        }
        emitted += count;
    }
    w.put("\n]}\n");
    w.flush();
    fclose(w.file);
    if (w.gz)
        gzclose(w.gz);
}

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
                sizes.push_back(static_cast<uint64_t>(std::atof(list.substr(pos, comma - pos).c_str())));
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
            if (!fs::exists(plain) || (gz && !fs::exists(packed)))
                generate(n, s == "tsl", plain, packed, gzLevel);
            // Warm the page cache as the protocol asks.
            for (const auto& p : {plain, packed}) {
                if (p.empty())
                    continue;
                FILE* f = fopen(p.c_str(), "rb");
                static char sink[1 << 20];
                while (f && fread(sink, 1, sizeof sink, f) > 0) { }
                if (f)
                    fclose(f);
            }
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
