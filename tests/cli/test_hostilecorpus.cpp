// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 27: the hostile-input corpus (tests/data/hostile, made by tests/tools/make_hostile_corpus.py).
// Every file is a case a stranger's file can make. Each is opened as a user would, under
// --memory-budget-mb 500: it either loads or stops with an error that names what is wrong, within
// the budget (before the fix the amplification cases took 3.2-5.9 GB and tens of seconds).
#include "measuredcli.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace tpuscope::test;

namespace {

struct Case
{
    const char* file;
    int exitCode; // 0 = loads; 1 = refused with a message
    const char* says; // a part of the output (the field the message names, or the warning)
    const char* options = "";
};

const Case kCases[] = {
    {"share_idle_million_runs.tpuscope", 1, "idle[0].runs: 1000000 runs cannot fit in its span_ps"},
    {"share_program_runs_in_1ms.tpuscope", 1, "program_runs[0].runs: 1000000 runs cannot fit in its time_ps"},
    {"share_runs_beyond_file_size.tpuscope", 1, "bytes can hold (at most 1024 per byte)"},
    {"share_step_windows_more_cores_than_planes.tpuscope", 1,
        "step_windows.cores lists 50 cores, more than the 1 core planes"},
    {"share_step_windows_200k_x50.tpuscope", 1, "JSON values, which would take more than the memory budget"},
    {"share_100k_core_planes.tpuscope", 1, "device.core_planes has 100000 entries, more than the 16384"},
    {"share_300k_op_rows.tpuscope", 1, "ops has 300000 entries, more than the 100000"},
    {"share_json_value_bomb.tpuscope", 1, "JSON values, which would take more than the memory budget"},
    {"share_plane_out_of_range.tpuscope", 1, "program_runs[0].plane names core 7, but device.core_planes lists 1"},
    {"share_host_timing_plane_out_of_range.tpuscope", 1,
        "host_timing.cores[0].plane names core 3, but device.core_planes lists 1 core"},
    {"share_host_timing_more_steps_than_windows.tpuscope", 1,
        "host_timing.cores[0].sync_start_ps lists 5000 steps, but step_windows lists 10 for core 0"},
    {"share_host_timing_ragged_series.tpuscope", 1, "host_timing.cores[0] has 10 sync_start_ps but 3 sync_ps"},
    {"share_host_timing_negative_time.tpuscope", 1,
        "host_timing.cores[0].sync_ps[7] is not a time in ps (-1 for unknown)"},
    {"share_markup_names.tpuscope", 0, "(tpuscope-share)"},
    {"share_self_calling_fusions.tpuscope", 0, "calls in a cycle, not followed"},
    {"xspace_hlo_bomb.xplane.pb.gz", 0, "4000000 instructions, more than the limit of 2000000 per module"},
    {"xspace_hlo_bomb.xplane.pb.gz", 1, "4000000 HLO instructions (counted before decoding them)",
        "--max-hlo-instructions 10000000"},
    {"xspace_hlo_bomb.xplane.pb.gz", 0, "more than the limit of 1000 per module, so its ops are shown without HLO",
        "--max-hlo-instructions 1000"},
    {"xspace_self_calling_fusions.xplane.pb", 0, "calls in a cycle, not followed"},
    {"xspace_20k_unique_names.xplane.pb.gz", 0, "20000"},
};

constexpr long kBudgetKb = 500 << 10;

} // namespace

TEST(HostileCorpus, EveryCaseLoadsOrIsRefusedByNameWithinTheBudget)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    for (const Case& c : kCases) {
        const std::string path = dataPath(std::string("hostile/") + c.file);
        ASSERT_TRUE(std::filesystem::exists(path)) << path;
        // Every command opens its file through the one loader, so a file the loader refuses is
        // refused by summary alone; the files that load go through all three commands' analyses.
        const std::vector<const char*> commands = c.exitCode == 1
            ? std::vector<const char*> {"summary"}
            : std::vector<const char*> {"summary", "ops", "advise"};
        for (const char* command : commands) {
            SCOPED_TRACE(std::string(command) + " " + c.file + " " + c.options);
            const Measured m
                = runCli(std::string(command) + " --memory-budget-mb 500 " + c.options + " '" + path + "'");
            EXPECT_EQ(m.exitCode, c.exitCode) << m.output.substr(0, 800);
            if (c.exitCode == 1 || std::string(command) == "summary") {
                EXPECT_NE(m.output.find(c.says), std::string::npos) << m.output.substr(0, 800);
            }
            // A crash, an abort or a hang would not give 0 or 1; memory stays within the budget.
            if (!kSanitized && haveTools()) {
                EXPECT_LT(m.peakKb, kBudgetKb) << "peak " << m.peakKb << " KB";
            }
            EXPECT_EQ(m.output.find('\x1b'), std::string::npos) << "a terminal escape reached the output";
        }
    }
}

TEST(HostileCorpus, MarkupInAShareFileStaysText)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string path = dataPath("hostile/share_markup_names.tpuscope");
    for (const char* format : {"md", "csv", "json", "table"}) {
        SCOPED_TRACE(format);
        const CommandResult r = runCommand(cli() + " ops --format " + format + " '" + path + "'", true);
        ASSERT_EQ(r.exitCode, 0) << r.output.substr(0, 800);
        EXPECT_EQ(r.output.find('\x1b'), std::string::npos);
        EXPECT_EQ(r.output.find(std::string(1, '\0')), std::string::npos);
        if (std::string(format) == "md") {
            EXPECT_EQ(r.output.find("[Run this fix](https"), std::string::npos) << r.output.substr(0, 800);
            EXPECT_EQ(r.output.find("<img"), std::string::npos);
            EXPECT_EQ(r.output.find("\n## "), std::string::npos);
        }
        if (std::string(format) == "csv") {
            EXPECT_EQ(r.output.find(",=HYPERLINK"), std::string::npos);
        }
    }
}

TEST(HostileCorpus, SelfCallingFusionsShowOnce)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    for (const char* file : {"xspace_self_calling_fusions.xplane.pb", "share_self_calling_fusions.tpuscope"}) {
        SCOPED_TRACE(file);
        const Measured m = runCli("fusion '" + dataPath(std::string("hostile/") + file) + "' fusion.1");
        EXPECT_EQ(m.exitCode, 0) << m.output.substr(0, 800);
        EXPECT_NE(m.output.find("fusion.1"), std::string::npos) << m.output.substr(0, 800);
        EXPECT_LT(m.output.size(), 200u << 10) << "the fusion expanded its cycle";
        if (!kSanitized && haveTools()) {
            EXPECT_LT(m.peakKb, kBudgetKb);
        }
    }
}
