// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QSplitter;
class QTabWidget;

namespace tpuscope::qt {
class SelectionState;
class TraceSession;
class ViewRange;
} // namespace tpuscope::qt

namespace tpuscope::widgets {
class DeviceChooser;
class HostsView;
class OpTableView;
class OverviewView;
class TimelineView;
} // namespace tpuscope::widgets

namespace tpuscope::app {

class MessageBar;

/// The window's centre while a profile is shown: the message bar and the device chooser over three
/// tabs, Overview (where a load lands), Timeline (the timeline with its legend over the op table)
/// and Hosts (a pod's hosts × steps and the per-host table). The views subscribe to the session, the selection and the
/// view range themselves.
class ProfileView : public QWidget
{
    Q_OBJECT
public:
    ProfileView(
        qt::TraceSession* session, qt::SelectionState* selection, qt::ViewRange* viewRange, QWidget* parent = nullptr);

    void showOverviewTab();
    void showTimelineTab();
    void showHostsTab();

    MessageBar* messageBar = nullptr;
    widgets::DeviceChooser* deviceChooser = nullptr;
    widgets::OverviewView* overview = nullptr;
    QWidget* timelineArea = nullptr; // the timeline and its legend
    widgets::TimelineView* timeline = nullptr;
    widgets::OpTableView* opTable = nullptr;
    widgets::HostsView* hosts = nullptr;
    QSplitter* splitter = nullptr; // timeline area over op table: the Timeline tab

private:
    QTabWidget* m_tabs = nullptr;
};

} // namespace tpuscope::app
