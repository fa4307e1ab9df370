// SPDX-License-Identifier: GPL-3.0-or-later
#include "appearance.h"

#include "qt/colors.h"

#include <QApplication>
#include <QPainter>
#include <QPalette>
#include <QPointer>
#include <QProxyStyle>
#include <QStyleFactory>
#include <QStyleOption>

namespace tpuscope::app {

namespace {

/// Fusion whose check box and radio indicators keep a visible border on a dark window.
class VisibleIndicatorStyle : public QProxyStyle
{
public:
    VisibleIndicatorStyle()
        : QProxyStyle(QStyleFactory::create(QStringLiteral("Fusion")))
    {
    }

    void drawPrimitive(
        PrimitiveElement element, const QStyleOption* option, QPainter* painter, const QWidget* widget) const override
    {
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        const bool checkBox = element == PE_IndicatorCheckBox || element == PE_IndicatorItemViewItemCheck;
        if (!checkBox && element != PE_IndicatorRadioButton)
            return;
        const QPalette& palette = option->palette;
        // The palette's mid grey, lightened until it reads as a control edge on window and base.
        const QColor border = qt::colors::readableOn(palette.color(QPalette::Mid),
            {palette.color(QPalette::Window), palette.color(QPalette::Base)}, 3.5); // 3:1 after antialiasing
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, !checkBox);
        painter->setPen(QPen(border, 1));
        painter->setBrush(Qt::NoBrush);
        const QRectF box = QRectF(option->rect).adjusted(0.5, 0.5, -0.5, -0.5);
        if (checkBox)
            painter->drawRect(box);
        else
            painter->drawEllipse(box);
        painter->restore();
    }
};

struct SystemAppearance
{
    bool captured = false;
    QString styleName;
    QPalette palette;
    bool dark = false;
};

SystemAppearance& system()
{
    static SystemAppearance appearance;
    return appearance;
}

} // namespace

void captureSystemAppearance()
{
    SystemAppearance& s = system();
    s.captured = true;
    s.styleName = QApplication::style()->name();
    s.palette = QApplication::palette();
}

void setDarkMode(bool dark)
{
    SystemAppearance& s = system();
    if (!s.captured)
        captureSystemAppearance();
    s.dark = dark;
    if (dark) {
        QApplication::setStyle(new VisibleIndicatorStyle); // the application owns it
        QApplication::setPalette(qt::colors::withReadableLinks(qt::colors::darkPalette()));
    } else {
        QApplication::setStyle(s.styleName);
        QApplication::setPalette(qt::colors::withReadableLinks(s.palette));
    }
}

bool isDarkMode()
{
    return system().dark;
}

} // namespace tpuscope::app
