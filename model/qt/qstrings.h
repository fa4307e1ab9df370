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

/// The way back, for handing user input (a search text, a path) to the core.
inline std::string toStd(const QString& text)
{
    return text.toStdString();
}

} // namespace tpuscope::qt
