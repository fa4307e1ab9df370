// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStyledItemDelegate>

namespace tpuscope::widgets {

/// Paints an inline bar behind a cell's text, its width given by a 0..1 fraction role
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

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;

private:
    int m_role;
    Scheme m_scheme;
};

} // namespace tpuscope::widgets
