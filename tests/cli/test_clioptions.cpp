// SPDX-License-Identifier: GPL-3.0-or-later
// Per-command options (issue 26, point 8): each command takes the options its table declares,
// refuses any other by naming it and listing what the command takes, and its help lists exactly
// its table. Driven by the tables themselves, so a new command or option is covered on its own.
#include "cli.h"
#include "clitool.h"
#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

using namespace tpuscope::cli;
using namespace tpuscope::test;

namespace {

struct Parsed
{
    bool ok = false;
    Arguments args;
};

Parsed parse(const std::vector<std::string>& words)
{
    std::vector<std::string> storage = {"tpuscope-cli"};
    storage.insert(storage.end(), words.begin(), words.end());
    std::vector<char*> argv;
    for (std::string& word : storage)
        argv.push_back(word.data());
    Parsed parsed;
    parsed.ok = parseArguments(static_cast<int>(argv.size()), argv.data(), parsed.args);
    return parsed;
}

/// The command and stand-ins for its operands: the parser reads no file.
std::vector<std::string> commandWords(const Command& command)
{
    std::vector<std::string> words = {std::string(command.name)};
    std::istringstream operands {std::string(command.operands)};
    for (std::string operand; operands >> operand;)
        words.push_back(operand);
    return words;
}

/// `spelling` with a value its setter takes: the command's default format for --format, else "1"
/// (a number, a name and a path alike).
std::vector<std::string> optionWords(const Command* command, const Option& option, std::string_view spelling)
{
    std::vector<std::string> words = {std::string(spelling)};
    if (&option == &kFormatOption)
        words.push_back(command && !command->formats.empty() ? std::string(command->formats.front().name) : "text");
    else if (!option.value.empty())
        words.push_back("1");
    return words;
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

/// What the refusal must list, written out here rather than asked of the code under test.
std::string expectedTakes(const Command& command)
{
    std::string names;
    for (const Option* option : declaredOptions(command))
        names += (names.empty() ? "" : ", ") + std::string(option->name);
    return std::string(command.name) + (names.empty() ? " takes no options" : " takes: " + names);
}

/// Every option any command declares, by name.
std::vector<const Option*> everyOption()
{
    std::vector<const Option*> all;
    std::set<std::string_view> seen;
    for (const Command* command : commands())
        for (const Option* option : declaredOptions(*command))
            if (seen.insert(option->name).second)
                all.push_back(option);
    return all;
}

bool declares(const Command& command, std::string_view name)
{
    const auto options = declaredOptions(command);
    return std::any_of(options.begin(), options.end(), [&](const Option* o) { return o->name == name; });
}

/// The option names of a help text: the first word of each line of its "options:" part.
std::vector<std::string> helpOptionNames(const std::string& help)
{
    std::vector<std::string> names;
    std::istringstream lines(help);
    bool inOptions = false;
    for (std::string line; std::getline(lines, line);) {
        if (line == "options:") {
            inOptions = true;
            continue;
        }
        if (inOptions && line.rfind("  -", 0) == 0) {
            std::string name = line.substr(2, line.find(' ', 2) - 2);
            if (!name.empty() && name.back() == ',')
                name.pop_back();
            names.push_back(name);
        }
    }
    return names;
}

} // namespace

TEST(CliOptions, TheTablesAreNotEmpty)
{
    // The tests below walk the tables: they would pass on empty ones.
    EXPECT_GE(commands().size(), 13u);
    EXPECT_GE(everyOption().size(), 15u);
    for (const char* name : {"summary", "ops", "steps", "memory", "advise", "fusion", "share", "open-text", "diff",
             "card", "thresholds", "glossary", "synth", "help"})
        EXPECT_NE(findCommand(name), nullptr) << name;
}

TEST(CliOptions, EveryCommandTakesEveryOptionItDeclares)
{
    for (const Command* command : commands()) {
        const Parsed bare = parse(commandWords(*command));
        ASSERT_TRUE(bare.ok) << command->name << ": " << bare.args.error;
        for (const Option* option : declaredOptions(*command))
            for (std::string_view spelling : {option->name, option->alias}) {
                if (spelling.empty())
                    continue;
                SCOPED_TRACE(std::string(command->name) + " " + std::string(spelling));
                const Parsed after = parse(commandWords(*command) + optionWords(command, *option, spelling));
                EXPECT_TRUE(after.ok) << after.args.error;
                EXPECT_TRUE(after.args.error.empty()) << after.args.error;
                // Taken, not just tolerated: the option sets something on the arguments.
                EXPECT_FALSE(after.args == bare.args);
                // Options may come before the command, as they always could.
                const Parsed before = parse(optionWords(command, *option, spelling) + commandWords(*command));
                EXPECT_TRUE(before.ok) << before.args.error;
                EXPECT_TRUE(before.args == after.args);
            }
    }
}

TEST(CliOptions, AnOptionOfAnotherCommandIsRefusedNamingWhatTheCommandTakes)
{
    size_t refused = 0;
    for (const Command* command : commands())
        for (const Option* option : everyOption()) {
            if (declares(*command, option->name))
                continue;
            SCOPED_TRACE(std::string(command->name) + " " + std::string(option->name));
            const Parsed parsed = parse(commandWords(*command) + optionWords(command, *option, option->name));
            EXPECT_FALSE(parsed.ok);
            EXPECT_FALSE(parsed.args.help);
            EXPECT_EQ(parsed.args.spec, command);
            EXPECT_EQ(
                parsed.args.error, "unknown option " + std::string(option->name) + "; " + expectedTakes(*command));
            ++refused;
        }
    EXPECT_GT(refused, 50u);
    // An option no command has is refused the same way.
    const Parsed bogus = parse({"summary", "FILE", "--bogus"});
    EXPECT_FALSE(bogus.ok);
    EXPECT_EQ(bogus.args.error, "unknown option --bogus; " + expectedTakes(*findCommand("summary")));
}

TEST(CliOptions, TheIssueExampleNamesTheFirstUnknownOption)
{
    const Parsed parsed = parse({"summary", "FILE", "--module", "x", "--redact", "names"});
    EXPECT_FALSE(parsed.ok);
    EXPECT_EQ(parsed.args.error.rfind("unknown option --module; summary takes: --format, ", 0), 0u)
        << parsed.args.error;
}

TEST(CliOptions, FormatsAreCheckedPerCommand)
{
    std::set<std::string_view> spellings;
    for (const Command* command : commands())
        for (const FormatName& format : command->formats) {
            spellings.insert(format.name);
            if (!format.alias.empty())
                spellings.insert(format.alias);
        }
    size_t refused = 0;
    for (const Command* command : commands()) {
        if (command->formats.empty())
            continue;
        std::string supported;
        for (const FormatName& format : command->formats)
            supported += (supported.empty() ? "" : ", ") + std::string(format.name);
        for (std::string_view spelling : spellings) {
            SCOPED_TRACE(std::string(command->name) + " --format " + std::string(spelling));
            const bool takes = std::any_of(command->formats.begin(), command->formats.end(),
                [&](const FormatName& f) { return f.name == spelling || f.alias == spelling; });
            const Parsed parsed
                = parse(commandWords(*command) + std::vector<std::string> {"--format", std::string(spelling)});
            EXPECT_EQ(parsed.ok, takes) << parsed.args.error;
            if (!takes) {
                EXPECT_EQ(parsed.args.error,
                    "--format " + std::string(spelling) + " is not supported; " + std::string(command->name)
                        + " supports: " + supported);
                ++refused;
            }
        }
    }
    EXPECT_GT(refused, 5u);
    // What each command wrote before the tables: kept.
    EXPECT_TRUE(parse({"ops", "F", "--format", "markdown"}).ok);
    EXPECT_TRUE(parse({"steps", "F", "--format", "tsv"}).ok);
    EXPECT_FALSE(parse({"memory", "F", "--format", "csv"}).ok);
    EXPECT_FALSE(parse({"summary", "F", "--format", "table"}).ok);
}

TEST(CliOptions, AValueAnOptionRefusesIsAnError)
{
    EXPECT_EQ(parse({"summary", "F", "--max-events", "0"}).args.error, "--max-events needs a positive number");
    EXPECT_EQ(parse({"ops", "F", "--core", "-1"}).args.error, "--core needs a core number (0, 1, ...)");
    EXPECT_EQ(parse({"ops", "F", "--top"}).args.error, "--top needs a value");
    EXPECT_EQ(parse({}).args.error, "no command given");
    EXPECT_EQ(parse({"nope"}).args.error, "unknown command 'nope' (try --help)");
}

TEST(CliOptions, EachCommandsHelpListsExactlyItsOptions)
{
    for (const Command* command : commands()) {
        SCOPED_TRACE(command->name);
        std::vector<std::string> declared;
        for (const Option* option : declaredOptions(*command))
            declared.emplace_back(option->name);
        const std::string help = commandHelp(*command);
        EXPECT_EQ(helpOptionNames(help), declared) << help;
        if (declared.empty()) {
            EXPECT_NE(help.find(std::string(command->name) + " takes no options."), std::string::npos) << help;
        }
        if (!command->formats.empty()) {
            EXPECT_NE(help.find("--format " + std::string(command->formats.front().name) + "|"), std::string::npos)
                << help;
        }
        // -h/--help asks for the same text.
        const Parsed asked = parse(commandWords(*command) + std::vector<std::string> {"--help"});
        EXPECT_FALSE(asked.ok);
        EXPECT_TRUE(asked.args.help);
        EXPECT_EQ(asked.args.spec, command);
    }
}

TEST(CliOptions, TheProgramPrintsTheHelpOfTheTables)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string cli = TPUSCOPE_CLI_PATH;
    for (const Command* command : commands()) {
        SCOPED_TRACE(command->name);
        const CommandResult dashed = runCommand(cli + " " + std::string(command->name) + " --help");
        EXPECT_EQ(dashed.exitCode, 0);
        EXPECT_EQ(dashed.output, commandHelp(*command));
        const CommandResult asked = runCommand(cli + " help " + std::string(command->name));
        EXPECT_EQ(asked.exitCode, 0);
        EXPECT_EQ(asked.output, commandHelp(*command));
    }
    const CommandResult general = runCommand(cli + " --help");
    EXPECT_EQ(general.exitCode, 0);
    EXPECT_EQ(general.output, generalHelp());
    for (const Command* command : commands())
        EXPECT_NE(general.output.find("tpuscope-cli " + std::string(command->name)), std::string::npos)
            << command->name;
}

