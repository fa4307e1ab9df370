// SPDX-License-Identifier: GPL-3.0-or-later
#include "loadpresenter.h"

#include "analysis/profileanalysis.h"
#include "analysis/summary.h"
#include "messagebar.h"
#include "profileview.h"
#include "qt/qstrings.h"
#include "qt/tracesession.h"
#include "qt/viewrange.h"
#include "startpage.h"
#include "windowlayout.h"

#include <QFileInfo>
#include <QLocale>
#include <QStackedWidget>
#include <QStatusBar>

#include <utility>

namespace tpuscope::app {

LoadPresenter::LoadPresenter(qt::TraceSession* session, QStackedWidget* stack, StartPage* startPage,
    ProfileView* profileView, WindowLayout* layout, qt::ViewRange* viewRange, QStatusBar* statusBar, QObject* parent)
    : QObject(parent)
    , m_session(session)
    , m_stack(stack)
    , m_startPage(startPage)
    , m_profileView(profileView)
    , m_layout(layout)
    , m_viewRange(viewRange)
    , m_statusBar(statusBar)
{
    connect(m_session, &qt::TraceSession::loadStarted, this, [this](const QString& path) {
        m_startPage->showLoading(QFileInfo(path).fileName().isEmpty() ? path : QFileInfo(path).fileName());
        showStartPage();
        emit shownChanged();
    });
    connect(m_session, &qt::TraceSession::progress, m_startPage, &StartPage::setProgress);
    connect(m_session, &qt::TraceSession::loaded, this, &LoadPresenter::onLoaded);
    connect(m_session, &qt::TraceSession::previewReady, this, &LoadPresenter::onPreview);
    connect(m_session, &qt::TraceSession::loadFailed, this, &LoadPresenter::showLoadFailed);
    connect(m_session, &qt::TraceSession::loadCanceled, this, &LoadPresenter::onLoadCanceled);
    connect(m_startPage, &StartPage::cancelRequested, m_session, &qt::TraceSession::cancel);
}

void LoadPresenter::showSessionProfile()
{
    // The views follow the session themselves; the window lands on the answer.
    if (m_session->profile()) {
        m_profileView->showOverviewTab();
        zoomToBusyRegion(false);
    }
}

void LoadPresenter::zoomToBusyRegion(bool always)
{
    const model::ProfileAnalysisPtr analysis = m_session->analysis();
    if (!analysis)
        return;
    // When the device ran for only part of the capture (a serving trace, a long warm-up), the
    // timeline opens on the device activity instead of a span that is mostly empty. The load job
    // found that activity (no pass over the events here).
    const auto [begin, end] = analysis->deviceActivity;
    const model::Profile& profile = *analysis->profile;
    const double span = static_cast<double>(profile.spanEnd - profile.spanBegin);
    if (end <= begin || (!always && static_cast<double>(end - begin) > 0.8 * span))
        return;
    const model::TimePs margin = (end - begin) / 50;
    m_viewRange->setRange(begin - margin, end + margin);
}

void LoadPresenter::onPreview(const model::ProfilePtr& partial)
{
    // Only the timeline can draw a partial profile honestly: totals, utilizations and advice
    // would be wrong until every event is read, so those views wait (empty) for loaded().
    m_previewShown = true;
    m_profileView->showTimelineTab(); // the overview needs the whole file
    showProfileView();
    m_profileView->messageBar->showMessage(
        tr("Still reading %1: the timeline shows the %2 events read so far. The op table, charts and "
           "advice appear when the whole file is read (Esc cancels).")
            .arg(QFileInfo(QString::fromStdString(partial->load.path)).fileName(),
                QLocale().toString(static_cast<qulonglong>(partial->eventCount()))));
}

void LoadPresenter::dropPreview()
{
    if (!std::exchange(m_previewShown, false))
        return;
    m_profileView->messageBar->hideMessage();
    showSessionProfile();
}

void LoadPresenter::onLoaded()
{
    m_previewShown = false;
    showSessionProfile();
    showProfileView();
    m_startPage->showError({});
    showProfileWarnings();
}

void LoadPresenter::showProfileWarnings()
{
    // What the bar said of the previous profile never stays: each load says its own or nothing.
    m_profileView->messageBar->hideMessage();
    const model::ProfileAnalysisPtr analysis = m_session->analysis();
    if (!analysis)
        return;
    QStringList items;
    if (!analysis->profile->hasTpuOps())
        items << tr("This profile has no TPU ops (XLA Ops lines); the op table and TPU charts stay empty.");
    for (const std::string& warning : model::profileWarnings(*analysis->profile, analysis->breakdown))
        items << qt::qs(warning);
    if (items.size() == 1)
        m_profileView->messageBar->showMessage(items.front());
    else if (!items.isEmpty())
        m_profileView->messageBar->showList(
            tr("Read this before trusting the numbers (%n warning(s), also in tpuscope-cli summary):", nullptr,
                int(items.size())),
            items);
}

void LoadPresenter::showLoadFailed(const QString& path, const QString& message)
{
    dropPreview();
    const QString name = QFileInfo(path).fileName().isEmpty() ? path : QFileInfo(path).fileName();
    const QString text = tr("Could not open %1.").arg(name) + QLatin1Char('\n') + message;
    if (m_session->profile()) {
        showProfileView();
        m_profileView->messageBar->showMessage(text);
    } else {
        showStartPage();
        m_startPage->showError(text);
    }
    emit shownChanged();
    m_statusBar->showMessage(tr("Loading failed"), 5000);
}

void LoadPresenter::onLoadCanceled()
{
    dropPreview();
    if (m_session->profile()) {
        showProfileView();
    } else {
        showStartPage();
        m_startPage->showOpen();
    }
    emit shownChanged();
    m_statusBar->showMessage(tr("Loading cancelled"), 5000);
}

void LoadPresenter::showStartPage()
{
    m_stack->setCurrentWidget(m_startPage);
    m_layout->showStartPage();
}

void LoadPresenter::showProfileView()
{
    m_stack->setCurrentWidget(m_profileView);
    m_layout->showProfileView();
}

bool LoadPresenter::isShowingProfile() const
{
    return m_stack->currentWidget() == m_profileView;
}

} // namespace tpuscope::app
