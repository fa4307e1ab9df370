// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/eventoccurrence.h"
#include "core/profile.h"

#include <QPalette>
#include <QString>

#include <utility>
#include <vector>

namespace tpuscope::widgets {

/// What a timeline event that is not an XLA op is (a step, a module run, a host event), in
/// (label, value) pairs for the details panel: the kind, the line, start, duration, end, the
/// step number and the program. Empty for an event that does not exist.
std::vector<std::pair<QString, QString>> timelineEventFacts(
    const model::Profile& profile, model::TrackId track, uint32_t index);

/// The heading those facts go under ("Step", "XLA module run", "Host event", "Event").
QString timelineEventKind(const model::Profile& profile, model::TrackId track);

class DetailsDocument;

/// "This occurrence": one XLA op event on its own (model::EventOccurrence): start, end and
/// duration, core and line, step, program and module run, its place among the op's occurrences
/// (or that they are being counted while `comparing`), and its own rates.
void addEventOccurrenceSection(
    DetailsDocument& doc, const QPalette& pal, const model::EventOccurrence& event, bool comparing);

} // namespace tpuscope::widgets
