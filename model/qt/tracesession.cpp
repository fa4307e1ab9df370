// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracesession.h"

#include <QMetaObject>

#include <atomic>
#include <chrono>

namespace tpuscope::qt {

struct TraceSession::Result
{
    model::LoadResult load;
    std::shared_ptr<const model::OpBreakdown> breakdown;
    std::shared_ptr<const model::StepAnalysis> steps;
    std::shared_ptr<const model::AdviceReport> advice;
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
    for (Job& job : m_jobs)
        job.thread.request_stop();
    m_jobs.clear(); // joins
}

void TraceSession::open(const QString& path)
{
    const std::string file = path.toStdString();
    start(path, [file](const model::LoadOptions& options, const model::ProgressFn& progress, std::stop_token stop) {
        return model::loadProfile(file, options, progress, stop);
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

void TraceSession::chooseDevice(const QString& generation)
{
    m_options.deviceOverride = generation.toStdString();
    if (!m_profile || m_loading)
        return; // a running load finishes with its own options; the next one uses this
    model::ProfilePtr shown = m_profile;
    const std::string device = m_options.deviceOverride;
    start(
        m_path,
        [shown, device](const model::LoadOptions&, const model::ProgressFn& progress, std::stop_token) {
            progress("Applying the device", 0.5);
            model::LoadResult result;
            result.profile = model::withDevice(*shown, device);
            return result;
        },
        true);
}

void TraceSession::cancel()
{
    if (!m_loading)
        return;
    m_stop.request_stop();
    ++m_generation;
    m_loading = false;
    emit loadCanceled();
}

void TraceSession::close()
{
    cancel();
    m_profile.reset();
    m_breakdown.reset();
    m_steps.reset();
    m_advice.reset();
    m_path.clear();
    m_loadSeconds = 0;
}

void TraceSession::start(const QString& name,
    std::function<model::LoadResult(const model::LoadOptions&, const model::ProgressFn&, std::stop_token)> load,
    bool reanalysis)
{
    reapFinished();
    if (m_loading)
        m_stop.request_stop(); // superseded: its result will carry a stale generation
    const quint64 generation = ++m_generation;
    m_stop = std::stop_source();
    m_loading = true;
    m_loadingPath = name;
    if (!reanalysis) // the shown profile stays on screen while its numbers are recomputed
        emit loadStarted(name);

    auto finished = std::make_shared<std::atomic_bool>(false);
    // The thread gets the session's stop token rather than its own, so cancel() reaches it;
    // the destructor stops it through the jthread's token, which we forward too.
    std::stop_token stop = m_stop.get_token();
    model::LoadOptions options = m_options;
    options.preview = [this, generation](model::ProfilePtr partial) {
        QMetaObject::invokeMethod(
            this,
            [this, generation, partial = std::move(partial)] {
                if (generation == m_generation && m_loading)
                    emit previewReady(partial);
            },
            Qt::QueuedConnection);
    };
    Job job;
    job.finished = finished;
    job.thread = std::jthread(
        [this, generation, stop, options, load = std::move(load), finished, reanalysis](std::stop_token own) {
            std::stop_source combined;
            std::stop_callback forwardSession(stop, [&combined] { combined.request_stop(); });
            std::stop_callback forwardOwn(own, [&combined] { combined.request_stop(); });

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
            result->load = load(options, report, combined.get_token());
            if (result->load.ok() && !combined.stop_requested()) {
                report("Analysing ops", 0.99);
                result->breakdown
                    = std::make_shared<const model::OpBreakdown>(model::computeOpBreakdown(*result->load.profile));
                result->steps
                    = std::make_shared<const model::StepAnalysis>(model::computeSteps(*result->load.profile));
                result->advice = std::make_shared<const model::AdviceReport>(
                    model::computeAdvice(*result->load.profile, *result->breakdown, *result->steps));
            }
            result->canceled = combined.stop_requested();
            result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
            QMetaObject::invokeMethod(
                this, [this, generation, result] { deliver(generation, result); }, Qt::QueuedConnection);
            finished->store(true);
        });
    m_jobs.push_back(std::move(job));
}

void TraceSession::deliver(quint64 generation, std::shared_ptr<Result> result)
{
    reapFinished();
    if (generation != m_generation)
        return; // superseded or cancelled
    m_loading = false;
    if (result->canceled) {
        emit loadCanceled();
        return;
    }
    if (!result->load.ok()) {
        QString message = QString::fromStdString(result->load.error);
        if (message.isEmpty())
            message = tr("The file could not be read.");
        emit loadFailed(m_loadingPath, message);
        return;
    }
    m_profile = std::move(result->load.profile);
    m_breakdown = std::move(result->breakdown);
    m_steps = std::move(result->steps);
    m_advice = std::move(result->advice);
    m_path = m_loadingPath;
    if (!result->reanalysis)
        m_loadSeconds = result->seconds;
    emit loaded();
}

void TraceSession::reapFinished()
{
    std::erase_if(m_jobs, [](Job& job) { return job.finished->load(); }); // joins threads that are done
}

} // namespace tpuscope::qt
