// SPDX-License-Identifier: GPL-3.0-or-later
#include "profileview.h"

#include "devicechooser.h"
#include "hostsview.h"
#include "messagebar.h"
#include "optableview.h"
#include "overviewview.h"
#include "timelineview.h"

#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

namespace tpuscope::app {

ProfileView::ProfileView(
    qt::TraceSession* session, qt::SelectionState* selection, qt::ViewRange* viewRange, QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);

    messageBar = new MessageBar(this);

    timelineArea = new QWidget(this);
    timeline = new widgets::TimelineView(timelineArea);
    timeline->setSession(session);
    timeline->setSelectionState(selection);
    timeline->setViewRange(viewRange);
    auto* timelineLayout = new QVBoxLayout(timelineArea);
    timelineLayout->setContentsMargins(0, 0, 0, 0);
    timelineLayout->setSpacing(0);
    if (QWidget* legend = timeline->legendWidget())
        timelineLayout->addWidget(legend);
    timelineLayout->addWidget(timeline, 1);

    opTable = new widgets::OpTableView(this);
    opTable->setSession(session);
    opTable->setSelectionState(selection);

    splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(QStringLiteral("mainSplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(timelineArea);
    splitter->addWidget(opTable);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    overview = new widgets::OverviewView(session, this);
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(overview, tr("Overview"));
    m_tabs->addTab(splitter, tr("Timeline"));
    hosts = new widgets::HostsView(session, this);
    m_tabs->addTab(hosts, tr("Hosts"));

    layout->addWidget(messageBar);
    deviceChooser = new widgets::DeviceChooser(this);
    layout->addWidget(deviceChooser);
    layout->addWidget(m_tabs, 1);
}

void ProfileView::showOverviewTab()
{
    m_tabs->setCurrentWidget(overview);
}

void ProfileView::showTimelineTab()
{
    m_tabs->setCurrentWidget(splitter);
}

void ProfileView::showHostsTab()
{
    m_tabs->setCurrentWidget(hosts);
}

} // namespace tpuscope::app
