// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"

#include <QMainWindow>
#include <QStringList>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QImage;
class QMenu;
class QSpinBox;
class QSplitter;
class QStackedWidget;
class QTabWidget;

namespace tpuscope::qt {
class SelectionState;
class TraceSession;
class ViewRange;
} // namespace tpuscope::qt

namespace tpuscope::widgets {
class AdvicePanel;
class OverviewView;
class DetailsPanel;
class OpTableView;
class CompareView;
class DeviceChooser;
class RooflineChart;
class TimelineSearch;
class TimelineView;
class UtilizationChart;
} // namespace tpuscope::widgets

namespace tpuscope::app {

class ShareActions;
class StartPage;
class StatusMetrics;

/// The main window: docks, menus and the wiring between the session, the shared selection and
/// the views. It owns no analysis and paints nothing itself.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    struct Options
    {
        /// Read and write layout, recent files and settings in QSettings. Screenshots turn this off
        /// so that they do not depend on (or change) the user's layout.
        bool persistSettings = true;
        /// Ask which run to open when a log directory holds several (off for screenshots and
        /// tests, which take the newest).
        bool askForRun = true;
    };

    explicit MainWindow(Options options, QWidget* parent = nullptr);
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void openFile(const QString& path);

    /// Loads `path` off the GUI thread and shows what changed from the open profile (before) to it
    /// (after) in the Compare dock; comparisonReady(ok) tells when it is done.
    void compareWith(const QString& path);
    widgets::CompareView* compareView() const { return m_compare; }

    /// File → Share (share file, forum post, card, op table exports).
    ShareActions* shareActions() const { return m_share; }
    void openShareTextFromClipboard();

signals:
    void comparisonReady(bool ok);

public:
    /// Opens the profile bundled as the resource ":/demo.xplane.pb"; false (with a visible message)
    /// when this build has none.
    bool openDemo();
    static bool hasDemo();
    /// Help → About: version, licence, the Qt and protobuf versions and where the project is described.
    static QString aboutHtml();
    void setDeviceOverride(const QString& generation);
    widgets::DeviceChooser* deviceChooser() const { return m_deviceChooser; }

    qt::TraceSession* session() const { return m_session; }
    qt::SelectionState* selection() const { return m_selection; }
    StartPage* startPage() const { return m_startPage; }
    widgets::OpTableView* opTable() const { return m_opTable; }
    widgets::TimelineView* timeline() const { return m_timeline; }
    /// Brings the Timeline tab to the front (a load lands on the Overview tab).
    void showTimelineTab();
    widgets::DetailsPanel* detailsPanel() const { return m_details; }
    /// The widgets --screenshot can render: "timeline", "ops", "details", "advice", "charts",
    /// "utilization", "roofline"; null for unknown names or views missing from this build.
    QWidget* viewWidget(const QString& name) const;
    /// Whether the profile view (not the start page) is showing.
    bool isShowingProfile() const;
    /// Text of the message bar over the profile view; empty when hidden.
    QString messageText() const;

    double lowUtilizationThreshold() const;
    void setLowUtilizationThreshold(double fraction);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createWidgets();
    void createActions();
    void createDocks();
    void connectSelection();
    void connectSession();
    void restoreSettings();
    void saveSettings();
    void applyDefaultLayout();
    void resizeToScreen();
    void showStartPage();
    void showProfileView();

    void onLoaded();
    void onPreview(const model::ProfilePtr& partial);
    /// After the session's (whole) profile reached the views: the overview tab, the busy region.
    void showSessionProfile();
    /// Shows the device activity in the timeline; unless `always`, only when it covers < 80 % of the span.
    void zoomToBusyRegion(bool always);
    /// A preview of a load that failed or was cancelled gives way to what the session shows.
    void dropPreview();
    void onLoadFailed(const QString& path, const QString& message);
    void onLoadCanceled();
    void showMessage(const QString& text);
    void hideMessage();
    void updateStatusBar();
    void addRecentFile(const QString& path);
    void updateRecentMenu();
    void closeProfile();
    void chooseFile();
    void chooseDirectory();
    /// Load options for the next load of `key` (a file path): its remembered TPU generation.
    void useDeviceFor(const QString& key);
    void rememberDevice(const QString& generation);

    Options m_options;
    qt::TraceSession* m_session = nullptr;
    qt::SelectionState* m_selection = nullptr;
    qt::ViewRange* m_viewRange = nullptr;

    QStackedWidget* m_stack = nullptr;
    StartPage* m_startPage = nullptr;
    QWidget* m_profileView = nullptr;
    QWidget* m_messageBar = nullptr;
    QLabel* m_messageLabel = nullptr;
    QSplitter* m_splitter = nullptr;
    QTabWidget* m_mainTabs = nullptr; // Overview (the landing tab) and Timeline
    widgets::OverviewView* m_overview = nullptr;
    QWidget* m_timelineArea = nullptr;
    widgets::TimelineView* m_timeline = nullptr;
    widgets::TimelineSearch* m_search = nullptr;
    widgets::OpTableView* m_opTable = nullptr;
    QMenu* m_shareMenu = nullptr;
    ShareActions* m_share = nullptr;
    QAction* m_compareAction = nullptr;
    widgets::CompareView* m_compare = nullptr;
    QDockWidget* m_compareDock = nullptr;
    widgets::DetailsPanel* m_details = nullptr;
    widgets::AdvicePanel* m_advice = nullptr;
    QTabWidget* m_charts = nullptr;
    widgets::UtilizationChart* m_utilization = nullptr;
    widgets::RooflineChart* m_roofline = nullptr;
    QDockWidget* m_detailsDock = nullptr;
    QDockWidget* m_adviceDock = nullptr;
    QDockWidget* m_chartsDock = nullptr;

    QComboBox* m_colorMode = nullptr;
    QSpinBox* m_threshold = nullptr;
    widgets::DeviceChooser* m_deviceChooser = nullptr;
    QString m_commandLineDevice;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QAction* m_closeAction = nullptr;
    QAction* m_resetZoomAction = nullptr;
    StatusMetrics* m_statusMetrics = nullptr;

    QStringList m_recentFiles;
    QByteArray m_defaultState;
    bool m_layoutRestored = false;
    bool m_defaultLayoutApplied = false;
    QByteArray m_profileLayout; // dock layout while the start page hides the docks
    bool m_previewShown = false;
};

} // namespace tpuscope::app
