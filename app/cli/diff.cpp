// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli diff: what changed from one profile to another.
#include "cli.h"

#include "analysis/profileanalysis.h"

#include "analysis/diff.h"
#include "analysis/summary.h"
#include "report/diffreport.h"
#include "report/report.h"

namespace tpuscope::cli {

using namespace tpuscope::model;

int runDiff(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (args.positional.size() != 2) {
        err << "tpuscope-cli diff: needs two files: diff A B\n";
        return 2;
    }
    TableFormat format = TableFormat::Text;
    if (!args.format.empty())
        parseTableFormat(args.format, format); // one of kTableFormats: the parser took no other
    ProfilePtr a, b;
    if (!load(args, args.positional[0], err, a) || !load(args, args.positional[1], err, b))
        return 1;
    for (const ProfilePtr& p : {a, b})
        if (!p->hasTpuOps()) {
            err << "tpuscope-cli diff: " << p->load.path << ": " << computeSummary(*p).message << "\n";
            return 1;
        }
    // The GUI's Compare: the diff of the two analyses, the sides named as the Compare dock names them.
    const ProfileDiff diff = buildProfileAnalysis(a)->diffAgainst(*buildProfileAnalysis(b));
    const auto [before, after] = comparisonLabels(a->load.path, b->load.path);
    // Text and Markdown open with the warnings; CSV, TSV and JSON readers get them on stderr too.
    if (format != TableFormat::Text && format != TableFormat::Markdown)
        for (const std::string& warning : diff.warnings())
            err << "tpuscope-cli diff: warning: " << warning << "\n";
    out << diffReport(diff, format, args.top, before, after);
    return 0;
}

namespace {
constexpr Option kDiffOptions[] = {
    {"--top", "N", "the N ops that changed most only", setTop},
};
constexpr OptionGroup kDiffOwn {"", kDiffOptions};
constexpr const OptionGroup* kDiffGroups[] = {&kDiffOwn, &kTextTableOptions, &kLoadOptions};

std::string diffDetails()
{
    return "Ops are matched by what they compute: the same name, program and HLO; else the same HLO\n"
           "fingerprint (opcodes and structure, names and sizes left out); else the same framework op and\n"
           "source line. Renumbered fusions of a recompile match; what matches nothing is new or removed.\n"
           "Times are per step and TPU core. Step times are compared as distributions (warm-up left out,\n"
           "Mann-Whitney U and a bootstrap interval of the median change); a change within the noise is\n"
           "\"no significant change\". tpuscope-cli gate turns the same diff into a CI verdict.\n";
}
} // namespace

constinit const Command kDiffCommand {
    .name = "diff",
    .operands = "BEFORE AFTER",
    .about = "What changed from one profile to another: per-op deltas and why, step times with their noise.",
    .formats = kTableFormats,
    .groups = kDiffGroups,
    .run = runDiff,
    .details = diffDetails,
};

} // namespace tpuscope::cli
