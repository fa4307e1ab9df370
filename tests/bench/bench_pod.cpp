// SPDX-License-Identifier: GPL-3.0-or-later
// Pod benchmark (issue 23): generates synthetic pods (`synth pod:...`, fixed seed) into a temp dir and
// prints one JSON line per case, each measured in its own child process so peak memory is per case:
//   - load: the run folder of H hosts × C chips (loadNewestRun), then its analysis (hosts table and
//     straggler advice); seconds, peak RSS (VmHWM) above the child's start and in all;
//   - share: each host's share file written from its own file alone (the map step), per host;
//   - merge: mergeShareFiles over those M share files (the reduce step; goal < 2 s for 256), then
//     opening the merged file and its analysis.
// Every line carries the machine: cores and load average (absolute numbers compare only there).
//
//   bench_pod [--hosts H] [--chips C] [--steps S] [--merge-hosts M]   default: 64 4 20 256
#include "generators.h"

#include "analysis/profileanalysis.h"
#include "core/atomicfile.h"
#include "loader/decoder.h"
#include "loader/loader.h"
#include "loader/logdir.h"
#include "share/sharefile.h"
#include "share/sharemerge.h"
#include "synth/synth.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using namespace tpuscope::model;
using tpuscope::bench::statusKb;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string machine()
{
    const std::vector<double> load = tpuscope::bench::loadAverage();
    char out[160];
    std::snprintf(out, sizeof out, "\"machine_cores\":%ld,\"loadavg\":[%.2f,%.2f,%.2f]", sysconf(_SC_NPROCESSORS_ONLN),
        load.size() > 0 ? load[0] : 0, load.size() > 1 ? load[1] : 0, load.size() > 2 ? load[2] : 0);
    return out;
}

bool writePod(int hosts, int chips, int steps, const std::string& dir)
{
    SynthOptions options;
    std::string error;
    const std::string spec = "pod:hosts=" + std::to_string(hosts) + ",chips=" + std::to_string(chips)
        + ",late=" + std::to_string(hosts / 3) + ":input,steps=" + std::to_string(steps) + ",seed=23";
    if (!parseSynthScenario(spec, options, error) || !writeSyntheticLogdir(options, dir, error)) {
        std::fprintf(stderr, "bench_pod: %s: %s\n", spec.c_str(), error.c_str());
        return false;
    }
    return true;
}

std::vector<std::string> hostFiles(const std::string& dir)
{
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().string().ends_with(".xplane.pb"))
            files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

std::string stragglerOf(const ProfileAnalysis& analysis)
{
    const Advice* a = analysis.advice.find(AdviceRuleId::Straggler);
    return a ? a->numbers.find("host")->text + " (" + a->numbers.find("cause")->text + ")" : "none";
}

std::string loadCase(const std::string& dir, int hosts, int chips, int steps)
{
    tpuscope::bench::resetPeakRss();
    const long baseKb = statusKb("VmHWM:");
    const auto t0 = Clock::now();
    LoadResult loaded = loadNewestRun(dir);
    const double loadSeconds = secondsSince(t0);
    if (!loaded.ok())
        return "{\"case\":\"pod-load\",\"error\":\"" + loaded.error + "\"}";
    const auto t1 = Clock::now();
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(loaded.profile);
    const double analysisSeconds = secondsSince(t1);
    char line[512];
    std::snprintf(line, sizeof line,
        "{\"case\":\"pod-load-%dx%dx%d\",\"events\":%zu,\"load_s\":%.3f,\"analysis_s\":%.3f,"
        "\"peak_rss_above_start_mb\":%.1f,\"peak_rss_mb\":%.1f,\"hosts\":%zu,\"straggler\":\"%s\",%s}",
        hosts, chips, steps, loaded.profile->eventCount(), loadSeconds, analysisSeconds,
        (statusKb("VmHWM:") - baseKb) / 1024.0, statusKb("VmHWM:") / 1024.0, analysis->hosts.hosts.size(),
        stragglerOf(*analysis).c_str(), machine().c_str());
    return line;
}

