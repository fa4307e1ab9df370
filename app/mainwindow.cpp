// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"
#include "qt/qstrings.h"

#include "runpicker.h"
#include "statusmetrics.h"
#include "startpage.h"

#include "advicepanel.h"
#include "compareview.h"
#include "core/atomicfile.h"
#include "detailspanel.h"
#include "devicechooser.h"
#include "glossarydialog.h"
#include "memoryview.h"
#include "optableview.h"
#include "overviewview.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "rangeselectionview.h"
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
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QScreen>
#include <QSettings>
#include <QShortcut>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>

#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>
#include <google/protobuf/stubs/common.h>
#include <utility>

#include <algorithm>
#include <cmath>

namespace tpuscope::app {

namespace {
constexpr int kLayoutVersion = 2; // bump when docks change, so old saved layouts are ignored
constexpr int kMaxRecentFiles = 10;
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
{
    m_selection->setSession(m_session);
    setWindowTitle(tr("tpuscope"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    // Right docks run the full height, so the details panel is not squeezed by the charts.
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);

    createWidgets();
    createDocks();
    createActions();
    connectSession();
    connectSelection();
    m_defaultState = saveState(kLayoutVersion);
    restoreSettings();
    showStartPage();
    m_startPage->setDemoAvailable(hasDemo());
    updateStatusBar();
}

MainWindow::~MainWindow() = default;

void MainWindow::createWidgets()
{
    m_stack = new QStackedWidget(this);
    m_startPage = new StartPage(m_stack);
    m_stack->addWidget(m_startPage);

    m_profileView = new QWidget(m_stack);
    auto* profileLayout = new QVBoxLayout(m_profileView);
    profileLayout->setContentsMargins(0, 0, 0, 0);
    profileLayout->setSpacing(0);

    // Errors while a profile is shown go to an inline bar, not a modal box, so the view stays usable.
    m_messageBar = new QWidget(m_profileView);
    m_messageBar->setObjectName(QStringLiteral("messageBar"));
    m_messageBar->setAutoFillBackground(true);
    {
        QPalette palette = m_messageBar->palette();
        const bool dark = palette.color(QPalette::Window).lightness() < 128;
        palette.setColor(QPalette::Window, dark ? QColor(110, 40, 35) : QColor(250, 225, 220));
        palette.setColor(QPalette::WindowText, dark ? QColor(255, 225, 220) : QColor(110, 20, 10));
        m_messageBar->setPalette(palette);
    }
    auto* messageLayout = new QHBoxLayout(m_messageBar);
    messageLayout->setContentsMargins(8, 4, 4, 4);
    auto* icon = new QLabel(m_messageBar);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(16, 16));
    m_messageLabel = new QLabel(m_messageBar);
    m_messageLabel->setWordWrap(true);
    m_messageLabel->setTextFormat(Qt::PlainText);
    m_messageLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* closeMessage = new QToolButton(m_messageBar);
    closeMessage->setAutoRaise(true);
    closeMessage->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    closeMessage->setToolTip(tr("Dismiss"));
    connect(closeMessage, &QToolButton::clicked, this, &MainWindow::hideMessage);
    messageLayout->addWidget(icon);
    messageLayout->addWidget(m_messageLabel, 1);
    messageLayout->addWidget(closeMessage);
    m_messageBar->hide();

    m_timelineArea = new QWidget(m_profileView);
    m_timeline = new widgets::TimelineView(m_timelineArea);
    m_timeline->setSession(m_session);
    m_timeline->setSelectionState(m_selection);
    m_timeline->setViewRange(m_viewRange);
    auto* timelineLayout = new QVBoxLayout(m_timelineArea);
    timelineLayout->setContentsMargins(0, 0, 0, 0);
    timelineLayout->setSpacing(0);
    if (QWidget* legend = m_timeline->legendWidget())
        timelineLayout->addWidget(legend);
    timelineLayout->addWidget(m_timeline, 1);

    m_opTable = new widgets::OpTableView(m_profileView);
    m_opTable->setSession(m_session);
    m_opTable->setSelectionState(m_selection);

    m_splitter = new QSplitter(Qt::Vertical, m_profileView);
    m_splitter->setObjectName(QStringLiteral("mainSplitter"));
    m_splitter->setChildrenCollapsible(false);
    m_splitter->addWidget(m_timelineArea);
    m_splitter->addWidget(m_opTable);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);

