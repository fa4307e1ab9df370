// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

class QLabel;
class QStatusBar;

namespace tpuscope::qt {
class TraceSession;
}

namespace tpuscope::app {

/// The permanent status-bar figures of the shown profile: device (with its peaks as tooltip),
/// cores, the headline FLOPS utilization with its cost coverage, and the load time.
class StatusMetrics : public QObject
{
    Q_OBJECT
public:
    StatusMetrics(QStatusBar* bar, const qt::TraceSession* session);

    /// Shows the session's figures, or hides them when `visible` is false or nothing is loaded.
    void update(bool visible);

private:
    const qt::TraceSession* m_session;
    QLabel* m_device;
    QLabel* m_cores;
    QLabel* m_util;
    QLabel* m_loadTime;
};

} // namespace tpuscope::app
