// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"
#include "appearance.h"
#include "qt/qstrings.h"

#include "devicememory.h"
#include "loadpresenter.h"
#include "mainmenus.h"
#include "maintoolbar.h"
#include "messagebar.h"
#include "profiledocks.h"
#include "profileview.h"
#include "recentfiles.h"
#include "runpicker.h"
#include "startpage.h"
#include "statusmetrics.h"
#include "windowlayout.h"
#include "windowshortcuts.h"

#include "advicepanel.h"
#include "compareview.h"
#include "detailspanel.h"
#include "devicechooser.h"
#include "hostsview.h"
#include "memoryview.h"
#include "optableview.h"
#include "overviewview.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "qt/viewrange.h"
#include "report/report.h"
#include "rooflinechart.h"
#include "share/sharefile.h"
#include "shareactions.h"
#include "shortcutsdialog.h"
#include "timelinesearch.h"
#include "timelineview.h"
#include "utilizationchart.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMimeData>
#include <QSettings>
#include <QStackedWidget>

#include <QStatusBar>
#include <QTabWidget>
#include <QUrl>
#include <utility>

#include <algorithm>
#include <cmath>

namespace tpuscope::app {

namespace {
const QString kDemoResource = QStringLiteral(":/demo.xplane.pb");

using tpuscope::qt::qs;

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : MainWindow(Options {}, parent)
{
}

MainWindow::MainWindow(Options options, QWidget* parent)
    : QMainWindow(parent)
    , m_options(options)
    , m_session(new qt::TraceSession(this))
    , m_selection(new qt::SelectionState(this))
    , m_viewRange(new qt::ViewRange(this))
    , m_devices(new DeviceMemory(m_session, options.persistSettings, this))
{
    m_selection->setSession(m_session);
    setWindowTitle(tr("tpuscope"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    // Right docks run the full height, so the details panel is not squeezed by the charts.
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);

    createWidgets();
    m_docks = new ProfileDocks(this, m_session, m_selection, m_viewRange, m_timeline);
    createActions();
    connectSession();
    connectSelection();
    m_layout = new WindowLayout(this, m_splitter,
        {m_docks->detailsDock, m_docks->adviceDock, m_docks->chartsDock, m_docks->selectionDock}, m_docks->detailsDock,
        m_docks->chartsDock, m_options.persistSettings);
    m_presenter
        = new LoadPresenter(m_session, m_stack, m_startPage, m_profileView, m_layout, m_viewRange, statusBar(), this);
    connect(m_presenter, &LoadPresenter::shownChanged, this, &MainWindow::updateStatusBar);
    connect(m_session, &qt::TraceSession::loaded, this, &MainWindow::onLoaded);
    restoreSettings();
    m_presenter->showStartPage();
    m_startPage->setDemoAvailable(hasDemo());
    updateStatusBar();
}

MainWindow::~MainWindow() = default;

void MainWindow::createWidgets()
{
    m_stack = new QStackedWidget(this);
    m_startPage = new StartPage(m_stack);
    m_stack->addWidget(m_startPage);

    m_profileView = new ProfileView(m_session, m_selection, m_viewRange, m_stack);
    m_messageBar = m_profileView->messageBar;
    m_deviceChooser = m_profileView->deviceChooser;
    m_overview = m_profileView->overview;
    m_timelineArea = m_profileView->timelineArea;
    m_timeline = m_profileView->timeline;
    m_opTable = m_profileView->opTable;
    m_splitter = m_profileView->splitter;
    m_stack->addWidget(m_profileView);
    setCentralWidget(m_stack);

    m_statusMetrics = new StatusMetrics(statusBar(), m_session);
}

QString MainWindow::aboutHtml()
{
    return MainMenus::aboutHtml();
}

void MainWindow::createActions()
{
    m_share = new ShareActions(
        m_session, m_opTable, this, [this](const QString& text) { statusBar()->showMessage(text, 8000); },
        [this](const QString& text) { showMessage(text); }, m_options.persistSettings, this);
    m_menus = new MainMenus(this, m_share,
        {m_docks->detailsDock->toggleViewAction(), m_docks->adviceDock->toggleViewAction(),
            m_docks->chartsDock->toggleViewAction()},
        m_deviceChooser->menu());
    connect(m_menus->openFile, &QAction::triggered, this, &MainWindow::chooseFile);
    connect(m_menus->openDirectory, &QAction::triggered, this, &MainWindow::chooseDirectory);
    connect(m_menus->openDemo, &QAction::triggered, this, [this] { openDemo(); });
    m_menus->openDemo->setEnabled(hasDemo());
    connect(m_menus->openClipboard, &QAction::triggered, this, &MainWindow::openShareTextFromClipboard);
    connect(m_menus, &MainMenus::compareRequested, this, &MainWindow::compareWith);
    connect(m_menus->close, &QAction::triggered, this, &MainWindow::closeProfile);
    connect(m_menus->resetZoom, &QAction::triggered, m_timeline, &widgets::TimelineView::resetZoom);
    connect(m_menus->zoomToBusyRegion, &QAction::triggered, this, [this] { m_presenter->zoomToBusyRegion(true); });
    connect(m_menus->resetLayout, &QAction::triggered, this, [this] { m_layout->reset(); });
    connect(m_menus->darkMode, &QAction::toggled, this, [this](bool dark) {
        setDarkMode(dark);
        if (m_options.persistSettings)
            QSettings().setValue(kDarkModeSettingsKey, dark);
    });
    m_recentFiles = new RecentFiles(m_menus->recentMenu, m_options.persistSettings, this);
    connect(m_recentFiles, &RecentFiles::openRequested, this, &MainWindow::openFile);
    connect(m_recentFiles, &RecentFiles::changed, m_startPage, &StartPage::setRecentFiles);

    m_toolBar = new MainToolBar(m_menus->openFile, m_menus->resetZoom, m_timeline, this);
    addToolBar(m_toolBar);
    connect(m_toolBar, &MainToolBar::lowUtilizationThresholdChanged, this, &MainWindow::setLowUtilizationThreshold);

    // Esc (cancel a load), Ctrl+F and /, the timeline's keys with the pointer over it, the search box's Enter.
    m_shortcuts = new WindowShortcuts(this, m_timeline, m_toolBar->search(), m_session);
    connect(m_shortcuts, &WindowShortcuts::findRequested, this, &MainWindow::showTimelineTab);
    connect(m_menus->keyboardShortcuts, &QAction::triggered, this,
        [this] { widgets::ShortcutsDialog(m_shortcuts->entries(), this).exec(); });
}

QList<widgets::ShortcutEntry> MainWindow::shortcutEntries() const
{
    return m_shortcuts->entries();
}

void MainWindow::connectSession()
{
    m_deviceChooser->setSession(m_session);
    connect(m_deviceChooser, &widgets::DeviceChooser::deviceChosen, m_devices, &DeviceMemory::remember);
    connect(m_session, &qt::TraceSession::comparisonReady, this,
        [this](const std::shared_ptr<const model::ProfileDiff>&, const QString& before, const QString& after) {
            m_docks->compareDock->show();
            m_docks->compareDock->raise();
            // Named as the Compare dock names it (a log dir's run by its log dir, not its timestamp).
            const QString label = qs(model::comparisonLabels(before.toStdString(), after.toStdString()).second);
            statusBar()->showMessage(tr("Compared with %1").arg(label), 8000);
            emit comparisonReady(true);
        });
    connect(m_session, &qt::TraceSession::comparisonFailed, this, [this](const QString&, const QString& message) {
        showMessage(tr("Cannot compare: %1").arg(message));
        emit comparisonReady(false);
    });

    connect(m_startPage, &StartPage::openFileRequested, this, &MainWindow::chooseFile);
    connect(m_startPage, &StartPage::openDirectoryRequested, this, &MainWindow::chooseDirectory);
    connect(m_startPage, &StartPage::openDemoRequested, this, [this] { openDemo(); });
    connect(m_startPage, &StartPage::openRecentRequested, this, &MainWindow::openFile);
}

void MainWindow::connectSelection()
{
    // The views follow the selection and the visible range themselves; what is left here moves
    // docks and tabs, or ties two views together.
    using widgets::TimelineView;
    // An op picked in the table raises Details unless the user closed it (a tab behind Advice is
    // visible to Qt); an advice item's evidence leaves the Advice tab the user reads in front. A
    // clicked timeline event asks what that one event was: Details come to the front, shown again
    // if the dock was closed.
    connect(m_opTable, &widgets::OpTableView::opSelected, this, [this] {
        if (m_docks->detailsDock->isVisible())
            m_docks->detailsDock->raise();
    });
    connect(m_timeline, &TimelineView::eventSelected, this, [this] {
        m_docks->detailsDock->show();
        m_docks->detailsDock->raise();
    });
    connect(m_opTable, &widgets::OpTableView::opActivated, m_timeline, &TimelineView::zoomToFirstOccurrence);
    connect(m_selection, &qt::SelectionState::selectedEventChanged, m_docks->details,
        &widgets::DetailsPanel::setTimelineEvent);
    connect(m_overview, &widgets::OverviewView::stepSelected, this, [this](model::TimePs begin, model::TimePs end) {
        m_profileView->showTimelineTab();
        m_viewRange->setRange(begin - (end - begin) / 50, end + (end - begin) / 50);
    });
    // A host's step from the Hosts view: the same range as a step from the overview.
    connect(m_profileView->hosts, &widgets::HostsView::hostStepSelected, this,
        [this](uint32_t host, model::TimePs begin, model::TimePs end) {
            m_profileView->showTimelineTab();
            m_viewRange->setRange(begin - (end - begin) / 50, end + (end - begin) / 50);
            m_timeline->revealHost(host);
        });
    // The overview's low-utilization count lists those ops: the op table (under the timeline) with
    // its "Low utilization only" filter on.
    connect(m_overview, &widgets::OverviewView::lowUtilizationOpsRequested, this, [this] {
        m_profileView->showTimelineTab();
        m_opTable->showLowUtilizationOps();
    });
    connect(m_overview, &widgets::OverviewView::adviceActivated, this, [this](int index) {
        m_docks->adviceDock->show();
        m_docks->adviceDock->raise();
        m_docks->advice->selectAdvice(index);
    });
    // Same time range and same x pixels: the chart's time axis starts where the timeline's events do.
    m_docks->utilization->alignTimeAxisWith(m_timeline->viewport(), m_timeline->eventAreaLeft());
    connect(m_timeline, &TimelineView::rangeSelected, this, [this](model::TimePs begin, model::TimePs end) {
        if (end > begin)
            statusBar()->showMessage(tr("Selected %1").arg(qs(model::formatDurationPs(double(end - begin)))), 8000);
    });
}

void MainWindow::openFile(const QString& path)
{
    // A TensorBoard log dir may hold many runs: the user picks one (tests and screenshots take the newest).
    // The picker hands over the run it scanned, so the session does not scan the directory again.
    const std::optional<RunChoice> choice = m_options.askForRun ? pickRun(this, path) : RunChoice {path, std::nullopt};
    if (!choice || choice->path.isEmpty())
        return;
    hideMessage();
    m_devices->useDeviceFor(QFileInfo(choice->path).absoluteFilePath());
    if (choice->run)
        m_session->openRun(*choice->run, choice->path);
    else
        m_session->open(choice->path);
}

void MainWindow::openShareTextFromClipboard()
{
    std::string bytes, error;
    if (!model::shareFileFromText(QApplication::clipboard()->text().toStdString(), bytes, error)) {
        m_presenter->showLoadFailed(tr("clipboard"), QString::fromStdString(error));
        return;
    }
    hideMessage();
    m_session->openBytes(
        QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())), QStringLiteral("clipboard.tpuscope"));
}

void MainWindow::compareWith(const QString& path)
{
    if (!m_session->profile())
        return;
    statusBar()->showMessage(tr("Loading %1 to compare…").arg(QFileInfo(path).fileName()));
    m_session->compare(path); // comparisonReady or comparisonFailed follows
}

bool MainWindow::hasDemo()
{
    return QFile::exists(kDemoResource);
}

bool MainWindow::openDemo()
{
    QFile file(kDemoResource);
    if (!file.open(QIODevice::ReadOnly)) {
        m_presenter->showLoadFailed(tr("demo profile"),
            tr("The demo profile is not part of this build (resources/demo.xplane.pb was missing when it "
               "was compiled). Open a profile file instead."));
        return false;
    }
    hideMessage();
    m_devices->useDeviceFor(QStringLiteral("demo.xplane.pb"));
    m_session->openBytes(file.readAll(), QStringLiteral("demo.xplane.pb"));
    return true;
}

void MainWindow::setDeviceOverride(const QString& generation)
{
    m_devices->setCommandLineDevice(generation);
}

void MainWindow::showTimelineTab()
{
    m_profileView->showTimelineTab();
}

void MainWindow::onLoaded()
{
    // The presenter has shown the profile view; the window's own parts follow the new profile.
    m_toolBar->search()->setText({});
    if (!m_docks->adviceDock->isHidden()) // nothing is selected yet: the advice, not an empty Details panel
        m_docks->adviceDock->raise();
    const QFileInfo info(m_session->path());
    setWindowTitle(tr("%1 — tpuscope").arg(info.fileName().isEmpty() ? m_session->path() : info.fileName()));
    if (info.exists())
        m_recentFiles->add(info.absoluteFilePath());
    updateStatusBar();
}

void MainWindow::closeProfile()
{
    m_session->close(); // the views and the selection follow closed()
    m_docks->compareDock->hide();
    m_presenter->showStartPage();
    m_startPage->showOpen();
    setWindowTitle(tr("tpuscope"));
    updateStatusBar();
}

void MainWindow::showMessage(const QString& text)
{
    m_messageBar->showMessage(text);
}

void MainWindow::hideMessage()
{
    m_messageBar->hideMessage();
}

QString MainWindow::messageText() const
{
    return m_messageBar->text();
}

bool MainWindow::isShowingProfile() const
{
    return m_presenter->isShowingProfile();
}

void MainWindow::updateStatusBar()
{
    const model::ProfilePtr profile = m_session->profile();
    m_statusMetrics->update(isShowingProfile());
    m_toolBar->setProfileShown(isShowingProfile());
    m_menus->resetZoom->setEnabled(isShowingProfile());
    m_menus->zoomToBusyRegion->setEnabled(isShowingProfile());
    m_menus->setProfileShown(
        profile != nullptr, profile && profile->hasTpuOps(), QFileInfo(m_session->path()).fileName());
}

double MainWindow::lowUtilizationThreshold() const
{
    return m_toolBar->lowUtilizationThreshold();
}

void MainWindow::setLowUtilizationThreshold(double fraction)
{
    fraction = std::clamp(fraction, 0.01, 1.0);
    m_toolBar->showLowUtilizationThreshold(fraction);
    m_timeline->setLowUtilizationThreshold(fraction);
    m_opTable->setLowUtilizationThreshold(fraction);
    m_overview->setLowUtilizationThreshold(fraction);
    if (m_options.persistSettings)
        QSettings().setValue(QStringLiteral("lowUtilizationThreshold"), fraction);
}

void MainWindow::chooseFile()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Profile"), {}, tr("Profiles (*.pb *.pb.gz *.json *.json.gz *.trace *.gz);;All files (*)"));
    openFile(path);
}

