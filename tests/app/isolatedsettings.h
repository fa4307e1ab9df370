// SPDX-License-Identifier: GPL-3.0-or-later
// One way for a window test to get settings of its own: QSettings in a fresh temporary folder under
// a test organization, so a test neither reads the user's settings (remembered layout, redaction,
// recent files) nor leaves its own behind for the next test.
#pragma once

#include <QCoreApplication>
#include <QSettings>
#include <QString>
#include <QTemporaryDir>

namespace tpuscope::test {

inline void isolateSettings(const QTemporaryDir& dir, const QString& application = QStringLiteral("tst_app"))
{
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
    QCoreApplication::setOrganizationName(QStringLiteral("tpuscope-test"));
    QCoreApplication::setApplicationName(application);
}

} // namespace tpuscope::test
