// SPDX-License-Identifier: GPL-3.0-or-later
#include "runpicker.h"

#include "loader/logdir.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QInputDialog>
#include <QStringList>

#include <vector>

namespace tpuscope::app {

namespace {
QString tr(const char* text)
{
    return QCoreApplication::translate("tpuscope::app::MainWindow", text);
}
} // namespace

std::optional<RunChoice> pickRun(QWidget* parent, const QString& path)
{
    if (!QFileInfo(path).isDir())
        return RunChoice {path, std::nullopt};
    std::vector<model::ProfileRun> runs = model::findRuns(path.toStdString());
    if (runs.empty())
        return RunChoice {path, std::nullopt};
    if (runs.size() == 1)
        return RunChoice {path, std::move(runs.front())};
    QStringList labels;
    for (const auto& run : runs) {
        const int hosts = static_cast<int>(run.hosts.size());
        labels << (hosts == 1 ? tr("%1  (1 host)") : tr("%1  (%2 hosts)").arg(QStringLiteral("%1")).arg(hosts))
                      .arg(QString::fromStdString(run.label.empty() ? run.name : run.label));
    }
    bool ok = false;
    const QString chosen = QInputDialog::getItem(parent, tr("Open Profile Run"),
        tr("%1 holds %2 profile runs, newest first:").arg(QFileInfo(path).fileName()).arg(runs.size()), labels, 0,
        false, &ok);
    if (!ok)
        return std::nullopt;
    model::ProfileRun& run = runs[static_cast<size_t>(labels.indexOf(chosen))];
    const QString runPath = QString::fromStdString(run.path);
    return RunChoice {runPath, std::move(run)};
}

} // namespace tpuscope::app
