// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli memory: the HBM peak of each module, the buffers alive at it and their padding.
#include "cli.h"

#include "analysis/profileanalysis.h"

#include "analysis/memory.h"
#include "report/memoryreport.h"

namespace tpuscope::cli {

using namespace tpuscope::model;

int runMemory(const Arguments& args, std::ostream& out, std::ostream& err)
{
    TableFormat format = TableFormat::Text;
    if (!args.format.empty())
        parseTableFormat(args.format, format); // one of kMemoryFormats: the parser took no other
    ProfilePtr profile;
    if (int rc = loadFirstFile(args, err, profile); rc != 0)
        return rc;
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(profile);
    MemoryReport report = analysis->memory;
    if (!args.module.empty()) {
        std::erase_if(report.modules, [&](const ModuleMemory& m) { return m.name != args.module; });
        if (report.modules.empty()) {
            err << "tpuscope-cli memory: no module named '" << args.module << "' with a buffer assignment";
            std::string names;
            for (const auto& m : analysis->memory.modules)
                names += (names.empty() ? "" : ", ") + m.name;
            err << (names.empty() ? std::string(" (the file has none)") : " (modules: " + names + ")") << "\n";
            return 1;
        }
    }
    out << memoryReport(report, format, args.top);
    return 0;
}

namespace {
constexpr FormatName kMemoryFormats[] = {kTableFormat, kJsonFormat, kMarkdownFormat};
constexpr Option kMemoryOptions[] = {
    {"--module", "NAME", "one module (by its name) only",
        [](Arguments& args, std::string_view value, std::string&) {
            args.module = value;
            return true;
        }},
    {"--top", "N", "the N largest buffers at each peak only", setTop},
};
constexpr OptionGroup kMemoryOwn {"", kMemoryOptions};
constexpr const OptionGroup* kMemoryGroups[] = {&kMemoryOwn, &kTextTableOptions, &kLoadOptions};
} // namespace

constinit const Command kMemoryCommand {
    .name = "memory",
    .operands = "FILE",
    .about = "The HBM peak of each module, the buffers alive at it and their padding.",
    .formats = kMemoryFormats,
    .groups = kMemoryGroups,
    .run = runMemory,
};

} // namespace tpuscope::cli
