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
    /// Close, Share and Compare need a profile; Share and Compare one with TPU ops.
    void setProfileShown(bool shown, bool hasTpuOps);

    QAction* openFile = nullptr;
    QAction* openDirectory = nullptr;
    QAction* openDemo = nullptr;
    QAction* openClipboard = nullptr;
    QMenu* recentMenu = nullptr;
    QAction* close = nullptr;
    QAction* resetZoom = nullptr;
    QAction* zoomToBusyRegion = nullptr;
    QAction* resetLayout = nullptr;
    QAction* keyboardShortcuts = nullptr; // Help → Keyboard Shortcuts (F1, ?)

signals:
    /// File → Compare with…: the user chose the file to compare the shown profile with (after).
    void compareRequested(const QString& path);

private:
    QMenu* m_shareMenu = nullptr;
    QAction* m_compare = nullptr;
};

} // namespace tpuscope::app
