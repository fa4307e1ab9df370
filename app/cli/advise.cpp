// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli advise: the diagnosis from the terminal.
#include "cli.h"

#include "analysis/profileanalysis.h"
#include "report/advicereport.h"
#include "report/report.h"

namespace tpuscope::cli {

using namespace tpuscope::model;

int runAdvise(const Arguments& args, std::ostream& out, std::ostream& err)
{
    AdviceFormat format;
    if (!parseAdviceFormat(args.format, format)) {
        err << "tpuscope-cli advise: --format must be text, json or md\n";
        return 2;
    }
    ProfilePtr profile;
    if (int rc = loadFirstFile(args, err, profile))
        return rc;
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(profile);
    out << adviceReport(*profile, analysis->advice, format);
    return 0;
}

} // namespace tpuscope::cli
