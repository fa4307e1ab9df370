// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"

#include <QList>
#include <QMainWindow>
#include <QStringList>

class QSplitter;
class QStackedWidget;

namespace tpuscope::qt {
class SelectionState;
class TraceSession;
class ViewRange;
} // namespace tpuscope::qt

namespace tpuscope::widgets {
class OverviewView;
class DetailsPanel;
class OpTableView;
class CompareView;
class DeviceChooser;
class TimelineView;
struct ShortcutEntry;
} // namespace tpuscope::widgets

namespace tpuscope::app {

class DeviceMemory;
class LoadPresenter;
class MainMenus;
class MainToolBar;
class MessageBar;
class ProfileDocks;
class ProfileView;
class RecentFiles;
class ShareActions;
class StartPage;
class StatusMetrics;
class WindowLayout;
class WindowShortcuts;

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
    widgets::CompareView* compareView() const;

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
    /// View → Dark Mode (checkable; toggling it applies and remembers the scheme).
    QAction* darkModeAction() const;

    qt::TraceSession* session() const { return m_session; }
    qt::SelectionState* selection() const { return m_selection; }
    StartPage* startPage() const { return m_startPage; }
    widgets::OpTableView* opTable() const { return m_opTable; }
    widgets::TimelineView* timeline() const { return m_timeline; }
    /// Help → Keyboard Shortcuts: every key and gesture of the window (WindowShortcuts::entries).
    QList<widgets::ShortcutEntry> shortcutEntries() const;
    /// Brings the Timeline tab to the front (a load lands on the Overview tab).
    void showTimelineTab();
    widgets::DetailsPanel* detailsPanel() const;
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
    void connectSelection();
    void connectSession();
    /// The window's own settings (threshold, colour mode, op table columns); the layout and the
    /// recent files keep theirs.
    void restoreSettings();
    void saveSettings();
    /// After the presenter showed a loaded profile: title, recent files, search, menus.
    void onLoaded();
    void showMessage(const QString& text);
    void hideMessage();
    void updateStatusBar();
    void closeProfile();
    void chooseFile();
    void chooseDirectory();

    Options m_options;
    qt::TraceSession* m_session = nullptr;
    qt::SelectionState* m_selection = nullptr;
    qt::ViewRange* m_viewRange = nullptr;
    DeviceMemory* m_devices = nullptr;

    QStackedWidget* m_stack = nullptr;
    StartPage* m_startPage = nullptr;
    ProfileView* m_profileView = nullptr; // the views below are its parts
    MessageBar* m_messageBar = nullptr;
    QSplitter* m_splitter = nullptr;
    widgets::OverviewView* m_overview = nullptr;
    QWidget* m_timelineArea = nullptr;
    widgets::TimelineView* m_timeline = nullptr;
    widgets::OpTableView* m_opTable = nullptr;
    ShareActions* m_share = nullptr;
    MainMenus* m_menus = nullptr;
    WindowShortcuts* m_shortcuts = nullptr;
    RecentFiles* m_recentFiles = nullptr;
    WindowLayout* m_layout = nullptr;
    LoadPresenter* m_presenter = nullptr;
    ProfileDocks* m_docks = nullptr;

    MainToolBar* m_toolBar = nullptr;
    widgets::DeviceChooser* m_deviceChooser = nullptr;
    StatusMetrics* m_statusMetrics = nullptr;
};

} // namespace tpuscope::app
