// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli hosts: one row per host of a (pod) profile, and which one is late.
#include "cli.h"

#include "analysis/profileanalysis.h"
#include "analysis/summary.h"
#include "report/hostsreport.h"
#include "report/report.h"

namespace tpuscope::cli {

using namespace tpuscope::model;

int runHosts(const Arguments& args, std::ostream& out, std::ostream& err)
{
    TableFormat format = TableFormat::Text;
    if (!args.format.empty())
        parseTableFormat(args.format, format); // one of kTableFormats: the parser took no other
    ProfilePtr profile;
    if (int rc = loadFirstTpuFile(args, err, profile))
        return rc;
    out << hostsReport(buildProfileAnalysis(profile)->hosts, format);
    return 0;
}

namespace {
constexpr const OptionGroup* kHostsGroups[] = {&kTextTableOptions, &kLoadOptions};
} // namespace

constinit const Command kHostsCommand {
    .name = "hosts",
    .operands = "FILE|DIR",
    .about = "One row per host: step time, where it goes, collective wait, late steps and clock offset.",
    .formats = kTableFormats,
    .groups = kHostsGroups,
    .run = runHosts,
};

} // namespace tpuscope::cli
