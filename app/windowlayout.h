// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>

class QDockWidget;
class QMainWindow;
class QSplitter;

namespace tpuscope::app {

/// The main window's geometry and dock layout: the default layout, the user's layout saved in
/// QSettings (unless `persist` is off), and the docks hidden beside the start page and brought
/// back as the user left them when a profile is shown.
///
/// The default gives the timeline most of the window, as Perfetto and Nsight Systems do: a narrow
/// side dock, the bottom dock (charts) only where the window is tall enough to keep the timeline
/// and the op table readable (closed, not squeezed, below that: View → Charts brings it back and
/// the saved layout remembers it), and the op table as tall as its preferred rows.
class WindowLayout : public QObject
{
    Q_OBJECT
public:
    /// `profileDocks` only make sense next to a profile; `sideDock` and `bottomDock` get the
    /// default sizes. Call after the docks and toolbars exist: the layout then is the default one.
    WindowLayout(QMainWindow* window, QSplitter* splitter, QList<QDockWidget*> profileDocks, QDockWidget* sideDock,
        QDockWidget* bottomDock, bool persist);

    /// Geometry, dock layout and splitter from the settings, else a size for the screen.
    void restore();
    void save() const;
    /// The start page shows: remember the layout and hide the profile docks.
    void showStartPage();
    /// The profile view shows: the docks as they were, or the default layout the first time.
    void showProfileView();
    /// The window was shown; `showingProfile` tells whether the profile view is on screen.
    void windowShown(bool showingProfile);
    /// View → Reset Layout.
    void reset();

private:
    void applyDefault();
    /// Splits the Timeline tab between the timeline and the table below it once the splitter
    /// has its real height (it has none while another tab is on top).
    void splitWhenSized();
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeToScreen();

    QMainWindow* m_window;
    QSplitter* m_splitter;
    QList<QDockWidget*> m_profileDocks;
    QDockWidget* m_sideDock;
    QDockWidget* m_bottomDock;
    bool m_persist;
    QByteArray m_defaultState;
    bool m_restored = false;
    bool m_defaultApplied = false;
    bool m_splitPending = false;
    QByteArray m_profileLayout; // dock layout while the start page hides the docks
};

} // namespace tpuscope::app
