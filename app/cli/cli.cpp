// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli: argument parsing, the helpers the commands share, the dispatcher and `glossary`.
#include "cli.h"

#include "core/atomicfile.h"
#include "core/devicepeaks.h"
#include "loader/decoder.h"
#include "loader/loader.h"
#include "report/glossary.h"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <new>

namespace tpuscope::cli {

using namespace tpuscope::model;

namespace {
template <typename T> bool parseNumber(const char* text, T& out)
{
    const char* end = text + std::strlen(text);
    auto [ptr, ec] = std::from_chars(text, end, out);
    return ec == std::errc() && ptr == end;
}
} // namespace

bool parseArguments(int argc, char** argv, Arguments& args)
{
    if (argc < 2) {
        args.error = "no command given";
        return false;
    }
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](const char* flag) -> const char* {
            if (i + 1 >= argc) {
                args.error = std::string(flag) + " needs a value";
                return nullptr;
            }
            return argv[++i];
        };
        if (a == "-h" || a == "--help") {
            args.help = true;
            return false;
        } else if (a == "--format") {
            const char* v = value("--format");
            if (!v)
                return false;
            args.format = v;
        } else if (a == "--by") {
            const char* v = value("--by");
            if (!v)
                return false;
            args.by = v;
        } else if (a == "--device") {
            const char* v = value("--device");
            if (!v)
                return false;
            args.device = v;
        } else if (a == "-o" || a == "--output") {
            const char* v = value("-o");
            if (!v)
                return false;
            args.output = v;
        } else if (a == "--core") {
            const char* v = value("--core");
            if (!v || !parseNumber(v, args.core) || args.core < 0) {
                args.error = "--core needs a core number (0, 1, ...)";
                return false;
            }
        } else if (a == "--cores") {
            const char* v = value("--cores");
            if (!v || !parseNumber(v, args.cores) || args.cores <= 0 || args.cores > (1 << 20)) {
                args.error = "--cores needs the number of TPU cores (1, 2, ...)";
                return false;
            }
        } else if (a == "--top") {
            const char* v = value("--top");
            if (!v || !parseNumber(v, args.top)) {
                args.error = "--top needs a positive number";
                return false;
            }
        } else if (a == "--max-decompressed-mb") {
            const char* v = value("--max-decompressed-mb");
            if (!v || !parseNumber(v, args.maxDecompressedMb) || args.maxDecompressedMb > model::kMaxLimitMb) {
                args.error = "--max-decompressed-mb needs a number of at most " + std::to_string(model::kMaxLimitMb);
                return false;
            }
        } else if (a == "--max-compression-ratio") {
            const char* v = value("--max-compression-ratio");
            if (!v || !parseNumber(v, args.maxCompressionRatio) || args.maxCompressionRatio == 0) {
                args.error = "--max-compression-ratio needs a positive number";
                return false;
            }
        } else if (a == "--memory-budget-mb" || a == "--max-events" || a == "--max-hlo-instructions") {
            const char* v = value(a.c_str());
            uint64_t& target = a == "--max-events" ? args.maxEvents
                : a == "--max-hlo-instructions"    ? args.maxHloInstructions
                                                   : args.memoryBudgetMb;
            if (!v || !parseNumber(v, target) || target == 0
                || (&target == &args.memoryBudgetMb && target > model::kMaxLimitMb)) {
                args.error = a + " needs a positive number"
                    + (&target == &args.memoryBudgetMb ? " of at most " + std::to_string(model::kMaxLimitMb) : "");
                return false;
            }
        } else if (a == "--program") {
            const char* v = value("--program");
            if (!v)
                return false;
            args.program = v;
        } else if (a == "--redact") {
            const char* v = value("--redact");
            if (!v)
                return false;
            args.redact = v;
        } else if (a == "--module") {
            const char* v = value("--module");
            if (!v)
                return false;
            args.module = v;
        } else if (a == "--text") {
            args.text = true;
        } else if (a == "--forum") {
            args.forum = true;
        } else if (a == "--wide") {
            args.wide = true;
        } else if (!a.empty() && a[0] == '-' && a != "-") {
            args.error = "unknown option " + a;
            return false;
        } else if (args.command.empty()) {
            args.command = a;
        } else {
            args.positional.push_back(a);
        }
    }
    if (args.command.empty()) {
        args.error = "no command given";
        return false;
    }
    return true;
}

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

int runGlossary(const Arguments&, std::ostream& out, std::ostream&)
{
    out << glossaryMarkdown();
    return 0;
}

int runCommand(const Arguments& args, std::ostream& out, std::ostream& err)
{
    using Command = int (*)(const Arguments&, std::ostream&, std::ostream&);
    static const std::pair<const char*, Command> kCommands[] = {
        {"summary", runSummary},
        {"ops", runOps},
        {"thresholds", runThresholds},
        {"glossary", runGlossary},
        {"share", runShare},
        {"open-text", runOpenText},
        {"diff", runDiff},
        {"card", runCard},
        {"steps", runSteps},
        {"memory", runMemory},
        {"advise", runAdvise},
        {"fusion", runFusion},
        {"synth", runSynth},
    };
    for (const auto& [name, run] : kCommands)
        if (args.command == name) {
            // The boundary of every command: whatever does not fit in memory after the load (the
            // analysis, a report, a share file) ends it with a message, never an abort.
            try {
                return run(args, out, err);
            } catch (const std::bad_alloc&) {
                const std::string input
                    = args.positional.empty() ? std::string("tpuscope-cli") : args.positional.front();
                err << "tpuscope-cli: "
                    << model::outOfMemoryMessage(
                           input, loadOptionsFromArguments(args), "the " + args.command + " command")
                    << "\n";
                return 1;
            }
        }
    err << "tpuscope-cli: unknown command '" << args.command << "' (try --help)\n";
    return 2;
}

} // namespace tpuscope::cli
