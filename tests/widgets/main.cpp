// SPDX-License-Identifier: GPL-3.0-or-later
// gtest entry point for the widget tests: a QApplication must exist before any widget, and the
// tests must run without a display, so the offscreen platform is the default (as hotspot's test main).
#include <QApplication>

#include <gtest/gtest.h>

#include "../checkfailures.h"

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    ::testing::InitGoogleTest(&argc, argv);
    QApplication app(argc, argv);
    return RUN_ALL_TESTS();
}
