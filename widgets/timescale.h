// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format.h"
#include "core/profile.h"

#include <QString>

#include <algorithm>
#include <cmath>
#include <vector>

namespace tpuscope::widgets {

/// Maps a time window [begin, end) onto a pixel span [0, width). A plain value type so the
/// coordinate maths and the ruler's tick choice are unit-tested without a widget.
class TimeScale
{
public:
    using TimePs = model::TimePs;

    enum class Unit { Ns, Us, Ms, S };

    struct Tick
    {
        TimePs time = 0;
        double x = 0;
        bool major = false; // labelled
    };

    struct Ticks
    {
        TimePs step = 0; // distance between major ticks
        TimePs minorStep = 0; // distance between minor ticks (divides step)
        Unit unit = Unit::Ns;
        int decimals = 0; // decimals needed to tell major ticks apart in `unit`
        TimePs base = 0; // labels are (time - base) in `unit`
        std::vector<Tick> ticks;
    };

    TimeScale() = default;
    TimeScale(TimePs begin, TimePs end, double width)
        : m_begin(begin)
        , m_end(std::max(end, begin + 1))
        , m_width(std::max(width, 1.0))
        , m_pxPerPs(m_width / static_cast<double>(m_end - m_begin))
    {
    }

    TimePs begin() const { return m_begin; }
    TimePs end() const { return m_end; }
    TimePs duration() const { return m_end - m_begin; }
    double width() const { return m_width; }
    double pixelsPerPs() const { return m_pxPerPs; }
    /// Time covered by one pixel column.
    double psPerPixel() const { return 1.0 / m_pxPerPs; }

    // A multiply, not a division, per conversion: this runs once per drawn rect.
    double timeToX(TimePs t) const { return static_cast<double>(t - m_begin) * m_pxPerPs; }
    TimePs xToTime(double x) const { return m_begin + static_cast<TimePs>(std::llround(x / m_pxPerPs)); }

    bool operator==(const TimeScale& other) const
    {
        return m_begin == other.m_begin && m_end == other.m_end && m_width == other.m_width;
    }

    static TimePs unitScale(Unit unit)
    {
        switch (unit) {
        case Unit::Ns:
            return 1000;
        case Unit::Us:
            return 1000'000;
        case Unit::Ms:
            return 1000'000'000;
        case Unit::S:
            return 1000'000'000'000;
        }
        return 1000;
    }

    static QString unitName(Unit unit) { return QString::fromUtf8(model::timeUnitName(asTimeUnit(unit))); }
    static model::TimeUnit asTimeUnit(Unit unit)
    {
        switch (unit) {
        case Unit::Ns:
            return model::TimeUnit::Ns;
        case Unit::Us:
            return model::TimeUnit::Us;
        case Unit::Ms:
            return model::TimeUnit::Ms;
        case Unit::S:
            return model::TimeUnit::S;
        }
        return model::TimeUnit::Ns;
    }

    /// The unit a step is best read in: the largest unit in which the step is at least 1.
    static Unit unitForStep(TimePs step)
    {
        if (step >= unitScale(Unit::S))
            return Unit::S;
        if (step >= unitScale(Unit::Ms))
            return Unit::Ms;
        if (step >= unitScale(Unit::Us))
            return Unit::Us;
        return Unit::Ns;
    }

    /// Smallest 1/2/5 × 10^k picoseconds step that keeps major ticks at least `minSpacingPx` apart.
    TimePs niceStep(double minSpacingPx) const
    {
        const double wanted = std::max(1.0, minSpacingPx * psPerPixel());
        double magnitude = std::pow(10.0, std::floor(std::log10(wanted)));
        for (;;) {
            for (double mantissa : {1.0, 2.0, 5.0}) {
                if (mantissa * magnitude >= wanted * (1 - 1e-9))
                    return std::max<TimePs>(1, static_cast<TimePs>(std::llround(mantissa * magnitude)));
            }
            magnitude *= 10;
        }
    }

    /// Ticks for a ruler. `origin` is the time that reads as 0 (the profile's start); when the
    /// labels would need more than six integer digits they are shown relative to a rounder
    /// `base` near the window instead, and the ruler prints the base once.
    Ticks ticks(TimePs origin, double minSpacingPx = 90) const
    {
        Ticks result;
        result.step = niceStep(minSpacingPx);
        const TimePs step = result.step;
        const double mantissa = static_cast<double>(step) / std::pow(10.0, std::floor(std::log10(double(step))));
        const int minorDivisions = mantissa > 1.5 && mantissa < 2.5 ? 4 : 5;
        result.minorStep = std::max<TimePs>(1, step / minorDivisions);
        result.unit = unitForStep(step);
        const TimePs unit = unitScale(result.unit);
        // Sub-nanosecond steps need decimals in ns; larger steps are whole units.
        result.decimals = 0;
        for (TimePs s = step; s < unit && result.decimals < 3; s *= 10)
            ++result.decimals;

        result.base = origin;
        const double largest = std::abs(static_cast<double>(m_end - origin)) / static_cast<double>(unit);
        if (largest >= 1e6) {
            // A round multiple of 1000 units keeps the relative labels short and stable while panning.
            const TimePs coarse = unit * 1000;
            result.base = origin + floorDiv(m_begin - origin, coarse) * coarse;
        }

        // Read in the step's unit, a label far from the base has many digits ("102500 µs"): a
        // larger unit reads better ("102.5 ms") while it needs at most three decimals.
        const double extent = std::max(
            std::abs(static_cast<double>(m_begin - result.base)), std::abs(static_cast<double>(m_end - result.base)));
        while (result.unit != Unit::S && extent / static_cast<double>(unitScale(result.unit)) >= kMaxIntegerLabel) {
            const Unit larger = static_cast<Unit>(static_cast<int>(result.unit) + 1);
            int decimals = 0;
            for (TimePs s = step; s < unitScale(larger) && decimals <= kMaxLabelDecimals; s *= 10)
                ++decimals;
            if (decimals > kMaxLabelDecimals)
                break;
            result.unit = larger;
            result.decimals = decimals;
        }

        const TimePs first = origin + floorDiv(m_begin - origin, result.minorStep) * result.minorStep;
        for (TimePs t = first; t <= m_end; t += result.minorStep) {
            if (t < m_begin)
                continue;
            Tick tick;
            tick.time = t;
            tick.x = timeToX(t);
            tick.major = floorMod(t - origin, step) == 0;
            result.ticks.push_back(tick);
        }
        return result;
    }

    /// A major tick's label, e.g. "120 µs", "1.5 ns".
    static QString tickLabel(const Ticks& ticks, TimePs time)
    {
        return QString::fromStdString(
            model::formatTimeLabel(static_cast<double>(time - ticks.base), asTimeUnit(ticks.unit), ticks.decimals));
    }

    /// A duration for people, in the one formatter set's words ("1.23 ms").
    static QString formatDuration(double ps) { return QString::fromStdString(model::formatDurationPs(ps)); }

private:
    static constexpr double kMaxIntegerLabel = 10000; // labels up to "9999 µs" stay in the step's unit
    static constexpr int kMaxLabelDecimals = 3;

    static TimePs floorDiv(TimePs a, TimePs b)
    {
        TimePs q = a / b;
        if ((a % b != 0) && ((a < 0) != (b < 0)))
            --q;
        return q;
    }
    static TimePs floorMod(TimePs a, TimePs b) { return a - floorDiv(a, b) * b; }

    TimePs m_begin = 0;
    TimePs m_end = 1;
    double m_width = 1;
    double m_pxPerPs = 1;
};

} // namespace tpuscope::widgets
