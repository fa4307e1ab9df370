// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli: the helpers the commands share, the dispatcher, `glossary` and `help`.
#include "cli.h"

#include "analysis/summary.h"

#include "core/atomicfile.h"
#include "core/devicepeaks.h"
#include "loader/decoder.h"
#include "loader/loader.h"
#include "report/glossary.h"

#include <cstdio>
#include <new>

namespace tpuscope::cli {

using namespace tpuscope::model;

LoadOptions loadOptionsFromArguments(const Arguments& args)
{
    LoadOptions options;
    options.deviceOverride = args.device;
    options.coresOverride = args.cores;
    options.maxDecompressedBytes = args.maxDecompressedMb << 20;
    options.maxCompressionRatio = args.maxCompressionRatio;
    options.memoryBudgetBytes = args.memoryBudgetMb << 20;
    options.maxEvents = args.maxEvents;
    options.maxHloInstructions = args.maxHloInstructions;
    return options;
}

int loadProfileArgument(const Arguments& args, const std::string& path, std::ostream& err, ProfilePtr& profile)
{
    if (!args.device.empty() && !findTpuGeneration(args.device)) {
        err << "tpuscope-cli: unknown TPU generation '" << args.device << "' (use v2, v3, v4, v5e, v5p, v6e or v7x)\n";
        return 2;
    }
    LoadResult result = loadProfile(path, loadOptionsFromArguments(args));
    if (!result.ok()) {
        err << "tpuscope-cli: " << result.error << "\n";
        return 1;
    }
    // What the file records wins over a choice that contradicts it: the choice is refused, loudly.
    if (!result.profile->load.deviceRefusal.empty()) {
        err << "tpuscope-cli: " << path << ": refused: " << result.profile->load.deviceRefusal << "\n";
        return 2;
    }
    profile = result.profile;
    return 0;
}

bool load(const Arguments& args, const std::string& path, std::ostream& err, ProfilePtr& profile)
{
    return loadProfileArgument(args, path, err, profile) == 0;
}

bool outputRefused(
    const char* command, const std::string& output, const std::vector<std::string>& inputs, std::ostream& err)
{
    const std::string problem = outputPathProblem(output, inputs);
    if (problem.empty())
        return false;
    err << "tpuscope-cli " << command << ": " << problem << "\n";
    return true;
}

std::string kib(size_t bytes)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f KB", static_cast<double>(bytes) / 1024.0);
    return buffer;
}

int loadFirstFile(const Arguments& args, std::ostream& err, ProfilePtr& profile)
{
    if (args.positional.empty()) {
        err << "tpuscope-cli " << args.command << ": missing FILE\n";
        return 2;
    }
    return loadProfileArgument(args, args.positional.front(), err, profile);
}

int loadFirstTpuFile(const Arguments& args, std::ostream& err, ProfilePtr& profile)
{
    if (int rc = loadFirstFile(args, err, profile))
        return rc;
    if (!profile->hasTpuOps()) {
        err << "tpuscope-cli " << args.command << ": " << computeSummary(*profile).message << "\n";
        return 1;
    }
    return 0;
}

int runGlossary(const Arguments&, std::ostream& out, std::ostream&)
{
    out << glossaryMarkdown();
    return 0;
}

constinit const Command kGlossaryCommand {
    .name = "glossary",
    .about = "Every metric: meaning, formula, source.",
    .run = runGlossary,
};

int runHelp(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (args.positional.empty()) {
        out << generalHelp();
        return 0;
    }
    const Command* command = findCommand(args.positional.front());
    if (!command) {
        err << "tpuscope-cli help: unknown command '" << args.positional.front() << "' (try --help)\n";
        return 2;
    }
    out << commandHelp(*command);
    return 0;
}

constinit const Command kHelpCommand {
    .name = "help",
    .operands = "[COMMAND]",
    .about = "This text, or what a command's options do (also: COMMAND --help).",
    .run = runHelp,
};

std::span<const Command* const> commands()
{
    // A new command: its file and one line here.
    static constexpr const Command* kCommands[] = {
        &kSummaryCommand,
        &kOpsCommand,
        &kStepsCommand,
        &kHostsCommand,
        &kAdviseCommand,
        &kFusionCommand,
        &kMemoryCommand,
        &kShareCommand,
        &kMergeCommand,
        &kOpenTextCommand,
        &kDiffCommand,
        &kGateCommand,
        &kCardCommand,
        &kThresholdsCommand,
        &kGlossaryCommand,
        &kSynthCommand,
        &kHelpCommand,
    };
    return kCommands;
}

const Command* findCommand(std::string_view name)
{
    for (const Command* command : commands())
        if (command->name == name)
            return command;
    return nullptr;
}

int runCommand(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (const Command* command = findCommand(args.command)) {
        // The boundary of every command: whatever does not fit in memory after the load (the
        // analysis, a report, a share file) ends it with a message, never an abort.
        try {
            return command->run(args, out, err);
        } catch (const std::bad_alloc&) {
            const std::string input = args.positional.empty() ? std::string("tpuscope-cli") : args.positional.front();
            err << "tpuscope-cli: "
                << model::outOfMemoryMessage(input, loadOptionsFromArguments(args), "the " + args.command + " command")
                << "\n";
            return 1;
        }
    }
    err << "tpuscope-cli: unknown command '" << args.command << "' (try --help)\n";
    return 2;
}

} // namespace tpuscope::cli
