// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli steps: how long a step is and where its time goes.
#include "cli.h"

#include "analysis/profileanalysis.h"

#include "analysis/steps.h"
#include "analysis/summary.h"
#include "report/report.h"
#include "report/stepsreport.h"

namespace tpuscope::cli {

using namespace tpuscope::model;

int runSteps(const Arguments& args, std::ostream& out, std::ostream& err)
{
    TableFormat format = TableFormat::Text;
    if (!args.format.empty())
        parseTableFormat(args.format, format); // one of kTableFormats: the parser took no other
    ProfilePtr profile;
    if (int rc = loadFirstTpuFile(args, err, profile))
        return rc;
    if (args.core >= static_cast<int>(profile->tpuCorePlanes().size())) {
        err << "tpuscope-cli steps: --core " << args.core << " is out of range; the profile has "
            << profile->tpuCorePlanes().size() << " TPU core planes (0.." << profile->tpuCorePlanes().size() - 1
            << ")\n";
        return 2;
    }
    StepOptions options;
    options.program = args.program;
    options.core = args.core;
    const StepAnalysis steps = buildProfileAnalysis(profile)->stepsFor(options);
    if (!args.program.empty() && steps.source == StepSource::None) {
        err << "tpuscope-cli steps: " << steps.note << "; programs:";
        for (const ProgramRunStats& p : steps.programs)
            err << " " << p.name;
        err << "\n";
        return 2;
    }
    out << stepsReport(steps, format);
    return 0;
}

namespace {
constexpr Option kStepsOptions[] = {
    {"--program", "NAME", "the program whose runs are the steps (default: the one that runs most)", setProgram},
    {"--core", "N", "the steps of one TPU core (0, 1, ...)", setCore},
};
constexpr OptionGroup kStepsOwn {"", kStepsOptions};
constexpr const OptionGroup* kStepsGroups[] = {&kStepsOwn, &kTextTableOptions, &kLoadOptions};
} // namespace

constinit const Command kStepsCommand {
    .name = "steps",
    .operands = "FILE",
    .about = "How long a step is and where its time goes.",
    .formats = kTableFormats,
    .groups = kStepsGroups,
    .run = runSteps,
};

} // namespace tpuscope::cli
