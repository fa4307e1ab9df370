// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "loader/loader.h"

namespace tpuscope::cli {

struct Arguments
{
    std::string command;
    std::vector<std::string> positional;
    std::string format;
    std::string by = "op";
    std::string device;
    std::string output;
    int core = -1;
    int cores = 0; // --cores N: TPU cores where the file does not record them
    size_t top = 0;
    uint64_t maxDecompressedMb = 0;
    uint64_t maxCompressionRatio = 0; // 0 = TPUSCOPE_MAX_COMPRESSION_RATIO or 200
    uint64_t memoryBudgetMb = 0; // 0 = TPUSCOPE_MEMORY_BUDGET_MB or 3/4 of the RAM
    uint64_t maxEvents = 0; // 0 = TPUSCOPE_MAX_EVENTS or none (the budget bounds events)
    uint64_t maxHloInstructions = 0; // 0 = TPUSCOPE_MAX_HLO_INSTRUCTIONS or the default
    std::string program; // steps: the program whose runs are the steps; fusion: the op's program
    std::string redact; // share: paths,names,hash
    std::string module; // memory: one module by name
    bool text = false; // share: write the pasteable text form
    bool forum = false; // share: print the Markdown forum post (Copy for Forum) instead
    bool wide = false; // text tables: never elide long names
    bool help = false;
    std::string error;
};

bool parseArguments(int argc, char** argv, Arguments& args);
/// Runs one command; returns the process exit code (0 ok, 1 load/analysis failure, 2 usage).
int runCommand(const Arguments& args, std::ostream& out, std::ostream& err);

} // namespace tpuscope::cli

namespace tpuscope::cli {

// One function per command, each in app/cli/<command>.cpp; runCommand (cli.cpp) dispatches by name.
// Each returns the exit code: 0 ok, 1 load/analysis failure, 2 usage.
int runSummary(const Arguments& args, std::ostream& out, std::ostream& err);
int runOps(const Arguments& args, std::ostream& out, std::ostream& err);
int runThresholds(const Arguments& args, std::ostream& out, std::ostream& err);
int runGlossary(const Arguments& args, std::ostream& out, std::ostream& err);
int runSteps(const Arguments& args, std::ostream& out, std::ostream& err);
int runMemory(const Arguments& args, std::ostream& out, std::ostream& err);
int runAdvise(const Arguments& args, std::ostream& out, std::ostream& err);
int runFusion(const Arguments& args, std::ostream& out, std::ostream& err);
int runSynth(const Arguments& args, std::ostream& out, std::ostream& err);
int runShare(const Arguments& args, std::ostream& out, std::ostream& err);
int runOpenText(const Arguments& args, std::ostream& out, std::ostream& err);
int runDiff(const Arguments& args, std::ostream& out, std::ostream& err);
int runCard(const Arguments& args, std::ostream& out, std::ostream& err);

// Shared by the commands (cli.cpp).

/// --device and --max-decompressed-mb as loader options.
model::LoadOptions loadOptionsFromArguments(const Arguments& args);
/// Loads `path` with the options given on the command line (--device, --max-decompressed-mb).
/// Returns the exit code: 0 loaded, 1 the file could not be read, 2 bad options; the message
/// is written to `err`.
int loadProfileArgument(
    const Arguments& args, const std::string& path, std::ostream& err, std::shared_ptr<const model::Profile>& profile);
/// The same for the command's first FILE argument (2 with a message when there is none).
int loadFirstFile(const Arguments& args, std::ostream& err, std::shared_ptr<const model::Profile>& profile);
/// loadProfileArgument == 0.
bool load(
    const Arguments& args, const std::string& path, std::ostream& err, std::shared_ptr<const model::Profile>& profile);
/// Refuses an output that is one of the inputs (or a file of an input log dir) or not a regular
/// file, before anything is loaded; the write checks again.
bool outputRefused(
    const char* command, const std::string& output, const std::vector<std::string>& inputs, std::ostream& err);
/// "12.3 KB" for the size lines the sharing commands print.
std::string kib(size_t bytes);

} // namespace tpuscope::cli
