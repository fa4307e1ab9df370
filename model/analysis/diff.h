// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Before/after comparison of two profiles, typically one program before and after a change that
// recompiled it. Ops are matched by what they compute (opmatch.h: name, HLO fingerprint, framework
// op), each matched pair says why it changed (diffreasons.h), step times are compared as
// distributions with the warm-up left out and a significance test (changetest.h), examples per
// second too when the global batch differs, and the two configurations are checked first.
// Figures are per step and per TPU core when both profiles have steps, else per core over the
// profile: what the rest of the window shows.

#include "../core/profile.h"
#include "changetest.h"
#include "diffreasons.h"
#include "opmatch.h"
#include "steps.h"

#include <optional>
#include <string>
#include <vector>

namespace tpuscope::model {

struct ProfileAnalysis;

enum class DiffStatus : uint8_t { Both, New, Removed };
const char* diffStatusName(DiffStatus status);

/// One side of an op row.
struct DiffSide
{
    OpId op = kNone;
    std::string name;
    std::string program;
    std::string frameworkOp; // empty when not recorded
    std::string source; // "file.py:87"; empty when not recorded
    int64_t occurrences = 0; // in the whole profile, over all cores
    double occurrencesPerStep = 0; // per step and core (ProfileDiff::perStep), else per core
    double timePs = 0; // per step and core, else per core over the profile
    double timeFraction = 0; // of that profile's op time
    std::optional<double> flopsUtilization; // empty when unknown (no cost data or peak)
    std::optional<double> hbmUtilization;
    double hbmBytes = 0; // per step and core, else per core

    DiffFigures figures() const { return {timePs, flopsUtilization, hbmUtilization, hbmBytes}; }
};

/// A relative change below this counts as noise where no per-step test is possible (share files).
constexpr double kUntestedNoiseFraction = 0.01;

struct DiffRow
{
    std::string name; // the after side's name when matched (what the op is called now), else its side's
    std::string category;
    DiffStatus status = DiffStatus::Both;
    MatchedBy matchedBy = MatchedBy::None;
    DiffSide a, b;
    std::vector<DiffReason> reasons; // matched rows: what changed, most telling first
    /// The op's time per step, before against after (warm-up left out); untested without per-step
    /// op times (a share file has none) or for an unmatched op.
    ChangeTest test;

    double timeDeltaPs() const { return b.timePs - a.timePs; }
    double fractionDelta() const { return b.timeFraction - a.timeFraction; }
    /// The first reason, what a table's "why" column shows; empty when none. A time within the noise
    /// explains nothing and is left out.
    std::string explanation() const;
    /// A matched op's change is noise: not significant by its test, or when untested below
    /// kUntestedNoiseFraction. Views give noise no colour and the gate never fails on it.
    bool withinNoise() const;
};

/// One thing the two configurations disagree on ("generation", "cores", "hosts", "programs",
/// "global batch"), with each side's value.
struct ConfigDifference
{
    std::string what;
    std::string before, after;
};

struct DiffProfileSide
{
    std::string device;
    std::string generation; // canonical ("v6e"), empty when unknown
    int cores = 0;
    int hosts = 1;
    std::vector<std::string> programs; // names of the programs with op time, sorted
    int64_t steps = 0; // per core
    size_t warmupSteps = 0; // leading steps left out of the step comparison
    double stepPs = 0; // average step time (0 = unknown)
    double totalOpTimePs = 0; // per step and core, else per core
    std::optional<double> flopsUtilization;
    std::optional<double> hbmUtilization;
    size_t ops = 0;
    std::optional<int64_t> perCoreBatch; // inferred (padding.h), empty when unknown
    std::optional<int64_t> globalBatch;
    std::optional<double> examplesPerSecond; // global batch / median step time (warm-up left out)
    std::optional<int64_t> hbmPeakBytes; // per core: the largest module's peak heap (memory.h)
};

/// Step times before against after, each side's warm-up left out; examples per second as well
/// when both global batches are known.
struct StepComparison
{
    bool known = false; // both profiles have steps
    ChangeTest stepTime;
    bool batchDiffers = false; // both global batches known and different
    std::optional<ChangeTest> throughput; // examples per second per step
    /// What counts for a verdict: throughput when the global batch differs, else step time.
    const ChangeTest& deciding() const { return batchDiffers && throughput ? *throughput : stepTime; }
    /// Whether the deciding figure got significantly worse (a longer step, fewer examples/s).
    bool regressed() const;
    /// "no significant change", "slower", "faster" in words with the numbers.
    std::string verdict() const;
};

/// Two profiles are one program before and after a change when at least this share of each one's
/// op time is in ops found in the other; below it their time and utilization changes mean nothing.
constexpr double kRelatedMatchedTimeFraction = 0.5;

struct ProfileDiff
{
    /// Both profiles have steps: op times are per step and core, so runs of different length compare.
    bool perStep = false;
    DiffProfileSide a, b;
    std::vector<DiffRow> rows; // by |time delta per step|, largest first
    size_t matched = 0, added = 0, removed = 0;
    size_t matchedByName = 0, matchedByFingerprint = 0, matchedByFrameworkOp = 0;
    /// The share of each side's op time in matched ops.
    double matchedTimeFractionA = 0, matchedTimeFractionB = 0;
    StepComparison steps;
    std::vector<ConfigDifference> config; // empty when the configurations agree

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
    /// a different configuration); empty when there is nothing to say. Every report shows these.
    std::vector<std::string> warnings() const;
};

/// The diff of two analyses (built for reports or a window: the steps, the inferred batch and the
/// memory view are read from them; no event is read again but for the per-step op times).
ProfileDiff computeDiff(const ProfileAnalysis& before, const ProfileAnalysis& after);
/// The same from two profiles, each analysed first.
ProfileDiff computeDiff(const ProfilePtr& before, const ProfilePtr& after);

/// Each of `ops`' time in each step of `steps` from step `first` on, summed over the cores and
/// divided by them (op events by their start; XLA Ops lines, as the op breakdown). Empty when
/// the profile has no op timeline (a share file).
std::vector<std::vector<double>> opTimePerStep(
    const Profile& profile, const StepAnalysis& steps, const std::vector<OpId>& ops, size_t first);

/// "pod16late · 2024_11_29_00_00_00" for a log dir's run, else the file name; two labels that
/// would read alike get their parent folders until they differ.
std::pair<std::string, std::string> comparisonLabels(const std::string& beforePath, const std::string& afterPath);

} // namespace tpuscope::model
