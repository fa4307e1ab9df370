// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinerasterizer.h"

#include "qt/colors.h"

#include <QElapsedTimer>
#include <QFont>
#include <QFontMetrics>
#include <QPainter>
#include <QPalette>
#include <QTextLayout>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace tpuscope::widgets {

using model::kNone;
using model::OpId;

namespace {

constexpr int kMinLabelWidthPx = 28;
const QRgb kMarkerColor = qt::colors::lowUtilizationMark().rgb();

bool isDark(QRgb c)
{
    return (qRed(c) * 299 + qGreen(c) * 587 + qBlue(c) * 114) / 1000 < 128;
}

} // namespace

void TimelineRasterizer::ensureGeometry(const TimelineGeometryBuilder& builder, const TimelineTracks& tracks,
    const std::vector<std::vector<uint32_t>>& highlightEvents, const TimelineFrame& frame, int visibleTop,
    int visibleBottom)
{
    const int width = frame.width;
    const TimeScale& s = frame.scale;
    if (m_cache.valid && m_cache.begin == s.begin() && m_cache.end == s.end() && m_cache.width == width
        && m_cache.layoutGeneration == frame.layoutGeneration && m_cache.colorGeneration == frame.colorGeneration
        && m_cache.highlightGeneration == frame.highlightGeneration && visibleTop >= m_cache.contentTop
        && visibleBottom <= m_cache.contentBottom && m_cache.lodReady == builder.levelsOfDetailReady())
        return;
    QElapsedTimer timer;
    timer.start();
    m_cache.lodReady = builder.levelsOfDetailReady(); // before building: may turn true meanwhile
    // Only rows on screen, plus half a page either way so small vertical scrolls reuse the build.
    const int margin = std::max(kDepthHeight, (visibleBottom - visibleTop) / 2);
    const int contentTop = visibleTop - margin, contentBottom = visibleBottom + margin;
    for (RowImage& row : m_cache.rows)
        m_imagePool.push_back(std::move(row.image));
    m_cache.rows.clear();
    m_cache.triangles.clear();
    m_cache.highlights.clear();
    m_cache.labels.clear();
    m_cache.rectCount = 0;
    std::vector<TimelineRect>& rects = m_rectScratch;
    for (const Row& row : tracks.rows()) {
        if (row.top >= contentBottom)
            break;
        if (row.header || row.top + row.height <= contentTop)
            continue;
        rects.clear();
        builder.buildTrack(row.track, s, rects);
        m_cache.rectCount += rects.size();
        const int top = row.top + kTrackPadding;
        const int depths = std::max(1, builder.depthCount(row.track));
        const QSize size(width, depths * kDepthHeight - 1);
        RowImage image;
        image.top = top;
        auto pooled
            = std::find_if(m_imagePool.begin(), m_imagePool.end(), [&](const QImage& i) { return i.size() == size; });
        if (pooled != m_imagePool.end()) {
            image.image = std::move(*pooled);
            m_imagePool.erase(pooled);
        } else {
            image.image = QImage(size, QImage::Format_ARGB32_Premultiplied);
        }
        rasteriseRow(rects, depths, width, image.image);
        m_cache.rows.push_back(std::move(image));
        for (const TimelineRect& r : rects) {
            const double w = r.x1 - r.x0;
            if (r.marked && w >= 10)
                m_cache.triangles.append(QRectF(r.x0, top + r.depth * kDepthHeight, w, 3));
            if (r.event != kNone && w >= kMinLabelWidthPx)
                m_cache.labels.push_back(
                    {QRectF(r.x0, top + r.depth * kDepthHeight, w, kDepthHeight - 1), row.track, r.event, r.color});
        }
        if (row.track < highlightEvents.size() && !highlightEvents[row.track].empty()) {
            m_highlightScratch.clear();
            builder.buildSubset(row.track, highlightEvents[row.track], s, m_highlightScratch);
            for (const TimelineRect& r : m_highlightScratch)
                m_cache.highlights.append(
                    QRectF(r.x0, top + r.depth * kDepthHeight, std::max(1.0f, r.x1 - r.x0), kDepthHeight - 1));
        }
    }
    m_imagePool.clear();
    m_cache.valid = true;
    m_cache.begin = s.begin();
    m_cache.end = s.end();
    m_cache.width = width;
    m_cache.contentTop = contentTop;
    m_cache.contentBottom = contentBottom;
    m_cache.layoutGeneration = frame.layoutGeneration;
    m_cache.colorGeneration = frame.colorGeneration;
    m_cache.highlightGeneration = frame.highlightGeneration;
    m_cache.buildNs = timer.nsecsElapsed();
}

