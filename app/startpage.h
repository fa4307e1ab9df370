// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>
#include <QWidget>

class QLabel;
class QListWidget;
class QListWidgetItem;
class QProgressBar;
class QPushButton;
class QStackedWidget;

namespace tpuscope::app {

/// What the window shows without a profile: open buttons, recent files and the last error inline,
/// and, while a file loads, its progress with a Cancel button (hotspot's StartPage).
class StartPage : public QWidget
{
    Q_OBJECT
public:
    explicit StartPage(QWidget* parent = nullptr);

    void setRecentFiles(const QStringList& paths);
    void setDemoAvailable(bool available);

    /// Switches to the progress view; the bar is a busy indicator until the first progress value.
    void showLoading(const QString& name);
    /// `fraction` in 0..1; negative keeps the busy indicator.
    void setProgress(const QString& phase, double fraction);
    /// Back to the open view with an inline error (empty clears it).
    void showError(const QString& message);
    void showOpen();

    bool isLoading() const;
    QString errorText() const;
    bool isErrorVisible() const;

signals:
    void openFileRequested();
    void openDirectoryRequested();
    void openDemoRequested();
    void openRecentRequested(const QString& path);
    void cancelRequested();

private:
    QStackedWidget* m_stack = nullptr;
    QWidget* m_openPage = nullptr;
    QWidget* m_loadingPage = nullptr;
    QPushButton* m_demoButton = nullptr;
    QWidget* m_errorBox = nullptr;
    QLabel* m_error = nullptr;
    QLabel* m_recentTitle = nullptr;
    QListWidget* m_recent = nullptr;
    QLabel* m_loadingTitle = nullptr;
    QLabel* m_phase = nullptr;
    QProgressBar* m_progress = nullptr;
};

} // namespace tpuscope::app
