// SPDX-License-Identifier: GPL-3.0-or-later
// `steps` against `summary` (issue 14: within 1.2x on a 1e7-event XSpace). Generates the XSpace of
// PERFORMANCE.md appendix B into a temp dir, loads it, and times what each command does after the
// load (summary: breakdown + steps + categories; steps: the step analysis), median of the runs. Prints
// one JSON line; the end-to-end ratio adds the load to both sides, as the CLI commands do.
#include "generators.h"

#include "analysis/steps.h"
#include "analysis/summary.h"
#include "loader/loader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

using namespace tpuscope;

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double seconds(const std::function<void()>& f)
{
    const auto begin = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

} // namespace

int main(int argc, char** argv)
{
    const uint64_t events = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
    const int repeat = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    const auto dir = std::filesystem::temp_directory_path() / ("tpuscope-bench-steps-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "steps.xplane.pb").string();
    std::string error;
    if (!bench::generateXSpace(events, path, {}, 6, &error)) {
        std::fprintf(stderr, "bench_steps: %s\n", error.c_str());
        return 1;
    }
    model::LoadResult loaded;
    const double load = seconds([&] { loaded = model::loadProfile(path); });
    std::filesystem::remove_all(dir);
    if (!loaded.ok()) {
        std::fprintf(stderr, "bench_steps: %s\n", loaded.error.c_str());
        return 1;
    }
    std::vector<double> summary, steps;
    size_t sink = 0;
    for (int i = 0; i < repeat; ++i) {
        summary.push_back(seconds([&] { sink += model::computeSummary(*loaded.profile).topCategories.size(); }));
        steps.push_back(seconds([&] { sink += model::computeSteps(*loaded.profile).programs.size(); }));
    }
    const double s = median(summary), t = median(steps);
    std::printf("{\"events\": %llu, \"load_s\": %.4f, \"summary_s\": %.4f, \"steps_s\": %.4f, \"ratio_analysis\": "
                "%.3f, \"ratio_end_to_end\": %.3f, \"target\": 1.2, \"sink\": %zu}\n",
        static_cast<unsigned long long>(events), load, s, t, t / s, (load + t) / (load + s), sink);
    return 0;
}
