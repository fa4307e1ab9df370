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
    AdviceFormat format = AdviceFormat::Text;
    parseAdviceFormat(args.format, format); // one of kAdviseFormats (or none): the parser took no other
    ProfilePtr profile;
    if (int rc = loadFirstFile(args, err, profile))
        return rc;
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(profile);
    out << adviceReport(*profile, analysis->advice, format);
    return 0;
}

namespace {
constexpr FormatName kAdviseFormats[] = {kTextFormat, kJsonFormat, kMarkdownFormat};
constexpr const OptionGroup* kAdviseGroups[] = {&kLoadOptions};
} // namespace

constinit const Command kAdviseCommand {
    .name = "advise",
    .operands = "FILE",
    .about = "The advice: what to change, with its evidence.",
    .formats = kAdviseFormats,
    .groups = kAdviseGroups,
    .run = runAdvise,
};

} // namespace tpuscope::cli
