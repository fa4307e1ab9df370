// SPDX-License-Identifier: GPL-3.0-or-later
#include "logging.h"

#include "core/diagnostics.h"

#include <QString>

namespace tpuscope::qt {

Q_LOGGING_CATEGORY(lcCore, "tpuscope.core", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSession, "tpuscope.session", QtInfoMsg)
Q_LOGGING_CATEGORY(lcTimeline, "tpuscope.timeline", QtInfoMsg)
Q_LOGGING_CATEGORY(lcViews, "tpuscope.views", QtInfoMsg)
Q_LOGGING_CATEGORY(lcApp, "tpuscope.app", QtInfoMsg)

void installCoreLogBridge()
{
    model::setLogSink([](model::LogLevel level, std::string_view area, std::string_view message) {
        const QString text = QStringLiteral("[%1] %2").arg(QString::fromUtf8(area.data(), qsizetype(area.size())),
            QString::fromUtf8(message.data(), qsizetype(message.size())));
        switch (level) {
        case model::LogLevel::Debug:
            qCDebug(lcCore).noquote() << text;
            break;
        case model::LogLevel::Info:
            qCInfo(lcCore).noquote() << text;
            break;
        case model::LogLevel::Warning:
            qCWarning(lcCore).noquote() << text;
            break;
        case model::LogLevel::Error:
            qCCritical(lcCore).noquote() << text;
            break;
        }
    });
}

} // namespace tpuscope::qt
