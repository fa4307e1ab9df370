// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// For tests that show a profile the way the application does: through a TraceSession, whose job
// builds the analysis and whose request jobs compute everything else off the GUI thread.

#include "qt/tracesession.h"

#include <QCoreApplication>
#include <QSignalSpy>

namespace tpuscope::test {

/// Shows `profile` in `session` as after a load (TraceSession::openProfile) and waits for
/// loaded(); false when it did not come.
inline bool showInSession(qt::TraceSession& session, model::ProfilePtr profile)
{
    QSignalSpy loaded(&session, &qt::TraceSession::loaded);
    session.openProfile(std::move(profile), QStringLiteral("test profile"));
    return loaded.wait(60'000) || !loaded.isEmpty();
}

/// Waits for every job of `session` to return and delivers what they queued for the GUI thread
/// (a few rounds deep: a delivery may start another job, a view asking for its numbers). After it,
/// each result of a job started before the call has been delivered or dropped: the gate for "a
/// superseded result is never delivered", with no fixed wait.
inline void finishJobs(qt::TraceSession& session)
{
    for (int round = 0; round < 3; ++round) {
        session.waitForJobs();
        QCoreApplication::sendPostedEvents();
    }
}

} // namespace tpuscope::test
