// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Everything the views show about one loaded profile, computed once off the GUI thread (in
// TraceSession's job) and shared read-only: the views, the share card and the CLI read it instead
// of computing their own breakdown, steps or advice.

#include "../core/depthindex.h"
#include "../core/profile.h"
#include "advice.h"
#include "deviceconsistency.h"
#include "diff.h"
#include "hostlink.h"
#include "hosts.h"
#include "memory.h"
#include "opbreakdown.h"
#include "opmodel.h"
#include "rangesummary.h"
#include "steps.h"
#include "summary.h"
#include "utilization.h"

#include <functional>
#include <memory>
#include <stop_token>
#include <string_view>

namespace tpuscope::model {

/// The utilization series a ProfileAnalysis holds: the whole span, all cores, with the chart's
/// bucket budget and its implausible-rate cut (UtilizationOptions::implausibleRateFactor).
constexpr int kAnalysisUtilizationBuckets = 1000;
constexpr double kAnalysisImplausibleRateFactor = 1.05;
/// The options of that series for `profile`; a chart asks with other ranges or cores the same way.
UtilizationOptions analysisUtilizationOptions(const Profile& profile);

/// Who an analysis was built for (buildProfileAnalysis), and so what it holds:
/// - Summary: the op model, host link, breakdown, steps, device activity and summary only, what
///   the summary command prints from. The hosts, the device check, the advice, the memory and the
///   roofline stay empty, and the steps sweep gathers no collectives for the hosts.
/// - Reports: everything but the utilization series and the depth index (every other command).
/// - Window: everything (the GUI).
enum class AnalysisFor : uint8_t { Summary, Reports, Window };

/// One immutable result per loaded profile. Build it with buildProfileAnalysis; share it as
/// std::shared_ptr<const ProfileAnalysis>.
struct ProfileAnalysis
{
    AnalysisFor purpose = AnalysisFor::Reports; // what it holds
    ProfilePtr profile;
    OpModel opModel; // every op's class, program, partner and rate basis (buildOpModel)
    HostLinkStats hostLink; // the host link's traffic per direction (computeHostLink)
    OpBreakdown breakdown; // GroupBy::Op, no filter
    StepAnalysis steps; // computeSteps, all cores
    HostAnalysis hosts; // analyzeHosts over those steps: one row per host, which host is late
    /// [begin, end) of what the TPU cores ran (deviceActivityRange): where the timeline opens.
    std::pair<TimePs, TimePs> deviceActivity {0, 0};
    ProfileSummary summary; // from that breakdown and those steps
    /// The device peaks against what the ops did (empty without TPU ops); the advice's
    /// device-consistency item and the device chooser both read this one.
    DeviceConsistency deviceConsistency;
    AdviceReport advice; // over that breakdown and those steps
    /// analysisUtilizationOptions(*profile); empty unless asked for (AnalysisFor::Window): only a
    /// window's utilization chart draws it.
    UtilizationSeries utilization;
    MemoryReport memory; // analyzeMemory: the HBM memory view (the advice reads it too)
    Roofline roofline; // computeRoofline over that breakdown (the roofline chart's points)
    /// The events of each track by depth row (buildDepthIndex), what the timeline draws from;
    /// null unless asked for (AnalysisFor::Window): the CLI draws nothing.
    std::shared_ptr<const DepthIndex> depthIndex;

    /// The breakdown of a part of the profile (a time range, one core) or grouped otherwise; the
    /// whole-profile op breakdown is returned without computing anything.
    OpBreakdown breakdownFor(const OpFilter& filter, GroupBy groupBy = GroupBy::Op) const;
    /// The steps seen from one core or with another program as the step (the overview's pickers);
    /// the all-cores default is the `steps` above, returned without computing anything.
    StepAnalysis stepsFor(const StepOptions& options) const;
    /// What ran on the TPU cores in [begin, end) (model::summarizeRange over all cores): the
    /// timeline's Shift+drag statistics and the Selection table.
    RangeSummary summarizeRange(TimePs begin, TimePs end, std::stop_token stop = {}) const;
    /// What changed from this profile (before) to `after`, from both analyses (computeDiff: only the
    /// per-step op times read the events again).
    ProfileDiff diffAgainst(const ProfileAnalysis& after) const;
};

using ProfileAnalysisPtr = std::shared_ptr<const ProfileAnalysis>;
using AnalysisProgressFn = std::function<void(std::string_view phase, double fraction)>;

/// Computes the analysis of `profile` (not null), reporting each phase with the fraction of this
/// work done (0..1). Returns
/// null when `stop` was requested before it finished.
/// Who reads the analysis: a window also needs what its timeline and utilization chart draw from;
/// the summary (tpuscope-cli summary) reads only the summary. See ProfileAnalysis::purpose.
ProfileAnalysisPtr buildProfileAnalysis(ProfilePtr profile, const AnalysisProgressFn& progress = {},
    std::stop_token stop = {}, AnalysisFor purpose = AnalysisFor::Reports);

} // namespace tpuscope::model
