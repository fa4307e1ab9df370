// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/advice.h"

#include "core/opclass.h"

#include <QColor>
#include <QPalette>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tpuscope::model {
struct OpBreakdown;
} // namespace tpuscope::model

/// The one colour module: every view (timeline, roofline, utilization and memory charts, op
/// table, overview, details) and the share card take their colours from here, so that the same op
/// category has the same colour everywhere and a palette change is made once. QtGui only: the
/// share card links it without QtWidgets.
namespace tpuscope::qt::colors {

// --- Op categories -------------------------------------------------------------------------

/// The colour of an op category ("convolution fusion", "loop fusion", "all-reduce", ...) whose ops
/// are of class `opClass` (the op model's, opmodel.h; for a category, that of most of its time).
/// Where the class says what the ops do beyond computing (collectives, async halves, copies, host
/// transfers, infeed/outfeed, control) it decides the colour, one per class, so a start half and
/// its done half differ and every collective shares one family. Compute categories get fixed
/// colours when well known (screenshots stay comparable across profiles), else one of the same
/// qualitative palette chosen by a hash of the name.
QColor categoryColor(std::string_view category, model::OpClass opClass = model::OpClass::Compute);

/// The categories of one profile (its op breakdown's rows), each with the colour every view draws
/// it in (timeline, op table, roofline): categoryColor's choice with the category's class
/// (model::categoryClasses), moved to a lighter or darker shade of it, else to another palette
/// colour, where it would look like a category that takes more time. Two categories of one
/// profile never share a colour (issue 25.4: "convolution fusion" and "convolution", the
/// collectives, the copy halves did).
std::unordered_map<std::string, QColor> categoryColors(const model::OpBreakdown& breakdown);
/// Close enough to be taken for each other at a swatch's size (a red-weighted RGB distance).
bool looksAlike(const QColor& a, const QColor& b);

/// Non-op events (steps, modules, host threads): softer colours by name, never equal to a
/// category colour's hue-and-lightness band.
QColor nameColor(std::string_view name);
/// Every XLA module run in one slate grey-blue: a colour by name could equal an op category's
/// (a module once came out the teal of "input fusion"), and a module is a container, not an op.
QColor moduleColor();

// --- Utilization (FORMATS.md §4.3 flameColor) ------------------------------------------------

enum class FlameCurve {
    Sqrt, ///< sqrt(f): the timeline and the utilization chips
    Harsh, ///< 1 - sqrt(1 - f): padding efficiency, where 90 % is already a waste
};
/// Red (0) → yellow (0.5) → green (1) after the curve; NaN (unknown) is grey at `brightness`.
QColor flameColor(double fraction, double brightness = 0.7, FlameCurve curve = FlameCurve::Sqrt);
/// `color` drawn at `opacity` over the palette's base (the xprof cards' chips): text stays readable.
QColor over(const QColor& color, double opacity, const QPalette& palette);

/// The one utilization colour scale (FLOPS, HBM, ICI: higher is better): flameColor's sqrt curve
/// at brightness 0.8, NaN (unknown) grey. The timeline's boxes, the charts and the share card draw
/// it as is; views that put text on it use utilizationTint. A 12 % utilization is one colour
/// everywhere (issue 25.4: it was salmon, tan and olive).
QColor utilizationColor(double fraction);
/// utilizationColor at kUtilizationTintOpacity over the palette's base: the op table's bars and
/// the Details chips, where text sits on the colour.
QColor utilizationTint(double fraction, const QPalette& palette);
constexpr double kUtilizationTintOpacity = 0.45;
/// The scale's legend: a few stops as ("0%", colour) … ("100%", colour), then the unknown entry.
struct UtilizationLegendStop
{
    double fraction; // NaN for "no FLOPS data"
    QColor color;
};
std::vector<UtilizationLegendStop> utilizationLegendStops();
/// The red that marks a low-utilization op (timeline marker, table row, share card).
QColor lowUtilizationMark();
/// Background and text of a low-utilization row in the op table.
QColor lowUtilizationRowBackground(const QPalette& palette);
QColor lowUtilizationRowText(const QPalette& palette);

// --- Charts --------------------------------------------------------------------------------

/// Series of the utilization chart; the HBM line is the orange of the category palette's second colour.
QColor flopsSeriesColor();
QColor hbmSeriesColor();
/// Memory chart: allocated (padded) heap, the data without padding, and the peak/limit marks.
QColor memoryPaddedColor();
QColor memoryUnpaddedColor();
QColor memoryPeakColor();

/// The parts of a step's time in the overview bars and the share card.
enum class StepPart { Compute, Collectives, HostTransfer, Infeed, Idle };
QColor stepPartColor(StepPart part);

/// The Hosts view's heat map: a sequential scale from pale yellow (0, the lowest value shown) to dark
/// red (1, the highest), so "late" or "slow" reads as hot in both palettes; NaN gives heatUnknownColor.
QColor heatColor(double fraction);
/// A cell whose value is unknown (drawn hatched over it, so it never reads as a low value).
QColor heatUnknownColor(const QPalette& palette);

/// Faster / slower in a comparison.
QColor fasterColor();
QColor slowerColor();

/// The light page the share card and the op-table image are drawn on, whatever the window's
/// palette: background, ink, hairline rules and the dark title band.
QColor pageBackground();
QColor pageInk();
QColor pageRule();
QColor pageHeaderBand();

// --- Severity and text -----------------------------------------------------------------------

/// Icon/dot colour of an advice severity (not for text: see severityTextColor).
QColor severityColor(tpuscope::model::Severity severity);
/// The same hue, adjusted to reach WCAG AA (4.5:1) against the palette's window and base.
QColor severityTextColor(tpuscope::model::Severity severity, const QPalette& palette);
/// The palette's link colour, adjusted to reach WCAG AA against its window and base.
QColor linkColor(const QPalette& palette);
/// Secondary text (notes, "Fix:", JSON keys): grey that still reaches WCAG AA on the palette.
QColor mutedTextColor(const QPalette& palette);
/// A copy of `palette` whose Link and LinkVisited colours read on its window and base (dark
/// system palettes often keep the light palette's dark blue).
QPalette withReadableLinks(QPalette palette);

/// True when the palette's window is dark (the app follows the system palette).
bool isDark(const QPalette& palette);
/// A dark palette (Fusion-like) for `--dark` and for tests of the dark look.
QPalette darkPalette();

/// WCAG 2.x relative luminance of an sRGB colour (alpha ignored).
double relativeLuminance(const QColor& color);
/// WCAG 2.x contrast ratio, 1 (same) to 21 (black on white).
double contrastRatio(const QColor& a, const QColor& b);
/// `color` lightened or darkened (keeping its hue) until it reaches `ratio` against every colour
/// in `backgrounds`; unchanged when it already does.
QColor readableOn(const QColor& color, std::initializer_list<QColor> backgrounds, double ratio = 4.5);
/// Black or white, whichever reads better on `background` (labels inside coloured boxes).
QColor textOn(const QColor& background);

} // namespace tpuscope::qt::colors
