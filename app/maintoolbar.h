// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QToolBar>

class QAction;
class QComboBox;
class QSpinBox;

namespace tpuscope::widgets {
class TimelineSearch;
class TimelineView;
} // namespace tpuscope::widgets

namespace tpuscope::app {

/// The main toolbar: Open, the timeline's colour mode, the low-utilization threshold, the
/// timeline search and Reset Zoom. The colour mode drives `timeline` directly; the threshold is
/// announced (the window applies it to the timeline and the op table and saves it).
class MainToolBar : public QToolBar
{
    Q_OBJECT
public:
    MainToolBar(QAction* open, QAction* resetZoom, widgets::TimelineView* timeline, QWidget* parent);

    /// 0..1 (shown in whole percent).
    double lowUtilizationThreshold() const;
    /// Shows `fraction` without announcing it.
    void showLowUtilizationThreshold(double fraction);
    int colorModeIndex() const;
    void setColorModeIndex(int index);
    widgets::TimelineSearch* search() const { return m_search; }
    /// With no profile shown the colour, threshold and search have nothing to act on: hidden, so
    /// the start page's toolbar offers Open (and a disabled Reset Zoom).
    void setProfileShown(bool shown);

signals:
    void lowUtilizationThresholdChanged(double fraction);

private:
    QComboBox* m_colorMode = nullptr;
    QSpinBox* m_threshold = nullptr;
    widgets::TimelineSearch* m_search = nullptr;
    QList<QAction*> m_profileControls;
};

} // namespace tpuscope::app