    m_overview = new widgets::OverviewView(m_session, m_profileView);
    m_mainTabs = new QTabWidget(m_profileView);
    m_mainTabs->setDocumentMode(true);
    m_mainTabs->addTab(m_overview, tr("Overview"));
    m_mainTabs->addTab(m_splitter, tr("Timeline"));

    profileLayout->addWidget(m_messageBar);
    m_deviceChooser = new widgets::DeviceChooser(m_profileView);
    profileLayout->addWidget(m_deviceChooser);
    profileLayout->addWidget(m_mainTabs, 1);
    m_stack->addWidget(m_profileView);
    setCentralWidget(m_stack);

    m_statusMetrics = new StatusMetrics(statusBar(), m_session);
}

void MainWindow::createDocks()
{
    m_details = new widgets::DetailsPanel(this);
    m_details->setSession(m_session);
    m_details->setSelectionState(m_selection);
    m_detailsDock = new QDockWidget(tr("Details"), this);
    m_detailsDock->setObjectName(QStringLiteral("detailsDock"));
    m_detailsDock->setWidget(m_details);
    addDockWidget(Qt::RightDockWidgetArea, m_detailsDock);

    m_advice = new widgets::AdvicePanel(this);
    m_advice->setSession(m_session);
    m_advice->setSelectionState(m_selection);
    m_adviceDock = new QDockWidget(tr("Advice"), this);
    m_adviceDock->setObjectName(QStringLiteral("adviceDock"));
    m_adviceDock->setWidget(m_advice);
    addDockWidget(Qt::RightDockWidgetArea, m_adviceDock);
    tabifyDockWidget(m_detailsDock, m_adviceDock);
    m_detailsDock->raise();

    m_charts = new QTabWidget(this);
    m_charts->setDocumentMode(true);
    m_utilization = new widgets::UtilizationChart(m_charts);
    m_utilization->setSession(m_session);
    m_utilization->setViewRange(m_viewRange);
    m_roofline = new widgets::RooflineChart(m_charts);
    m_roofline->setSession(m_session);
    m_roofline->setSelectionState(m_selection);
    m_charts->addTab(m_utilization, tr("Utilization over time"));
    m_charts->addTab(m_roofline, tr("Roofline"));
    auto* memory = new widgets::MemoryView(m_charts);
    memory->setSession(m_session);
    memory->setSelectionState(m_selection);
    m_charts->addTab(memory, tr("Memory"));
    // Explicit minimums override the panels' own hints (their header rows are wide), so the
    // window still fits a 1366-pixel laptop screen; narrower than that, the panels clip.
    m_details->setMinimumWidth(260);
    m_advice->setMinimumWidth(260);
    m_charts->setMinimumWidth(360);
    m_chartsDock = new QDockWidget(tr("Charts"), this);
    m_chartsDock->setObjectName(QStringLiteral("chartsDock"));
    m_chartsDock->setWidget(m_charts);
    addDockWidget(Qt::BottomDockWidgetArea, m_chartsDock);

    m_compare = new widgets::CompareView(this);
    connect(m_compare, &widgets::CompareView::statusMessage, this,
        [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    m_compare->setSession(m_session);
    m_compareDock = new QDockWidget(tr("Compare"), this);
    m_compareDock->setObjectName(QStringLiteral("compareDock"));
    m_compareDock->setWidget(m_compare);
    addDockWidget(Qt::BottomDockWidgetArea, m_compareDock);
    tabifyDockWidget(m_chartsDock, m_compareDock);
    m_chartsDock->raise();
    m_compareDock->hide(); // shown when a comparison exists

    // The timeline's Shift+drag range: a sortable table of its ops (follows the timeline itself).
    auto* rangeView = new widgets::RangeSelectionView(m_timeline, this);
    auto* rangeDock = new QDockWidget(tr("Selection"), this);
    rangeDock->setObjectName(QStringLiteral("selectionDock"));
    rangeDock->setWidget(rangeView);
    addDockWidget(Qt::BottomDockWidgetArea, rangeDock);
    tabifyDockWidget(m_chartsDock, rangeDock);
    m_chartsDock->raise();
    connect(rangeView, &widgets::RangeSelectionView::opActivated, m_selection, &qt::SelectionState::setSelectedOp);
}

QString MainWindow::aboutHtml()
{
    constexpr int protobuf = GOOGLE_PROTOBUF_VERSION; // e.g. 3021012 for 3.21.12
    return tr("<b>tpuscope %1</b><p>A viewer for TPU (XLA) profiles: timeline, op breakdown, "
              "fusion details and utilization.</p>"
              "<p>Licence: GPL-3.0-or-later (the LICENSE file of the sources).</p>"
              "<p>Built with Qt %2 (running on Qt %3) and protobuf %4.%5.%6.</p>"
              "<p>Project: see README.md in the sources.</p>")
        .arg(QCoreApplication::applicationVersion(), QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()))
        .arg(protobuf / 1000000)
        .arg(protobuf / 1000 % 1000)
        .arg(protobuf % 1000);
}

void MainWindow::createActions()
{
    m_share = new ShareActions(
        m_session, m_opTable, this, [this](const QString& text) { statusBar()->showMessage(text, 8000); },
        [this](const QString& text) { showMessage(text); }, this);
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(
        style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open File…"), this, &MainWindow::chooseFile);
    open->setShortcut(QKeySequence::Open);
    file->addAction(
        style()->standardIcon(QStyle::SP_DirOpenIcon), tr("Open &Directory…"), this, &MainWindow::chooseDirectory);
    QAction* demo = file->addAction(tr("Open D&emo Profile"), this, [this] { openDemo(); });
    demo->setEnabled(hasDemo());
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open Share Text from &Clipboard"), this, &MainWindow::openShareTextFromClipboard);
    file->addSeparator();
    QMenu* share = file->addMenu(tr("&Share"));
    m_shareMenu = share;
    share->addAction(tr("Save Share &File…"), m_share, &ShareActions::saveShareFile);
    share->addAction(tr("Copy for &Forum…"), m_share, qOverload<>(&ShareActions::copyForForum));
    share->addAction(tr("Share &Card…"), m_share, qOverload<>(&ShareActions::saveShareCard));
    share->addSeparator();
    share->addAction(
        tr("Copy Op Table as &Markdown"), m_share, [this] { m_share->copyOpTable(model::TableFormat::Markdown); });
    share->addAction(tr("Copy Op Table as CS&V"), m_share, [this] { m_share->copyOpTable(model::TableFormat::Csv); });
    share->addAction(tr("Export Op Table &PNG…"), m_share, qOverload<>(&ShareActions::exportOpTablePng));
    share->setEnabled(false);
    m_compareAction = file->addAction(tr("Co&mpare with…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Compare With (after)"), {},
            tr("Profiles (*.pb *.pb.gz *.json *.json.gz *.trace *.gz *.tpuscope);;All files (*)"));
        if (!path.isEmpty())
            compareWith(path);
    });
    m_compareAction->setEnabled(false);
    file->addSeparator();
    m_closeAction = file->addAction(tr("&Close"), this, &MainWindow::closeProfile);
    m_closeAction->setShortcut(QKeySequence::Close);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->addAction(m_detailsDock->toggleViewAction());
    m_viewMenu->addAction(m_adviceDock->toggleViewAction());
    m_viewMenu->addAction(m_chartsDock->toggleViewAction());
    m_viewMenu->addMenu(m_deviceChooser->menu());
    m_viewMenu->addSeparator();
    m_resetZoomAction = m_viewMenu->addAction(tr("Reset &Zoom"), m_timeline, &widgets::TimelineView::resetZoom);
    m_resetZoomAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    m_viewMenu->addAction(tr("Zoom to &Busy Region"), this, [this] { zoomToBusyRegion(true); });
    m_viewMenu->addAction(tr("Reset &Layout"), this, [this] {
        if (!m_profileLayout.isEmpty()) {
            m_profileLayout = m_defaultState; // applied when a profile is shown
            m_defaultLayoutApplied = false;
            return;
        }
        restoreState(m_defaultState, kLayoutVersion);
        applyDefaultLayout();
    });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Glossary"), this, [this] { widgets::GlossaryDialog(this).exec(); });
    QAction* shortcuts
        = help->addAction(tr("&Keyboard Shortcuts"), this, [this] { widgets::ShortcutsDialog(this).exec(); });
    shortcuts->setShortcuts({QKeySequence(Qt::Key_F1), QKeySequence(Qt::Key_Question)});
    help->addAction(
        tr("&About tpuscope"), this, [this] { QMessageBox::about(this, tr("About tpuscope"), aboutHtml()); });

    QToolBar* toolBar = addToolBar(tr("Main"));
    toolBar->setObjectName(QStringLiteral("mainToolBar"));
    toolBar->setMovable(false);
    toolBar->addAction(open);
    toolBar->addSeparator();

    toolBar->addWidget(new QLabel(tr("Colour: "), toolBar));
    m_colorMode = new QComboBox(toolBar);
    m_colorMode->addItem(tr("HLO category"), static_cast<int>(widgets::TimelineView::ColorMode::Category));
    m_colorMode->addItem(tr("FLOPS utilization"), static_cast<int>(widgets::TimelineView::ColorMode::FlopsUtilization));
    m_colorMode->setToolTip(tr("How timeline events are coloured"));
    toolBar->addWidget(m_colorMode);
    connect(m_colorMode, &QComboBox::currentIndexChanged, this, [this](int) {
        m_timeline->setColorMode(static_cast<widgets::TimelineView::ColorMode>(m_colorMode->currentData().toInt()));
    });

    toolBar->addWidget(new QLabel(tr("  Low utilization below "), toolBar));
    m_threshold = new QSpinBox(toolBar);
    m_threshold->setRange(1, 100);
    m_threshold->setSuffix(QStringLiteral(" %"));
    m_threshold->setValue(25);
    m_threshold->setToolTip(tr("Low utilization below: fusions that take at least 1% of the time at a roofline "
                               "efficiency (attained FLOP/s over the roofline bound at their arithmetic intensity) "
                               "below this are "
                               "marked in the table and on the timeline"));
    toolBar->addWidget(m_threshold);
    connect(m_threshold, &QSpinBox::valueChanged, this,
        [this](int percent) { setLowUtilizationThreshold(percent / 100.0); });
    toolBar->addSeparator();

    m_search = new widgets::TimelineSearch(m_timeline, toolBar);
    toolBar->addWidget(m_search);
    toolBar->addAction(m_resetZoomAction);
}

void MainWindow::connectSession()
{
    m_deviceChooser->setSession(m_session);
    connect(m_deviceChooser, &widgets::DeviceChooser::deviceChosen, this, &MainWindow::rememberDevice);
    connect(m_session, &qt::TraceSession::loadStarted, this, [this](const QString& path) {
        m_startPage->showLoading(QFileInfo(path).fileName().isEmpty() ? path : QFileInfo(path).fileName());
        showStartPage();
        updateStatusBar();
    });
    connect(m_session, &qt::TraceSession::progress, m_startPage, &StartPage::setProgress);
    connect(m_session, &qt::TraceSession::loaded, this, &MainWindow::onLoaded);
    connect(m_session, &qt::TraceSession::previewReady, this, &MainWindow::onPreview);
    auto* cancelLoad = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(cancelLoad, &QShortcut::activated, this, [this] {
        if (m_session->isLoading())
            m_session->cancel();
    });
    connect(m_session, &qt::TraceSession::loadFailed, this, &MainWindow::onLoadFailed);
    connect(m_session, &qt::TraceSession::comparisonReady, this,
        [this](const std::shared_ptr<const model::ProfileDiff>&, const QString&, const QString& after) {
            m_compareDock->show();
            m_compareDock->raise();
            statusBar()->showMessage(tr("Compared with %1").arg(QFileInfo(after).fileName()), 8000);
            emit comparisonReady(true);
        });
    connect(m_session, &qt::TraceSession::comparisonFailed, this, [this](const QString&, const QString& message) {
        showMessage(tr("Cannot compare: %1").arg(message));
        emit comparisonReady(false);
    });
    connect(m_session, &qt::TraceSession::loadCanceled, this, &MainWindow::onLoadCanceled);

    connect(m_startPage, &StartPage::openFileRequested, this, &MainWindow::chooseFile);
    connect(m_startPage, &StartPage::openDirectoryRequested, this, &MainWindow::chooseDirectory);
    connect(m_startPage, &StartPage::openDemoRequested, this, [this] { openDemo(); });
    connect(m_startPage, &StartPage::openRecentRequested, this, &MainWindow::openFile);
    connect(m_startPage, &StartPage::cancelRequested, m_session, &qt::TraceSession::cancel);
}

void MainWindow::connectSelection()
{
    // The views follow the selection and the visible range themselves; what is left here moves
    // docks and tabs, or ties two views together.
    using widgets::TimelineView;
    connect(m_opTable, &widgets::OpTableView::opSelected, this, [this] {
        if (m_detailsDock->isVisible())
            m_detailsDock->raise();
    });
    connect(m_opTable, &widgets::OpTableView::opActivated, m_timeline, &TimelineView::zoomToFirstOccurrence);
    connect(
        m_selection, &qt::SelectionState::selectedEventChanged, m_details, &widgets::DetailsPanel::setTimelineEvent);
    connect(m_overview, &widgets::OverviewView::stepSelected, this, [this](model::TimePs begin, model::TimePs end) {
        m_mainTabs->setCurrentWidget(m_splitter);
        m_viewRange->setRange(begin - (end - begin) / 50, end + (end - begin) / 50);
    });
    connect(m_overview, &widgets::OverviewView::adviceActivated, this, [this](int index) {
        m_adviceDock->show();
        m_adviceDock->raise();
        m_advice->selectAdvice(index);
    });
    // Same time range and same x pixels: the chart's time axis starts where the timeline's events do.
    m_utilization->alignTimeAxisWith(m_timeline->viewport(), m_timeline->eventAreaLeft());
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
    useDeviceFor(QFileInfo(choice->path).absoluteFilePath());
    if (choice->run)
        m_session->openRun(*choice->run, choice->path);
    else
        m_session->open(choice->path);
}

void MainWindow::useDeviceFor(const QString& key)
{
    // The generation remembered for this file, else the command line's: never another file's.
    QString device = m_commandLineDevice;
    if (m_options.persistSettings)
        device = QSettings().value(QStringLiteral("devices/") + key, device).toString();
    model::LoadOptions options = m_session->loadOptions();
    options.deviceOverride = device.toStdString();
    m_session->setLoadOptions(options);
}

void MainWindow::rememberDevice(const QString& generation)
{
    if (!m_options.persistSettings)
        return;
    const QFileInfo info(m_session->path());
    const QString key = QStringLiteral("devices/") + (info.exists() ? info.absoluteFilePath() : m_session->path());
    if (generation.isEmpty())
        QSettings().remove(key);
    else
        QSettings().setValue(key, generation);
}

void MainWindow::openShareTextFromClipboard()
{
    std::string bytes, error;
    if (!model::shareFileFromText(QApplication::clipboard()->text().toStdString(), bytes, error)) {
        onLoadFailed(tr("clipboard"), QString::fromStdString(error));
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
        onLoadFailed(tr("demo profile"),
            tr("The demo profile is not part of this build (resources/demo.xplane.pb was missing when it "
               "was compiled). Open a profile file instead."));
        return false;
    }
    hideMessage();
    useDeviceFor(QStringLiteral("demo.xplane.pb"));
    m_session->openBytes(file.readAll(), QStringLiteral("demo.xplane.pb"));
    return true;
}

void MainWindow::setDeviceOverride(const QString& generation)
{
    m_commandLineDevice = generation;
    model::LoadOptions options = m_session->loadOptions();
    options.deviceOverride = generation.toStdString();
    m_session->setLoadOptions(options);
}

void MainWindow::showSessionProfile()
{
    // The views follow the session themselves; the window lands on the answer.
    if (m_session->profile()) {
        m_mainTabs->setCurrentWidget(m_overview);
        zoomToBusyRegion(false);
    }
}

void MainWindow::showTimelineTab()
{
    m_mainTabs->setCurrentWidget(m_splitter);
}

void MainWindow::zoomToBusyRegion(bool always)
{
    const model::ProfilePtr profile = m_session->profile();
    if (!profile)
        return;
    // When the device ran for only part of the capture (a serving trace, a long warm-up), the
    // timeline opens on the device activity instead of a span that is mostly empty.
    const auto [begin, end] = model::deviceActivityRange(*profile);
    const double span = static_cast<double>(profile->spanEnd - profile->spanBegin);
    if (end <= begin || (!always && static_cast<double>(end - begin) > 0.8 * span))
        return;
    const model::TimePs margin = (end - begin) / 50;
    m_viewRange->setRange(begin - margin, end + margin);
}

void MainWindow::onPreview(const model::ProfilePtr& partial)
{
    // Only the timeline can draw a partial profile honestly: totals, utilizations and advice
    // would be wrong until every event is read, so those views wait (empty) for loaded().
    m_previewShown = true;
    m_mainTabs->setCurrentWidget(m_splitter); // the overview needs the whole file
    showProfileView();
    showMessage(tr("Still reading %1: the timeline shows the %2 events read so far. The op table, charts and "
                   "advice appear when the whole file is read (Esc cancels).")
                    .arg(QFileInfo(QString::fromStdString(partial->load.path)).fileName(),
                        QLocale().toString(static_cast<qulonglong>(partial->eventCount()))));
}

void MainWindow::dropPreview()
{
    if (!std::exchange(m_previewShown, false))
        return;
    hideMessage();
    showSessionProfile();
}

void MainWindow::onLoaded()
{
    if (std::exchange(m_previewShown, false))
        hideMessage();
    const model::ProfilePtr profile = m_session->profile();
    showSessionProfile();
    m_search->setText({});
    showProfileView();
    if (!m_adviceDock->isHidden()) // nothing is selected yet: the advice, not an empty Details panel
        m_adviceDock->raise();
    m_startPage->showError({});
    const QFileInfo info(m_session->path());
    setWindowTitle(tr("%1 — tpuscope").arg(info.fileName().isEmpty() ? m_session->path() : info.fileName()));
    if (info.exists())
        addRecentFile(info.absoluteFilePath());
    updateStatusBar();
    if (!profile->hasTpuOps())
        showMessage(tr("This profile has no TPU ops (XLA Ops lines); the op table and TPU charts stay empty."));
}

void MainWindow::onLoadFailed(const QString& path, const QString& message)
{
    dropPreview();
    const QString name = QFileInfo(path).fileName().isEmpty() ? path : QFileInfo(path).fileName();
    const QString text = tr("Could not open %1.").arg(name) + QLatin1Char('\n') + message;
    if (m_session->profile()) {
        showProfileView();
        showMessage(text);
    } else {
        showStartPage();
        m_startPage->showError(text);
    }
    updateStatusBar();
    statusBar()->showMessage(tr("Loading failed"), 5000);
}

void MainWindow::onLoadCanceled()
{
    dropPreview();
    if (m_session->profile()) {
        showProfileView();
    } else {
        showStartPage();
        m_startPage->showOpen();
    }
    updateStatusBar();
    statusBar()->showMessage(tr("Loading cancelled"), 5000);
}

void MainWindow::closeProfile()
{
    m_session->close(); // the views and the selection follow closed()
    m_compareDock->hide();
    showStartPage();
    m_startPage->showOpen();
    setWindowTitle(tr("tpuscope"));
    updateStatusBar();
}

void MainWindow::showStartPage()
{
    m_stack->setCurrentWidget(m_startPage);
    // The docks only make sense next to a profile; they come back as the user left them.
    if (m_profileLayout.isEmpty()) {
        m_profileLayout = saveState(kLayoutVersion);
        for (QDockWidget* dock : {m_detailsDock, m_adviceDock, m_chartsDock})
            dock->hide();
    }
}

void MainWindow::showProfileView()
{
    m_stack->setCurrentWidget(m_profileView);
    if (!m_profileLayout.isEmpty()) {
        restoreState(m_profileLayout, kLayoutVersion);
        m_profileLayout.clear();
    }
    if (isVisible() && !m_layoutRestored && !m_defaultLayoutApplied)
        applyDefaultLayout();
}

void MainWindow::showMessage(const QString& text)
{
    m_messageLabel->setText(text);
    m_messageBar->show();
}

void MainWindow::hideMessage()
{
    m_messageLabel->clear();
    m_messageBar->hide();
}

QString MainWindow::messageText() const
{
    return m_messageBar->isHidden() ? QString() : m_messageLabel->text();
}

bool MainWindow::isShowingProfile() const
{
    return m_stack->currentWidget() == m_profileView;
}

void MainWindow::updateStatusBar()
{
    const model::ProfilePtr profile = m_session->profile();
    m_statusMetrics->update(isShowingProfile());
    m_closeAction->setEnabled(profile != nullptr);
    m_shareMenu->setEnabled(profile != nullptr && profile->hasTpuOps());
    m_compareAction->setEnabled(profile != nullptr && profile->hasTpuOps());
}

double MainWindow::lowUtilizationThreshold() const
{
    return m_threshold->value() / 100.0;
}

void MainWindow::setLowUtilizationThreshold(double fraction)
{
    fraction = std::clamp(fraction, 0.01, 1.0);
    const int percent = static_cast<int>(std::lround(fraction * 100));
    if (m_threshold->value() != percent) {
        const QSignalBlocker blocker(m_threshold);
        m_threshold->setValue(percent);
    }
    m_timeline->setLowUtilizationThreshold(fraction);
    m_opTable->setLowUtilizationThreshold(fraction);
    if (m_options.persistSettings)
        QSettings().setValue(QStringLiteral("lowUtilizationThreshold"), fraction);
}

void MainWindow::addRecentFile(const QString& path)
{
    m_recentFiles.removeAll(path);
    m_recentFiles.prepend(path);
    while (m_recentFiles.size() > kMaxRecentFiles)
        m_recentFiles.removeLast();
    if (m_options.persistSettings)
        QSettings().setValue(QStringLiteral("recentFiles"), m_recentFiles);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    for (const QString& path : std::as_const(m_recentFiles)) {
        QAction* action = m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); });
        action->setToolTip(path);
        action->setStatusTip(path);
    }
    m_recentMenu->addSeparator();
    QAction* clear = m_recentMenu->addAction(tr("Clear List"), this, [this] {
        m_recentFiles.clear();
        if (m_options.persistSettings)
            QSettings().remove(QStringLiteral("recentFiles"));
        updateRecentMenu();
    });
    clear->setEnabled(!m_recentFiles.isEmpty());
    m_recentMenu->setEnabled(!m_recentFiles.isEmpty());
    m_startPage->setRecentFiles(m_recentFiles);
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
    if (!m_options.persistSettings) {
        updateRecentMenu();
        resizeToScreen();
        return;
    }
    QSettings settings;
    // Every value is checked: a corrupt or foreign settings file must only cost the layout.
    const QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
    for (const QString& path : recent) {
        if (!path.isEmpty() && m_recentFiles.size() < kMaxRecentFiles && !m_recentFiles.contains(path))
            m_recentFiles.append(path);
    }
    updateRecentMenu();

    bool ok = false;
    const double threshold = settings.value(QStringLiteral("lowUtilizationThreshold")).toDouble(&ok);
    if (ok && std::isfinite(threshold) && threshold > 0 && threshold <= 1) {
        const QSignalBlocker blocker(m_threshold);
        m_threshold->setValue(static_cast<int>(std::lround(threshold * 100)));
    }
    m_timeline->setLowUtilizationThreshold(lowUtilizationThreshold());
    m_opTable->setLowUtilizationThreshold(lowUtilizationThreshold());

    const int colorMode = settings.value(QStringLiteral("timeline/colorMode"), 0).toInt(&ok);
    if (ok && colorMode >= 0 && colorMode < m_colorMode->count())
        m_colorMode->setCurrentIndex(colorMode);

    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray()))
        resizeToScreen();
    m_layoutRestored = restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray(), kLayoutVersion);
    if (!m_layoutRestored)
        restoreState(m_defaultState, kLayoutVersion);
    const bool splitterRestored
        = m_splitter->restoreState(settings.value(QStringLiteral("mainWindow/splitter")).toByteArray());
    m_layoutRestored = m_layoutRestored && splitterRestored;
    m_opTable->restoreState(settings.value(QStringLiteral("opTable/state")).toByteArray());
}

