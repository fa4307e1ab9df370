// SPDX-License-Identifier: GPL-3.0-or-later
// gtest entry point for the Qt model tests (TraceSession, SelectionState, item models): they need
// an event loop for queued results but no widgets, so a QGuiApplication on the offscreen platform.
#include <QGuiApplication>

#include <gtest/gtest.h>

#include "../checkfailures.h"

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    ::testing::InitGoogleTest(&argc, argv);
    QGuiApplication app(argc, argv);
    return RUN_ALL_TESTS();
}