void TimelineRasterizer::rasteriseRow(
    const std::vector<TimelineRect>& rects, int depths, int width, QImage& image) const
{
    // The pixels QPainter would fill for the integer rect of each TimelineRect (rounded ends, at
    // least one pixel), without its per-rect cost: a zoomed-out frame has ~10k one-pixel rects.
    constexpr int kLineHeight = kDepthHeight - 1;
    constexpr int kMarkerLines = 3;
    image.fill(Qt::transparent);
    auto span = [width](const TimelineRect& r) {
        const int x0 = int(std::lround(r.x0));
        const int x1 = std::max(x0 + 1, int(std::lround(r.x1)));
        return std::pair<int, int>(std::clamp(x0, 0, width), std::clamp(x1, 0, width));
    };
    // Depth d's events go to the scanline below its marker lines first. Merged runs over exact
    // events: a run sharing a pixel with a long event (a short op between two long ones) stays
    // visible, so the boundaries between back-to-back long events do too.
    std::vector<uint8_t> used(size_t(depths), 0); // 1: has events, 2: has markers
    for (const bool runs : {false, true}) {
        for (const TimelineRect& r : rects) {
            if (r.depth >= depths || (r.event == kNone) != runs)
                continue;
            auto* line = reinterpret_cast<QRgb*>(image.scanLine(r.depth * kDepthHeight + kMarkerLines));
            const auto [x0, x1] = span(r);
            std::fill(line + x0, line + x1, r.color | 0xff000000u);
            used[r.depth] |= r.marked ? 3 : 1;
        }
    }
    const size_t bytes = size_t(width) * sizeof(QRgb);
    const QRgb marker = kMarkerColor | 0xff000000u;
    for (int d = 0; d < depths; ++d) {
        if (!used[d])
            continue;
        const int y0 = d * kDepthHeight;
        const uchar* source = image.constScanLine(y0 + kMarkerLines);
        for (int y = 0; y < kLineHeight; ++y)
            if (y != kMarkerLines)
                std::memcpy(image.scanLine(y0 + y), source, bytes);
        if (!(used[d] & 2))
            continue;
        for (const TimelineRect& r : rects) {
            if (r.depth != d || !r.marked)
                continue;
            const auto [x0, x1] = span(r);
            for (int y = 0; y < kMarkerLines; ++y) {
                auto* line = reinterpret_cast<QRgb*>(image.scanLine(y0 + y));
                std::fill(line + x0, line + x1, marker);
            }
        }
    }
}

void TimelineRasterizer::clearTextCaches(size_t opCount)
{
    m_opLabels.assign(opCount, OpLabel());
    m_labelTexts.clear();
    m_ellipsisWidth = -1;
}

