// SPDX-License-Identifier: GPL-3.0-or-later
#include "windowlayout.h"

#include <QDockWidget>
#include <QEvent>
#include <QGuiApplication>
#include <QMainWindow>
#include <QScreen>
#include <QSettings>
#include <QSplitter>

#include <algorithm>

namespace tpuscope::app {

namespace {
constexpr int kLayoutVersion = 3; // bump when docks change, so old saved layouts are ignored
/// Below this window height a bottom dock would leave the timeline a row or two (issue 25.2):
/// the charts start closed instead.
constexpr int kMinimumHeightForBottomDock = 900;
} // namespace

WindowLayout::WindowLayout(QMainWindow* window, QSplitter* splitter, QList<QDockWidget*> profileDocks,
    QDockWidget* sideDock, QDockWidget* bottomDock, bool persist)
    : QObject(window)
    , m_window(window)
    , m_splitter(splitter)
    , m_profileDocks(std::move(profileDocks))
    , m_sideDock(sideDock)
    , m_bottomDock(bottomDock)
    , m_persist(persist)
    , m_defaultState(window->saveState(kLayoutVersion))
{
    m_splitter->installEventFilter(this);
}

void WindowLayout::restore()
{
    if (!m_persist) {
        resizeToScreen();
        return;
    }
    // Every value is checked: a corrupt or foreign settings file must only cost the layout.
    QSettings settings;
    if (!m_window->restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray()))
        resizeToScreen();
    m_restored
        = m_window->restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray(), kLayoutVersion);
    if (!m_restored)
        m_window->restoreState(m_defaultState, kLayoutVersion);
    const bool splitterRestored
        = m_splitter->restoreState(settings.value(QStringLiteral("mainWindow/splitter")).toByteArray());
    m_restored = m_restored && splitterRestored;
}

void WindowLayout::save() const
{
    if (!m_persist)
        return;
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), m_window->saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"),
        m_profileLayout.isEmpty() ? m_window->saveState(kLayoutVersion) : m_profileLayout);
    settings.setValue(QStringLiteral("mainWindow/splitter"), m_splitter->saveState());
}

void WindowLayout::showStartPage()
{
    // The docks only make sense next to a profile; they come back as the user left them.
    if (m_profileLayout.isEmpty()) {
        m_profileLayout = m_window->saveState(kLayoutVersion);
        for (QDockWidget* dock : std::as_const(m_profileDocks))
            dock->hide();
    }
}

void WindowLayout::showProfileView()
{
    if (!m_profileLayout.isEmpty()) {
        m_window->restoreState(m_profileLayout, kLayoutVersion);
        m_profileLayout.clear();
    }
    if (m_window->isVisible() && !m_restored && !m_defaultApplied)
        applyDefault();
}

void WindowLayout::windowShown(bool showingProfile)
{
    if (showingProfile && !m_restored && !m_defaultApplied)
        applyDefault();
}

void WindowLayout::reset()
{
    if (!m_profileLayout.isEmpty()) {
        m_profileLayout = m_defaultState; // applied when a profile is shown
        m_defaultApplied = false;
        return;
    }
    m_window->restoreState(m_defaultState, kLayoutVersion);
    applyDefault();
}

void WindowLayout::applyDefault()
{
    // Proportions rather than pixels, so the first run looks right on any screen; the side dock
    // stays narrow so that the timeline and the op table's columns keep the width.
    const QSize area = m_window->size();
    m_window->resizeDocks({m_sideDock}, {std::clamp(area.width() * 22 / 100, 260, 440)}, Qt::Horizontal);
    if (area.height() >= kMinimumHeightForBottomDock) {
        m_bottomDock->show();
        m_window->resizeDocks({m_bottomDock}, {std::clamp(area.height() * 24 / 100, 220, 320)}, Qt::Vertical);
    } else {
        // Every dock of the bottom area (the Selection dock is tabbed with the charts): hiding only
        // the charts would hand their height to the Selection table.
        for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
            if (m_window->dockWidgetArea(dock) == Qt::BottomDockWidgetArea)
                dock->hide();
    }
    m_defaultApplied = true;
    m_splitPending = true;
    splitWhenSized();
}

void WindowLayout::splitWhenSized()
{
    if (!m_splitPending || !m_splitter->isVisible() || m_splitter->count() < 2)
        return;
    const int height = m_splitter->height();
    const int handle = m_splitter->handleWidth();
    // The table keeps its preferred rows, the timeline everything else (and at least half).
    const int table = std::min(m_splitter->widget(1)->sizeHint().height(), (height - handle) / 2);
    m_splitter->setSizes({height - handle - table, table});
    m_splitPending = false;
}

bool WindowLayout::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_splitter && (event->type() == QEvent::Resize || event->type() == QEvent::Show))
        splitWhenSized();
    return QObject::eventFilter(watched, event);
}

void WindowLayout::resizeToScreen()
{
    const QScreen* screen = QGuiApplication::primaryScreen();
    const QSize available = screen ? screen->availableGeometry().size() : QSize(1600, 1000);
    m_window->resize(std::max(800, available.width() * 17 / 20), std::max(600, available.height() * 17 / 20));
}

} // namespace tpuscope::app
