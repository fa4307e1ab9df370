// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinegeometry.h"
#include "timelinetracks.h"
#include "timescale.h"

#include "core/profile.h"

#include <QCoreApplication>
#include <QHash>
#include <QImage>
#include <QList>
#include <QRectF>
#include <QStaticText>

#include <vector>

class QFont;
class QPainter;
class QPalette;

namespace tpuscope::widgets {

/// What a geometry build depends on: the visible time range, the event area's width and the
/// generations of the layout, the colours and the highlighted occurrences.
struct TimelineFrame
{
    TimeScale scale;
    int width = 0; // of the event area
    quint64 layoutGeneration = 0, colorGeneration = 0, highlightGeneration = 0;
};

/// Draws the timeline's frame: the level-of-detail geometry of the rows on screen rasterised
/// once per build into one image per row (then blitted however many rects or colours there are),
/// the marker triangles, the event labels, the highlighted occurrences, the label column and the
/// ruler. It owns the build cache and the label text caches; the view decides when to paint and
/// paints its overlays (range, hover, selection) on top.
class TimelineRasterizer
{
    Q_DECLARE_TR_FUNCTIONS(TimelineRasterizer)
public:
    static constexpr int kLabelWidth = 190;
    static constexpr int kRulerHeight = 24;

    /// Builds the rows intersecting [visibleTop, visibleBottom) in content y (plus half a page
    /// either way) unless the last build still covers the frame.
    void ensureGeometry(const TimelineGeometryBuilder& builder, const TimelineTracks& tracks,
        const std::vector<std::vector<uint32_t>>& highlightEvents, const TimelineFrame& frame, int visibleTop,
        int visibleBottom);
    /// The next ensureGeometry builds again.
    void invalidate() { m_cache.valid = false; }
    /// Drops the row images (a new profile).
    void clearRows() { m_cache.rows.clear(); }
    /// Whether the last build had the levels of detail (else it merged with sampled colours).
    bool builtWithLevelsOfDetail() const { return m_cache.lodReady; }
    size_t rectCount() const { return m_cache.rectCount; }
    qint64 buildNs() const { return m_cache.buildNs; }

    /// Label widths and elisions depend on the font and the op names.
    void clearTextCaches(size_t opCount);

    /// Row stripes, grid lines, the rows' images, markers, labels and highlights in `eventArea`
    /// (viewport coordinates), scrolled by `scrollY`.
    void paintEvents(QPainter& p, const QFont& font, const QPalette& pal, const TimelineTracks& tracks,
        const model::Profile& profile, const TimeScale& scale, const QRect& eventArea, int scrollY);
    /// The label column (group headers with their ▸/▾, track names) left of the event area.
    void paintLabelColumn(
        QPainter& p, const QFont& font, const QPalette& pal, TimelineTracks& tracks, int scrollY, QSize viewport);
    /// Where each major tick's label starts on a ruler `width` wide (labels are drawn right of
    /// their tick at `tickX`, or left of it, whole, near the right edge), NaN for a label left out
    /// because it would overlap the one before it.
    static std::vector<double> rulerLabelLefts(
        const std::vector<double>& tickX, const std::vector<int>& labelWidth, int width);
    /// The time ruler over the event area and, in its corner, what the labels are relative to.
    void paintRuler(QPainter& p, const QFont& font, const QPalette& pal, const model::Profile& profile,
        const TimeScale& scale, int viewportWidth);

private:
    static constexpr int kDepthHeight = TimelineTracks::kDepthHeight;
    static constexpr int kTrackPadding = TimelineTracks::kTrackPadding;
    using TimePs = model::TimePs;
    using Row = TimelineTracks::Row;

    struct LabelItem
    {
        QRectF rect;
        model::TrackId track;
        uint32_t event;
        QRgb color;
    };
    /// A track row's events rasterised once per geometry build: one scanline per depth filled
    /// span by span, copied down the row (markers on the top three lines).
    struct RowImage
    {
        int top = 0; // content y of the first depth row
        QImage image; // eventAreaWidth × depth rows, transparent where no event
    };
    struct GeometryCache
    {
        bool valid = false;
        TimePs begin = 0, end = 0;
        int width = 0;
        int contentTop = 0, contentBottom = 0; // rows intersecting this content-y range are built
        bool lodReady = false;
        quint64 layoutGeneration = 0, colorGeneration = 0, highlightGeneration = 0;
        std::vector<RowImage> rows;
        QList<QRectF> triangles; // marked rects wide enough for the marker's triangle
        QList<QRectF> highlights;
        std::vector<LabelItem> labels;
        size_t rectCount = 0;
        qint64 buildNs = 0;
    };
    /// Per-op label text: the width of the full name, the widths of its prefixes (only once the
    /// name had to be elided).
    struct OpLabel
    {
        qreal fullWidth = -1; // < 0: not measured yet
        std::vector<qreal> prefixWidth; // prefixWidth[i] = width of the first i characters
    };

    void rasteriseRow(const std::vector<TimelineRect>& rects, int depths, int width, QImage& image) const;
    /// The text drawn in an event rect `available` px wide (elided like Qt::ElideRight), or
    /// nullptr when not even one character fits.
    const QStaticText* eventLabel(const TimelineTracks& tracks, const QFont& font, model::OpId op, qreal available);

    GeometryCache m_cache;
    std::vector<OpLabel> m_opLabels;
    QHash<quint64, QStaticText> m_labelTexts; // (op << 24 | characters kept) → text
    qreal m_ellipsisWidth = -1;
    std::vector<TimelineRect> m_rectScratch, m_highlightScratch; // reused by every build
    std::vector<QImage> m_imagePool; // row images of the previous build, reused when sizes match
};

} // namespace tpuscope::widgets
