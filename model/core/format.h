// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>

/// The one formatter set for numbers people read: the CLI, the GUI, share files, cards and advice
/// all print durations, percentages, byte sizes and counts through these, so one value reads the
/// same everywhere. Qt code wraps the result with QString::fromStdString.
namespace tpuscope::model {

/// Three significant digits in the largest unit that keeps the value at least 1: "1.23 ms",
/// "999 µs", "1 s", "250 ps". A value that rounds up to 1000 moves to the next unit ("1 ms", never
/// "1e+03 µs").
std::string formatDurationPs(double ps);
/// "12.5%" with `decimals` digits after the point.
std::string formatPercent(double fraction, int decimals = 1);
/// A change as a signed percentage: "+10.2%", "-3.0%", "0.0%" (a change that rounds to zero has no sign).
std::string formatSignedPercent(double fraction, int decimals = 1);
/// A change of duration with its sign: "+1.55 µs", "-250 ps", "0".
std::string formatSignedDurationPs(double ps);
/// A plain number with `decimals` digits after the point ("7.6"), for texts that name their unit.
std::string formatDecimal(double value, int decimals);
/// SI prefixes k, M, G, T, P, E with three significant digits: "4.5 GFLOP"; below 1000 a whole number.
std::string formatCount(double value, std::string_view unit = {});
/// Binary prefixes with three significant digits: "1.5 GiB", "512 B".
std::string formatBytes(double bytes);

/// Shown wherever a number cannot be known (no cost data, no device peak): never a made-up zero.
inline constexpr const char* kUnknownText = "–";
/// The arithmetic-intensity unit, naming its bytes.
inline constexpr const char* kIntensityUnit = "FLOP per HBM byte";
/// "12.3%"; an uncapped utilization above 1 reads "100% (328% uncapped)": xprof's capped figure, then the
/// uncapped one that says the cost estimate or the device is wrong; unknown reads "–".
std::string formatUtilization(const std::optional<double>& uncapped, int decimals = 1);
/// formatPercent, or "–" when unknown.
std::string formatOptionalPercent(const std::optional<double>& fraction, int decimals = 1);

/// "cost data for 28.0% of op time".
std::string costCoverageText(double coverage);

/// Time units of axis labels, smallest first.
enum class TimeUnit { Ps, Ns, Us, Ms, S };
/// Picoseconds per unit.
double timeUnitPs(TimeUnit unit);
/// "ps", "ns", "µs", "ms", "s".
const char* timeUnitName(TimeUnit unit);
/// The largest unit in which `ps` (taken as a magnitude) is at least 1; Ps below 1 ns.
TimeUnit timeUnitFor(double ps);
/// An axis label in a fixed unit and number of decimals ("120 µs", "1.5 ns"), so every tick of an
/// axis has the same form; "-0" prints as "0".
std::string formatTimeLabel(double ps, TimeUnit unit, int decimals);

} // namespace tpuscope::model
