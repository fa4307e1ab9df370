// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli summary: device, cores, busy time and where the time goes.
#include "cli.h"

#include "analysis/profileanalysis.h"
#include "report/report.h"

namespace tpuscope::cli {

using namespace tpuscope::model;

int runSummary(const Arguments& args, std::ostream& out, std::ostream& err)
{
    ProfilePtr profile;
    if (int rc = loadFirstFile(args, err, profile))
        return rc;
    // The same analysis the GUI builds, up to the summary: one breakdown, from which the summary's
    // rows are regrouped, and the steps. It prints nothing of the hosts or the advice, so it does
    // not wait for them (a tenth of its time on a 1e7-event profile).
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(profile, {}, {}, AnalysisFor::Summary);
    out << summaryReport(*profile, analysis->summary, args.format == "json");
    return 0;
}

namespace {
constexpr FormatName kSummaryFormats[] = {kTextFormat, kJsonFormat};
constexpr const OptionGroup* kSummaryGroups[] = {&kTextTableOptions, &kLoadOptions};
} // namespace

constinit const Command kSummaryCommand {
    .name = "summary",
    .operands = "FILE",
    .about = "Device, cores, busy time and where the time goes.",
    .formats = kSummaryFormats,
    .groups = kSummaryGroups,
    .run = runSummary,
};

} // namespace tpuscope::cli
