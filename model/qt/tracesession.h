// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/advice.h"
#include "analysis/diff.h"
#include "analysis/eventoccurrence.h"
#include "analysis/opbreakdown.h"
#include "analysis/profileanalysis.h"
#include "analysis/steps.h"
#include "core/jobpool.h"
#include "core/profile.h"
#include "loader/loader.h"
#include "loader/logdir.h"
#include "share/forumpost.h"
#include "share/sharefile.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <stop_token>
#include <vector>

namespace tpuscope::qt {

/// Owns the open profile and loads new ones off the GUI thread.
///
/// Each open() starts a job with a new generation number; progress and results travel back to
/// the GUI thread as queued calls and are dropped when their generation is no longer current
/// (hotspot's jobtracker idea), so a superseded or cancelled load can never overwrite a newer one.
/// The loader is stopped cooperatively through a std::stop_source. The whole analysis
/// (model::ProfileAnalysis: breakdown, steps, summary, advice, utilization) is built in the same
/// job, so the GUI thread only swaps pointers. Comparisons and the charts' range requests run as
/// jobs of the same kind; this is the one place analyses run off the GUI thread. Every job runs
/// through one first-in, first-out queue (model::JobPool) on the process's one bounded set of
/// workers (model::WorkerPool, hardware_concurrency threads), which the loaders' parallel decode
/// shares, and a newer request of a kind stops the older one, whose model function returns early.
class TraceSession : public QObject
{
    Q_OBJECT
public:
    explicit TraceSession(QObject* parent = nullptr);
    /// Requests stop on running jobs, drops queued ones and waits until the running ones returned
    /// (the loader and the request's model functions check their stop token often).
    ~TraceSession() override;

    void setLoadOptions(const model::LoadOptions& options) { m_options = options; }
    const model::LoadOptions& loadOptions() const { return m_options; }

    /// Starts loading a file or a TensorBoard log directory; supersedes a running load.
    void open(const QString& path);
    /// Loads a log-dir run already found by findRuns (the run picker's choice) without scanning
    /// its directory again: exactly the hosts in `run` are read. `displayPath` is what path()
    /// reports afterwards (recent files and the remembered device are keyed by it).
    void openRun(const model::ProfileRun& run, const QString& displayPath);
    /// Same for bytes already in memory (the bundled demo); `name` appears in messages.
    void openBytes(const QByteArray& bytes, const QString& name);
    /// Shows a profile already built in memory (a generator's, a test's) as if it had been loaded:
    /// its analysis is built in a job, then loaded() fires. `name` is what path() reports.
    void openProfile(model::ProfilePtr profile, const QString& name);
    /// Uses a TPU generation (a key such as "v6e"; empty = the file's own) for the shown profile
    /// and every later load. The shown profile is not read again: a job copies it with the new
    /// device and recomputes the analysis, then loaded() fires as after a load.
    void chooseDevice(const QString& generation);
    /// The generation chosen by the user, empty when the file's own device is used.
    QString chosenDevice() const { return QString::fromStdString(m_options.deviceOverride); }
    /// Uses `cores` TPU cores (0 = the file's count) where the file does not record them (an
    /// op_profile sums every core on one plane): the same job as chooseDevice. A count that
    /// contradicts the file is refused (Profile::load.deviceRefusal says why).
    void chooseCores(int cores);
    int chosenCores() const { return m_options.coresOverride; }
    /// Loads `path` (with the session's load options) and compares the shown profile (before) with
    /// it (after), off the GUI thread; comparisonReady or comparisonFailed follows. A newer
    /// compare() supersedes a running one; a result is dropped when another profile is shown by then.
    void compare(const QString& path);
    /// Computes a utilization series of the shown profile off the GUI thread and calls `done` with
    /// it on `context`'s thread. A newer request supersedes an older one (of any context), and a
    /// result for a profile no longer shown is dropped; so is one whose context is gone.
    void requestUtilization(const model::UtilizationOptions& options, QObject* context,
        std::function<void(const model::UtilizationSeries&)> done);
    /// The shown profile's steps for one core or another program (ProfileAnalysis::stepsFor), off
    /// the GUI thread; `done` runs on `context`'s thread. Superseded and stale results are dropped
    /// as for requestUtilization.
    void requestSteps(const model::StepOptions& options, QObject* context,
        std::function<void(std::shared_ptr<const model::StepAnalysis>)> done);
    /// The share file of the shown profile's analysis with `options` (model::buildShareFile: the
    /// redaction, JSON and gzip), off the GUI thread; `done` runs on `context`'s thread. A newer
    /// share or forum-post request supersedes it; a result for a profile no longer shown is dropped.
    void requestShareFile(
        const model::ShareOptions& options, QObject* context, std::function<void(const model::ShareResult&)> done);
    /// The forum post of the shown profile (model::buildForumPost, which builds the share file and
    /// reads it back), off the GUI thread, as requestShareFile.
    void requestForumPost(
        const model::ForumPostOptions& options, QObject* context, std::function<void(const model::ForumPost&)> done);
    /// The statistics of [begin, end) of the shown profile (ProfileAnalysis::summarizeRange), off
    /// the GUI thread; `done` runs on `context`'s thread. A newer range request supersedes an older
    /// one (Shift+drag again before the numbers came), and stale results are dropped as above.
    void requestRangeSummary(model::TimePs begin, model::TimePs end, QObject* context,
        std::function<void(std::shared_ptr<const model::RangeSummary>)> done);
    /// The events of one op of the shown profile (model::findOccurrences: the timeline's highlight
    /// of a selected op), off the GUI thread; `done` runs on `context`'s thread. Selecting another
    /// op supersedes the search; stale results are dropped as above.
    void requestOccurrences(
        model::OpId op, QObject* context, std::function<void(std::shared_ptr<const model::OpOccurrences>)> done);
    /// One timeline event of the shown profile described on its own, compared with its op's other
    /// occurrences (model::describeEventOccurrence: the details panel), off the GUI thread; another
    /// event supersedes it; stale results are dropped as above.
    void requestEventOccurrence(model::TrackId track, quint32 index, QObject* context,
        std::function<void(std::shared_ptr<const model::EventOccurrence>)> done);
    /// Stops the running load, if any; emits loadCanceled().
    void cancel();
    /// Cancels any load and drops the shown profile.
    void close();
    bool isLoading() const { return m_loading; }
    /// The profile shown now (stays valid while a new one loads); null before the first load.
    model::ProfilePtr profile() const { return m_profile; }
    /// Everything computed about the shown profile; null before the first load.
    model::ProfileAnalysisPtr analysis() const { return m_analysis; }
    // Parts of analysis(), sharing its lifetime (null when there is none).
    std::shared_ptr<const model::OpBreakdown> breakdown() const;
    /// The steps and where their time goes (computeSteps, all cores), from the same pass.
    std::shared_ptr<const model::StepAnalysis> steps() const;
    /// The advice over that breakdown and those steps.
    std::shared_ptr<const model::AdviceReport> advice() const;
    /// Path (or name) of the shown profile.
    QString path() const { return m_path; }
    /// Wall time of the last successful load, including the breakdown, in seconds.
    double loadSeconds() const { return m_loadSeconds; }
    quint64 generation() const { return m_generation; }
    /// Blocks until no job is queued or running; results they queued to the GUI thread are still
    /// to be delivered (process events after). For tests that must know a job has returned.
    void waitForJobs() { m_pool.waitIdle(); }

