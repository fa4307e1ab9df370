// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli: the option groups the commands share, the parser that checks a command line against
// the command's own table, and the help drawn from the same tables (so neither can drift).
#include "cli.h"

#include "loader/loader.h"

#include <algorithm>
#include <charconv>

namespace tpuscope::cli {

namespace {

template <typename T> bool parseNumber(std::string_view text, T& out)
{
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end;
}

/// A positive limit; the MiB ones at most kMaxLimitMb, so that `<< 20` cannot wrap around.
bool setLimit(uint64_t& target, std::string_view name, bool inMiB, std::string_view value, std::string& error)
{
    if (parseNumber(value, target) && target > 0 && (!inMiB || target <= model::kMaxLimitMb))
        return true;
    error = std::string(name) + " needs a positive number"
        + (inMiB ? " of at most " + std::to_string(model::kMaxLimitMb) : std::string());
    return false;
}

constexpr Option kLoadOptionList[] = {
    {"--device", "GEN",
        "TPU generation (v2, v3, v4, v5e, v5p, v6e, v7x) whose peaks are used where the file records none; one "
        "that contradicts the file is refused",
        [](Arguments& args, std::string_view value, std::string&) {
            args.device = value;
            return true;
        }},
    {"--cores", "N", "TPU cores where the file does not record them (op_profile.json sums all cores on one plane)",
        [](Arguments& args, std::string_view value, std::string& error) {
            if (parseNumber(value, args.cores) && args.cores > 0 && args.cores <= (1 << 20))
                return true;
            error = "--cores needs the number of TPU cores (1, 2, ...)";
            return false;
        }},
    {"--memory-budget-mb", "N",
        "memory a load may take (default: the smallest of 3/4 of the RAM, ulimit -v and the cgroup's memory.max; "
        "or TPUSCOPE_MEMORY_BUDGET_MB)",
        [](Arguments& args, std::string_view value, std::string& error) {
            return setLimit(args.memoryBudgetMb, "--memory-budget-mb", true, value, error);
        }},
    {"--max-events", "N",
        "events to load at most (default: what the budget holds, or TPUSCOPE_MAX_EVENTS); a JSON trace keeps the "
        "events before the limit",
        [](Arguments& args, std::string_view value, std::string& error) {
            return setLimit(args.maxEvents, "--max-events", false, value, error);
        }},
    {"--max-hlo-instructions", "N",
        "instructions per HLO module at most (default: 2000000, or TPUSCOPE_MAX_HLO_INSTRUCTIONS); a larger module "
        "keeps its ops, not its HLO",
        [](Arguments& args, std::string_view value, std::string& error) {
            return setLimit(args.maxHloInstructions, "--max-hlo-instructions", false, value, error);
        }},
    {"--max-decompressed-mb", "N", "inflated gzip data at most (default: the memory budget)",
        [](Arguments& args, std::string_view value, std::string& error) {
            if (parseNumber(value, args.maxDecompressedMb) && args.maxDecompressedMb <= model::kMaxLimitMb)
                return true;
            error = "--max-decompressed-mb needs a number of at most " + std::to_string(model::kMaxLimitMb);
            return false;
        }},
    {"--max-compression-ratio", "N",
        "gzip data may inflate N:1 at most past 256 MiB (default: 200, or TPUSCOPE_MAX_COMPRESSION_RATIO)",
        [](Arguments& args, std::string_view value, std::string& error) {
            return setLimit(args.maxCompressionRatio, "--max-compression-ratio", false, value, error);
        }},
};

constexpr Option kTextTableOptionList[] = {
    {"--wide", "",
        "text tables print long names whole (without it, names over 60 characters, or half the terminal width, are "
        "elided in the middle)",
        [](Arguments& args, std::string_view, std::string&) {
            args.wide = true;
            return true;
        }},
};

constexpr Option kOutputFileOptionList[] = {
    {"-o", "FILE", "write to FILE (atomically, never over an input)",
        [](Arguments& args, std::string_view value, std::string&) {
            args.output = value;
            return true;
        },
        "--output"},
};

bool isHelpFlag(std::string_view token)
{
    return token == "-h" || token == "--help";
}

bool isOptionToken(std::string_view token)
{
    return token.size() > 1 && token[0] == '-';
}

bool spells(const Option& option, std::string_view token)
{
    return token == option.name || (!option.alias.empty() && token == option.alias);
}

const Option* findOption(const Command& command, std::string_view token)
{
    for (const Option* option : declaredOptions(command))
        if (spells(*option, token))
            return option;
    return nullptr;
}

/// Any command's option of that spelling: tells an option before the command whether a value follows.
const Option* findAnyOption(std::string_view token)
{
    for (const Command* command : commands())
        if (const Option* option = findOption(*command, token))
            return option;
    return nullptr;
}

bool supportsFormat(const Command& command, std::string_view format)
{
    return std::any_of(command.formats.begin(), command.formats.end(),
        [&](const FormatName& f) { return format == f.name || (!f.alias.empty() && format == f.alias); });
}

std::string formatNames(const Command& command, std::string_view separator)
{
    std::string names;
    for (const FormatName& f : command.formats)
        names += (names.empty() ? "" : std::string(separator)) + std::string(f.name);
    return names;
}

/// What follows an option's name in the usage and the help: its value, or --format's choices.
std::string valueText(const Command& command, const Option& option)
{
    if (&option == &kFormatOption)
        return formatNames(command, "|");
    return std::string(option.value);
}

constexpr size_t kHelpWidth = 100;

/// `words` in lines of at most kHelpWidth characters; the first continues a line already `column`
/// characters long, the others start after `indent` spaces.
std::string wrapped(const std::vector<std::string>& words, size_t indent, size_t column)
{
    std::string out;
    size_t at = column;
    for (const std::string& word : words) {
        if (&word != &words.front() && at + 1 + word.size() > kHelpWidth) {
            out += "\n" + std::string(indent, ' ');
            at = indent;
        } else if (&word != &words.front()) {
            out += ' ';
            ++at;
        }
        out += word;
        at += word.size();
    }
    return out;
}

std::vector<std::string> splitWords(std::string_view text)
{
    std::vector<std::string> words;
    for (size_t at = 0; at < text.size();) {
        const size_t space = std::min(text.find(' ', at), text.size());
        if (space > at)
            words.emplace_back(text.substr(at, space - at));
        at = space + 1;
    }
    return words;
}

/// The usage line after `margin` characters ("usage: "), wrapped under the command's operands;
/// an option and its value ("[--top N]") stay on one line.
std::string usageText(const Command& command, size_t margin)
{
    const std::string start = "tpuscope-cli " + std::string(command.name);
    std::vector<std::string> items = splitWords(command.operands);
    if (!command.formats.empty())
        items.push_back("[--format " + formatNames(command, "|") + "]");
    for (const OptionGroup* group : command.groups) {
        if (!group->name.empty()) {
            items.push_back("[" + std::string(group->name) + "]");
            continue;
        }
        for (const Option& option : group->options)
            items.push_back(
                "[" + std::string(option.name) + (option.value.empty() ? "" : " " + std::string(option.value)) + "]");
    }
    if (items.empty())
        return start;
    const size_t column = margin + start.size() + 1;
    return start + " " + wrapped(items, column, column);
}

/// One line per option: "  --top N           help", the help wrapped under its column.
std::string optionLines(const Command* command, const std::vector<const Option*>& options)
{
    constexpr size_t kMaxColumn = 30;
    std::vector<std::string> left;
    size_t column = 0;
    for (const Option* option : options) {
        std::string text = "  " + std::string(option->name);
        if (!option->alias.empty())
            text += ", " + std::string(option->alias);
        const std::string value = command ? valueText(*command, *option) : std::string(option->value);
        if (!value.empty())
            text += " " + value;
        if (text.size() + 2 <= kMaxColumn)
            column = std::max(column, text.size() + 2);
        left.push_back(std::move(text));
    }
    if (column == 0)
        column = kMaxColumn;
    std::string out;
    for (size_t i = 0; i < options.size(); ++i) {
        std::string help(options[i]->help);
        if (command && options[i] == &kFormatOption)
            help += " (default: " + std::string(command->formats.front().name) + ")";
        out += left[i];
        // A long name and value (--by's choices) put the help on the next line.
        out += left[i].size() + 2 <= column ? std::string(column - left[i].size(), ' ')
                                            : "\n" + std::string(column, ' ');
        out += wrapped(splitWords(help), column, column) + "\n";
    }
    return out;
}

} // namespace

constinit const Option kFormatOption {
    "--format", "F", "output format", [](Arguments& args, std::string_view value, std::string&) {
        args.format = value;
        return true;
    }};
constinit const OptionGroup kLoadOptions {"load options", kLoadOptionList};
constinit const OptionGroup kTextTableOptions {"", kTextTableOptionList};
constinit const OptionGroup kOutputFileOption {"", kOutputFileOptionList};

bool setCore(Arguments& args, std::string_view value, std::string& error)
{
    if (parseNumber(value, args.core) && args.core >= 0)
        return true;
    error = "--core needs a core number (0, 1, ...)";
    return false;
}

bool setTop(Arguments& args, std::string_view value, std::string& error)
{
    if (parseNumber(value, args.top))
        return true;
    error = "--top needs a positive number";
    return false;
}

bool setProgram(Arguments& args, std::string_view value, std::string&)
{
    args.program = value;
    return true;
}

std::vector<const Option*> declaredOptions(const Command& command)
{
    std::vector<const Option*> options;
    if (!command.formats.empty())
        options.push_back(&kFormatOption);
    for (const OptionGroup* group : command.groups)
        for (const Option& option : group->options)
            options.push_back(&option);
    return options;
}

std::string optionNames(const Command& command)
{
    std::string names;
    for (const Option* option : declaredOptions(command))
        names += (names.empty() ? "" : ", ") + std::string(option->name);
    return names.empty() ? "no options" : names;
}

std::string usageLine(const Command& command)
{
    std::string line = usageText(command, 0);
    std::replace(line.begin(), line.end(), '\n', ' ');
    line.erase(std::unique(line.begin(), line.end(), [](char a, char b) { return a == ' ' && b == ' '; }), line.end());
    return line;
}

std::string commandHelp(const Command& command)
{
    std::string out = "usage: " + usageText(command, 7) + "\n\n" + std::string(command.about) + "\n";
    const std::vector<const Option*> options = declaredOptions(command);
    out += options.empty() ? "\n" + std::string(command.name) + " takes no options.\n"
                           : "\noptions:\n" + optionLines(&command, options);
    return command.details ? out + "\n" + command.details() : out;
}

std::string generalHelp()
{
    std::string out = "usage: tpuscope-cli COMMAND ARGS [options]\n\n";
    for (const Command* command : commands())
        out += "  " + usageText(*command, 2) + "\n      " + std::string(command->about) + "\n";
    std::vector<const Option*> load;
    for (const Option& option : kLoadOptions.options)
        load.push_back(&option);
    out += "\n"
           "`tpuscope-cli help COMMAND` (or COMMAND --help) lists what each of a command's options does; an option\n"
           "a command does not take is an error that lists the ones it takes.\n"
           "FILE is any profile tpuscope opens: an XSpace (*.xplane.pb[.gz]), a Chrome trace (*.json[.gz]),\n"
           "a TF1 trace, an op_profile.json, a TensorBoard log dir or a *.tpuscope share file.\n"
           "GEN names a TPU generation (v2, v3, v4, v5e, v5p, v6e, v7x) whose peaks are used when the file\n"
           "does not record them; one that contradicts the device or peaks the file records is refused.\n"
           "--cores N sets the TPU cores where the file does not record them (op_profile.json sums all\n"
           "cores on one plane); every command and view divides per-core figures by the same count.\n"
           "Text tables elide names longer than 60 characters in the middle (half the terminal width\n"
           "when that is more); --wide prints them whole.\n"
           "\n"
           "load options (every command that reads a FILE; each message says which limit was hit):\n"
        + optionLines(nullptr, load);
    return out;
}

bool parseArguments(int argc, char** argv, Arguments& args)
{
    const std::vector<std::string_view> tokens(argv + std::min(argc, 1), argv + argc);
    // The command is the first word that is no option and no option's value: options may come first.
    size_t commandAt = tokens.size();
    for (size_t i = 0; i < tokens.size() && commandAt == tokens.size(); ++i) {
        if (isHelpFlag(tokens[i])) {
            args.help = true;
            return false;
        }
        if (!isOptionToken(tokens[i]))
            commandAt = i;
        else if (const Option* option = findAnyOption(tokens[i]); option && !option->value.empty())
            ++i;
    }
    if (commandAt == tokens.size()) {
        args.error = "no command given";
        return false;
    }
    args.command = tokens[commandAt];
    args.spec = findCommand(args.command);
    if (!args.spec) {
        args.error = "unknown command '" + args.command + "' (try --help)";
        return false;
    }
    const Command& command = *args.spec;
    for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string_view token = tokens[i];
        if (i == commandAt)
            continue;
        if (isHelpFlag(token)) {
            args.help = true;
            return false;
        }
        if (!isOptionToken(token)) {
            args.positional.emplace_back(token);
            continue;
        }
        const Option* option = findOption(command, token);
        if (!option) {
            args.error = "unknown option " + std::string(token) + "; " + std::string(command.name)
                + (declaredOptions(command).empty() ? " takes " : " takes: ") + optionNames(command);
            return false;
        }
        std::string_view value;
        if (!option->value.empty()) {
            if (i + 1 >= tokens.size()) {
                args.error = std::string(token) + " needs a value";
                return false;
            }
            value = tokens[++i];
        }
        if (!option->apply(args, value, args.error))
            return false;
    }
    if (!args.format.empty() && !supportsFormat(command, args.format)) {
        args.error = "--format " + args.format + " is not supported; " + std::string(command.name)
            + " supports: " + formatNames(command, ", ");
        return false;
    }
    return true;
}

} // namespace tpuscope::cli
