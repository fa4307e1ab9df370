// SPDX-License-Identifier: GPL-3.0-or-later
#include "sortarrows.h"

#include <QHeaderView>
#include <QPointer>
#include <QProxyStyle>

namespace tpuscope::widgets {

namespace {

/// Swaps the arrow QHeaderView asks for; everything else is the application style.
class SortArrowStyle : public QProxyStyle
{
public:
    /// Fusion on Linux draws QHeaderView's SortUp (= descending) as an up arrow; on the other
    /// platforms Fusion already flips it, and native styles follow their own platform.
    bool flipsArrows() const
    {
#if defined(Q_OS_LINUX)
        return baseStyle()->name().compare(QLatin1String("fusion"), Qt::CaseInsensitive) == 0;
#else
        return false;
#endif
    }

    SortArrowStyle()
        : QProxyStyle() // follows the application style, also when it changes later
    {
    }

    void drawPrimitive(
        PrimitiveElement element, const QStyleOption* option, QPainter* painter, const QWidget* widget) const override
    {
        if (element == PE_IndicatorHeaderArrow && flipsArrows())
            if (const auto* header = qstyleoption_cast<const QStyleOptionHeader*>(option)) {
                QStyleOptionHeader flipped(*header);
                if (header->sortIndicator == QStyleOptionHeader::SortUp)
                    flipped.sortIndicator = QStyleOptionHeader::SortDown;
                else if (header->sortIndicator == QStyleOptionHeader::SortDown)
                    flipped.sortIndicator = QStyleOptionHeader::SortUp;
                QProxyStyle::drawPrimitive(element, &flipped, painter, widget);
                return;
            }
        QProxyStyle::drawPrimitive(element, option, painter, widget);
    }
};

} // namespace

QStyleOptionHeader::SortIndicator sortArrowFor(Qt::SortOrder order)
{
    return order == Qt::DescendingOrder ? QStyleOptionHeader::SortDown : QStyleOptionHeader::SortUp;
}

void useConventionalSortArrows(QHeaderView* header)
{
    if (!header || header->property("tpuscopeSortArrows").toBool())
        return;
    auto* style = new SortArrowStyle;
    style->setParent(header); // a widget does not own the style it is given
    header->setStyle(style);
    header->setProperty("tpuscopeSortArrows", true);
}

} // namespace tpuscope::widgets
