// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "loader/logdir.h"

#include <QString>

#include <optional>

class QWidget;

namespace tpuscope::app {

/// What the user chose to open: a path, and for a log directory the run found there.
struct RunChoice
{
    /// The path the session reports (recent files and the remembered device are keyed by it):
    /// the chosen run's directory when the user picked one of several, else the path as given.
    QString path;
    /// The run the scan found, handed to TraceSession::openRun so it is not scanned again;
    /// empty for a single file or a directory without runs (open(path) gives its message).
    std::optional<model::ProfileRun> run;
};

/// For a TensorBoard log directory with several profile runs, asks which one to open (newest
/// first); nullopt when the user cancels. A directory with one run comes back with that run, any
/// other path as it is.
std::optional<RunChoice> pickRun(QWidget* parent, const QString& path);

} // namespace tpuscope::app
