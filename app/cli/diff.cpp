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
    // The GUI's Compare: the diff of the two analyses.
    const auto fileName = [](const std::string& path) { return path.substr(path.find_last_of('/') + 1); };
    const ProfileDiff diff = buildProfileAnalysis(a)->diffAgainst(*buildProfileAnalysis(b));
    // Text and Markdown open with the warnings; CSV, TSV and JSON readers get them on stderr too.
    if (format != TableFormat::Text && format != TableFormat::Markdown)
        for (const std::string& warning : diff.warnings())
            err << "tpuscope-cli diff: warning: " << warning << "\n";
    out << diffReport(diff, format, args.top, fileName(args.positional[0]), fileName(args.positional[1]));
    return 0;
}

namespace {
constexpr Option kDiffOptions[] = {
    {"--top", "N", "the N ops that changed most only", setTop},
};
constexpr OptionGroup kDiffOwn {"", kDiffOptions};
constexpr const OptionGroup* kDiffGroups[] = {&kDiffOwn, &kTextTableOptions, &kLoadOptions};
} // namespace

constinit const Command kDiffCommand {
    .name = "diff",
    .operands = "BEFORE AFTER",
    .about = "What changed from one profile to another: per-op deltas before and after a fix.",
    .formats = kTableFormats,
    .groups = kDiffGroups,
    .run = runDiff,
};

} // namespace tpuscope::cli
