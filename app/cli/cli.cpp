// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"

#include "report/glossary.h"

#include "analysis/advice.h"
#include "analysis/opbreakdown.h"
#include "analysis/summary.h"
#include "loader/loader.h"
#include "report/report.h"

#include <charconv>
#include <cstdio>
#include <cstring>

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
        } else if (a == "--top") {
            const char* v = value("--top");
            if (!v || !parseNumber(v, args.top)) {
                args.error = "--top needs a positive number";
                return false;
            }
        } else if (a == "--max-decompressed-mb") {
            const char* v = value("--max-decompressed-mb");
            if (!v || !parseNumber(v, args.maxDecompressedMb)) {
                args.error = "--max-decompressed-mb needs a number";
                return false;
            }
        } else if (a == "--max-compression-ratio") {
            const char* v = value("--max-compression-ratio");
            if (!v || !parseNumber(v, args.maxCompressionRatio) || args.maxCompressionRatio == 0) {
                args.error = "--max-compression-ratio needs a positive number";
                return false;
            }
        } else if (a == "--memory-budget-mb" || a == "--max-events") {
            const char* v = value(a.c_str());
            uint64_t& target = a == "--max-events" ? args.maxEvents : args.memoryBudgetMb;
            if (!v || !parseNumber(v, target) || target == 0) {
                args.error = a + " needs a positive number";
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

namespace {

int runSummary(const Arguments& args, std::ostream& out, std::ostream& err)
{
    ProfilePtr profile;
    if (int rc = loadFirstFile(args, err, profile))
        return rc;
    const std::string format = args.format.empty() ? "text" : args.format;
    if (format != "text" && format != "json") {
        err << "tpuscope-cli summary: --format must be text or json\n";
        return 2;
    }
    out << summaryReport(*profile, computeSummary(*profile), format == "json");
    return 0;
}

int runOps(const Arguments& args, std::ostream& out, std::ostream& err)
{
    TableFormat format = TableFormat::Text;
    if (!args.format.empty() && !parseTableFormat(args.format, format)) {
        err << "tpuscope-cli ops: --format must be table, csv, tsv, json or md\n";
        return 2;
    }
    GroupBy groupBy;
    if (args.by == "op")
        groupBy = GroupBy::Op;
    else if (args.by == "category")
        groupBy = GroupBy::Category;
    else if (args.by == "program")
        groupBy = GroupBy::Program;
    else if (args.by == "framework-op")
        groupBy = GroupBy::FrameworkOp;
    else if (args.by == "source")
        groupBy = GroupBy::Source;
    else {
        err << "tpuscope-cli ops: --by must be op, category, program, framework-op or source\n";
        return 2;
    }
    ProfilePtr profile;
    if (int rc = loadFirstFile(args, err, profile))
        return rc;
    if (!profile->hasTpuOps()) {
        err << "tpuscope-cli ops: " << computeSummary(*profile).message << "\n";
        if (format == TableFormat::Json)
            out << opsReport(*profile, computeOpBreakdown(*profile, {}, groupBy), format);
        return 0;
    }
    if (args.core >= profile->device.cores) {
        err << "tpuscope-cli ops: --core " << args.core << " is out of range; the profile has " << profile->device.cores
            << " TPU cores (0.." << profile->device.cores - 1 << ")\n";
        return 2;
    }
    OpFilter filter;
    filter.core = args.core;
    out << opsReport(*profile, computeOpBreakdown(*profile, filter, groupBy), format, args.top);
    return 0;
}

int runThresholds(const Arguments& args, std::ostream& out, std::ostream& err)
{
    TableFormat format = TableFormat::Text;
    if (!args.format.empty() && !parseTableFormat(args.format, format)) {
        err << "tpuscope-cli thresholds: --format must be table, csv, tsv, json or md\n";
        return 2;
    }
    Table table;
    table.header = {"Rule", "Threshold", "Value", "Meaning", "Source"};
    table.rightAligned = {false, false, true, false, false};
    table.elideWideCells = false; // meanings and sources are prose: cut, they would lose their point
    for (const auto& t : adviceThresholds()) {
        char value[32];
        std::snprintf(value, sizeof value, "%g", t.value);
        table.rows.push_back({t.rule, t.name, value, t.meaning, t.source});
    }
    out << renderTable(table, format == TableFormat::Json ? TableFormat::Csv : format);
    return 0;
}

} // namespace

LoadOptions loadOptionsFromArguments(const Arguments& args)
{
    LoadOptions options;
    options.deviceOverride = args.device;
    options.maxDecompressedBytes = args.maxDecompressedMb << 20;
    options.maxCompressionRatio = args.maxCompressionRatio;
    options.memoryBudgetBytes = args.memoryBudgetMb << 20;
    options.maxEvents = args.maxEvents;
    return options;
}

int loadProfileArgument(const Arguments& args, const std::string& path, std::ostream& err, ProfilePtr& profile)
{
    if (!args.device.empty() && !findTpuGenerationKey(args.device)) {
        err << "tpuscope-cli: unknown TPU generation '" << args.device << "' (use v2, v3, v4, v5e, v5p, v6e or v7x)\n";
        return 2;
    }
    LoadResult result = loadProfile(path, loadOptionsFromArguments(args));
    if (!result.ok()) {
        err << "tpuscope-cli: " << result.error << "\n";
        return 1;
    }
    profile = result.profile;
    return 0;
}

int loadFirstFile(const Arguments& args, std::ostream& err, ProfilePtr& profile)
{
    if (args.positional.empty()) {
        err << "tpuscope-cli " << args.command << ": missing FILE\n";
        return 2;
    }
    return loadProfileArgument(args, args.positional.front(), err, profile);
}

int runCommand(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (args.command == "summary")
        return runSummary(args, out, err);
    if (args.command == "ops")
        return runOps(args, out, err);
    if (args.command == "thresholds")
        return runThresholds(args, out, err);
    if (args.command == "glossary") {
        out << model::glossaryMarkdown();
        return 0;
    }
    if (int rc = runExtraCommand(args, out, err); rc != kUnknownCommand)
        return rc;
    err << "tpuscope-cli: unknown command '" << args.command << "' (try --help)\n";
    return 2;
}

} // namespace tpuscope::cli
