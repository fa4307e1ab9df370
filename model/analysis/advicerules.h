// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What every advice rule shares: the context it reads and the helpers that word its numbers.
// Internal to the advice engine: each rule lives in advice_<rule>.cpp and is one entry of the
// registry (adviceRules()): its id, its thresholds and its run function. A rule reads its
// thresholds from its entry's `AdviceThreshold` constants, never from free numbers, so
// adviceThresholds() (and the CLI's and README's tables made from it) lists each one.

#include "../core/devicepeaks.h"
#include "../core/format.h"
#include "advice.h"
#include "attribution.h"
#include "deviceconsistency.h"
#include "hosts.h"
#include "memory.h"
#include "opgroups.h"
#include "opmodel.h"
#include "steps.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tpuscope::model::advice_detail {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/// A share as text, with two decimals below 10 %.
std::string pct(double fraction);

struct Context
{
    const Profile& profile;
    const OpBreakdown& breakdown;
    const OpModel& model;
    const HostLinkStats& hostLink;
    int64_t steps = 0;
    int cores = 1; // what per-core figures divide by (OpBreakdown::coresRepresented)
    bool coresKnown = true; // false where the file does not record the cores (DeviceInfo::coresNote)
    std::vector<OpPadding> paddings {}; // by breakdown row
    BatchInference batch {};
    const StepAnalysis* stepAnalysis = nullptr; // the steps `steps` counts (computeSteps)
    const MemoryReport* memory = nullptr; // analyzeMemory of the profile, when the caller has it
    const DeviceConsistency* deviceCheck = nullptr; // checkDeviceConsistency, when the caller has it
    const HostAnalysis* hosts = nullptr; // analyzeHosts, for a profile of several hosts
    OpGroups groups {}; // the breakdown's op rows by layer group (groupOps)

    /// Time per step per core of a total over all cores.
    double perStep(double totalPs) const { return totalPs / std::max(1, cores) / std::max<int64_t>(1, steps); }
    /// A time gain over the profile (all cores) in the report's one unit: "582 µs/step" per core
    /// where the profile has steps, else "6.62% of op time (259 ms per core over the capture)".
    std::string gainText(double totalPs) const;
    /// "unet/conv2d_18/Conv2D, unet.py:87": the op's framework op and source line (attribution.h).
    std::string layer(OpId op) const { return attributionText(opAttribution(profile, op)); }
    const OpTraits& traits(const OpRow& row) const { return model[row.op]; }
};

/// What fixing an op can save at most, over the profile (all cores): its time, and for gains where
/// the useful work stays (padding, per-core batch) its time × (1 − utilization), with the roofline
/// efficiency (else the FLOPS utilization) as the utilization: the useful work at the roof still
/// takes that long. Unknown utilization leaves the time.
double saveableTimePs(const OpRow& row, bool usefulWorkStays);
/// Records that `ps` (over the profile, all cores) of an item's gain comes from `op`, capped at what
/// the op can save; returns what was recorded. computeAdvice combines the items from these.
double addOpGain(Advice& a, const Context& ctx, const OpRow& row, double ps, bool usefulWorkStays);

/// Padding-bound: an MXU op (a convolution/dot, or an op with an op_profile layout analysis, which
/// xprof records for convolutions only) whose FLOPS utilization is within kPaddingBoundPoints of the
/// share of its tiles that holds data, so the MXU runs at full speed on padding (needs the peaks).
bool paddingBound(double paddingEfficiency, const OpRow& row, const OpPadding& padding);
/// " fusion.3 is padding-bound: ... ." (leading space).
std::string paddingBoundText(double paddingEfficiency, const OpRow& row);

/// Adds an op to an item's evidence once, with its layer group (AdviceEvidence::group).
void addEvidence(Advice& a, const Context& ctx, OpId op);
/// Adds the rows as evidence by layer group, largest group first: each group's largest row when the
/// group holds kMinOpShare of the op time (among the rows given), and the first three groups whatever
/// their share; their whole time is the gain (the work goes away, none of it stays), or `share` of it
/// when only that part can go; returns that gain.
double addRowsAsEvidenceAndWholeGain(
    Advice& a, const Context& ctx, const std::vector<const OpRow*>& rows, double share = 1.0);
