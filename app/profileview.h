// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
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
/// and Hosts (a pod's hosts × steps and the per-host table). The views subscribe to the session,
/// the selection and the view range themselves. A profile without a timeline (op_profile, share
/// file) gets no empty timeline: the second tab is "Ops", the op table under one sentence saying
/// why there is no timeline.
class ProfileView : public QWidget
{
    Q_OBJECT
public:
    ProfileView(
        qt::TraceSession* session, qt::SelectionState* selection, qt::ViewRange* viewRange, QWidget* parent = nullptr);

    void showOverviewTab();
    void showTimelineTab();
    /// Whether the shown profile has a timeline (the second tab then holds the timeline).
    bool showsTimeline() const { return m_showsTimeline; }
    /// The second tab's title: "Timeline", or "Ops" for a profile without one.
    QString secondTabTitle() const;
    void showHostsTab();

    MessageBar* messageBar = nullptr;
    widgets::DeviceChooser* deviceChooser = nullptr;
    widgets::OverviewView* overview = nullptr;
    QWidget* timelineArea = nullptr; // the timeline and its legend
    widgets::TimelineView* timeline = nullptr;
    widgets::OpTableView* opTable = nullptr;
    QSplitter* splitter = nullptr; // timeline area over op table
    QLabel* noTimelineNote = nullptr; // over the op table when the profile has no timeline
    widgets::HostsView* hosts = nullptr;

private:
    void followProfile(qt::TraceSession* session);

    QTabWidget* m_tabs = nullptr;
    QWidget* m_timelinePage = nullptr; // the note and the splitter: the second tab
    bool m_showsTimeline = true;
};

} // namespace tpuscope::app
