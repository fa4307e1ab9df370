// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>

// The share card: one PNG made for a forum post (~1200 px wide, readable when scaled down) with
// the device, step time, utilization, top ops (time % and FLOPS % bars), the padding of the
// flagged ops and the advice with its numbers. QtGui only (QPainter on a QImage): works in the
// GUI and in tpuscope-cli with the offscreen platform.

#include "analysis/diff.h"
#include "analysis/memory.h"
#include "analysis/profileanalysis.h"
#include "core/profile.h"
#include "share/shareredaction.h"

#include <QImage>
#include <QString>
#include <QStringList>

namespace tpuscope::widgets {

struct ShareCardOptions
{
    int width = 1200;
    size_t topOps = 8;
    size_t maxAdvice = 4;
    QString title; // optional headline (e.g. the model name); empty = the file name, unless redacted
    /// What the card leaves out of the profile's strings (ShareActions passes the user's setting).
    model::ShareRedaction redaction = model::defaultShareRedaction();
};

/// Renders the card of `analysis` (its profile must be set); the height follows the content. The
/// numbers are read from the analysis: the card computes none itself. Needs a QGuiApplication.
QImage renderShareCard(const model::ProfileAnalysis& analysis, const ShareCardOptions& options = {});

/// The card's "HBM peak" lines: the largest module's peak (share of the HBM when known) and its
/// padding share, then its largest buffers at the peak with the dimension a tile pads. Empty when
/// no module carries a buffer assignment. Names are as in the profile (a redacted share file
/// gives redacted names). `report` is the analysis's memory view (ProfileAnalysis::memory).
QStringList shareCardMemoryLines(const model::MemoryReport& report, size_t topBuffers = 3);

/// The before/after card of a comparison (same look): step time, op time and utilization
/// change, and the ops that moved most with their before/after time and FLOPS utilization.
QImage renderComparisonCard(const model::ProfileDiff& diff, const QString& beforeLabel, const QString& afterLabel,
    const ShareCardOptions& options = {});

/// "1.2 ms → 0.8 ms (-33%)" for durations (ps), "12.0% → 30.0%" for fractions.
QString beforeAfterText(double before, double after, bool fraction);
/// The same for utilizations that may be unknown ("–").
QString beforeAfterText(const std::optional<double>& before, const std::optional<double>& after);

/// The largest page-font pixel size in [smallest, largest] at which `text` fits in `width`
/// (smallest when none does): the card's headline values shrink instead of being elided.
int fittedPagePixelSize(const QString& text, int width, int largest, int smallest, bool bold);

/// The card's warnings, above its footer: a heading line, then up to four of the warnings the
/// window's message bar shows (model::profileWarnings: truncation, corruption, limits, cost
/// coverage, device), redacted as the card, then "+ N more". Empty when there are none.
QStringList shareCardWarningLines(const model::ProfileAnalysis& analysis, const model::ShareRedaction& redaction);

/// The card's straggler line ("Straggler: host … is 1.2 ms late per step … · cause: … · gain …"),
/// from the straggler item's typed numbers; empty when the rule did not fire.
QString shareCardStragglerLine(const model::AdviceReport& advice);

/// The one utilization scale (qt::colors::utilizationColor): the FLOPS colour of the op table,
/// Details and the timeline; NaN gives grey.
QColor shareCardFlopsColor(double utilization);

} // namespace tpuscope::widgets