void MainWindow::chooseDirectory()
{
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open TensorBoard Log Directory"));
    openFile(path);
}

void MainWindow::restoreSettings()
{
    m_recentFiles->restore();
    m_layout->restore();
    if (!m_options.persistSettings)
        return;
    // Every value is checked: a corrupt or foreign settings file must only cost the setting.
    QSettings settings;
    bool ok = false;
    const double threshold = settings.value(QStringLiteral("lowUtilizationThreshold")).toDouble(&ok);
    if (ok && std::isfinite(threshold) && threshold > 0 && threshold <= 1)
        m_toolBar->showLowUtilizationThreshold(threshold);
    m_timeline->setLowUtilizationThreshold(lowUtilizationThreshold());
    m_opTable->setLowUtilizationThreshold(lowUtilizationThreshold());
    m_overview->setLowUtilizationThreshold(lowUtilizationThreshold());

    const int colorMode = settings.value(QStringLiteral("timeline/colorMode"), 0).toInt(&ok);
    if (ok)
        m_toolBar->setColorModeIndex(colorMode);
    m_opTable->restoreState(settings.value(QStringLiteral("opTable/state")).toByteArray());
}

void MainWindow::saveSettings()
{
    m_layout->save();
    if (!m_options.persistSettings)
        return;
    QSettings settings;
    settings.setValue(QStringLiteral("opTable/state"), m_opTable->saveState());
    settings.setValue(QStringLiteral("timeline/colorMode"), m_toolBar->colorModeIndex());
    settings.setValue(QStringLiteral("lowUtilizationThreshold"), lowUtilizationThreshold());
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    m_layout->windowShown(isShowingProfile());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    m_session->cancel();
    saveSettings();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    event->acceptProposedAction();
    openFile(urls.first().toLocalFile());
}

QAction* MainWindow::darkModeAction() const
{
    return m_menus->darkMode;
}

widgets::CompareView* MainWindow::compareView() const
{
    return m_docks->compare;
}

widgets::DetailsPanel* MainWindow::detailsPanel() const
{
    return m_docks->details;
}

QWidget* MainWindow::viewWidget(const QString& name) const
{
    if (name == QLatin1String("timeline"))
        return m_timelineArea;
    if (name == QLatin1String("ops"))
        return m_opTable;
    if (name == QLatin1String("details"))
        return m_docks->details;
    if (name == QLatin1String("advice"))
        return m_docks->advice;
    if (name == QLatin1String("overview"))
        return m_overview;
    if (name == QLatin1String("hosts"))
        return m_profileView->hosts;
    if (name == QLatin1String("charts"))
        return m_docks->charts;
    if (name == QLatin1String("utilization"))
        return m_docks->utilization;
    if (name == QLatin1String("roofline"))
        return m_docks->roofline;
    if (name == QLatin1String("compare"))
        return m_docks->compare;
    if (name == QLatin1String("memory"))
        return m_docks->memory;
    return nullptr;
}

} // namespace tpuscope::app