/// Appends "Top evidence: fusion.3 = unet/conv2d_18/Conv2D, unet.py:87." to the detail when the
/// text does not name them yet (computeAdvice calls it for every item).
void nameTopEvidence(Advice& a);
/// "all-reduce.* (256 ops, 5.30%), fusion.3 (58.0%) and 3 more": the rows by layer group, largest
/// group first; a group of several ops is named by its stem with its count and total.
std::string opList(const Context& ctx, const std::vector<const OpRow*>& rows, size_t max = 4);
/// The rows by layer group, largest group first: per group its rows (largest first) and their time.
struct RowGroup
{
    const OpGroup* group = nullptr;
    std::vector<const OpRow*> rows;
    double timePs = 0;
};
std::vector<RowGroup> rowsByGroup(const Context& ctx, const std::vector<const OpRow*>& rows);

// Thresholds several rules share (rule "all"); adviceThresholds() lists them first.
// Smallest share of op time for an op to count as evidence (xprof op_profile hides ops below 1 %
// by default in its "top ops" view; ours for the rules).
constexpr AdviceThreshold kMinOpShare {"all", "min_op_share", kLowUtilizationMinShare, "share",
    "smallest share of op time for an op to be evidence, or to count as a low-utilization op", "ours"};
constexpr AdviceThreshold kPaddingBoundPoints {"all", "padding_bound_points", 0.05, "share",
    "an MXU op whose FLOPS utilization is within this of the share of its tiles holding data is padding-bound", "ours"};

// padding (advice_padding.cpp); low-utilization-fusion words its reason with it too.
constexpr AdviceThreshold kPaddingEfficiency {"padding", "efficiency", 0.5, "share",
    "an array of a top op uses less than this fraction of its tiles, with a padded non-batch dimension",
    "Cloud TPU performance guide (128x8 tiles, feature dims multiples of 8 or 128); 0.5 is ours"};

/// What a rule adds to the report besides its items.
struct RuleOutput
{
    std::vector<Advice>& items; // the items so far: earlier rules' too (typed fields only, by AdviceRuleId)
    std::vector<std::string>& notes; // what could not be checked, and why
    /// Items a rule leaves to another rule: when `owner` fires nothing is said; otherwise `note`.
    struct Deferral
    {
        AdviceRuleId owner;
        std::string note;
    };
    std::vector<Deferral>& deferred;
};

/// One rule: its id, its thresholds (in the order the table lists them) and its run function.
struct AdviceRuleEntry
{
    AdviceRuleId id;
    std::vector<AdviceThreshold> thresholds;
    void (*run)(const Context& ctx, RuleOutput& out);
};

/// Every rule in the order the engine runs them (a rule that bounds others' items runs after them).
const std::vector<const AdviceRuleEntry*>& adviceRules();
/// The thresholds with rule "all".
const std::vector<AdviceThreshold>& sharedAdviceThresholds();

// One entry per advice_<rule>.cpp.
const AdviceRuleEntry& perCoreBatchRule();
const AdviceRuleEntry& paddingRule();
const AdviceRuleEntry& lowUtilizationFusionRule();
const AdviceRuleEntry& hbmBoundRule();
const AdviceRuleEntry& dataFormattingRule();
const AdviceRuleEntry& collectivesRule();
const AdviceRuleEntry& inputBoundRule();
const AdviceRuleEntry& captureCoverageRule();
const AdviceRuleEntry& deviceConsistencyRule();
const AdviceRuleEntry& stridedUpdateRule();
const AdviceRuleEntry& hostOffloadRule();
const AdviceRuleEntry& memoryPaddingRule();
const AdviceRuleEntry& stragglerRule();
const AdviceRuleEntry& uncostedKernelsRule();

} // namespace tpuscope::model::advice_detail
