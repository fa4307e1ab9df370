// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinetracks.h"

#include <QPalette>
#include <QString>
#include <QWidget>

#include <vector>

class QPainter;

namespace tpuscope::widgets {

/// The utilization scale's legend entries (0 %, 10 %, 25 % … 100 %, then "no FLOPS data") as a
/// view draws the scale: the full colour (timeline, charts) or, with `tintOn`, tinted over that
/// palette's base as the op table's bars and the Details chips show it.
std::vector<TimelineLegendEntry> utilizationScaleEntries(const QPalette* tintOn = nullptr);

/// A colour legend strip: an optional caption, a swatch and a text per entry (several colours
/// for kinds coloured by name), wrapped to the width, and the timeline's low-utilization marker
/// last. The timeline, the op table and Details each show one, so the one utilization scale is
/// explained wherever it is drawn.
class TimelineLegend : public QWidget
{
public:
    using Entry = TimelineLegendEntry;
    explicit TimelineLegend(QWidget* parent = nullptr);

    void setEntries(std::vector<Entry> entries, double threshold);
    const std::vector<Entry>& entries() const { return m_entries; }
    /// Text before the entries ("FLOPS utilization:"); empty for none.
    void setCaption(const QString& caption);
    /// The timeline's marker entry (a red corner); views that mark low utilization otherwise
    /// (the op table's row colour) give their own entry instead.
    void setShowsLowUtilizationMarker(bool shown);
    /// The legend as one line of text (for tests and copies).
    QString text() const;

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return layoutItems(width, nullptr); }
    QSize sizeHint() const override { return QSize(480, heightForWidth(480)); }
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent*) override;

private:
    QString markerText() const;
    /// Lays out (and paints when p is set) swatch+text items in wrapped lines; returns the height.
    int layoutItems(int width, QPainter* p) const;

    double m_threshold = 0.25;
    std::vector<Entry> m_entries;
    QString m_caption;
    bool m_marker = true;
};

} // namespace tpuscope::widgets
