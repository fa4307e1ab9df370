// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli ops: the op-breakdown table.
#include "cli.h"

#include "analysis/profileanalysis.h"
#include "report/report.h"

namespace tpuscope::cli {

using namespace tpuscope::model;

int runOps(const Arguments& args, std::ostream& out, std::ostream& err)
{
    TableFormat format = TableFormat::Text;
    if (!args.format.empty())
        parseTableFormat(args.format, format); // one of kTableFormats: the parser took no other
    GroupBy groupBy;
    if (args.by == "op")
        groupBy = GroupBy::Op;
    else if (args.by == "category")
        groupBy = GroupBy::Category;
    else if (args.by == "program")
        groupBy = GroupBy::Program;
    else if (args.by == "group")
        groupBy = GroupBy::LayerGroup;
    else if (args.by == "framework-op")
        groupBy = GroupBy::FrameworkOp;
    else if (args.by == "source")
        groupBy = GroupBy::Source;
    else {
        err << "tpuscope-cli ops: --by must be op, category, program, group, framework-op or source\n";
        return 2;
    }
    ProfilePtr profile;
    if (int rc = loadFirstFile(args, err, profile))
        return rc;
    // One analysis: the summary's message and the whole-profile breakdown (regrouped for --by)
    // come from it; only a --core filter computes a breakdown of its own.
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(profile);
    if (!profile->hasTpuOps()) {
        err << "tpuscope-cli ops: " << analysis->summary.message << "\n";
        if (format == TableFormat::Json)
            out << opsReport(*profile, analysis->breakdownFor({}, groupBy), format);
        return 0;
    }
    if (args.core >= static_cast<int>(profile->tpuCorePlanes().size())) {
        err << "tpuscope-cli ops: --core " << args.core << " is out of range; the profile has "
            << profile->tpuCorePlanes().size() << " TPU core planes (0.." << profile->tpuCorePlanes().size() - 1
            << ")\n";
        return 2;
    }
    OpFilter filter;
    filter.core = args.core;
    // The whole-profile op table is the analysis' own breakdown (not a copy of every row).
    if (filter.core < 0 && groupBy == GroupBy::Op)
        out << opsReport(*profile, analysis->breakdown, format, args.top);
    else
        out << opsReport(*profile, analysis->breakdownFor(filter, groupBy), format, args.top);
    return 0;
}

namespace {
constexpr Option kOpsOptions[] = {
    {"--by", "op|category|program|group|framework-op|source",
        "what one row is (default: op; group: ops repeated per layer, with their total)",
        [](Arguments& args, std::string_view value, std::string&) {
            args.by = value;
            return true;
        }},
    {"--core", "N", "the ops of one TPU core (0, 1, ...; default: every core)", setCore},
    {"--top", "N", "the N rows with the most time only", setTop},
};
constexpr OptionGroup kOpsOwn {"", kOpsOptions};
constexpr const OptionGroup* kOpsGroups[] = {&kOpsOwn, &kTextTableOptions, &kLoadOptions};
} // namespace

constinit const Command kOpsCommand {
    .name = "ops",
    .operands = "FILE",
    .about = "The op-breakdown table.",
    .formats = kTableFormats,
    .groups = kOpsGroups,
    .run = runOps,
};

} // namespace tpuscope::cli
