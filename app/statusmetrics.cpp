// SPDX-License-Identifier: GPL-3.0-or-later
#include "statusmetrics.h"

#include "qt/qstrings.h"
#include "qt/tracesession.h"
#include "report/report.h"

#include <QLabel>
#include <QStatusBar>

#include <algorithm>

namespace tpuscope::app {

namespace {
QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}
} // namespace

StatusMetrics::StatusMetrics(QStatusBar* bar, const qt::TraceSession* session)
    : QObject(bar)
    , m_session(session)
    , m_device(new QLabel(bar))
    , m_cores(new QLabel(bar))
    , m_util(new QLabel(bar))
    , m_loadTime(new QLabel(bar))
{
    // The device type is the file's string: plain text, never rich text.
    for (QLabel* label : {m_device, m_cores, m_util, m_loadTime})
        label->setTextFormat(Qt::PlainText);
    for (QLabel* label : {m_device, m_cores, m_util, m_loadTime})
        bar->addPermanentWidget(label);
}

void StatusMetrics::update(bool visible)
{
    const model::ProfilePtr profile = m_session->profile();
    for (QLabel* label : {m_device, m_cores, m_util, m_loadTime})
        label->setVisible(profile && visible);
    if (!profile)
        return;
    const model::DeviceInfo& device = profile->device;
    QString deviceText = device.type.empty() ? tr("Unknown device") : qs(device.type);
    m_device->setText(deviceText);
    m_device->setToolTip(device.peakNote.empty()
            ? QString()
            : qt::plainToolTip(
                tr("Peaks: %1 TFLOP/s and %2 GB/s per core (%3). %4")
                    .arg(device.peakTflopsPerCore)
                    .arg(device.peakHbmGbpsPerCore)
                    .arg(QString::fromLatin1(model::peakSourceName(device.peakSource)), qs(device.peakNote))));
    m_cores->setText(qs(model::coresCountText(device, device.cores)));
    if (const auto breakdown = m_session->breakdown(); breakdown && device.peakTflopsPerCore > 0) {
        m_util->setText(tr("FLOPS util %1 · %2")
                            .arg(qs(model::formatOptionalPercent(breakdown->flops.capped)),
                                qs(model::costCoverageText(breakdown->costCoverage))));
        m_util->setToolTip(tr("Time-weighted FLOPS utilization of the TPU ops with cost data, each capped at "
                              "its peak, over all cores. Ops that record no FLOPs or bytes are unknown and left "
                              "out; the cost coverage says how much of the op time the figure describes."));
    } else {
        m_util->setText(tr("FLOPS util – (no TPU generation)"));
        m_util->setToolTip(
            tr("The device peak is unknown: choose a TPU generation in View → TPU Device, or start with --device"));
    }
    const double seconds = m_session->loadSeconds();
    m_loadTime->setText(seconds < 1 ? tr("Loaded in %1 ms").arg(std::max(1.0, seconds * 1000), 0, 'f', 0)
                                    : tr("Loaded in %1 s").arg(seconds, 0, 'f', 2));
}

} // namespace tpuscope::app
