// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"

#include <QObject>

class QStackedWidget;
class QStatusBar;

namespace tpuscope::qt {
class TraceSession;
class ViewRange;
} // namespace tpuscope::qt

namespace tpuscope::app {

class ProfileView;
class StartPage;
class WindowLayout;

/// What the window shows while a load goes on and when it ends: the start page (progress, error)
/// or the profile view (a preview with its note, the loaded profile on its Overview tab zoomed
/// to the busy region, an error in the message bar over a profile still shown).
class LoadPresenter : public QObject
{
    Q_OBJECT
public:
    LoadPresenter(qt::TraceSession* session, QStackedWidget* stack, StartPage* startPage, ProfileView* profileView,
        WindowLayout* layout, qt::ViewRange* viewRange, QStatusBar* statusBar, QObject* parent);

    void showStartPage();
    void showProfileView();
    bool isShowingProfile() const;
    /// Shows why `path` could not be opened: over the profile still shown, else on the start page.
    void showLoadFailed(const QString& path, const QString& message);
    /// Shows the device activity in the timeline; unless `always`, only when it covers < 80 % of the span.
    void zoomToBusyRegion(bool always);

signals:
    /// The start page or the profile view came to the front, or a load ended: menus and status follow.
    void shownChanged();

private:
    void onLoaded();
    void onPreview(const model::ProfilePtr& partial);
    void onLoadCanceled();
    /// After the session's (whole) profile reached the views: the overview tab, the busy region.
    void showSessionProfile();
    /// A preview of a load that failed or was cancelled gives way to what the session shows.
    void dropPreview();
    /// The shown profile's warnings (model::profileWarnings) in the message bar, or no bar.
    void showProfileWarnings();

    qt::TraceSession* m_session;
    QStackedWidget* m_stack;
    StartPage* m_startPage;
    ProfileView* m_profileView;
    WindowLayout* m_layout;
    qt::ViewRange* m_viewRange;
    QStatusBar* m_statusBar;
    bool m_previewShown = false;
};

} // namespace tpuscope::app