const QStaticText* TimelineRasterizer::eventLabel(
    const TimelineTracks& tracks, const QFont& font, OpId op, qreal available)
{
    if (op >= m_opLabels.size())
        return nullptr;
    const QString& name = tracks.opName(op);
    if (name.isEmpty())
        return nullptr;
    const QFontMetricsF fm(font);
    OpLabel& label = m_opLabels[op];
    if (label.fullWidth < 0)
        label.fullWidth = fm.horizontalAdvance(name);
    qsizetype keep = name.size();
    if (label.fullWidth > available) {
        // Elide as Qt::ElideRight does, from widths measured once per name: elidedText() per
        // label per frame was a third of a zoomed-out frame.
        if (m_ellipsisWidth < 0)
            m_ellipsisWidth = fm.horizontalAdvance(QString(QChar(0x2026)));
        if (label.prefixWidth.empty()) {
            // No label is wider than the screen: a few hundred characters are plenty.
            const QString head = name.left(400);
            QTextLayout layout(head, font);
            layout.beginLayout();
            QTextLine line = layout.createLine();
            line.setLineWidth(1e9);
            layout.endLayout();
            label.prefixWidth.resize(size_t(head.size()) + 1);
            for (qsizetype i = 0; i <= head.size(); ++i)
                label.prefixWidth[size_t(i)] = line.cursorToX(int(i));
        }
        const auto& widths = label.prefixWidth;
        keep = qsizetype(std::upper_bound(widths.begin(), widths.end(), available - m_ellipsisWidth) - widths.begin())
            - 1;
        if (keep > 0 && name[keep - 1].isHighSurrogate())
            --keep;
        if (keep <= 0)
            return nullptr;
    }
    const quint64 key = (quint64(op) << 24) | quint64(keep);
    auto it = m_labelTexts.find(key);
    if (it == m_labelTexts.end()) {
        if (m_labelTexts.size() > 50'000)
            m_labelTexts.clear(); // zooming through very many ops: start over rather than grow
        QStaticText text(keep == name.size() ? name : name.left(keep) + QChar(0x2026));
        text.setTextFormat(Qt::PlainText);
        it = m_labelTexts.insert(key, text);
    }
    return &it.value();
}

void TimelineRasterizer::paintEvents(QPainter& p, const QFont& font, const QPalette& pal, const TimelineTracks& tracks,
    const model::Profile& profile, const TimeScale& s, const QRect& eventArea, int scrollY)
{
    const int visibleTop = scrollY, visibleBottom = scrollY + eventArea.height();
    p.save();
    p.setClipRect(eventArea);
    p.translate(kLabelWidth, kRulerHeight - scrollY);
    const QColor alternate = pal.color(QPalette::AlternateBase);
    const QColor headerColor = pal.color(QPalette::Button);
    const QColor gridColor = pal.color(QPalette::Midlight);
    // Row stripes and group header bars.
    int stripe = 0;
    for (const Row& row : tracks.rows()) {
        if (row.top > visibleBottom)
            break;
        if (row.header) {
            stripe = 0;
            if (row.top + row.height >= visibleTop)
                p.fillRect(QRect(0, row.top, eventArea.width(), row.height), headerColor);
            continue;
        }
        if ((stripe++ % 2) == 1 && row.top + row.height >= visibleTop)
            p.fillRect(QRect(0, row.top, eventArea.width(), row.height), alternate);
    }
    // Ruler grid lines behind the events.
    const TimeScale::Ticks ticks = s.ticks(profile.spanBegin);
    p.setPen(gridColor);
    for (const auto& tick : ticks.ticks)
        if (tick.major)
            p.drawLine(QPointF(tick.x, visibleTop), QPointF(tick.x, visibleBottom));

    // Events (and marker bars): one pre-rasterised image per visible track row.
    for (const RowImage& row : m_cache.rows) {
        if (row.top + row.image.height() < visibleTop || row.top > visibleBottom)
            continue;
        p.drawImage(QPoint(0, row.top), row.image);
    }
    if (!m_cache.triangles.isEmpty()) {
        // Triangles on rects wide enough to carry them make the marker findable at a glance.
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(kMarkerColor));
        for (const QRectF& r : m_cache.triangles) {
            if (r.bottom() < visibleTop || r.top() > visibleBottom)
                continue;
            const QPointF tri[3] = {r.topLeft(), r.topLeft() + QPointF(8, 0), r.topLeft() + QPointF(0, 8)};
            p.drawPolygon(tri, 3);
        }
    }

    // Labels inside rects wide enough for text.
    const qreal textHeight = QFontMetricsF(font).height();
    const QColor light(Qt::white), dark(Qt::black);
    for (const LabelItem& l : m_cache.labels) {
        if (l.rect.bottom() < visibleTop || l.rect.top() > visibleBottom)
            continue;
        const QRectF visible = l.rect.intersected(QRectF(0, l.rect.top(), eventArea.width(), l.rect.height()));
        if (visible.width() < kMinLabelWidthPx)
            continue;
        const QStaticText* text
            = eventLabel(tracks, font, profile.tracks[l.track].op[l.event], int(visible.width()) - 6);
        if (!text)
            continue;
        p.setPen(isDark(l.color) ? light : dark);
        p.drawStaticText(QPointF(visible.left() + 3, visible.top() + (visible.height() - textHeight) / 2), *text);
    }

    // Highlighted occurrences: outlines in the highlight colour.
    if (!m_cache.highlights.isEmpty()) {
        QPen pen(pal.color(QPalette::Highlight), 2);
        pen.setJoinStyle(Qt::MiterJoin);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawRects(m_cache.highlights.constData(), int(m_cache.highlights.size()));
    }
    p.restore();
}

