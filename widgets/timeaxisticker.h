// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <qcustomplot.h>

namespace tpuscope::widgets {

/// Axis ticker for picosecond values: readable steps (1-2-5 × 10^n ps) and labels with a time
/// unit (ps/ns/µs/ms/s) chosen from the magnitude of the ticks, decimals from the tick step.
class TimeAxisTicker : public QCPAxisTicker
{
public:
    TimeAxisTicker();

    /// "12.5 ms" with as many decimals as `resolutionPs` needs in the unit picked for `magnitudePs`.
    static QString formatTime(double ps, double magnitudePs, double resolutionPs);

protected:
    QVector<QString> createLabelVector(
        const QVector<double>& ticks, const QLocale& locale, QChar formatChar, int precision) override;
};

} // namespace tpuscope::widgets
