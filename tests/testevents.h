// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Deterministic gates for Qt tests, instead of waiting a fixed time (tests/tools/test_hygiene.cmake
// refuses QTest::qWait): to show that something did not happen, first make everything that could
// make it happen run, then look.

#include <QCoreApplication>
#include <QEvent>
#include <QTimer>

namespace tpuscope::test {

/// Delivers everything queued for this thread (posted events, queued calls, layout requests,
/// zero-time timers such as QCustomPlot's queued replot, deferred deletes) and, a few rounds deep,
/// what those queue in turn: "after the layouts settled". Work on other threads is not waited for;
/// that is QTest::qWaitFor on its result, or finishJobs (testsession.h) for a TraceSession.
inline void deliverQueuedEvents()
{
    for (int round = 0; round < 4; ++round) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCoreApplication::processEvents();
    }
}

/// Fires now every single-shot QTimer of `object` (and its children) that is running: a debounce
/// that would emit later emits here, so a test can tell "not emitted yet" from "never emitted".
inline void firePendingTimers(QObject& object)
{
    for (QTimer* timer : object.findChildren<QTimer*>()) {
        if (!timer->isActive() || !timer->isSingleShot())
            continue;
        timer->stop();
        QMetaObject::invokeMethod(timer, "timeout", Qt::DirectConnection);
    }
    deliverQueuedEvents();
}

} // namespace tpuscope::test
