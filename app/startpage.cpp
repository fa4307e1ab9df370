// SPDX-License-Identifier: GPL-3.0-or-later
#include "startpage.h"

#include "qt/qstrings.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>

namespace tpuscope::app {

namespace {
constexpr int kProgressScale = 1000; // for fractional percentages (heaptrack)

QWidget* centered(QWidget* content, QWidget* parent)
{
    auto* outer = new QWidget(parent);
    auto* layout = new QHBoxLayout(outer);
    layout->addStretch(1);
    layout->addWidget(content, 3);
    layout->addStretch(1);
    return outer;
}
} // namespace

StartPage::StartPage(QWidget* parent)
    : QWidget(parent)
{
    setAutoFillBackground(true);
    m_stack = new QStackedWidget(this);

    // Open view.
    auto* open = new QWidget;
    open->setMaximumWidth(720);
    auto* title = new QLabel(tr("tpuscope"), open);
    QFont titleFont = title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 2.2);
    titleFont.setBold(true);
    title->setFont(titleFont);
    auto* subtitle = new QLabel(tr("Open a TPU profile: an XSpace (<tt>.xplane.pb</tt>), a Chrome trace "
                                   "(<tt>.trace.json.gz</tt>), an <tt>op_profile.json</tt> or a TensorBoard log "
                                   "directory. You can also drop a file on this window."),
        open);
    subtitle->setWordWrap(true);
    subtitle->setTextFormat(Qt::RichText);

    auto* openFile = new QPushButton(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Open File…"), open);
    auto* openDir = new QPushButton(style()->standardIcon(QStyle::SP_DirOpenIcon), tr("Open Directory…"), open);
    m_demoButton = new QPushButton(tr("Open Demo Profile"), open);
    openFile->setDefault(true);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(openFile);
    buttons->addWidget(openDir);
    buttons->addWidget(m_demoButton);
    buttons->addStretch(1);

    m_errorBox = new QWidget(open);
    m_errorBox->setObjectName(QStringLiteral("startPageError"));
    auto* errorLayout = new QHBoxLayout(m_errorBox);
    auto* errorIcon = new QLabel(m_errorBox);
    const int iconSize = style()->pixelMetric(QStyle::PM_MessageBoxIconSize);
    errorIcon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxCritical).pixmap(iconSize, iconSize));
    errorIcon->setAlignment(Qt::AlignTop);
    m_error = new QLabel(m_errorBox);
    m_error->setWordWrap(true);
    m_error->setTextFormat(Qt::PlainText);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    errorLayout->addWidget(errorIcon);
    errorLayout->addWidget(m_error, 1);
    m_errorBox->setStyleSheet(
        QStringLiteral("#startPageError { border: 1px solid palette(mid); border-radius: 4px; }"));
    m_errorBox->hide();

    m_recentTitle = new QLabel(tr("<b>Recent files</b>"), open);
    m_recent = new QListWidget(open);
    m_recent->setUniformItemSizes(true);
    m_recent->setTextElideMode(Qt::ElideMiddle);

    auto* openLayout = new QVBoxLayout(open);
    openLayout->addStretch(1);
    openLayout->addWidget(title);
    openLayout->addWidget(subtitle);
    openLayout->addSpacing(8);
    openLayout->addLayout(buttons);
    openLayout->addSpacing(8);
    openLayout->addWidget(m_errorBox);
    openLayout->addSpacing(8);
    openLayout->addWidget(m_recentTitle);
    openLayout->addWidget(m_recent, 2);
    openLayout->addStretch(1);
    m_openPage = centered(open, m_stack);

    // Loading view.
    auto* loading = new QWidget;
    m_loadingTitle = new QLabel(loading);
    m_loadingTitle->setTextFormat(Qt::PlainText);
    QFont loadingFont = m_loadingTitle->font();
    loadingFont.setPointSizeF(loadingFont.pointSizeF() * 1.3);
    m_loadingTitle->setFont(loadingFont);
    m_loadingTitle->setWordWrap(true);
    m_phase = new QLabel(loading);
    m_phase->setTextFormat(Qt::PlainText);
    m_progress = new QProgressBar(loading);
    m_progress->setTextVisible(true);
    auto* cancel = new QPushButton(tr("Cancel"), loading);
    auto* cancelRow = new QHBoxLayout;
    cancelRow->addStretch(1);
    cancelRow->addWidget(cancel);
    auto* loadingLayout = new QVBoxLayout(loading);
    loadingLayout->addStretch(1);
    loadingLayout->addWidget(m_loadingTitle);
    loadingLayout->addWidget(m_phase);
    loadingLayout->addWidget(m_progress);
    loadingLayout->addLayout(cancelRow);
    loadingLayout->addStretch(1);
    m_loadingPage = centered(loading, m_stack);

    m_stack->addWidget(m_openPage);
    m_stack->addWidget(m_loadingPage);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);

    connect(openFile, &QPushButton::clicked, this, &StartPage::openFileRequested);
    connect(openDir, &QPushButton::clicked, this, &StartPage::openDirectoryRequested);
    connect(m_demoButton, &QPushButton::clicked, this, &StartPage::openDemoRequested);
    connect(cancel, &QPushButton::clicked, this, &StartPage::cancelRequested);
    connect(m_recent, &QListWidget::itemActivated, this,
        [this](QListWidgetItem* item) { emit openRecentRequested(item->data(Qt::UserRole).toString()); });
    setRecentFiles({});
}

void StartPage::setRecentFiles(const QStringList& paths)
{
    m_recent->clear();
    for (const QString& path : paths) {
        const QFileInfo info(path);
        auto* item = new QListWidgetItem(info.fileName() + QStringLiteral("  —  ") + info.absolutePath(), m_recent);
        item->setData(Qt::UserRole, path);
        item->setToolTip(qt::plainToolTip(path));
    }
    m_recentTitle->setVisible(!paths.isEmpty());
    m_recent->setVisible(!paths.isEmpty());
}

void StartPage::setDemoAvailable(bool available)
{
    m_demoButton->setEnabled(available);
    m_demoButton->setToolTip(available ? tr("A small generated TPU profile bundled with tpuscope")
                                       : tr("The demo profile is not part of this build"));
}

void StartPage::showLoading(const QString& name)
{
    m_loadingTitle->setText(tr("Loading %1").arg(name));
    m_phase->setText(tr("Starting…"));
    m_progress->setRange(0, 0); // busy until the loader reports
    m_stack->setCurrentWidget(m_loadingPage);
}

void StartPage::setProgress(const QString& phase, double fraction)
{
    if (!phase.isEmpty())
        m_phase->setText(phase);
    if (fraction < 0)
        return;
    if (m_progress->maximum() != kProgressScale)
        m_progress->setRange(0, kProgressScale);
    m_progress->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kProgressScale));
}

void StartPage::showError(const QString& message)
{
    m_error->setText(message);
    m_errorBox->setVisible(!message.isEmpty());
    m_stack->setCurrentWidget(m_openPage);
}

void StartPage::showOpen()
{
    m_stack->setCurrentWidget(m_openPage);
}

bool StartPage::isLoading() const
{
    return m_stack->currentWidget() == m_loadingPage;
}

QString StartPage::errorText() const
{
    return m_errorBox->isHidden() ? QString() : m_error->text();
}

bool StartPage::isErrorVisible() const
{
    return m_errorBox->isVisible();
}

} // namespace tpuscope::app
