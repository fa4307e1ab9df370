// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

namespace tpuscope::qt {
class TraceSession;
}

namespace tpuscope::app {

/// The TPU generation the user chose per file, kept in QSettings ("devices/<absolute path>")
/// unless `persist` is off, and the command line's --device as the fallback for every file.
class DeviceMemory : public QObject
{
    Q_OBJECT
public:
    DeviceMemory(qt::TraceSession* session, bool persist, QObject* parent = nullptr);

    /// The command line's generation: used now and for every file without a remembered one.
    void setCommandLineDevice(const QString& generation);
    /// Sets the session's load options for the next load of `key` (a file path): the generation
    /// remembered for it, else the command line's; never another file's.
    void useDeviceFor(const QString& key);
    /// The user chose `generation` (empty: the file's own) for the shown profile.
    void remember(const QString& generation);

private:
    void setSessionDevice(const QString& generation);

    qt::TraceSession* m_session;
    bool m_persist;
    QString m_commandLineDevice;
};

} // namespace tpuscope::app
