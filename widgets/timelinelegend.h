// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinetracks.h"

#include <QWidget>

#include <vector>

class QPainter;

namespace tpuscope::widgets {

/// The timeline's colour legend: a swatch and a text per entry (several colours for kinds
/// coloured by name), wrapped to the width, and the low-utilization marker last.
class TimelineLegend : public QWidget
{
public:
    using Entry = TimelineLegendEntry;
    explicit TimelineLegend(QWidget* parent = nullptr);

    void setEntries(std::vector<Entry> entries, double threshold);
    const std::vector<Entry>& entries() const { return m_entries; }

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return layoutItems(width, nullptr); }
    QSize sizeHint() const override { return QSize(480, heightForWidth(480)); }
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent*) override;

private:
    /// Lays out (and paints when p is set) swatch+text items in wrapped lines; returns the height.
    int layoutItems(int width, QPainter* p) const;

    double m_threshold = 0.25;
    std::vector<Entry> m_entries;
};

} // namespace tpuscope::widgets
