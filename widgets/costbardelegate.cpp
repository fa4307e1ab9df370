// SPDX-License-Identifier: GPL-3.0-or-later
#include "costbardelegate.h"

#include "qt/colors.h"

#include <QPainter>

#include <algorithm>

namespace tpuscope::widgets {

CostBarDelegate::CostBarDelegate(int fractionRole, Scheme scheme, QObject* parent)
    : QStyledItemDelegate(parent)
    , m_role(fractionRole)
    , m_scheme(scheme)
{
}

QColor CostBarDelegate::barColor(double fraction, Scheme scheme, const QPalette& palette)
{
    fraction = std::clamp(fraction, 0.0, 1.0);
    if (scheme == Scheme::Cost) {
        QColor color = palette.color(QPalette::Highlight);
        color.setAlpha(90);
        return color;
    }
    return qt::colors::utilizationTint(fraction, palette);
}

QRect CostBarDelegate::barRect(const QRect& cell, double fraction, int textWidth)
{
    QRect area = cell.adjusted(1, 2, -(textWidth + 2 * kTextGap), -2);
    if (area.width() <= 0)
        return {};
    area.setWidth(std::max(fraction > 0 ? 1 : 0, static_cast<int>(area.width() * std::clamp(fraction, 0.0, 1.0))));
    return area;
}

void CostBarDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    // paint() draws the row background itself, below the bar; the style must not paint over it.
    option->backgroundBrush = Qt::NoBrush;
}

void CostBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    const QVariant value = index.data(m_role);
    if (!value.isValid()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    const double fraction = std::clamp(value.toDouble(), 0.0, 1.0);
    const bool selected = option.state & QStyle::State_Selected;

    const int textWidth = option.fontMetrics.horizontalAdvance(index.data(Qt::DisplayRole).toString());
    QRect bar = barRect(option.rect, fraction, textWidth);

    QStyleOptionViewItem opt = option;
    if (!selected) {
        // We paint the alternate base and the item background ourselves, otherwise the style
        // would paint them over the bar (hotspot's CostDelegate does the same).
        if (opt.features & QStyleOptionViewItem::Alternate)
            painter->fillRect(option.rect, option.palette.alternateBase());
        const QVariant background = index.data(Qt::BackgroundRole);
        if (background.canConvert<QBrush>())
            painter->fillRect(option.rect, background.value<QBrush>());
        if (!bar.isEmpty())
            painter->fillRect(bar, barColor(fraction, m_scheme, option.palette));
        opt.features &= ~QStyleOptionViewItem::Alternate;
        QStyledItemDelegate::paint(painter, opt, index);
    } else {
        // The selection fills the cell; keep the bar visible as a strip along the bottom edge.
        QStyledItemDelegate::paint(painter, opt, index);
        bar.setTop(option.rect.bottom() - 2);
        bar.setBottom(option.rect.bottom());
        if (!bar.isEmpty()) {
            QColor color = barColor(fraction, m_scheme, option.palette);
            color.setAlpha(255);
            painter->fillRect(bar, color);
        }
    }
}

} // namespace tpuscope::widgets
