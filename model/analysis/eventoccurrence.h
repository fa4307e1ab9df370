// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One occurrence of an op: the event a user clicked on the timeline, described on its own (issue
// 25): when it ran, on which core and line, in which step and program run, how its duration
// compares with the op's other occurrences, and its own rates (the op's per-occurrence cost over
// this event's duration, with the functions the op breakdown rates the op with). The profile keeps
// no per-event arguments, so nothing here is per-event beyond start, duration, track and depth.

#include "../core/profile.h"

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>

namespace tpuscope::model {

struct ProfileAnalysis;

struct EventOccurrence
{
    bool found = false; // false: the track or index is not in the profile
    TrackId track = kNone;
    uint32_t index = 0;
    OpId op = kNone;
    bool xlaOp = false; // an event of an XLA Ops line of a TPU core (it has a breakdown row)

    TimePs startPs = 0; // from the profile's start (Profile::spanBegin), as the timeline's ruler reads
    TimePs endPs = 0;
    TimePs durationPs = 0;
    uint16_t depth = 0;

    std::string plane; // "/device:TPU:0"
    std::string line; // "XLA Ops"
    int coreOrdinal = -1; // among the TPU cores (Profile::tpuCorePlanes); -1 on any other plane
    std::string host; // the plane's host, only when the profile has several hosts

    /// The step it starts in (ProfileAnalysis::steps: this core's step windows); unknown between
    /// steps (warm-up, tail) and without steps.
    std::optional<int64_t> stepIndex; // 0-based, into StepAnalysis::steps
    int64_t stepNumber = -1; // the step's recorded number; -1 when the file records none
    int64_t stepCount = 0;

    std::string program; // the op's program, as the op table names it (opProgramLabel)
    /// The XLA Modules event on this core that contains the event's start; empty when none does.
    std::string moduleRun;
    TimePs moduleRunStartPs = 0; // from the profile's start
    TimePs moduleRunDurationPs = 0;

    /// Among the op's occurrences (compareWithOccurrences); 0 when they were not looked at.
    int64_t occurrenceOnCore = 0; // 1-based, by start, on this event's plane
    int64_t occurrencesOnCore = 0;
    int64_t occurrences = 0; // on every track
    double minPs = 0;
    double medianPs = 0; // the middle one, the mean of the two middle ones for an even count
    double maxPs = 0;
    double shorterFraction = 0; // of the occurrences, the share strictly shorter than this one

    /// This occurrence's rates: the op's cost per occurrence (the figures the op breakdown counts
    /// once per occurrence) over this event's duration, against the device's peaks. Known exactly
    /// when the op's own rate (OpRow::flopsUtilizationUncapped / hbmUtilizationUncapped) is known;
    /// uncapped, as the op's.
    double flops = 0;
    double hbmBytes = 0;
    std::optional<double> flopsUtilization;
    std::optional<double> hbmUtilization;
    std::optional<double> attainedTflops;
    std::optional<double> attainedHbmGbps;
};

/// The event `index` of `track` in the analysis's profile: everything but the comparison with the
/// op's other occurrences. No pass over the events (binary searches), so a view may call it.
EventOccurrence describeEvent(const ProfileAnalysis& analysis, TrackId track, uint32_t index);

/// Fills the comparison from the op's occurrences (findOccurrences of the event's op).
void compareWithOccurrences(EventOccurrence& event, const Profile& profile, const OpOccurrences& occurrences);

/// describeEvent and compareWithOccurrences over findOccurrences: a pass over the events, so a
/// session job. A stopped search leaves the comparison empty.
EventOccurrence describeEventOccurrence(
    const ProfileAnalysis& analysis, TrackId track, uint32_t index, std::stop_token stop = {});

/// The longest of the occurrences ({kNone, 0} when there are none); the earliest among equals.
std::pair<TrackId, uint32_t> longestOccurrence(const Profile& profile, const OpOccurrences& occurrences);

/// A time from the profile's start in the ruler's formatter (formatTimeLabel) and unit for its
/// size, with the digits that tell apart times about a tenth of `durationPs` apart: "+1.2346 ms".
std::string formatEventTime(TimePs fromStartPs, TimePs durationPs);

} // namespace tpuscope::model
