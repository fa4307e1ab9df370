// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QWidget;

namespace tpuscope::app {

/// For a TensorBoard log directory with several profile runs, asks which one to open (newest
/// first) and returns its path; empty when the user cancels. Any other path comes back as it is.
/// The session loads the returned path (the run's directory), so the run is scanned again there:
/// the loader has no entry point that takes a run already scanned.
QString pickRun(QWidget* parent, const QString& path);

} // namespace tpuscope::app