void MainWindow::resizeToScreen()
{
    const QScreen* screen = QGuiApplication::primaryScreen();
    const QSize available = screen ? screen->availableGeometry().size() : QSize(1600, 1000);
    resize(std::max(800, available.width() * 17 / 20), std::max(600, available.height() * 17 / 20));
}

void MainWindow::saveSettings()
{
    if (!m_options.persistSettings)
        return;
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(
        QStringLiteral("mainWindow/state"), m_profileLayout.isEmpty() ? saveState(kLayoutVersion) : m_profileLayout);
    settings.setValue(QStringLiteral("mainWindow/splitter"), m_splitter->saveState());
    settings.setValue(QStringLiteral("opTable/state"), m_opTable->saveState());
    settings.setValue(QStringLiteral("timeline/colorMode"), m_colorMode->currentIndex());
    settings.setValue(QStringLiteral("lowUtilizationThreshold"), lowUtilizationThreshold());
}

void MainWindow::applyDefaultLayout()
{
    // Proportions rather than pixels, so the first run looks right on any screen.
    const QSize area = size();
    resizeDocks({m_detailsDock}, {std::clamp(area.width() * 27 / 100, 300, 560)}, Qt::Horizontal);
    // Tall enough for the roofline to be read (it opened ~130 px tall at a quarter of the height).
    resizeDocks({m_chartsDock}, {std::clamp(area.height() * 2 / 5, 300, 440)}, Qt::Vertical);
    const int height = std::max(200, m_splitter->height());
    m_splitter->setSizes({height * 11 / 20, height * 9 / 20});
    m_defaultLayoutApplied = true;
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (isShowingProfile() && !m_layoutRestored && !m_defaultLayoutApplied)
        applyDefaultLayout();
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

QWidget* MainWindow::viewWidget(const QString& name) const
{
    if (name == QLatin1String("timeline"))
        return m_timelineArea;
    if (name == QLatin1String("ops"))
        return m_opTable;
    if (name == QLatin1String("details"))
        return m_details;
    if (name == QLatin1String("advice"))
        return m_advice;
    if (name == QLatin1String("overview"))
        return m_overview;
    if (name == QLatin1String("charts"))
        return m_charts;
    if (name == QLatin1String("utilization"))
        return m_utilization;
    if (name == QLatin1String("roofline"))
        return m_roofline;
    if (name == QLatin1String("compare"))
        return m_compare;
    if (name == QLatin1String("memory"))
        return m_charts->findChild<widgets::MemoryView*>();
    return nullptr;
}

} // namespace tpuscope::app
