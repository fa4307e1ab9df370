// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStyledItemDelegate>

namespace tpuscope::widgets {

/// Paints an inline bar beside a cell's right-aligned text, its width given by a 0..1 fraction role
/// (hotspot's CostDelegate). Utilization bars run red → yellow → green; cost bars use the
/// palette's highlight colour, so both follow light and dark themes.
class CostBarDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    enum class Scheme { Cost, Utilization };

    CostBarDelegate(int fractionRole, Scheme scheme, QObject* parent = nullptr);

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;

    /// The bar colour for a fraction (exposed for tests and legends).
    static QColor barColor(double fraction, Scheme scheme, const QPalette& palette);
    /// Where the bar of `fraction` is drawn in `cell` whose right-aligned text is `textWidth`
    /// pixels wide: left of the text, never under it (the numbers were hard to read on a bar).
    static QRect barRect(const QRect& cell, double fraction, int textWidth);
    /// Room kept between the bar and the text, and right of the text (the style's text margin).
    static constexpr int kTextGap = 6;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;

private:
    int m_role;
    Scheme m_scheme;
};

} // namespace tpuscope::widgets
