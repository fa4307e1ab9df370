// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/advice.h"
#include "analysis/opbreakdown.h"
#include "analysis/steps.h"
#include "core/profile.h"
#include "loader/loader.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <memory>
#include <stop_token>
#include <thread>
#include <vector>

namespace tpuscope::qt {

/// Owns the open profile and loads new ones off the GUI thread.
///
/// Each open() starts a job with a new generation number; progress and results travel back to
/// the GUI thread as queued calls and are dropped when their generation is no longer current
/// (hotspot's jobtracker idea), so a superseded or cancelled load can never overwrite a newer one.
/// The loader is stopped cooperatively through a std::stop_source. The op breakdown, the steps and
/// the advice are computed in the same job, so the GUI thread only swaps pointers.
class TraceSession : public QObject
{
    Q_OBJECT
public:
    explicit TraceSession(QObject* parent = nullptr);
    /// Requests stop on running jobs and joins them (the loader checks its stop token often).
    ~TraceSession() override;

    void setLoadOptions(const model::LoadOptions& options) { m_options = options; }
    const model::LoadOptions& loadOptions() const { return m_options; }

    /// Starts loading a file or a TensorBoard log directory; supersedes a running load.
    void open(const QString& path);
    /// Same for bytes already in memory (the bundled demo); `name` appears in messages.
    void openBytes(const QByteArray& bytes, const QString& name);
    /// Uses a TPU generation (a key such as "v6e"; empty = the file's own) for the shown profile
    /// and every later load. The shown profile is not read again: a job copies it with the new
    /// device and recomputes the analysis, then loaded() fires as after a load.
    void chooseDevice(const QString& generation);
    /// The generation chosen by the user, empty when the file's own device is used.
    QString chosenDevice() const { return QString::fromStdString(m_options.deviceOverride); }
    /// Stops the running load, if any; emits loadCanceled().
    void cancel();
    /// Cancels any load and drops the shown profile.
    void close();

    bool isLoading() const { return m_loading; }
    /// The profile shown now (stays valid while a new one loads); null before the first load.
    model::ProfilePtr profile() const { return m_profile; }
    std::shared_ptr<const model::OpBreakdown> breakdown() const { return m_breakdown; }
    /// The steps and where their time goes (computeSteps, all cores), from the same pass.
    std::shared_ptr<const model::StepAnalysis> steps() const { return m_steps; }
    /// The advice over that breakdown and those steps.
    std::shared_ptr<const model::AdviceReport> advice() const { return m_advice; }
    /// Path (or name) of the shown profile.
    QString path() const { return m_path; }
    /// Wall time of the last successful load, including the breakdown, in seconds.
    double loadSeconds() const { return m_loadSeconds; }
    quint64 generation() const { return m_generation; }

signals:
    void loadStarted(const QString& path);
    /// `fraction` is 0..1, or negative while the loader has not reported any progress yet.
    void progress(const QString& phase, double fraction);
    /// Part of a large profile, read while the load goes on (Chrome JSON after ~0.4 s), so the
    /// timeline can draw something at once; `loaded()` follows with the whole profile.
    void previewReady(const tpuscope::model::ProfilePtr& partial);
    void loaded();
    void loadFailed(const QString& path, const QString& message);
    void loadCanceled();

private:
    struct Result;
    /// `load` gets the options to use: the session's, plus a preview hook bound to this load.
    void start(const QString& name,
        std::function<model::LoadResult(const model::LoadOptions&, const model::ProgressFn&, std::stop_token)> load,
        bool reanalysis = false);
    void deliver(quint64 generation, std::shared_ptr<Result> result);
    void reapFinished();

    struct Job
    {
        std::jthread thread;
        std::shared_ptr<std::atomic_bool> finished;
    };

    model::LoadOptions m_options;
    model::ProfilePtr m_profile;
    std::shared_ptr<const model::OpBreakdown> m_breakdown;
    std::shared_ptr<const model::StepAnalysis> m_steps;
    std::shared_ptr<const model::AdviceReport> m_advice;
    QString m_path;
    QString m_loadingPath;
    double m_loadSeconds = 0;
    quint64 m_generation = 0;
    bool m_loading = false;
    std::stop_source m_stop;
    std::vector<Job> m_jobs;
};

} // namespace tpuscope::qt
