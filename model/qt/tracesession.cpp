// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracesession.h"

#include "loader/decoder.h"

#include <QMetaObject>
#include <QPointer>

#include <atomic>
#include <chrono>
#include <new>
#include <utility>

namespace tpuscope::qt {

struct TraceSession::Result
{
    model::LoadResult load;
    model::ProfileAnalysisPtr analysis;
    double seconds = 0;
    bool canceled = false;
    bool reanalysis = false; // the shown profile with a new device, not a load
};

TraceSession::TraceSession(QObject* parent)
    : QObject(parent)
{
}

TraceSession::~TraceSession()
{
    ++m_generation; // nothing queued from now on is current
    m_pool.shutdown(); // stops the running jobs and waits until they returned
}

void TraceSession::open(const QString& path)
{
    const std::string file = path.toStdString();
    start(path, [file](const model::LoadOptions& options, const model::ProgressFn& progress, std::stop_token stop) {
        return model::loadProfile(file, options, progress, stop);
    });
}

void TraceSession::openRun(const model::ProfileRun& run, const QString& displayPath)
{
    start(
        displayPath, [run](const model::LoadOptions& options, const model::ProgressFn& progress, std::stop_token stop) {
            return model::loadRun(run, options, progress, stop);
        });
}

void TraceSession::openBytes(const QByteArray& bytes, const QString& name)
{
    auto data = std::make_shared<std::string>(bytes.constData(), static_cast<size_t>(bytes.size()));
    const std::string fileName = name.toStdString();
    start(name,
        [data, fileName](const model::LoadOptions& options, const model::ProgressFn& progress, std::stop_token stop) {
            return model::loadProfileFromBytes(std::move(*data), fileName, options, progress, stop);
        });
}

void TraceSession::openProfile(model::ProfilePtr profile, const QString& name)
{
    start(name, [profile](const model::LoadOptions&, const model::ProgressFn&, std::stop_token) {
        model::LoadResult result;
        result.profile = profile;
        return result;
    });
}

void TraceSession::chooseDevice(const QString& generation)
{
    m_options.deviceOverride = generation.toStdString();
    applyDeviceChoice();
}

void TraceSession::chooseCores(int cores)
{
    m_options.coresOverride = std::max(0, cores);
    applyDeviceChoice();
}

void TraceSession::applyDeviceChoice()
{
    if (!m_profile || m_loading)
        return; // a running load finishes with its own options; the next one uses this
    model::ProfilePtr shown = m_profile;
    const std::string device = m_options.deviceOverride;
    const int cores = m_options.coresOverride;
    start(
        m_path,
        [shown, device, cores](const model::LoadOptions&, const model::ProgressFn& progress, std::stop_token) {
            progress("Applying the device", 0.5);
            model::LoadResult result;
            result.profile = model::withDevice(*shown, device, cores);
            return result;
        },
        true);
}

std::shared_ptr<const model::OpBreakdown> TraceSession::breakdown() const
{
    return m_analysis ? std::shared_ptr<const model::OpBreakdown>(m_analysis, &m_analysis->breakdown) : nullptr;
}

std::shared_ptr<const model::StepAnalysis> TraceSession::steps() const
{
    return m_analysis ? std::shared_ptr<const model::StepAnalysis>(m_analysis, &m_analysis->steps) : nullptr;
}

std::shared_ptr<const model::AdviceReport> TraceSession::advice() const
{
    return m_analysis ? std::shared_ptr<const model::AdviceReport>(m_analysis, &m_analysis->advice) : nullptr;
}

void TraceSession::follow(QObject* context, std::function<void(const model::ProfileAnalysisPtr&)> show)
{
    connect(this, &TraceSession::loaded, context, [this, show] { show(m_analysis); });
    connect(this, &TraceSession::previewDropped, context, [this, show] { show(m_analysis); });
    connect(this, &TraceSession::previewReady, context, [show] { show(nullptr); });
    connect(this, &TraceSession::closed, context, [show] { show(nullptr); });
}

void TraceSession::compare(const QString& path)
{
    const model::ProfileAnalysisPtr before = m_analysis;
    if (!before)
        return;
    m_compareStop.request_stop();
    m_compareStop = std::stop_source();
    const quint64 generation = ++m_compareGeneration;
    const model::LoadOptions options = [this] {
        model::LoadOptions o = m_options;
        o.preview = {};
        return o;
    }();
    const std::string file = path.toStdString();
    launch(m_compareStop.get_token(), [this, generation, before, options, file, path](std::stop_token stop) {
        model::LoadResult load = model::loadProfile(file, options, {}, stop);
        std::shared_ptr<const model::ProfileDiff> diff;
        QString afterName;
        if (load.ok() && !stop.stop_requested()) {
            try {
                if (const model::ProfileAnalysisPtr after = model::buildProfileAnalysis(load.profile, {}, stop)) {
                    diff = std::make_shared<const model::ProfileDiff>(before->diffAgainst(*after));
                    afterName = QString::fromStdString(load.profile->load.path);
                }
            } catch (const std::bad_alloc&) {
                load.error = model::outOfMemoryMessage(file, options, "the comparison");
            }
        }
        const bool stopped = stop.stop_requested();
        const QString error = QString::fromStdString(load.error);
        QMetaObject::invokeMethod(
            this,
            [this, generation, before, diff, afterName, error, path, stopped] {
                if (generation != m_compareGeneration || m_analysis != before || stopped)
                    return; // superseded, or another profile is shown now
                if (!diff) {
                    emit comparisonFailed(path, error.isEmpty() ? tr("The file could not be read.") : error);
                    return;
                }
                emit comparisonReady(diff, QString::fromStdString(before->profile->load.path), afterName);
            },
            Qt::QueuedConnection);
    });
}

template <class Value>
void TraceSession::request(RequestChannel& channel, QObject* context,
    std::function<Value(const model::ProfileAnalysis&, std::stop_token)> work, std::function<void(const Value&)> done)
{
    const model::ProfileAnalysisPtr analysis = m_analysis;
    if (!analysis || !context)
        return;
    channel.stop.request_stop();
    channel.stop = std::stop_source();
    const quint64 generation = ++channel.generation;
    QPointer<QObject> receiver(context);
    launch(channel.stop.get_token(),
        [this, &channel, generation, analysis, receiver, work = std::move(work), done = std::move(done)](
            std::stop_token stop) {
            if (stop.stop_requested())
                return;
            auto result = std::make_shared<const Value>(work(*analysis, stop));
            if (stop.stop_requested())
                return;
            // `channel` is a member: the session outlives its jobs (the destructor joins them), and
            // the check runs on the GUI thread, which is the only one that changes it.
            QMetaObject::invokeMethod(
                this,
                [this, &channel, generation, analysis, result, receiver, done] {
                    if (generation != channel.generation || m_analysis != analysis || !receiver)
                        return;
                    done(*result);
                },
                Qt::QueuedConnection);
        });
}

void TraceSession::requestUtilization(const model::UtilizationOptions& options, QObject* context,
    std::function<void(const model::UtilizationSeries&)> done)
{
    request<model::UtilizationSeries>(
        m_utilizationRequests, context,
        [options](const model::ProfileAnalysis& analysis, std::stop_token stop) {
            return model::computeUtilization(*analysis.profile, analysis.opModel, options, std::move(stop));
        },
        std::move(done));
}

void TraceSession::requestSteps(const model::StepOptions& options, QObject* context,
    std::function<void(std::shared_ptr<const model::StepAnalysis>)> done)
{
    request<std::shared_ptr<const model::StepAnalysis>>(
        m_stepsRequests, context,
        [options](const model::ProfileAnalysis& analysis, std::stop_token stop) {
            model::StepOptions stoppable = options;
            stoppable.stop = std::move(stop);
            return std::make_shared<const model::StepAnalysis>(analysis.stepsFor(stoppable));
        },
        [done = std::move(done)](const std::shared_ptr<const model::StepAnalysis>& steps) { done(steps); });
}

void TraceSession::requestShareFile(
    const model::ShareOptions& options, QObject* context, std::function<void(const model::ShareResult&)> done)
{
    request<model::ShareResult>(
        m_shareRequests, context,
        [options](const model::ProfileAnalysis& analysis, std::stop_token stop) {
            model::ShareOptions stoppable = options;
            stoppable.stop = std::move(stop);
            return model::buildShareFile(analysis, stoppable);
        },
        std::move(done));
}

void TraceSession::requestForumPost(
    const model::ForumPostOptions& options, QObject* context, std::function<void(const model::ForumPost&)> done)
{
    request<model::ForumPost>(
        m_shareRequests, context,
        [options](const model::ProfileAnalysis& analysis, std::stop_token) {
            return model::buildForumPost(analysis, options);
        },
        std::move(done));
}

void TraceSession::requestRangeSummary(model::TimePs begin, model::TimePs end, QObject* context,
    std::function<void(std::shared_ptr<const model::RangeSummary>)> done)
{
    request<std::shared_ptr<const model::RangeSummary>>(
        m_rangeRequests, context,
        [begin, end](const model::ProfileAnalysis& analysis, std::stop_token stop) {
            return std::make_shared<const model::RangeSummary>(analysis.summarizeRange(begin, end, std::move(stop)));
        },
        [done = std::move(done)](const std::shared_ptr<const model::RangeSummary>& summary) { done(summary); });
}

void TraceSession::requestOccurrences(
    model::OpId op, QObject* context, std::function<void(std::shared_ptr<const model::OpOccurrences>)> done)
{
    request<std::shared_ptr<const model::OpOccurrences>>(
        m_occurrenceRequests, context,
        [op](const model::ProfileAnalysis& analysis, std::stop_token stop) {
            return std::make_shared<const model::OpOccurrences>(
                model::findOccurrences(*analysis.profile, op, std::move(stop)));
        },
        [done = std::move(done)](const std::shared_ptr<const model::OpOccurrences>& found) { done(found); });
}

void TraceSession::requestEventOccurrence(model::TrackId track, quint32 index, QObject* context,
    std::function<void(std::shared_ptr<const model::EventOccurrence>)> done)
{
    request<std::shared_ptr<const model::EventOccurrence>>(
        m_eventRequests, context,
        [track, index](const model::ProfileAnalysis& analysis, std::stop_token stop) {
            return std::make_shared<const model::EventOccurrence>(
                model::describeEventOccurrence(analysis, track, index, std::move(stop)));
        },
        [done = std::move(done)](const std::shared_ptr<const model::EventOccurrence>& found) { done(found); });
}

void TraceSession::launch(std::stop_token stop, std::function<void(std::stop_token)> work)
{
    m_pool.submit(std::move(work), std::move(stop)); // the pool combines `stop` with its shutdown
}

void TraceSession::cancel()
{
    if (!m_loading)
        return;
    m_stop.request_stop();
    ++m_generation;
    m_loading = false;
    emit loadCanceled();
    if (std::exchange(m_previewShown, false))
        emit previewDropped();
}

void TraceSession::close()
{
    cancel();
    m_compareStop.request_stop();
    for (RequestChannel* channel : {&m_utilizationRequests, &m_stepsRequests, &m_shareRequests, &m_rangeRequests})
        channel->stop.request_stop();
    const bool hadProfile = m_profile != nullptr;
    m_profile.reset();
    m_analysis.reset();
    m_path.clear();
    m_loadSeconds = 0;
    if (hadProfile)
        emit closed();
}

void TraceSession::start(const QString& name,
    std::function<model::LoadResult(const model::LoadOptions&, const model::ProgressFn&, std::stop_token)> load,
    bool reanalysis)
{
    if (m_loading)
        m_stop.request_stop(); // superseded: its result will carry a stale generation
    const quint64 generation = ++m_generation;
    m_stop = std::stop_source();
    m_loading = true;
    // A superseded load's preview stays on screen until this load's preview or result replaces it.
    m_loadingPath = name;
    if (!reanalysis) // the shown profile stays on screen while its numbers are recomputed
        emit loadStarted(name);

    // The job gets the session's stop token rather than its own, so cancel() reaches it; the
    // destructor stops it through the pool's shutdown, which the pool combines with this token.
    model::LoadOptions options = m_options;
    // The preview's op breakdown (the timeline's utilization colours) and depth index are computed
    // on the loading thread as the loader hands the partial profile over, with this load's stop
    // token. A job of their own would queue behind the loader's helpers (an XSpace decode keeps every
    // worker of the pool busy until its last plane), and a 1e8-event XSpace showed its preview 12 s
    // after the open instead of 3.5 s; the load waits for them (~0.1 s for a 2^20-event preview).
    options.preview = [this, generation, stop = m_stop.get_token()](model::ProfilePtr partial) {
        if (stop.stop_requested())
            return;
        auto breakdown = std::make_shared<const model::OpBreakdown>(model::computeOpBreakdown(*partial));
        auto depthIndex = std::make_shared<const model::DepthIndex>(model::buildDepthIndex(*partial, stop));
        if (stop.stop_requested())
            return;
        QMetaObject::invokeMethod(
            this,
            [this, generation, partial = std::move(partial), breakdown, depthIndex] {
                if (generation == m_generation && m_loading) {
                    m_previewShown = true;
                    emit previewReady(partial, breakdown, depthIndex);
                }
            },
            Qt::QueuedConnection);
    };
    launch(m_stop.get_token(), [this, generation, options, load = std::move(load), reanalysis](std::stop_token stop) {
        // Throttle once more on our side: a queued call per 0.5 % or per phase change is plenty.
        std::string lastPhase;
        int lastPermille = -10;
        model::ProgressFn report = [&](std::string_view phase, double fraction) {
            const int permille = static_cast<int>(fraction * 1000);
            if (phase == lastPhase && permille - lastPermille < 5)
                return;
            lastPhase = phase;
            lastPermille = permille;
            const QString phaseText = QString::fromUtf8(phase.data(), static_cast<qsizetype>(phase.size()));
            QMetaObject::invokeMethod(
                this,
                [this, generation, phaseText, fraction] {
                    if (generation == m_generation)
                        emit progress(phaseText, fraction);
                },
                Qt::QueuedConnection);
        };

        const auto begin = std::chrono::steady_clock::now();
        auto result = std::make_shared<Result>();
        result->reanalysis = reanalysis;
        result->load = load(options, report, stop);
        // The job's boundary: an analysis that does not fit in memory fails the load with a
        // message, and the profile shown before stays; never an abort.
        if (result->load.ok() && !stop.stop_requested()) {
            try {
                result->analysis = model::buildProfileAnalysis(
                    result->load.profile,
                    [&](std::string_view phase, double) { report(phase, 0.99); }, // reading was the 99 %
                    stop, model::AnalysisFor::Window);
            } catch (const std::bad_alloc&) {
                const std::string name = result->load.profile->load.path;
                result->load = model::LoadResult {nullptr, model::outOfMemoryMessage(name, options, "the analysis")};
            }
        }
        result->canceled = stop.stop_requested();
        result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        QMetaObject::invokeMethod(
            this, [this, generation, result] { deliver(generation, result); }, Qt::QueuedConnection);
    });
}

void TraceSession::deliver(quint64 generation, std::shared_ptr<Result> result)
{
    if (generation != m_generation)
        return; // superseded or cancelled
    m_loading = false;
    const bool previewShown = std::exchange(m_previewShown, false);
    if (result->canceled) {
        emit loadCanceled();
        if (previewShown)
            emit previewDropped();
        return;
    }
    if (!result->load.ok()) {
        QString message = QString::fromStdString(result->load.error);
        if (message.isEmpty())
            message = tr("The file could not be read.");
        emit loadFailed(m_loadingPath, message);
        if (previewShown)
            emit previewDropped();
        return;
    }
    m_profile = std::move(result->load.profile);
    m_analysis = std::move(result->analysis);
    m_path = m_loadingPath;
    if (!result->reanalysis)
        m_loadSeconds = result->seconds;
    emit loaded();
}

} // namespace tpuscope::qt
