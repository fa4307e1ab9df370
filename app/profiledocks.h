// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

class QDockWidget;
class QMainWindow;
class QTabWidget;

namespace tpuscope::qt {
class SelectionState;
class TraceSession;
class ViewRange;
} // namespace tpuscope::qt

namespace tpuscope::widgets {
class AdvicePanel;
class CompareView;
class DetailsPanel;
class MemoryView;
class RooflineChart;
class TimelineView;
class UtilizationChart;
} // namespace tpuscope::widgets

namespace tpuscope::app {

/// The docks around the profile view and their views: Details and Advice on the right (tabbed),
/// Charts (utilization, roofline, memory), Compare and Selection at the bottom (tabbed). Each view
/// subscribes to the session, the selection and the view range itself; the window connects the rest.
class ProfileDocks : public QObject
{
    Q_OBJECT
public:
    ProfileDocks(QMainWindow* window, qt::TraceSession* session, qt::SelectionState* selection,
        qt::ViewRange* viewRange, widgets::TimelineView* timeline);

    widgets::DetailsPanel* details = nullptr;
    widgets::AdvicePanel* advice = nullptr;
    QTabWidget* charts = nullptr;
    widgets::UtilizationChart* utilization = nullptr;
    widgets::RooflineChart* roofline = nullptr;
    widgets::MemoryView* memory = nullptr;
    widgets::CompareView* compare = nullptr;
    QDockWidget* detailsDock = nullptr;
    QDockWidget* adviceDock = nullptr;
    QDockWidget* chartsDock = nullptr;
    QDockWidget* compareDock = nullptr;
    QDockWidget* selectionDock = nullptr; // the timeline's selected range
};

} // namespace tpuscope::app
