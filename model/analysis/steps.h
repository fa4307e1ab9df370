// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Steps: what one step of the profiled program is, how long it takes and where its time goes.
//
// A step comes from the device `Steps` line when there is one; otherwise it is a run of one
// program on the `XLA Modules` line (the program with the most device time unless the caller
// names one); otherwise host step markers (StepTraceAnnotation events with a step_num). A step
// lasts from its start to the next step's start (so the wait before the next run belongs to it);
// the last step ends with its run. Time before the first step is warm-up, after the last one tail.

#include "../core/profile.h"

namespace tpuscope::model {
struct OpModel;
struct OpTraits;
} // namespace tpuscope::model

#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpuscope::model {

enum class StepSource : uint8_t { None, StepsLine, ProgramRuns, HostMarkers };
/// "Steps line", "XLA Modules", "host step markers", "none".
const char* stepSourceName(StepSource source);

/// One program's runs on the `XLA Modules` lines.
struct ProgramRunStats
{
    std::string name; // the program's name ("jit_f"), or the module event's name when unlinked
    int64_t runs = 0; // over all cores counted
    int cores = 0; // cores it ran on
    double runsPerCore = 0; // runs / cores
    double totalPs = 0; // run time summed over cores
    double avgPs = 0;
    double minPs = 0;
    double maxPs = 0;
    double stddevPs = 0; // population standard deviation of the run time
    double timeFraction = 0; // totalPs / (profile span × cores counted)
    std::vector<int64_t> runsByCore; // by core counted
    std::vector<double> timeByCore;
};

/// One step, averaged over the cores that ran it (or on the one core asked for).
struct StepRow
{
    int64_t index = 0;
    int64_t stepNumber = -1; // step_num of the Steps line or host marker; -1 when not recorded
    TimePs startPs = 0; // earliest start over the cores
    TimePs endPs = 0; // latest end over the cores
    double durationPs = 0; // average window length
    StepTimeSplit time; // average over the cores
    int cores = 0;
};

struct StepAnalysis
{
    StepSource source = StepSource::None;
    std::string sourceLine; // "Steps", "XLA Modules", or the host marker's event name
    std::string program; // the program whose runs are the steps (ProgramRuns), else empty
    std::string note; // why there are no steps, or what the numbers cannot show
    bool opTimesKnown = true; // false when ops carry no start times (share files): busy = run time
    int core = -1; // the core analysed; -1 = averaged over all TPU cores
    int cores = 0; // TPU cores counted (an op_profile's one plane: the profile's core count)
    double spanPs = 0;
    TimePs originPs = 0; // the profile's start (Profile::spanBegin); reports give times from it
    double busyFraction = 0; // op busy time (no overlap counted twice) / (span × cores)

    std::vector<ProgramRunStats> programs; // by total time, largest first
    int dominantProgram = -1; // index into programs: the most device time

    int64_t stepsPerCore = 0; // what per-step numbers divide by
    double avgStepPs = 0;
    double minStepPs = 0;
    double maxStepPs = 0;
    std::vector<StepRow> steps;
    std::vector<std::vector<CoreStep>> coreSteps; // by core counted: each core's own steps

    // Per core, averaged over the cores counted.
    double warmupPs = 0; // before the first step
    double tailPs = 0; // after the last step
    double steadyPs = 0; // the steps' windows
    StepTimeSplit warmup; // what happens in the warm-up
    StepTimeSplit steady; // sum over the steps
    StepTimeSplit tail;

    /// Steady-state idle ÷ steady-state step time (input-bound evidence).
    double steadyIdleFraction() const { return steadyPs > 0 ? steady.idlePs / steadyPs : 0; }
    double steadyInfeedFraction() const { return steadyPs > 0 ? steady.infeedPs / steadyPs : 0; }
    /// The average step split into its parts.
    StepTimeSplit averageStep() const
    {
        return steps.empty() ? StepTimeSplit {} : steady.scaled(1.0 / static_cast<double>(steps.size()));
    }
    const ProgramRunStats* dominant() const
    {
        return dominantProgram >= 0 ? &programs[static_cast<size_t>(dominantProgram)] : nullptr;
    }
};

struct StepOptions
{
    std::string program; // use this program's runs as the steps (name, with or without "(id)")
    int core = -1; // one TPU core (ordinal), -1 = average over all
    /// A session job's token: once stopped, computeSteps returns a partial result the job discards.
    std::stop_token stop;
};

/// A collective a core waits in during a step: a synchronous collective or an async collective's
/// done half (waitsInCollective).
struct StepCollective
{
    OpId op = kNone;
    int occurrence = 0; // of this op within the step on this core (numbered by the hosts analysis)
    TimePs start = 0;
    TimePs duration = 0;
};

/// One core's top-level ops in one step window, as the hosts analysis reads them.
struct CoreStepCollectives
{
    std::vector<StepCollective> collectives; // in track order; sorted by start by the hosts analysis
    TimePs lastOpEnd = -1; // the latest end of an op that starts in the window; -1: none
};

/// Per core (in the order of StepAnalysis::coreSteps) and step window.
using StepCollectives = std::vector<std::vector<CoreStepCollectives>>;

/// Whether a core waits in the op as in a collective (StepCollective).
bool waitsInCollective(const OpTraits& op);
/// waitsInCollective of each op of `model`, one byte per op: an event loop reads it per event,
/// where the op traits are large and would miss the cache on each.
std::vector<uint8_t> collectiveWaitsByOp(const OpModel& model);

/// What computeSteps gathers in its sweep, for a caller that has only the steps: `core`'s
/// collectives (`collective`: waitsInCollective per op) and last op end in each of the first
/// out.size() of its `windows`, from its XLA Ops lines. False when stopped.
bool gatherStepCollectives(const Profile& profile, PlaneId core, const std::vector<CoreStep>& windows,
    const std::vector<uint8_t>& collective, std::vector<CoreStepCollectives>& out, std::stop_token stop);

StepAnalysis computeSteps(const Profile& profile, const StepOptions& options = {});
/// The same with the profile's op model at hand (ProfileAnalysis builds it once). With
/// `collectives`, the all-cores sweep over the XLA Ops lines also gathers each core's collectives
/// and last op end per step window for analyzeHosts: one pass over the events for both, where
/// each made its own (left empty for one core, another program or no op times).
StepAnalysis computeSteps(const Profile& profile, const OpModel& model, const StepOptions& options = {},
    StepCollectives* collectives = nullptr);

/// Where the TPU cores did something: the first start and last end of their op, module and step
/// events ({0, 0} when none). The timeline opens on it when it is a small part of the span.
std::pair<TimePs, TimePs> deviceActivityRange(const Profile& profile);

} // namespace tpuscope::model
