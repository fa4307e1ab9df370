// SPDX-License-Identifier: GPL-3.0-or-later
#include "format.h"

#include <cmath>
#include <cstdio>

namespace tpuscope::model {

namespace {

std::string printf1(const char* fmt, double v)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, fmt, v);
    return buffer;
}

/// Divides `value` by `base` until it is below `base` once rounded to three significant digits,
/// so 999.96 is carried to the next prefix instead of printing "1e+03".
int scaleToPrefix(double& value, double base, int maxPrefix)
{
    int prefix = 0;
    while (prefix < maxPrefix && std::fabs(value) >= base * (1 - 5e-4)) {
        value /= base;
        ++prefix;
    }
    return prefix;
}

} // namespace

std::string formatDurationPs(double ps)
{
    static const char* units[] = {"ps", "ns", "µs", "ms", "s"};
    double value = ps;
    if (std::fabs(value) < 1000 * (1 - 5e-4))
        return printf1("%.0f ps", value);
    const int unit = scaleToPrefix(value, 1000, 4);
    if (std::fabs(value) >= 1000)
        return printf1("%.0f ", value) + units[unit]; // hours of capture read "7200 s", not "7.2e+03 s"
    return printf1("%.3g ", value) + units[unit];
}

std::string formatPercent(double fraction, int decimals)
{
    char fmt[16];
    std::snprintf(fmt, sizeof fmt, "%%.%df%%%%", decimals);
    return printf1(fmt, fraction * 100.0);
}

std::string formatSignedPercent(double fraction, int decimals)
{
    const std::string magnitude = formatPercent(std::fabs(fraction), decimals);
    if (magnitude.find_first_not_of("0.%") == std::string::npos)
        return magnitude;
    return (fraction < 0 ? "-" : "+") + magnitude;
}

std::string formatSignedDurationPs(double ps)
{
    if (ps == 0 || !std::isfinite(ps))
        return "0";
    return (ps > 0 ? "+" : "-") + formatDurationPs(std::fabs(ps));
}

std::string formatDecimal(double value, int decimals)
{
    char fmt[16];
    std::snprintf(fmt, sizeof fmt, "%%.%df", decimals);
    return printf1(fmt, value);
}

std::string formatCount(double value, std::string_view unit)
{
    static const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    double v = value;
    const int p = std::fabs(v) < 1000 ? 0 : scaleToPrefix(v, 1000, 6);
    std::string out = p == 0 ? printf1("%.0f", v) : printf1("%.3g", v);
    if (p || !unit.empty())
        out += ' ';
    out += prefixes[p];
    out += unit;
    return out;
}

std::string formatBytes(double bytes)
{
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = bytes;
    const int u = std::fabs(v) < 1024 ? 0 : scaleToPrefix(v, 1024, 5);
    return u == 0 ? printf1("%.0f B", v) : printf1("%.3g ", v) + units[u];
}

std::string formatOptionalPercent(const std::optional<double>& fraction, int decimals)
{
    return fraction ? formatPercent(*fraction, decimals) : kUnknownText;
}

std::string formatUtilization(const std::optional<double>& uncapped, int decimals)
{
    if (!uncapped)
        return kUnknownText;
    // xprof's figure first (capped at 100 %, as its op profile shows it), then ours beside it.
    if (*uncapped > 1)
        return formatPercent(1.0, 0) + " (" + formatPercent(*uncapped, 0) + " uncapped)";
    return formatPercent(*uncapped, decimals);
}

std::string costCoverageText(double coverage)
{
    return "cost data for " + formatPercent(coverage) + " of op time";
}

double timeUnitPs(TimeUnit unit)
{
    switch (unit) {
    case TimeUnit::Ps:
        return 1;
    case TimeUnit::Ns:
        return 1e3;
    case TimeUnit::Us:
        return 1e6;
    case TimeUnit::Ms:
        return 1e9;
    case TimeUnit::S:
        return 1e12;
    }
    return 1;
}

const char* timeUnitName(TimeUnit unit)
{
    switch (unit) {
    case TimeUnit::Ps:
        return "ps";
    case TimeUnit::Ns:
        return "ns";
    case TimeUnit::Us:
        return "µs";
    case TimeUnit::Ms:
        return "ms";
    case TimeUnit::S:
        return "s";
    }
    return "ps";
}

TimeUnit timeUnitFor(double ps)
{
    const double a = std::fabs(ps);
    if (a >= 1e12)
        return TimeUnit::S;
    if (a >= 1e9)
        return TimeUnit::Ms;
    if (a >= 1e6)
        return TimeUnit::Us;
    if (a >= 1e3)
        return TimeUnit::Ns;
    return TimeUnit::Ps;
}

std::string formatTimeLabel(double ps, TimeUnit unit, int decimals)
{
    double value = ps / timeUnitPs(unit);
    if (std::fabs(value) < 0.5 * std::pow(10.0, -decimals))
        value = 0; // no "-0"
    char fmt[16];
    std::snprintf(fmt, sizeof fmt, "%%.%df ", decimals);
    return printf1(fmt, value) + timeUnitName(unit);
}

} // namespace tpuscope::model
