// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinelegend.h"

#include "qt/colors.h"

#include <QCoreApplication>
#include <QPainter>
#include <QStringList>

#include <cmath>

namespace tpuscope::widgets {

TimelineLegend::TimelineLegend(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void TimelineLegend::setEntries(std::vector<Entry> entries, double threshold)
{
    m_entries = std::move(entries);
    m_threshold = threshold;
    updateGeometry();
    update();
}

void TimelineLegend::setCaption(const QString& caption)
{
    m_caption = caption;
    updateGeometry();
    update();
}

void TimelineLegend::setShowsLowUtilizationMarker(bool shown)
{
    m_marker = shown;
    updateGeometry();
    update();
}

QString TimelineLegend::markerText() const
{
    return QCoreApplication::translate("TimelineView", "low-utilization op (≥1% of time, below %1% of its roofline)")
        .arg(int(std::lround(m_threshold * 100)));
}

QString TimelineLegend::text() const
{
    QStringList parts;
    if (!m_caption.isEmpty())
        parts << m_caption;
    for (const Entry& entry : m_entries)
        parts << entry.text;
    if (m_marker)
        parts << markerText();
    return parts.join(QLatin1Char(' '));
}

std::vector<TimelineLegendEntry> utilizationScaleEntries(const QPalette* tintOn)
{
    std::vector<TimelineLegendEntry> entries;
    for (const qt::colors::UtilizationLegendStop& stop : qt::colors::utilizationLegendStops()) {
        const QColor color = tintOn ? qt::colors::utilizationTint(stop.fraction, *tintOn) : stop.color;
        entries.push_back({std::isnan(stop.fraction) ? QCoreApplication::translate("TimelineView", "no FLOPS data")
                                                     : QStringLiteral("%1%").arg(int(std::lround(stop.fraction * 100))),
            {color.rgb()}});
    }
    return entries;
}

QSize TimelineLegend::minimumSizeHint() const
{
    return QSize(120, fontMetrics().height() + 8);
}

void TimelineLegend::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    layoutItems(width(), &p);
}

int TimelineLegend::layoutItems(int width, QPainter* p) const
{
    const QFontMetrics fm = fontMetrics();
    const int lineHeight = fm.height() + 6;
    const int swatch = fm.height() - 4;
    int x = 4, y = 3;
    auto item = [&](const QString& text, const std::vector<QRgb>& colors, bool marker) {
        const int w = swatch + 4 + fm.horizontalAdvance(text) + 12;
        if (x + w > width && x > 4) {
            x = 4;
            y += lineHeight;
        }
        if (p) {
            const QRect box(x, y + (lineHeight - swatch) / 2 - 2, swatch, swatch);
            if (marker) {
                p->fillRect(box, palette().base());
                p->fillRect(QRect(box.left(), box.top(), box.width(), 3), qt::colors::lowUtilizationMark());
                QPolygon tri;
                tri << box.topLeft() << QPoint(box.left() + swatch / 2, box.top())
                    << QPoint(box.left(), box.top() + swatch / 2);
                p->setBrush(qt::colors::lowUtilizationMark());
                p->setPen(Qt::NoPen);
                p->drawPolygon(tri);
            } else if (colors.size() <= 1) {
                p->fillRect(box, QColor(colors.empty() ? 0 : colors.front()));
            } else {
                // One stripe per sample colour: the entry stands for many colours.
                const int n = int(colors.size());
                for (int i = 0; i < n; ++i) {
                    const int x0 = box.left() + box.width() * i / n, x1 = box.left() + box.width() * (i + 1) / n;
                    p->fillRect(QRect(x0, box.top(), x1 - x0, box.height()), QColor(colors[size_t(i)]));
                }
            }
            p->setPen(palette().color(QPalette::WindowText));
            p->drawText(QRect(x + swatch + 4, y, w, lineHeight - 4), Qt::AlignVCenter | Qt::AlignLeft, text);
        }
        x += w;
    };
    if (!m_caption.isEmpty()) {
        if (p) {
            p->setPen(palette().color(QPalette::WindowText));
            p->drawText(QRect(x, y, fm.horizontalAdvance(m_caption) + 8, lineHeight - 4),
                Qt::AlignVCenter | Qt::AlignLeft, m_caption);
        }
        x += fm.horizontalAdvance(m_caption) + 8;
    }
    for (const Entry& entry : m_entries)
        item(entry.text, entry.colors, false);
    if (m_marker)
        item(markerText(), {}, true);
    return y + lineHeight + 3;
}

} // namespace tpuscope::widgets
