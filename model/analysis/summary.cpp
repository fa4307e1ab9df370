// SPDX-License-Identifier: GPL-3.0-or-later
#include "summary.h"

#include "../core/format.h"

#include <algorithm>
#include <tuple>

namespace tpuscope::model {

StepStats stepStats(const StepAnalysis& steps)
{
    StepStats stats;
    stats.count = steps.stepsPerCore;
    stats.averagePs = steps.avgStepPs;
    stats.minPs = steps.minStepPs;
    stats.maxPs = steps.maxStepPs;
    stats.source = steps.sourceLine;
    stats.program = steps.program;
    return stats;
}

StepStats computeStepStats(const Profile& profile)
{
    return stepStats(computeSteps(profile));
}

std::vector<std::string> breakdownWarnings(const Profile& profile, const OpBreakdown& b)
{
    std::vector<std::string> out;
    if (b.totalTimePs > 0 && b.costCoverage < kLowCostCoverage)
        out.push_back("only " + costCoverageText(b.costCoverage)
            + ": the other ops record no FLOPs or bytes (custom kernels often do not), so their utilization is "
              "unknown and the headline describes the covered ops only");
    for (const auto* h : {&b.flops, &b.hbm}) {
        if (h->overPeakOps == 0)
            continue;
        out.push_back(std::to_string(h->overPeakOps) + " op" + (h->overPeakOps == 1 ? "" : "s") + " run above the "
            + (h == &b.flops ? "FLOP" : "HBM")
            + " peak (shown as \"100% (N% uncapped)\"): their cost estimate or the chosen device is wrong; "
            + formatDecimal(h->overPeakPoints * 100, 1) + "% of the headline's " + (h == &b.flops ? "FLOPs" : "bytes")
            + " come from them");
    }
    if (!profile.device.coresNote.empty() && b.totalTimePs > 0)
        out.push_back(profile.device.coresNote);
    const bool whole = b.core < 0;
    for (auto [h, file, what] : {std::tuple {&b.flops, profile.fileRootUtilization.flops, "FLOPS"},
             std::tuple {&b.hbm, profile.fileRootUtilization.hbm, "HBM bandwidth"}})
        if (whole && file && !h->fromFile && h->uncapped)
            out.push_back(std::string("the file's own program ") + what + " utilization is " + formatPercent(*file)
                + "; the headline's " + formatPercent(*h->uncapped)
                + " is computed from its ops and differs (their times or the peak do not add up to the root's)");
    if (profile.device.peakTflopsPerCore <= 0 && b.totalTimePs > 0)
        out.push_back("the TPU generation is unknown: utilizations are unknown (–) until a device is chosen");
    return out;
}

std::vector<std::string> profileWarnings(const Profile& profile, const OpBreakdown& breakdown)
{
    std::vector<std::string> out = profile.load.warnings;
    if (!profile.load.deviceRefusal.empty())
        out.push_back("the device choice was refused: " + profile.load.deviceRefusal);
    for (std::string& w : breakdownWarnings(profile, breakdown))
        out.push_back(std::move(w));
    return out;
}

ProfileSummary computeSummary(const Profile& profile)
{
    if (!profile.hasTpuOps())
        return computeSummary(profile, OpBreakdown {}, StepAnalysis {});
    return computeSummary(profile, computeOpBreakdown(profile), computeSteps(profile));
}

std::string noTpuOpDataStatement(const Profile& profile)
{
    int gpus = 0;
    for (const auto& plane : profile.planes)
        gpus += plane.kind == PlaneKind::Gpu;
    std::string text = "This profile has no TPU op data (no /device:TPU:N plane with an \"XLA Ops\" line)";
    if (gpus)
        text += "; it holds " + std::to_string(gpus) + " GPU device plane" + (gpus == 1 ? "" : "s");
    return text + ".";
}

ProfileSummary computeSummary(const Profile& profile, const OpBreakdown& opBreakdown, const StepAnalysis& steps)
{
    ProfileSummary summary;
    summary.spanPs = profile.spanEnd - profile.spanBegin;
    summary.events = profile.eventCount();
    summary.tracks = profile.tracks.size();
    summary.planes = profile.planes.size();
    summary.ops = profile.ops.size();
    summary.programs = profile.programs.size();
    for (const auto& program : profile.programs)
        summary.programsWithHlo += program.hlo ? 1 : 0;
    summary.hasTpuOps = profile.hasTpuOps();
    if (!summary.hasTpuOps) {
        summary.message = noTpuOpDataStatement(profile) + " The timeline still shows every plane and line.";
        return summary;
    }
    const OpBreakdown categories = regroupOpBreakdown(opBreakdown, GroupBy::Category);
    summary.totalOpTimePs = categories.totalTimePs;
    summary.flops = categories.flops;
    summary.hbm = categories.hbm;
    summary.costCoverage = categories.costCoverage;
    summary.warnings = breakdownWarnings(profile, categories);
    const double capacity = static_cast<double>(summary.spanPs) * std::max(1, categories.coresCounted);
    summary.busyFraction = capacity > 0 ? std::min(1.0, categories.totalTimePs / capacity) : 0;
    summary.topCategories = categories.rows;
    summary.lowUtilizationOps = countLowUtilizationOps(opBreakdown);
    summary.stepBreakdown = steps;
    summary.steps = stepStats(summary.stepBreakdown);
    return summary;
}

} // namespace tpuscope::model
