// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QObject>

class QAction;
class QMainWindow;
class QMenu;

namespace tpuscope::app {

class ShareActions;

/// The File, View and Help menus of a main window. The Help menu is complete here (its dialogs
/// need only the window); the other actions are exposed for the window to connect.
class MainMenus : public QObject
{
    Q_OBJECT
public:
    /// `dockToggles` go first in View, then `deviceMenu` (the TPU generation).
    MainMenus(QMainWindow* window, ShareActions* share, const QList<QAction*>& dockToggles, QMenu* deviceMenu);

    /// Help → About: version, licence, the Qt and protobuf versions and where the project is described.
    static QString aboutHtml();
    /// Close, Share and Compare need a profile; Share and Compare one with TPU ops. `fileName`
    /// names the open profile in the Compare dialog.
    void setProfileShown(bool shown, bool hasTpuOps, const QString& fileName = {});
    /// The Compare dialog's title: the open profile is "before", the chosen file "after".
    static QString compareDialogTitle(const QString& shownFile);

    QAction* openFile = nullptr;
    QAction* openDirectory = nullptr;
    QAction* openDemo = nullptr;
    QAction* openClipboard = nullptr;
    QMenu* recentMenu = nullptr;
    QAction* close = nullptr;
    QAction* resetZoom = nullptr;
    QAction* zoomToBusyRegion = nullptr;
    QAction* resetLayout = nullptr;
    QAction* darkMode = nullptr; // View → Dark Mode: checkable, the window applies and remembers it
    QAction* keyboardShortcuts = nullptr; // Help → Keyboard Shortcuts (F1, ?)
    QMenu* redactionMenu = nullptr; // File → Share → Redaction: the setting every export uses

signals:
    /// File → Compare with…: the user chose the file to compare the shown profile with (after).
    void compareRequested(const QString& path);

private:
    void addRedactionMenu(ShareActions* share);

    QMenu* m_shareMenu = nullptr;
    QAction* m_compare = nullptr;
    QAction* m_compareDirectory = nullptr; // the same with a log dir
    QString m_shownFile;
};

} // namespace tpuscope::app
