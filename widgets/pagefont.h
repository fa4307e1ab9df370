// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFont>
#include <QString>

namespace tpuscope::widgets {

/// The font of the share card and the op-table image: DejaVu Sans (installed with Qt on Debian) at a
/// pixel size, so a PNG looks the same on every machine whatever its DPI or desktop font.
inline QFont pageFont(int pixels, bool bold = false)
{
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setStyleHint(QFont::SansSerif);
    f.setPixelSize(pixels);
    f.setBold(bold);
    return f;
}

} // namespace tpuscope::widgets
