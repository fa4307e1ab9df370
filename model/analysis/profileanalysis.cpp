// SPDX-License-Identifier: GPL-3.0-or-later
#include "profileanalysis.h"

#include "../core/parallel.h"

#include <thread>

namespace tpuscope::model {

UtilizationOptions analysisUtilizationOptions(const Profile& profile)
{
    UtilizationOptions options;
    options.begin = profile.spanBegin;
    options.end = std::max(profile.spanEnd, profile.spanBegin + 1);
    options.buckets = kAnalysisUtilizationBuckets;
    options.implausibleRateFactor = kAnalysisImplausibleRateFactor;
    return options;
}

OpBreakdown ProfileAnalysis::breakdownFor(const OpFilter& filter, GroupBy groupBy) const
{
    const bool whole = filter.core < 0 && filter.rangeEnd <= filter.rangeBegin;
    if (whole)
        return regroupOpBreakdown(breakdown, groupBy);
    return computeOpBreakdown(*profile, opModel, &hostLink, filter, groupBy);
}

RangeSummary ProfileAnalysis::summarizeRange(TimePs begin, TimePs end, std::stop_token stop) const
{
    return model::summarizeRange(*profile, begin, end, -1, std::move(stop));
}

StepAnalysis ProfileAnalysis::stepsFor(const StepOptions& options) const
{
    if (options.core < 0 && options.program.empty())
        return steps;
    return computeSteps(*profile, opModel, options);
}

ProfileDiff ProfileAnalysis::diffAgainst(const ProfileAnalysis& after) const
{
    return computeDiff(*this, after);
}

ProfileAnalysisPtr buildProfileAnalysis(
    ProfilePtr profile, const AnalysisProgressFn& progress, std::stop_token stop, AnalysisFor purpose)
{
    auto report = [&](std::string_view phase, double fraction) {
        if (progress)
            progress(phase, fraction);
    };
    auto analysis = std::make_shared<ProfileAnalysis>();
    analysis->purpose = purpose;
    analysis->profile = std::move(profile);
    const Profile& p = *analysis->profile;
    report("Analysing ops", 0.0);
    analysis->opModel = buildOpModel(p);
    if (stop.stop_requested())
        return nullptr;
    report("Finding steps", 0.2);
    // Up to three chains of passes over every event that read only the profile and the op model run
    // side by side on the shared pool (each writes its own fields): the op table, the steps and
    // the hosts, and the utilization series. One after the other they were a third of `summary`.
    // The series is what a window's utilization chart draws; no report reads it, so the CLI skips
    // that pass over every event, as it does the depth index. The summary command reads neither
    // the hosts nor anything after the summary, so for it the steps sweep gathers no collectives.
    const bool tpu = p.hasTpuOps();
    const bool series = tpu && purpose == AnalysisFor::Window;
    const bool summaryOnly = purpose == AnalysisFor::Summary;
    parallelFor(
        series ? std::vector<size_t> {3, 3, 2} : std::vector<size_t> {3, 3},
        std::max(1u, std::thread::hardware_concurrency()),
        [&](size_t chain) {
            if (chain == 0) {
                analysis->hostLink = computeHostLink(p, analysis->opModel);
                analysis->breakdown = computeOpBreakdown(p, analysis->opModel, &analysis->hostLink);
            } else if (chain == 1) {
                StepCollectives collectives; // the steps sweep gathers them for the hosts
                analysis->steps = computeSteps(p, analysis->opModel, {}, summaryOnly ? nullptr : &collectives);
                analysis->deviceActivity = deviceActivityRange(p);
                if (!summaryOnly)
                    analysis->hosts = analyzeHosts(p, analysis->opModel, analysis->steps, stop, &collectives);
            } else {
                analysis->utilization = computeUtilization(p, analysis->opModel, analysisUtilizationOptions(p), stop);
            }
        },
        [] {});
    if (stop.stop_requested())
        return nullptr;
    analysis->summary = computeSummary(p, analysis->breakdown, analysis->steps);
    if (summaryOnly)
        return analysis;
    report("Checking the advice rules", 0.6);
    analysis->memory = analyzeMemory(p);
    if (tpu)
        analysis->deviceConsistency = checkDeviceConsistency(p, analysis->breakdown, analysis->opModel);
    analysis->advice = computeAdvice(p, analysis->breakdown, analysis->steps, analysis->memory, analysis->opModel,
        analysis->hostLink, &analysis->deviceConsistency, &analysis->hosts);
    if (stop.stop_requested())
        return nullptr;
    analysis->roofline = computeRoofline(p, analysis->breakdown);
    if (purpose == AnalysisFor::Window) {
        // Here rather than when the timeline is shown: a pass over every event, which the GUI
        // thread must not make.
        report("Indexing the timeline", 0.95);
        auto index = std::make_shared<const DepthIndex>(buildDepthIndex(p, stop));
        if (stop.stop_requested())
            return nullptr;
        analysis->depthIndex = std::move(index);
    }
    return analysis;
}

} // namespace tpuscope::model
