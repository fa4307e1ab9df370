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
    if (!args.format.empty()
        && (!parseTableFormat(args.format, format) || format == TableFormat::Csv || format == TableFormat::Tsv)) {
        err << "tpuscope-cli memory: --format must be table, json or md\n";
        return 2;
    }
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

} // namespace tpuscope::cli
