// SPDX-License-Identifier: GPL-3.0-or-later
#include "profileview.h"

#include "devicechooser.h"
#include "hostsview.h"
#include "messagebar.h"
#include "optableview.h"
#include "overviewview.h"
#include "timelineview.h"

#include "core/timelinepresence.h"
#include "qt/qstrings.h"
#include "qt/tracesession.h"

#include <QLabel>
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

    m_timelinePage = new QWidget(this);
    auto* pageLayout = new QVBoxLayout(m_timelinePage);
    pageLayout->setContentsMargins(0, 0, 0, 0);
    pageLayout->setSpacing(0);
    noTimelineNote = new QLabel(m_timelinePage);
    noTimelineNote->setObjectName(QStringLiteral("noTimelineNote"));
    noTimelineNote->setTextFormat(Qt::PlainText);
    noTimelineNote->setWordWrap(true);
    noTimelineNote->setContentsMargins(8, 6, 8, 6);
    noTimelineNote->hide();
    pageLayout->addWidget(noTimelineNote);
    pageLayout->addWidget(splitter, 1);

    overview = new widgets::OverviewView(session, this);
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(overview, tr("Overview"));
    m_tabs->addTab(m_timelinePage, secondTabTitle());
    followProfile(session);
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
    m_tabs->setCurrentWidget(m_timelinePage);
}

QString ProfileView::secondTabTitle() const
{
    return m_showsTimeline ? tr("Timeline") : tr("Ops");
}

void ProfileView::followProfile(qt::TraceSession* session)
{
    if (!session)
        return;
    // A preview always has events; the whole profile decides once it is loaded.
    connect(session, &qt::TraceSession::loaded, this, [this, session] {
        const model::ProfilePtr profile = session->profile();
        m_showsTimeline = !profile || model::hasTimeline(*profile);
        timelineArea->setVisible(m_showsTimeline);
        noTimelineNote->setText(profile ? qt::qs(model::noTimelineReason(*profile)) : QString());
        noTimelineNote->setVisible(!m_showsTimeline);
        m_tabs->setTabText(m_tabs->indexOf(m_timelinePage), secondTabTitle());
    });
}

void ProfileView::showHostsTab()
{
    m_tabs->setCurrentWidget(hosts);
}

} // namespace tpuscope::app
