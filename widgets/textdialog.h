// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QDialog;

namespace tpuscope::widgets {

/// Lays out a Help dialog: a title, a read-only HTML page and a Close button (Glossary, Keyboard
/// Shortcuts).
void setUpTextDialog(QDialog& dialog, const QString& title, const QString& html, int width, int height);

} // namespace tpuscope::widgets
