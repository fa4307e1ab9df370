// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Before/after comparison of two profiles: ops matched by (program, name), falling back to the name
// alone because program ids change between compilations of the same model.

#include "../core/profile.h"
#include "opbreakdown.h"
#include "summary.h"

#include <optional>
#include <string>
#include <vector>

namespace tpuscope::model {

enum class DiffStatus : uint8_t { Both, New, Removed };
const char* diffStatusName(DiffStatus status);

struct DiffSide
{
    OpId op = kNone;
    std::string program;
    int64_t occurrences = 0;
    double timePs = 0; // total (over cores), or per step when DiffSummary::perStep
    double timeFraction = 0; // of that profile's op time
    std::optional<double> flopsUtilization; // empty when unknown (no cost data or peak)
    std::optional<double> hbmUtilization;
};

struct DiffRow
{
    std::string name;
    std::string category;
    DiffStatus status = DiffStatus::Both;
    bool matchedByNameOnly = false; // the programs differ (e.g. recompiled): matched on the op name
    DiffSide a, b;
    double timeDeltaPs() const { return b.timePs - a.timePs; }
    double fractionDelta() const { return b.timeFraction - a.timeFraction; }
};

struct DiffProfileSide
{
    std::string device;
    std::string generation; // canonical ("v6e"), empty when unknown
    int cores = 0;
    int64_t steps = 0;
    double stepPs = 0; // average step time (0 = unknown)
    double totalOpTimePs = 0; // total op time over all cores (per step when perStep)
    std::optional<double> flopsUtilization;
    std::optional<double> hbmUtilization;
    size_t ops = 0;
};

/// Two profiles are one program before and after a change when at least this share of each one's
/// op time is in ops found in the other; below it their time and utilization changes mean nothing.
constexpr double kRelatedMatchedTimeFraction = 0.5;

struct ProfileDiff
{
    /// Both profiles have steps: op times are per step, so runs of different length compare.
    bool perStep = false;
    DiffProfileSide a, b;
    std::vector<DiffRow> rows; // by |time delta|, largest first
    size_t matched = 0, added = 0, removed = 0, matchedByName = 0;
    /// The share of each side's op time in matched ops.
    double matchedTimeFractionA = 0, matchedTimeFractionB = 0;

    /// Whether the two look like one program before and after a change (kRelatedMatchedTimeFraction).
    bool related() const
    {
        return matched > 0 && matchedTimeFractionA >= kRelatedMatchedTimeFraction
            && matchedTimeFractionB >= kRelatedMatchedTimeFraction;
    }
    /// Both generations known and different: every time compares the hardware too.
    bool differentGeneration() const
    {
        return !a.generation.empty() && !b.generation.empty() && a.generation != b.generation;
    }
    /// What a reader must know before reading the changes, one sentence each (unrelated profiles,
    /// different TPU generations); empty when there is nothing to say. Every report shows these.
    std::vector<std::string> warnings() const;
};

ProfileDiff computeDiff(const Profile& a, const Profile& b);
/// The same from each side's op breakdown (computeOpBreakdown, no filter) and step figures.
ProfileDiff computeDiff(const Profile& a, const OpBreakdown& breakdownA, const StepStats& stepsA, const Profile& b,
    const OpBreakdown& breakdownB, const StepStats& stepsB);

} // namespace tpuscope::model
