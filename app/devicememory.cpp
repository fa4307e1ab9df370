// SPDX-License-Identifier: GPL-3.0-or-later
#include "devicememory.h"

#include "qt/tracesession.h"

#include <QFileInfo>
#include <QSettings>

namespace tpuscope::app {

DeviceMemory::DeviceMemory(qt::TraceSession* session, bool persist, QObject* parent)
    : QObject(parent)
    , m_session(session)
    , m_persist(persist)
{
}

void DeviceMemory::setCommandLineDevice(const QString& generation)
{
    m_commandLineDevice = generation;
    setSessionDevice(generation);
}

void DeviceMemory::useDeviceFor(const QString& key)
{
    QString device = m_commandLineDevice;
    if (m_persist)
        device = QSettings().value(QStringLiteral("devices/") + key, device).toString();
    setSessionDevice(device);
}

void DeviceMemory::remember(const QString& generation)
{
    if (!m_persist)
        return;
    const QFileInfo info(m_session->path());
    const QString key = QStringLiteral("devices/") + (info.exists() ? info.absoluteFilePath() : m_session->path());
    if (generation.isEmpty())
        QSettings().remove(key);
    else
        QSettings().setValue(key, generation);
}

void DeviceMemory::setSessionDevice(const QString& generation)
{
    model::LoadOptions options = m_session->loadOptions();
    options.deviceOverride = generation.toStdString();
    m_session->setLoadOptions(options);
}

} // namespace tpuscope::app
