// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSize>
#include <QString>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tpuscope::app {

class MainWindow;

/// `--screenshot OUT.png [--view ...] [--size WxH]`: how users share a view and how tests see
/// what the app shows, without a display.
struct ScreenshotRequest
{
    QString output;
    /// window | ops | timeline | details | advice | charts | utilization | roofline | overview | memory |
    /// compare | selection | hosts | fusion:NAME | event:NAME (that op's longest event selected)
    QString view = QStringLiteral("window");
    QSize size {1600, 1000};
    /// `--range T0,T1`: a timeline range selected before the shot, in µs from the profile start.
    std::optional<std::pair<double, double>> rangeUs;
    /// The files the shot is of: the PNG is never written over one of them (or a link to one).
    std::vector<std::string> inputs;
};

/// Parses "T0,T1" (µs, T0 < T1); false on anything else.
bool parseScreenshotRange(const QString& text, std::optional<std::pair<double, double>>* range);

/// Parses "WxH" (each side 100..16384); false on anything else.
bool parseScreenshotSize(const QString& text, QSize* size);
/// Whether `view` names something renderScreenshot knows.
bool isKnownScreenshotView(const QString& view);

/// Renders the requested view of a window that already shows a profile, offscreen, at exactly
/// `request.size`, and writes the PNG. Returns an empty string or a message for the user.
QString renderScreenshot(MainWindow& window, const ScreenshotRequest& request);

} // namespace tpuscope::app