    /// Calls `show` with what a view should show from now on: the analysis after loaded() and
    /// previewDropped(), null on previewReady() (a partial profile has none) and closed(). The
    /// connections live as long as `context`. A view's setSession is this one line.
    void follow(QObject* context, std::function<void(const model::ProfileAnalysisPtr&)> show);

signals:
    void loadStarted(const QString& path);
    /// `fraction` is 0..1, or negative while the loader has not reported any progress yet.
    void progress(const QString& phase, double fraction);
    /// Part of a large profile, read while the load goes on (Chrome JSON after ~0.4 s), so the
    /// timeline can draw something at once; `loaded()` follows with the whole profile. `breakdown`
    /// is the partial profile's op breakdown and `depthIndex` its events by depth row (computed in
    /// a job of the load, never a full analysis).
    void previewReady(const tpuscope::model::ProfilePtr& partial,
        const std::shared_ptr<const tpuscope::model::OpBreakdown>& breakdown,
        const std::shared_ptr<const tpuscope::model::DepthIndex>& depthIndex);
    void loaded();
    /// close() dropped the shown profile.
    void closed();
    /// The comparison compare() asked for: the shown profile (before) against the file (after),
    /// with the paths each was loaded from (a log dir's run directory; model::comparisonLabels names them).
    void comparisonReady(const std::shared_ptr<const tpuscope::model::ProfileDiff>& diff, const QString& beforePath,
        const QString& afterPath);
    void comparisonFailed(const QString& path, const QString& message);
    void loadFailed(const QString& path, const QString& message);
    void loadCanceled();
    /// A load that had shown a preview failed or was cancelled: the views show the session's
    /// profile again (as after loaded()).
    void previewDropped();

private:
    void applyDeviceChoice();
    struct Result;
    /// `load` gets the options to use: the session's, plus a preview hook bound to this load.
    void start(const QString& name,
        std::function<model::LoadResult(const model::LoadOptions&, const model::ProgressFn&, std::stop_token)> load,
        bool reanalysis = false);
    void deliver(quint64 generation, std::shared_ptr<Result> result);
    /// Queues `work` on the pool; `work` gets a token that stops with `stop` or the session.
    void launch(std::stop_token stop, std::function<void(std::stop_token)> work);

    /// One kind of request over the shown analysis (utilization, steps, …): a newer request of
    /// the kind stops and supersedes an older one.
    struct RequestChannel
    {
        quint64 generation = 0;
        std::stop_source stop;
    };
    /// Runs `work` over the shown analysis on a job thread and calls `done` with its result on
    /// `context`'s thread, unless by then the channel has a newer request, another analysis is
    /// shown or `context` is gone. Does nothing without an analysis or a context.
    template <class Value>
    void request(RequestChannel& channel, QObject* context,
        std::function<Value(const model::ProfileAnalysis&, std::stop_token)> work,
        std::function<void(const Value&)> done);

    model::LoadOptions m_options;
    model::ProfilePtr m_profile;
    model::ProfileAnalysisPtr m_analysis;
    QString m_path;
    QString m_loadingPath;
    double m_loadSeconds = 0;
    quint64 m_generation = 0;
    bool m_loading = false;
    bool m_previewShown = false; // of the running load
    std::stop_source m_stop;
    quint64 m_compareGeneration = 0;
    std::stop_source m_compareStop;
    RequestChannel m_utilizationRequests;
    RequestChannel m_stepsRequests;
    RequestChannel m_shareRequests; // the share file and the forum post
    RequestChannel m_rangeRequests;
    RequestChannel m_occurrenceRequests;
    RequestChannel m_eventRequests;
    // Last: destroyed (its running jobs waited for) before anything its jobs read.
    model::JobPool m_pool;
};

} // namespace tpuscope::qt
