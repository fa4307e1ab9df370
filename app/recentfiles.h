// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace tpuscope::app {

/// File → Open Recent: the list of the last opened files, kept in QSettings (unless `persist` is
/// off, for screenshots and tests), shown in `menu` and announced to the start page.
class RecentFiles : public QObject
{
    Q_OBJECT
public:
    RecentFiles(QMenu* menu, bool persist, QObject* parent = nullptr);

    /// Reads the saved list (checking every entry: a foreign settings file only costs the list).
    void restore();
    /// Puts `path` first (once), keeping at most ten.
    void add(const QString& path);
    const QStringList& files() const { return m_files; }

signals:
    void openRequested(const QString& path);
    void changed(const QStringList& files);

private:
    void updateMenu();

    QMenu* m_menu;
    bool m_persist;
    QStringList m_files;
};

} // namespace tpuscope::app
