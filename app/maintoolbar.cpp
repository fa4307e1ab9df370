// SPDX-License-Identifier: GPL-3.0-or-later
#include "maintoolbar.h"

#include "timelinesearch.h"
#include "timelineview.h"

#include <QComboBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include <cmath>

namespace tpuscope::app {

MainToolBar::MainToolBar(QAction* open, QAction* resetZoom, widgets::TimelineView* timeline, QWidget* parent)
    : QToolBar(tr("Main"), parent)
{
    setObjectName(QStringLiteral("mainToolBar"));
    setMovable(false);
    addAction(open);
    m_profileControls << addSeparator();

    m_profileControls << addWidget(new QLabel(tr("Colour: "), this));
    m_colorMode = new QComboBox(this);
    m_colorMode->addItem(tr("HLO category"), static_cast<int>(widgets::TimelineView::ColorMode::Category));
    m_colorMode->addItem(tr("FLOPS utilization"), static_cast<int>(widgets::TimelineView::ColorMode::FlopsUtilization));
    m_colorMode->setToolTip(tr("How timeline events are coloured"));
    m_profileControls << addWidget(m_colorMode);
    connect(m_colorMode, &QComboBox::currentIndexChanged, timeline, [this, timeline](int) {
        timeline->setColorMode(static_cast<widgets::TimelineView::ColorMode>(m_colorMode->currentData().toInt()));
    });

    m_profileControls << addWidget(new QLabel(tr("  Low utilization below "), this));
    m_threshold = new QSpinBox(this);
    m_threshold->setRange(1, 100);
    m_threshold->setSuffix(QStringLiteral(" %"));
    m_threshold->setValue(25);
    m_threshold->setToolTip(tr("Low utilization below: ops of any kind that take at least 1% of the time at a roofline "
                               "efficiency (attained FLOP/s over the roofline bound at their arithmetic intensity) "
                               "below this are marked in the table and on the timeline and counted in the overview"));
    m_profileControls << addWidget(m_threshold);
    connect(m_threshold, &QSpinBox::valueChanged, this,
        [this](int percent) { emit lowUtilizationThresholdChanged(percent / 100.0); });
    m_profileControls << addSeparator();

    m_search = new widgets::TimelineSearch(timeline, this);
    m_profileControls << addWidget(m_search);
    addAction(resetZoom); // disabled, not hidden, by the window: it is in the View menu too
    setProfileShown(false);
}

void MainToolBar::setProfileShown(bool shown)
{
    for (QAction* action : std::as_const(m_profileControls))
        action->setVisible(shown);
}

double MainToolBar::lowUtilizationThreshold() const
{
    return m_threshold->value() / 100.0;
}

void MainToolBar::showLowUtilizationThreshold(double fraction)
{
    const int percent = static_cast<int>(std::lround(fraction * 100));
    if (m_threshold->value() != percent) {
        const QSignalBlocker blocker(m_threshold);
        m_threshold->setValue(percent);
    }
}

int MainToolBar::colorModeIndex() const
{
    return m_colorMode->currentIndex();
}

void MainToolBar::setColorModeIndex(int index)
{
    if (index >= 0 && index < m_colorMode->count())
        m_colorMode->setCurrentIndex(index);
}

} // namespace tpuscope::app
