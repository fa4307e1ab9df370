// SPDX-License-Identifier: GPL-3.0-or-later
#include "recentfiles.h"

#include "qt/qstrings.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace tpuscope::app {

namespace {
constexpr int kMaxRecentFiles = 10;
const QString kSettingsKey = QStringLiteral("recentFiles");
} // namespace

RecentFiles::RecentFiles(QMenu* menu, bool persist, QObject* parent)
    : QObject(parent)
    , m_menu(menu)
    , m_persist(persist)
{
}

void RecentFiles::restore()
{
    if (m_persist) {
        const QStringList saved = QSettings().value(kSettingsKey).toStringList();
        for (const QString& path : saved) {
            if (!path.isEmpty() && m_files.size() < kMaxRecentFiles && !m_files.contains(path))
                m_files.append(path);
        }
    }
    updateMenu();
}

void RecentFiles::add(const QString& path)
{
    m_files.removeAll(path);
    m_files.prepend(path);
    while (m_files.size() > kMaxRecentFiles)
        m_files.removeLast();
    if (m_persist)
        QSettings().setValue(kSettingsKey, m_files);
    updateMenu();
}

void RecentFiles::updateMenu()
{
    m_menu->clear();
    for (const QString& path : std::as_const(m_files)) {
        QAction* action
            = m_menu->addAction(QFileInfo(path).fileName(), this, [this, path] { emit openRequested(path); });
        action->setToolTip(qt::plainToolTip(path));
        action->setStatusTip(path);
    }
    m_menu->addSeparator();
    QAction* clear = m_menu->addAction(tr("Clear List"), this, [this] {
        m_files.clear();
        if (m_persist)
            QSettings().remove(kSettingsKey);
        updateMenu();
    });
    clear->setEnabled(!m_files.isEmpty());
    m_menu->setEnabled(!m_files.isEmpty());
    emit changed(m_files);
}

} // namespace tpuscope::app
