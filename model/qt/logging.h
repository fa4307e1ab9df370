// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One logging category per area of the Qt layers, enabled with QT_LOGGING_RULES, e.g.
//   QT_LOGGING_RULES="tpuscope.session.debug=true" tpuscope trace.xplane.pb
// and the bridge that sends the Qt-free core's messages (model/core/diagnostics.h) to
// "tpuscope.core", so a failed internal check in the core shows up in the same log.

#include <QLoggingCategory>

namespace tpuscope::qt {

Q_DECLARE_LOGGING_CATEGORY(lcCore) // the core's messages and failed checks
Q_DECLARE_LOGGING_CATEGORY(lcSession) // TraceSession: loads, analyses, jobs started, superseded, cancelled
Q_DECLARE_LOGGING_CATEGORY(lcTimeline) // the timeline: level-of-detail builds, selection, input
Q_DECLARE_LOGGING_CATEGORY(lcViews) // the other views (op table, details, advice, overview, charts)
Q_DECLARE_LOGGING_CATEGORY(lcApp) // the window: files opened, layout, exports

/// Sends the core's log to lcCore (a failed check as a critical message). Call once in main,
/// before the first job starts.
void installCoreLogBridge();

} // namespace tpuscope::qt
