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
    const std::string format = args.format.empty() ? "text" : args.format;
    if (format != "text" && format != "json") {
        err << "tpuscope-cli summary: --format must be text or json\n";
        return 2;
    }
    // The same analysis the GUI builds: one breakdown, from which the summary's rows are regrouped.
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(profile);
    out << summaryReport(*profile, analysis->summary, format == "json");
    return 0;
}

} // namespace tpuscope::cli