void TimelineRasterizer::paintLabelColumn(
    QPainter& p, const QFont& font, const QPalette& pal, TimelineTracks& tracks, int scrollY, QSize viewport)
{
    const int height = viewport.height();
    p.save();
    p.setClipRect(QRect(0, kRulerHeight, viewport.width(), height - kRulerHeight));
    p.fillRect(QRect(0, kRulerHeight, kLabelWidth, height - kRulerHeight), pal.window());
    const QFontMetrics fm(font);
    QFont bold = font;
    bold.setBold(true);
    const qreal textHeight = QFontMetricsF(font).height();
    const qreal boldHeight = QFontMetricsF(bold).height();
    for (Row& row : tracks.rows()) {
        const int y = row.top + kRulerHeight - scrollY;
        if (y > height)
            break;
        if (y + row.height < kRulerHeight)
            continue;
        if (row.header) {
            const bool collapsed = tracks.groups()[size_t(row.group)].collapsed;
            p.fillRect(QRect(0, y, kLabelWidth, row.height), pal.button());
            p.setPen(pal.color(QPalette::Mid));
            p.drawLine(0, y, viewport.width(), y);
            p.setPen(pal.color(QPalette::ButtonText));
            p.setFont(bold);
            if (row.text.text().isEmpty()) {
                // Header text may run across the event area: header rows carry no events.
                row.text.setText((collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + row.label);
                row.text.setTextFormat(Qt::PlainText);
            }
            p.drawStaticText(
                QPointF(6 + row.level * TimelineTracks::kLevelIndent, y + (row.height - boldHeight) / 2), row.text);
            p.setFont(font);
            continue;
        }
        p.setPen(pal.color(QPalette::WindowText));
        if (row.text.text().isEmpty()) {
            row.text.setText(
                fm.elidedText(row.label, Qt::ElideMiddle, kLabelWidth - 22 - row.level * TimelineTracks::kLevelIndent));
            row.text.setTextFormat(Qt::PlainText);
        }
        p.drawStaticText(
            QPointF(16 + row.level * TimelineTracks::kLevelIndent, y + kTrackPadding + (kDepthHeight - textHeight) / 2),
            row.text);
        p.setPen(pal.color(QPalette::Midlight));
        p.drawLine(0, y + row.height - 1, viewport.width(), y + row.height - 1);
    }
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(kLabelWidth - 1, kRulerHeight, kLabelWidth - 1, height);
    p.restore();
}

std::vector<double> TimelineRasterizer::rulerLabelLefts(
    const std::vector<double>& tickX, const std::vector<int>& labelWidth, int width)
{
    constexpr double kGap = 3; // between a tick and its label
    constexpr double kMinSpace = 8; // between two labels
    std::vector<double> lefts(tickX.size(), std::numeric_limits<double>::quiet_NaN());
    double lastRight = -std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < tickX.size(); ++i) {
        // A label that would run past the right edge goes left of its tick, whole; one that would
        // then run into the label before it is left out ("3500 ms4000 ms" read as one number).
        const double w = labelWidth[i];
        const double left = tickX[i] + kGap + w <= width ? tickX[i] + kGap : tickX[i] - kGap - w;
        if (left < lastRight + kMinSpace)
            continue;
        lefts[i] = left;
        lastRight = left + w;
    }
    return lefts;
}

void TimelineRasterizer::paintRuler(
    QPainter& p, const QFont& font, const QPalette& pal, const model::Profile& profile, const TimeScale& s, int width)
{
    p.fillRect(QRect(0, 0, width, kRulerHeight), pal.window());
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(0, kRulerHeight - 1, width, kRulerHeight - 1);
    const TimeScale::Ticks ticks = s.ticks(profile.spanBegin);
    const QFontMetrics fm(font);
    p.save();
    p.setClipRect(QRect(kLabelWidth, 0, width - kLabelWidth, kRulerHeight));
    std::vector<double> labelX;
    std::vector<int> labelWidth;
    QStringList labels;
    for (const auto& tick : ticks.ticks) {
        const double x = kLabelWidth + tick.x;
        p.setPen(pal.color(tick.major ? QPalette::WindowText : QPalette::Mid));
        p.drawLine(QPointF(x, kRulerHeight - (tick.major ? 8 : 4)), QPointF(x, kRulerHeight - 1));
        if (tick.major) {
            labels << TimeScale::tickLabel(ticks, tick.time);
            labelX.push_back(x);
            labelWidth.push_back(fm.horizontalAdvance(labels.back()));
        }
    }
    p.setPen(pal.color(QPalette::WindowText));
    const std::vector<double> lefts = rulerLabelLefts(labelX, labelWidth, width);
    for (qsizetype i = 0; i < labels.size(); ++i)
        if (!std::isnan(lefts[size_t(i)]))
            p.drawText(QPointF(lefts[size_t(i)], fm.ascent() + 2), labels[i]);
    p.restore();
    // The corner says what the labels are relative to and how much is on screen.
    p.setPen(pal.color(QPalette::WindowText));
    QString corner = tr("span %1").arg(TimeScale::formatDuration(double(s.end() - s.begin())));
    if (ticks.base != profile.spanBegin)
        corner = tr("+%1 · %2")
                     .arg(TimeScale::formatDuration(double(ticks.base - profile.spanBegin)),
                         TimeScale::formatDuration(double(s.end() - s.begin())));
    p.drawText(QRect(6, 0, kLabelWidth - 10, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
        fm.elidedText(corner, Qt::ElideRight, kLabelWidth - 10));
}

} // namespace tpuscope::widgets