TEST(CliOptions, TheProgramRefusesTheIssueExampleWithExitCode2)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string cli = TPUSCOPE_CLI_PATH;
    const std::string demo = tempDir("clioptions") + "/demo.xplane.pb";
    std::string error;
    ASSERT_TRUE(tpuscope::model::writeSyntheticXSpace({}, demo, error)) << error;
    // The file loads: what is refused below is the options, not the file.
    ASSERT_EQ(runCommand(cli + " summary '" + demo + "'").exitCode, 0);
    const std::string command = cli + " summary '" + demo + "' --module x --redact names";
    const CommandResult both = runCommand(command, true);
    EXPECT_EQ(both.exitCode, 2) << both.output;
    EXPECT_EQ(both.output.rfind("tpuscope-cli summary: unknown option --module; summary takes: --format, ", 0), 0u)
        << both.output;
    EXPECT_EQ(both.output.find("unknown option --redact"), std::string::npos) << both.output;
    // On stderr: nothing reaches stdout.
    EXPECT_EQ(runCommand(command).output, "");
    // A format the command does not write, the same way.
    const CommandResult csv = runCommand(cli + " memory '" + demo + "' --format csv", true);
    EXPECT_EQ(csv.exitCode, 2) << csv.output;
    EXPECT_NE(
        csv.output.find("memory: --format csv is not supported; memory supports: table, json, md"), std::string::npos)
        << csv.output;
}
