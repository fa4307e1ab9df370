// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli gate: the diff of a baseline and a candidate judged against budgets, for CI.
#include "cli.h"

#include "analysis/gate.h"
#include "analysis/profileanalysis.h"
#include "analysis/summary.h"
#include "report/gatereport.h"

#include <charconv>

namespace tpuscope::cli {

using namespace tpuscope::model;

int runGate(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (args.positional.size() != 2) {
        err << "tpuscope-cli gate: needs two profiles: gate BASE CAND\n";
        return 2;
    }
    TableFormat format = TableFormat::Text;
    if (!args.format.empty())
        parseTableFormat(args.format, format); // text, json or md: the parser took no other
    // Exit 1 means a regression: a profile that cannot be read is an error (2), never a verdict.
    ProfilePtr base, candidate;
    if (!load(args, args.positional[0], err, base) || !load(args, args.positional[1], err, candidate))
        return 2;
    for (const ProfilePtr& p : {base, candidate})
        if (!p->hasTpuOps()) {
            err << "tpuscope-cli gate: " << p->load.path << ": " << computeSummary(*p).message << "\n";
            return 2;
        }
    const ProfileDiff diff = buildProfileAnalysis(base)->diffAgainst(*buildProfileAnalysis(candidate));
    GateBudgets budgets;
    budgets.maxStepRegression = args.maxStepRegressionPct / 100;
    budgets.maxHbmPeakRegression = args.maxHbmPeakRegressionPct / 100;
    budgets.maxOpRegression = args.maxOpRegressionPct / 100;
    budgets.allowConfigChange = args.allowConfigChange;
    const GateVerdict verdict = evaluateGate(diff, budgets);
    const auto [before, after] = comparisonLabels(base->load.path, candidate->load.path);
    out << gateReport(verdict, diff, format, before, after);
    return verdict.exitCode();
}

namespace {

bool setPercent(double& target, std::string_view name, std::string_view value, std::string& error)
{
    double parsed = 0;
    const char* end = value.data() + value.size();
    const auto [ptr, ec] = std::from_chars(value.data(), end, parsed);
    if (ec == std::errc() && ptr == end && parsed >= 0 && parsed <= 1000) {
        target = parsed;
        return true;
    }
    error = std::string(name) + " needs a percentage from 0 to 1000 (e.g. 5 for 5 %)";
    return false;
}

constexpr Option kGateOptions[] = {
    {"--max-step-regression", "PCT", "fail when steps are this much slower, beyond the noise (default 5)",
        [](Arguments& a, std::string_view v, std::string& e) {
            return setPercent(a.maxStepRegressionPct, "--max-step-regression", v, e);
        }},
    {"--max-hbm-peak-regression", "PCT", "fail when the HBM peak per core grows by this much (default 5)",
        [](Arguments& a, std::string_view v, std::string& e) {
            return setPercent(a.maxHbmPeakRegressionPct, "--max-hbm-peak-regression", v, e);
        }},
    {"--max-op-regression", "PCT",
        "fail when an op with >= 1% of op time is this much slower per step, beyond the noise (default 10)",
        [](Arguments& a, std::string_view v, std::string& e) {
            return setPercent(a.maxOpRegressionPct, "--max-op-regression", v, e);
        }},
    {"--allow-config-change", "",
        "gate profiles whose generation, cores, hosts, programs or global batch differ (per example then)",
        [](Arguments& a, std::string_view, std::string&) {
            a.allowConfigChange = true;
            return true;
        }},
};
constexpr OptionGroup kGateOwn {"", kGateOptions};
constexpr const OptionGroup* kGateGroups[] = {&kGateOwn, &kLoadOptions};
constexpr FormatName kGateFormats[] = {kTextFormat, kJsonFormat, kMarkdownFormat};

std::string gateDetails()
{
    return "exit codes:\n"
           "  0  within budget (a change within the noise is never a regression)\n"
           "  1  a significant regression beyond its budget; the report names each one with its size\n"
           "     and confidence (Mann-Whitney U and a bootstrap interval of the median change)\n"
           "  2  a usage error, an unreadable profile, unrelated profiles, or a configuration mismatch\n"
           "     (generation, cores, hosts, programs, global batch) without --allow-config-change\n"
           "When the global batch differs, examples per second stand for step time and op times are\n"
           "compared per example. --format md prints a pull-request comment.\n";
}

} // namespace

constinit const Command kGateCommand {
    .name = "gate",
    .operands = "BASE CAND",
    .about = "A CI regression gate: the diff of a baseline and a candidate judged against budgets (exit 0/1/2).",
    .formats = kGateFormats,
    .groups = kGateGroups,
    .run = runGate,
    .details = gateDetails,
};

} // namespace tpuscope::cli