/// The map step for every host file; the share files are kept in `dir`/shares for the merge case.
std::string shareCase(const std::vector<std::string>& files, const std::string& outDir)
{
    fs::create_directories(outDir);
    const auto t0 = Clock::now();
    size_t bytes = 0;
    for (const std::string& file : files) {
        LoadResult loaded = loadProfile(file);
        if (!loaded.ok())
            return "{\"case\":\"pod-share\",\"error\":\"" + loaded.error + "\"}";
        const ShareResult share = buildShareFile(*buildProfileAnalysis(loaded.profile));
        std::string error;
        const std::string out = outDir + "/" + fs::path(file).stem().stem().string() + ".tpuscope";
        if (!share.ok() || !saveFileAtomically(out, share.bytes, error))
            return "{\"case\":\"pod-share\",\"error\":\"" + share.error + error + "\"}";
        bytes += share.bytes.size();
    }
    const double s = secondsSince(t0);
    char line[384];
    std::snprintf(line, sizeof line,
        "{\"case\":\"pod-share-per-host\",\"hosts\":%zu,\"seconds_per_host\":%.4f,\"bytes_per_host\":%zu,%s}",
        files.size(), s / static_cast<double>(files.size()), bytes / std::max<size_t>(1, files.size()),
        machine().c_str());
    return line;
}

std::string mergeCase(const std::string& shareDir)
{
    std::vector<ShareMergeInput> inputs;
    for (const auto& e : fs::directory_iterator(shareDir))
        inputs.push_back({e.path().string(), {}});
    std::sort(inputs.begin(), inputs.end(), [](auto& a, auto& b) { return a.name < b.name; });
    tpuscope::bench::resetPeakRss();
    const long baseKb = statusKb("VmHWM:");
    const auto t0 = Clock::now(); // reading the files is part of the reduce step
    for (ShareMergeInput& in : inputs) {
        FILE* f = std::fopen(in.name.c_str(), "rb");
        char buffer[65536];
        for (size_t n; f && (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;)
            in.bytes.append(buffer, n);
        if (f)
            std::fclose(f);
    }
    const ShareMergeResult merged = mergeShareFiles(inputs, effectiveLimits({}));
    const double mergeSeconds = secondsSince(t0);
    if (!merged.ok())
        return "{\"case\":\"pod-merge\",\"error\":\"" + merged.error + "\"}";
    const double mergePeakMb = (statusKb("VmHWM:") - baseKb) / 1024.0;
    const auto t1 = Clock::now();
    LoadResult loaded = loadProfileFromBytes(merged.bytes, "pod.tpuscope");
    const ProfileAnalysisPtr analysis = loaded.ok() ? buildProfileAnalysis(loaded.profile) : nullptr;
    const double openSeconds = secondsSince(t1);
    char line[640];
    std::snprintf(line, sizeof line,
        "{\"case\":\"pod-merge-%zu\",\"merge_s\":%.3f,\"goal_s\":2,\"peak_rss_above_start_mb\":%.1f,\"peak_rss_mb\":%."
        "1f,\"merged_bytes\":%"
        "zu,"
        "\"cores\":%zu,\"steps_per_core\":%zu,\"open_and_analyse_s\":%.3f,\"straggler\":\"%s\",%s}",
        inputs.size(), mergeSeconds, mergePeakMb, statusKb("VmHWM:") / 1024.0, merged.bytes.size(), merged.cores,
        merged.stepsPerCore, openSeconds, analysis ? stragglerOf(*analysis).c_str() : loaded.error.c_str(),
        machine().c_str());
    return line;
}

} // namespace

int main(int argc, char** argv)
{
    int hosts = 64, chips = 4, steps = 20, mergeHosts = 256;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const int value = std::atoi(argv[i + 1]);
        if (flag == "--hosts")
            hosts = value;
        else if (flag == "--chips")
            chips = value;
        else if (flag == "--steps")
            steps = value;
        else if (flag == "--merge-hosts")
            mergeHosts = value;
    }
    const std::string dir = (fs::temp_directory_path() / ("tpuscope_bench_pod_" + std::to_string(getpid()))).string();
    fs::remove_all(dir);
    std::fprintf(stderr, "bench_pod: %ld cores, inputs in %s\n", sysconf(_SC_NPROCESSORS_ONLN), dir.c_str());

    const std::string loadDir = dir + "/load";
    if (!writePod(hosts, chips, steps, loadDir))
        return 1;
    std::printf("%s\n", tpuscope::bench::runInChild([&] { return loadCase(loadDir, hosts, chips, steps); }).c_str());
    std::fflush(stdout);

    const std::string mergeDir = dir + "/merge";
    if (!writePod(mergeHosts, chips, steps, mergeDir))
        return 1;
    const std::vector<std::string> files = hostFiles(mergeDir);
    std::printf("%s\n", tpuscope::bench::runInChild([&] { return shareCase(files, dir + "/shares"); }).c_str());
    std::fflush(stdout);
    std::printf("%s\n", tpuscope::bench::runInChild([&] { return mergeCase(dir + "/shares"); }).c_str());
    fs::remove_all(dir);
    return 0;
}
