// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loader/loader.h"

namespace tpuscope::cli {

struct Command;

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
    // gate: the budgets (percent) and whether a configuration change is gated anyway
    double maxStepRegressionPct = 5;
    double maxHbmPeakRegressionPct = 5;
    double maxOpRegressionPct = 10;
    bool allowConfigChange = false;
    bool help = false;
    const Command* spec = nullptr; // the command named, once parsing found it
    std::string error;

    bool operator==(const Arguments&) const = default;
};

/// Sets what one option gives on `args` from its value (empty for a flag); false with `error`
/// when the value is not one the option takes.
using OptionSetter = bool (*)(Arguments& args, std::string_view value, std::string& error);

/// One option a command takes: the parser accepts it, and the help lists it, from this entry alone.
struct Option
{
    std::string_view name; // "--top", "-o"
    std::string_view value; // what follows it in the help ("N", "GEN"); empty for a flag
    std::string_view help; // one line
    OptionSetter apply = nullptr;
    std::string_view alias = {}; // another spelling ("--output" for "-o")
};

/// Options that belong together. A named group (the load limits) is shared by the commands that
/// load a profile and shows as "[load options]" in the usage line; an unnamed one is listed there.
struct OptionGroup
{
    std::string_view name;
    std::span<const Option> options;
};

/// A value of --format; `alias` is an older spelling still accepted ("text" for "table").
struct FormatName
{
    std::string_view name;
    std::string_view alias = {};
};

/// One subcommand: what it takes, for the parser, the usage line and its help alike.
struct Command
{
    std::string_view name;
    std::string_view operands = {}; // "FILE", "BEFORE AFTER"
    std::string_view about = {}; // one line
    std::span<const FormatName> formats = {}; // its --format values, the default first; empty: no --format
    std::span<const OptionGroup* const> groups = {}; // its own options first, then the shared groups
    int (*run)(const Arguments& args, std::ostream& out, std::ostream& err) = nullptr;
    /// More for `help COMMAND` after the options (what its operands may be, its exit codes); optional.
    std::string (*details)() = nullptr;
};

// The shared groups (options.cpp), each declared once and named by the commands that use them.
extern const OptionGroup kLoadOptions; // --device, --cores and the load limits
extern const OptionGroup kTextTableOptions; // --wide
extern const OptionGroup kOutputFileOption; // -o
/// --format: declared by a command's `formats`, listed first.
extern const Option kFormatOption;
// The formats the commands choose from.
inline constexpr FormatName kTextFormat {"text"};
inline constexpr FormatName kTableFormat {"table", "text"};
inline constexpr FormatName kCsvFormat {"csv"};
inline constexpr FormatName kTsvFormat {"tsv"};
inline constexpr FormatName kJsonFormat {"json"};
inline constexpr FormatName kMarkdownFormat {"md", "markdown"};
/// What a report drawn by renderTable takes.
inline constexpr FormatName kTableFormats[] = {kTableFormat, kCsvFormat, kTsvFormat, kJsonFormat, kMarkdownFormat};

// Setters of options that more than one command takes with its own help line.
bool setCore(Arguments& args, std::string_view value, std::string& error);
bool setTop(Arguments& args, std::string_view value, std::string& error);
bool setProgram(Arguments& args, std::string_view value, std::string& error);

/// Every command, in the order the usage lists them (the dispatcher, cli.cpp).
std::span<const Command* const> commands();
const Command* findCommand(std::string_view name);
/// Every option `command` takes, in the order its help lists them (--format first).
std::vector<const Option*> declaredOptions(const Command& command);
/// "--format, --wide, --device, ..." or "no options".
std::string optionNames(const Command& command);
/// "tpuscope-cli ops FILE [--format table|csv|tsv|json|md] [--by ...] ... [load options]".
std::string usageLine(const Command& command);
/// A command's help: its usage line, what it does and one line per option it takes.
std::string commandHelp(const Command& command);
/// The help of `tpuscope-cli --help`: every command's usage line, then what FILE and GEN are.
std::string generalHelp();

/// Parses argv against the options of the command it names (they may come before the command):
/// an option the command does not take, a value it refuses or a --format it does not write is an
/// error naming the option and what the command takes. False with `args.error` on a usage error,
/// or with `args.help` for -h/--help (`args.spec` is the command whose help is asked, if any).
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
int runGate(const Arguments& args, std::ostream& out, std::ostream& err);
int runHelp(const Arguments& args, std::ostream& out, std::ostream& err);

// What each command takes, declared beside it in app/cli/<command>.cpp (glossary and help in
// cli.cpp); commands() lists them.
extern const Command kSummaryCommand;
extern const Command kOpsCommand;
extern const Command kStepsCommand;
extern const Command kHostsCommand;
extern const Command kAdviseCommand;
extern const Command kFusionCommand;
extern const Command kMemoryCommand;
extern const Command kShareCommand;
extern const Command kMergeCommand;
extern const Command kOpenTextCommand;
extern const Command kDiffCommand;
extern const Command kCardCommand;
extern const Command kGateCommand;
extern const Command kThresholdsCommand;
extern const Command kGlossaryCommand;
extern const Command kSynthCommand;
extern const Command kHelpCommand;

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
/// loadFirstFile, then exit code 1 with the summary's reason when the profile has no TPU ops.
int loadFirstTpuFile(const Arguments& args, std::ostream& err, std::shared_ptr<const model::Profile>& profile);
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
