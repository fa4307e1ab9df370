// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The application's colour scheme: the system's look, or tpuscope's dark palette
// (colors::darkPalette) under Fusion. `--dark` and View → Dark Mode both come here.

#include <QString>

namespace tpuscope::app {

/// QSettings key of View → Dark Mode.
inline const QString kDarkModeSettingsKey = QStringLiteral("view/darkMode");

/// Remembers the style and palette the application started with, so that leaving dark mode
/// returns to the system's look. Call once, after the QApplication exists and before setDarkMode.
void captureSystemAppearance();
/// Dark: Fusion with colors::darkPalette() and check box and radio indicators drawn with a border
/// that reaches 3:1 on the window (WCAG non-text contrast; Fusion's own border is its window
/// darkened, invisible on a dark window). Light: the captured system look. Links stay readable.
void setDarkMode(bool dark);
bool isDarkMode();

} // namespace tpuscope::app
