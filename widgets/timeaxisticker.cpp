// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeaxisticker.h"

#include "core/format.h"

#include <algorithm>
#include <cmath>

namespace tpuscope::widgets {

TimeAxisTicker::TimeAxisTicker()
{
    setTickStepStrategy(tssReadability);
    setTickCount(6);
}

QString TimeAxisTicker::formatTime(double ps, double magnitudePs, double resolutionPs)
{
    const model::TimeUnit unit = model::timeUnitFor(magnitudePs);
    const double divisor = model::timeUnitPs(unit);
    int decimals = 0;
    if (resolutionPs > 0) {
        const double step = resolutionPs / divisor;
        // Enough decimals to tell neighbouring ticks apart (a 2.5 step needs one).
        decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 9);
        const double scaled = step * std::pow(10.0, decimals);
        if (std::abs(scaled - std::round(scaled)) > 1e-6 * scaled && decimals < 9)
            ++decimals;
    }
    return QString::fromStdString(model::formatTimeLabel(ps, unit, decimals));
}

QVector<QString> TimeAxisTicker::createLabelVector(const QVector<double>& ticks, const QLocale&, QChar, int)
{
    QVector<QString> labels;
    labels.reserve(ticks.size());
    if (ticks.isEmpty())
        return labels;
    // Labels count from the tick origin (the profile's start), as the timeline's ruler does.
    const double origin = tickOrigin();
    double magnitude = 0;
    for (double t : ticks)
        magnitude = std::max(magnitude, std::abs(t - origin));
    const double step = ticks.size() > 1 ? std::abs(ticks[1] - ticks[0]) : 0;
    if (magnitude == 0)
        magnitude = step;
    for (double t : ticks)
        labels.append(formatTime(t - origin, magnitude, step));
    return labels;
}

} // namespace tpuscope::widgets
