// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiledocks.h"

#include "advicepanel.h"
#include "compareview.h"
#include "detailspanel.h"
#include "memoryview.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "qt/viewrange.h"
#include "rangeselectionview.h"
#include "rooflinechart.h"
#include "timelineview.h"
#include "utilizationchart.h"

#include "core/timelinepresence.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QStatusBar>
#include <QTabWidget>

namespace tpuscope::app {

ProfileDocks::ProfileDocks(QMainWindow* window, qt::TraceSession* session, qt::SelectionState* selection,
    qt::ViewRange* viewRange, widgets::TimelineView* timeline)
    : QObject(window)
{
    details = new widgets::DetailsPanel(window);
    details->setSession(session);
    details->setSelectionState(selection);
    detailsDock = new QDockWidget(tr("Details"), window);
    detailsDock->setObjectName(QStringLiteral("detailsDock"));
    detailsDock->setWidget(details);
    window->addDockWidget(Qt::RightDockWidgetArea, detailsDock);

    advice = new widgets::AdvicePanel(window);
    advice->setSession(session);
    advice->setSelectionState(selection);
    adviceDock = new QDockWidget(tr("Advice"), window);
    adviceDock->setObjectName(QStringLiteral("adviceDock"));
    adviceDock->setWidget(advice);
    window->addDockWidget(Qt::RightDockWidgetArea, adviceDock);
    window->tabifyDockWidget(detailsDock, adviceDock);
    detailsDock->raise();

    charts = new QTabWidget(window);
    charts->setDocumentMode(true);
    utilization = new widgets::UtilizationChart(charts);
    utilization->setSession(session);
    utilization->setViewRange(viewRange);
    roofline = new widgets::RooflineChart(charts);
    roofline->setSession(session);
    roofline->setSelectionState(selection);
    charts->addTab(utilization, tr("Utilization over time"));
    charts->addTab(roofline, tr("Roofline"));
    memory = new widgets::MemoryView(charts);
    memory->setSession(session);
    memory->setSelectionState(selection);
    charts->addTab(memory, tr("Memory"));
    // Utilization over time needs events: a profile without a timeline gets no empty 0–1 ns chart.
    connect(session, &qt::TraceSession::loaded, charts, [this, session] {
        const bool timeline = session->profile() && model::hasTimeline(*session->profile());
        const int tab = charts->indexOf(utilization);
        charts->setTabVisible(tab, timeline);
        if (!timeline && charts->currentIndex() == tab)
            charts->setCurrentWidget(roofline);
    });
    // Explicit minimums override the panels' own hints (their header rows are wide), so the
    // window still fits a 1366-pixel laptop screen; narrower than that, the panels clip.
    details->setMinimumWidth(260);
    advice->setMinimumWidth(260);
    charts->setMinimumWidth(360);
    chartsDock = new QDockWidget(tr("Charts"), window);
    chartsDock->setObjectName(QStringLiteral("chartsDock"));
    chartsDock->setWidget(charts);
    window->addDockWidget(Qt::BottomDockWidgetArea, chartsDock);

    compare = new widgets::CompareView(window);
    connect(compare, &widgets::CompareView::statusMessage, window,
        [window](const QString& text) { window->statusBar()->showMessage(text, 8000); });
    compare->setSession(session);
    compareDock = new QDockWidget(tr("Compare"), window);
    compareDock->setObjectName(QStringLiteral("compareDock"));
    compareDock->setWidget(compare);
    window->addDockWidget(Qt::BottomDockWidgetArea, compareDock);
    window->tabifyDockWidget(chartsDock, compareDock);
    chartsDock->raise();
    compareDock->hide(); // shown when a comparison exists

    // The timeline's Shift+drag range: a sortable table of its ops (follows the timeline itself).
    auto* rangeView = new widgets::RangeSelectionView(timeline, window);
    selectionDock = new QDockWidget(tr("Selection"), window);
    selectionDock->setObjectName(QStringLiteral("selectionDock"));
    selectionDock->setWidget(rangeView);
    window->addDockWidget(Qt::BottomDockWidgetArea, selectionDock);
    window->tabifyDockWidget(chartsDock, selectionDock);
    chartsDock->raise();
    connect(rangeView, &widgets::RangeSelectionView::opActivated, selection, &qt::SelectionState::setSelectedOp);
}

} // namespace tpuscope::app
