// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFont>
#include <QHBoxLayout>
#include <QLabel>
#include <QPalette>

#include "elidedlabel.h"

namespace tpuscope::widgets {

/// The row above each chart: a bold title and a muted status text that takes the rest of the
/// width. Callers may add widgets (legend, selectors) to the returned layout.
inline QHBoxLayout* makeChartHeader(QWidget* owner, const QString& titleText, QLabel*& status)
{
    auto* header = new QHBoxLayout;
    header->setContentsMargins(6, 2, 6, 0);
    auto* title = new QLabel(titleText, owner);
    QFont titleFont = title->font();
    titleFont.setBold(true);
    title->setFont(titleFont);
    header->addWidget(title);
    status = new ElidedLabel(owner); // gives way to the legend and selectors at 1280 px
    status->setObjectName(QStringLiteral("chartStatus"));
    status->setTextFormat(Qt::PlainText); // shows names from the file: never rich text
    status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    status->setForegroundRole(QPalette::PlaceholderText);
    header->addWidget(status, 1);
    return header;
}

} // namespace tpuscope::widgets
