// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <string>
#include <string_view>

namespace tpuscope::qt {

/// The core's strings are UTF-8 (interned names, formatter output); this is the one conversion
/// every view, model and program uses. Not overloaded, so a file may bind a short local name to it.
inline QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

/// A tooltip of plain text that may hold a file's strings: Qt guesses rich text for tooltips
/// (Qt::mightBeRichText), so a name like "<img src=...>" or thousands of nested tags would render.
/// Escaped and wrapped, it shows as written, newlines kept.
inline QString plainToolTip(const QString& text)
{
    return QStringLiteral("<p style='white-space:pre-wrap'>") + text.toHtmlEscaped() + QStringLiteral("</p>");
}

/// The way back, for handing user input (a search text, a path) to the core.
inline std::string toStd(const QString& text)
{
    return text.toStdString();
}

} // namespace tpuscope::qt
