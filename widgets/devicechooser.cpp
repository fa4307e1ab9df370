// SPDX-License-Identifier: GPL-3.0-or-later
#include "devicechooser.h"
#include "qt/qstrings.h"

#include "analysis/deviceconsistency.h"
#include "analysis/profileanalysis.h"
#include "core/devicepeaks.h"
#include "qt/tracesession.h"
#include "report/report.h"

#include <algorithm>

#include <QActionGroup>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyle>

namespace tpuscope::widgets {

namespace {

using tpuscope::qt::qs;

} // namespace

DeviceChooser::DeviceChooser(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("deviceBar"));
    setAutoFillBackground(true);
    QPalette palette = this->palette();
    const bool dark = palette.color(QPalette::Window).lightness() < 128;
    // An information colour, not the error bar's: nothing failed, a fact is missing.
    palette.setColor(QPalette::Window, dark ? QColor(35, 60, 95) : QColor(222, 235, 250));
    palette.setColor(QPalette::WindowText, dark ? QColor(225, 235, 250) : QColor(15, 40, 80));
    setPalette(palette);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    auto* icon = new QLabel(this);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxInformation).pixmap(16, 16));
    m_label = new QLabel(this);
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::PlainText);
    layout->addWidget(icon);
    layout->addWidget(m_label, 1);
    m_buttons = new QHBoxLayout;
    layout->addLayout(m_buttons);
    // The core count, where the file does not record it: what every per-core figure divides by.
    m_cores = new QSpinBox(this);
    m_cores->setRange(1, 1 << 16);
    m_cores->setPrefix(tr("Cores: "));
    m_cores->setToolTip(tr("How many TPU cores ran the program: per-core figures divide the file's totals by it"));
    m_applyCores = new QPushButton(tr("Apply"), this);
    layout->addWidget(m_cores);
    layout->addWidget(m_applyCores);
    connect(m_applyCores, &QPushButton::clicked, this, [this] {
        if (m_session)
            m_session->chooseCores(m_cores->value());
    });
    auto* other = new QPushButton(tr("Other…"), this);
    other->setToolTip(tr("Choose any TPU generation"));
    layout->addWidget(other);

    m_menu = new QMenu(tr("TPU &Device"), this);
    m_menu->setToolTipsVisible(true);
    m_group = new QActionGroup(this);
    m_group->setExclusive(true);
    QAction* file = m_menu->addAction(tr("As Recorded in the File"));
    file->setCheckable(true);
    file->setData(QString());
    file->setToolTip(tr("Use the peaks the profile records (plane stats, device type), if any"));
    m_group->addAction(file);
    m_menu->addSeparator();
    for (const model::TpuGeneration& g : model::tpuGenerations()) {
        QAction* action = m_menu->addAction(tr("%1 (%2 TFLOP/s, %3 GB/s per core)")
                                                .arg(QString::fromLatin1(g.displayName))
                                                .arg(g.peakTflopsPerCore)
                                                .arg(g.peakHbmGbpsPerCore));
        action->setCheckable(true);
        action->setData(QString::fromLatin1(g.key));
        action->setToolTip(QString::fromUtf8(g.note));
        m_group->addAction(action);
    }
    connect(m_group, &QActionGroup::triggered, this, [this](QAction* a) { choose(a->data().toString()); });
    connect(other, &QPushButton::clicked, this,
        [this, other] { m_menu->popup(other->mapToGlobal(QPoint(0, other->height()))); });
    hide();
}

void DeviceChooser::setSession(qt::TraceSession* session)
{
    m_session = session;
    connect(session, &qt::TraceSession::loaded, this, &DeviceChooser::refresh);
    refresh();
}

QString DeviceChooser::message() const
{
    return isHidden() ? QString() : m_label->text();
}

void DeviceChooser::choose(const QString& generation)
{
    if (!m_session)
        return;
    m_session->chooseDevice(generation);
    emit deviceChosen(generation);
}

void DeviceChooser::refresh()
{
    const model::ProfilePtr profile = m_session ? m_session->profile() : nullptr;
    const QString chosen = m_session ? m_session->chosenDevice() : QString();
    for (QAction* a : m_group->actions())
        a->setChecked(a->data().toString() == chosen);
    while (QLayoutItem* item = m_buttons->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    // The session's analysis already holds the device check (computed once in its job, the same
    // one the device-consistency advice words): the bar words it, and computes nothing itself.
    const model::ProfileAnalysisPtr analysis = m_session ? m_session->analysis() : nullptr;
    if (!profile || !analysis || !profile->hasTpuOps()) {
        hide();
        return;
    }
    const model::DeviceConsistency& check = analysis->deviceConsistency;
    // Generations are offered only when the check questions the device (as the advice does).
    std::vector<const model::TpuGeneration*> fitting;
    if (check.questionsDevice())
        fitting = check.fittingGenerations;
    const bool contradicted = check.questionsDevice() && !check.excesses.empty();
    const model::DeviceInfo& device = profile->device;
    QString text;
    // A choice the file contradicts is refused: say what the file records, first.
    const QString refusal = qs(profile->load.deviceRefusal);
    const bool coresUnrecorded = device.coresSource != model::CoreCountSource::Planes;
    m_cores->setVisible(coresUnrecorded);
    m_applyCores->setVisible(coresUnrecorded);
    if (coresUnrecorded) {
        const QSignalBlocker block(m_cores);
        m_cores->setMinimum(std::max(1, device.coresAtLeast));
        m_cores->setValue(std::max(1, device.cores));
    }
    QString coresText;
    if (coresUnrecorded && !device.coresNote.empty())
        coresText = qs(device.coresNote) + QLatin1Char('.');
    if (device.peakTflopsPerCore <= 0 && device.peakHbmGbpsPerCore <= 0) {
        text = tr("This file does not record the TPU generation, so every utilization is unknown (–).");
        if (!fitting.empty())
            text += QLatin1Char(' ') + tr("Its fastest ops fit:");
    } else if (contradicted) {
        const model::DeviceConsistency::Excess& e = check.excesses.front();
        text = tr("The data contradict %1: %2 reaches %3% of its %4, so its utilizations are wrong.")
                   .arg(qs(device.type), qs(e.evidence.op))
                   .arg(e.evidence.value / e.limit * 100, 0, 'f', 0)
                   .arg(qs(e.what));
        if (!fitting.empty())
            text += QLatin1Char(' ') + tr("The data fit:");
    } else if (refusal.isEmpty() && coresText.isEmpty()) {
        hide();
        return;
    }
    // The device's text may end in "…fit:" before its buttons: the core count goes before it.
    if (!coresText.isEmpty())
        text = coresText + (text.isEmpty() ? QString() : QStringLiteral(" ") + text);
    if (!refusal.isEmpty())
        text = tr("Refused: %1.").arg(refusal) + (text.isEmpty() ? QString() : QStringLiteral(" ") + text);
    m_label->setText(text);
    for (const model::TpuGeneration* g : fitting) {
        auto* button = new QPushButton(tr("Use %1").arg(QString::fromLatin1(g->displayName)), this);
        button->setToolTip(tr("Recompute every number with %1's peaks (%2 TFLOP/s, %3 GB/s per core); the file is "
                              "not read again")
                               .arg(QString::fromLatin1(g->displayName))
                               .arg(g->peakTflopsPerCore)
                               .arg(g->peakHbmGbpsPerCore));
        const QString key = QString::fromLatin1(g->key);
        connect(button, &QPushButton::clicked, this, [this, key] { choose(key); });
        m_buttons->addWidget(button);
    }
    show();
}

} // namespace tpuscope::widgets
