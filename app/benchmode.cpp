// SPDX-License-Identifier: GPL-3.0-or-later
#include "benchmode.h"

#include "mainwindow.h"

#include "advicepanel.h"
#include "analysis/advice.h"
#include "analysis/opbreakdown.h"
#include "qt/optreemodel.h"
#include "qt/tracesession.h"
#include "timelineview.h"

#include <QApplication>
#include <QEventLoop>
#include <QTimer>
#include <QWheelEvent>
#include <QWindow>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

namespace tpuscope::app {

namespace {

qint64 steadyNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

long statusKb(const char* key)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    const size_t length = std::strlen(key);
    while (std::getline(status, line))
        if (line.compare(0, length, key) == 0)
            return std::atol(line.c_str() + length);
    return 0;
}

/// VmHWM back to the current RSS, so the peak we read later is the load's own.
void resetPeakRss()
{
    const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    [[maybe_unused]] const ssize_t written = ::write(fd, "5", 1);
    ::close(fd);
}

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const size_t i = std::min(values.size() - 1, static_cast<size_t>(p * double(values.size() - 1) + 0.5));
    return values[i];
}

struct Options
{
    QString file;
    int steps = 40;
    int width = 1600, height = 900;
    double timeoutSeconds = 1800;
};

/// One flat JSON object, keys in insertion order.
class JsonLine
{
public:
    void add(const char* key, double value, int decimals)
    {
        char text[64];
        if (std::isfinite(value))
            std::snprintf(text, sizeof text, "%.*f", decimals, value);
        else
            std::snprintf(text, sizeof text, "null");
        raw(key, text);
    }
    void add(const char* key, long long value) { raw(key, std::to_string(value)); }
    void add(const char* key, const std::string& value)
    {
        std::string quoted = "\"";
        for (const char c : value) {
            if (c == '"' || c == '\\') {
                quoted += '\\';
                quoted += c;
            } else if (static_cast<unsigned char>(c) < 0x20) {
                char escape[8];
                std::snprintf(escape, sizeof escape, "\\u%04x", c);
                quoted += escape;
            } else {
                quoted += c;
            }
        }
        raw(key, quoted + '"');
    }
    std::string text() const { return "{" + m_body + "}"; }

private:
    void raw(const char* key, const std::string& value)
    {
        if (!m_body.empty())
            m_body += ',';
        m_body += '"';
        m_body += key;
        m_body += "\":";
        m_body += value;
    }
    std::string m_body;
};

/// Drives one measured run. Frames are observed with an application event filter: the window's
/// Expose and UpdateRequest events (where Qt paints the dirty widgets and flushes the backing
/// store) are re-dispatched from inside the filter, so the time after the dispatch returns is the
/// moment the frame was handed to the window system.
class BenchRun : public QObject
{
public:
    BenchRun(Options options, qint64 mainNs)
        : m_options(std::move(options))
        , m_mainNs(mainNs)
    {
    }

    int exec();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Step
    {
        double frameMs = 0; // input event → frame handed to the window system
        double paintMs = 0; // TimelineView::paintEvent alone (framePainted)
        double intervalMs = 0; // since the previous step's frame
        double inputMs = 0; // the wheel event's synchronous handling (range change and its listeners)
        bool zoom = true;
    };

    double sinceMain(qint64 ns) const { return ns > 0 ? (ns - m_mainNs) / 1e9 : std::nan(""); }
    void onFrameEnd(qint64 endNs, bool timelinePainted, bool previewPainted, bool anyPaint);
    void onTimelinePainted(qint64 ns);
    bool waitFor(const std::function<bool()>& done, double seconds);
    void wake()
    {
        if (m_loop)
            m_loop->quit();
    }
    int fail(int code, const QString& message);
    bool runStep(bool zoom, Step& step);
    bool timeForDiagnostics(QObject* watched, QEvent* event, QObject*& guard, double minMs);

    Options m_options;
    const qint64 m_mainNs;
    const bool m_verbose = qEnvironmentVariableIsSet("TPUSCOPE_BENCH_VERBOSE");
    MainWindow* m_window = nullptr;
    widgets::TimelineView* m_timeline = nullptr;
    qt::TraceSession* m_session = nullptr;
    QEventLoop* m_loop = nullptr;

    int m_dispatching = 0;
    bool m_paintInFrame = false;
    bool m_timelineInFrame = false; // the timeline painted the complete profile
    bool m_previewInFrame = false; // it painted a partial profile (TraceSession::previewReady)
    bool m_stepRunning = false;
    // TPUSCOPE_BENCH_VERBOSE: where a step's time went (events ≥ 0.5 ms, paints ≥ 0.3 ms).
    QString m_diagnostics;
    QObject* m_timedPaint = nullptr;
    QObject* m_timedEvent = nullptr;

    qint64 m_openNs = 0;
    qint64 m_loadedNs = 0; // loaded() handled: every view has the profile
    qint64 m_firstFrameNs = 0;
    qint64 m_firstPaintNs = 0;
    qint64 m_firstPreviewNs = 0;
    long long m_firstPreviewEvents = 0;
    int m_previewFrames = 0;
    double m_firstPaintPaintMs = 0;
    qint64 m_adviceReadyNs = 0;
    bool m_failed = false;
    QString m_error;
    int m_frames = 0;
    int m_loadingFrames = 0;

    // Last timeline paint with a profile, and the last frame that carried one.
    qint64 m_lastPaintNs = 0;
    std::pair<model::TimePs, model::TimePs> m_lastPaintRange {0, 0};
    qint64 m_lastTimelineFrameNs = 0;
    std::pair<model::TimePs, model::TimePs> m_lastFrameRange {0, 0};
};

bool BenchRun::eventFilter(QObject* watched, QEvent* event)
{
    const QEvent::Type type = event->type();
    if (type == QEvent::Paint) {
        if (m_dispatching > 0) {
            m_paintInFrame = true;
            if (m_verbose && m_stepRunning && m_timedPaint != watched)
                return timeForDiagnostics(watched, event, m_timedPaint, 0.3);
        }
        return false;
    }
    const bool frame = m_dispatching == 0 && m_window != nullptr
        && (type == QEvent::UpdateRequest || type == QEvent::Expose)
        && (watched == m_window || watched == m_window->windowHandle());
    if (!frame) {
        // Diagnostics: during a step, whatever else the GUI thread spends time on.
        if (m_verbose && m_stepRunning && m_dispatching == 0 && m_timedEvent == nullptr)
            return timeForDiagnostics(watched, event, m_timedEvent, 0.5);
        return false;
    }
    ++m_dispatching;
    m_paintInFrame = false;
    m_timelineInFrame = false;
    m_previewInFrame = false;
    const qint64 begin = steadyNs();
    QCoreApplication::sendEvent(watched, event);
    const double ms = (steadyNs() - begin) / 1e6;
    --m_dispatching;
    if (m_verbose && m_stepRunning && (m_paintInFrame || m_timelineInFrame))
        m_diagnostics += QStringLiteral("[window update %1 ms] ").arg(ms, 0, 'f', 1);
    onFrameEnd(steadyNs(), m_timelineInFrame, m_previewInFrame, m_paintInFrame);
    return true; // delivered above
}

bool BenchRun::timeForDiagnostics(QObject* watched, QEvent* event, QObject*& guard, double minMs)
{
    guard = watched;
    const int type = event->type();
    const qint64 begin = steadyNs();
    QCoreApplication::sendEvent(watched, event);
    const double ms = (steadyNs() - begin) / 1e6;
    guard = nullptr;
    if (ms >= minMs) // `watched` may be gone (DeferredDelete): print the type only
        m_diagnostics
            += QStringLiteral("%1 event %2: %3 ms, ")
                   .arg(type == QEvent::DeferredDelete ? QStringLiteral("(deleted)")
                                                       : QString::fromLatin1(watched->metaObject()->className()))
                   .arg(type)
                   .arg(ms, 0, 'f', 1);
    return true;
}

void BenchRun::onTimelinePainted(qint64 paintNs)
{
    const model::ProfilePtr shown = m_timeline->profile();
    if (!shown)
        return;
    const bool complete = m_loadedNs != 0 && shown == m_session->profile();
    if (!complete && m_firstPreviewEvents == 0)
        m_firstPreviewEvents = static_cast<long long>(shown->eventCount());
    m_lastPaintNs = paintNs;
    m_lastPaintRange = m_timeline->visibleRange();
    if (m_dispatching > 0) {
        (complete ? m_timelineInFrame : m_previewInFrame) = true;
    } else { // painted outside a window update (a direct repaint()): the paint is the frame
        if (m_verbose)
            std::fprintf(stderr, "timeline painted outside a window update\n");
        onFrameEnd(steadyNs(), complete, !complete, true);
    }
}

void BenchRun::onFrameEnd(qint64 endNs, bool timelinePainted, bool previewPainted, bool anyPaint)
{
    if (!anyPaint && !timelinePainted && !previewPainted)
        return;
    ++m_frames;
    if (m_firstFrameNs == 0)
        m_firstFrameNs = endNs;
    if (m_loadedNs == 0)
        ++m_loadingFrames;
    if (previewPainted) {
        ++m_previewFrames;
        if (m_firstPreviewNs == 0)
            m_firstPreviewNs = endNs;
    }
    if (timelinePainted) {
        if (m_firstPaintNs == 0) {
            m_firstPaintNs = endNs;
            m_firstPaintPaintMs = m_lastPaintNs / 1e6;
        }
        m_lastTimelineFrameNs = endNs;
        m_lastFrameRange = m_lastPaintRange;
    }
    wake();
}

bool BenchRun::waitFor(const std::function<bool()>& done, double seconds)
{
    const qint64 deadline = steadyNs() + static_cast<qint64>(seconds * 1e9);
    while (!done()) {
        if (m_failed)
            return false;
        const qint64 left = deadline - steadyNs();
        if (left <= 0)
            return false;
        QEventLoop loop;
        m_loop = &loop;
        QTimer::singleShot(static_cast<int>(std::clamp<qint64>(left / 1'000'000, 1, 250)), &loop, &QEventLoop::quit);
        loop.exec();
        m_loop = nullptr;
    }
    return true;
}

int BenchRun::fail(int code, const QString& message)
{
    std::fprintf(stderr, "tpuscope: --bench-load %s: %s\n", qPrintable(m_options.file), qPrintable(message));
    return code;
}

bool BenchRun::runStep(bool zoom, Step& step)
{
    QWidget* viewport = m_timeline->viewport();
    const QPointF pos(m_timeline->eventAreaLeft() + m_timeline->eventAreaWidth() / 2.0, viewport->height() / 2.0);
    // Ctrl+wheel up zooms in around the pointer (×0.8); Shift+wheel down pans right by 10 %.
    const QPoint angle(0, zoom ? 120 : -120);
    QWheelEvent wheel(pos, viewport->mapToGlobal(pos), QPoint(), angle, Qt::NoButton,
        zoom ? Qt::ControlModifier : Qt::ShiftModifier, Qt::NoScrollPhase, false);
    const auto before = m_timeline->visibleRange();
    m_diagnostics.clear();
    m_stepRunning = true;
    const qint64 inputNs = steadyNs();
    QCoreApplication::sendEvent(viewport, &wheel);
    step.inputMs = (steadyNs() - inputNs) / 1e6;
    const auto wanted = m_timeline->visibleRange();
    if (wanted == before) {
        m_stepRunning = false;
        return false; // at a limit: nothing to draw
    }
    const qint64 previous = m_lastTimelineFrameNs;
    const bool drawn = waitFor([&] { return m_lastTimelineFrameNs > inputNs && m_lastFrameRange == wanted; }, 10);
    m_stepRunning = false;
    if (!drawn)
        return false;
    step.zoom = zoom;
    step.frameMs = (m_lastTimelineFrameNs - inputNs) / 1e6;
    step.paintMs = m_lastPaintNs / 1e6;
    step.intervalMs = (m_lastTimelineFrameNs - previous) / 1e6;
    return true;
}

int BenchRun::exec()
{
    MainWindow window(MainWindow::Options {false, false});
    m_window = &window;
    m_timeline = window.timeline();
    qt::TraceSession* session = window.session();
    m_session = session;
    connect(m_timeline, &widgets::TimelineView::framePainted, this, [this](qint64 ns) { onTimelinePainted(ns); });
    connect(session, &qt::TraceSession::loaded, this, [this] {
        m_loadedNs = steadyNs(); // after MainWindow::onLoaded: the op table and views have the profile
        m_window->showTimelineTab(); // a load lands on the Overview; the benchmark measures the timeline
        wake();
    });
    connect(session, &qt::TraceSession::loadFailed, this, [this](const QString&, const QString& message) {
        m_failed = true;
        m_error = message;
        wake();
    });
    connect(session, &qt::TraceSession::loadCanceled, this, [this] {
        m_failed = true;
        m_error = QStringLiteral("loading was cancelled");
        wake();
    });
    if (auto* advice = qobject_cast<widgets::AdvicePanel*>(window.viewWidget(QStringLiteral("advice"))))
        connect(advice, &widgets::AdvicePanel::adviceReady, this, [this] {
            // The panel shows the session's advice while MainWindow handles loaded(), before our
            // own loaded() handler runs: any advice after the open counts.
            if (m_adviceReadyNs == 0 && m_openNs != 0)
                m_adviceReadyNs = steadyNs();
            wake();
        });
    qApp->installEventFilter(this);

    // As main() does for a file argument: show the window, then open the file at once, so the
    // first paint and the load overlap as they do for a user.
    window.resize(m_options.width, m_options.height);
    window.show();
    const long baselineKb = statusKb("VmRSS:");
    resetPeakRss();
    m_openNs = steadyNs();
    window.openFile(m_options.file);

    const double deadline = m_options.timeoutSeconds;
    auto left = [&] { return deadline - sinceMain(steadyNs()); };
    if (!waitFor([&] { return m_loadedNs != 0; }, left())) {
        qApp->removeEventFilter(this);
        if (m_failed)
            return fail(1, QStringLiteral("cannot open: %1").arg(m_error));
        return fail(3, QStringLiteral("timed out waiting for the profile"));
    }
    const model::ProfilePtr profile = session->profile();
    if (!profile) {
        qApp->removeEventFilter(this);
        return fail(1, QStringLiteral("no profile after loading"));
    }
    if (!waitFor([&] { return m_firstPaintNs != 0; }, left())) {
        qApp->removeEventFilter(this);
        return fail(3, QStringLiteral("timed out waiting for the first timeline paint"));
    }
    // "Resident after load": the profile, the views' caches and the first frame.
    const long residentKb = statusKb("VmRSS:");
    const long peakKb = std::max(statusKb("VmHWM:"), residentKb);

    // The advice panel shows the session's advice once it is loaded; wait for it so the frames are
    // not measured against its first layout (the time it took is reported).
    waitFor([&] { return m_adviceReadyNs != 0; }, std::min(120.0, left()));

    std::vector<Step> steps;
    int noop = 0, missed = 0;
    for (int i = 0; i < 2 * m_options.steps && left() > 0; ++i) {
        Step step;
        const bool zoom = i < m_options.steps;
        const auto before = m_timeline->visibleRange();
        if (runStep(zoom, step)) {
            steps.push_back(step);
            if (m_verbose)
                std::fprintf(stderr, "%s %d: frame %.2f ms, input %.2f ms, timeline paint %.2f ms, rects %zu; %s\n",
                    zoom ? "zoom" : "pan", i, step.frameMs, step.inputMs, step.paintMs, m_timeline->lastRectCount(),
                    qPrintable(m_diagnostics));
        } else if (m_timeline->visibleRange() == before)
            ++noop;
        else
            ++missed;
    }
    qApp->removeEventFilter(this);

    // The op table and advice recomputed over the loaded profile, timed alone.
    qint64 t = steadyNs();
    auto breakdown = std::make_shared<const model::OpBreakdown>(model::computeOpBreakdown(*profile));
    const double breakdownS = (steadyNs() - t) / 1e9;
    t = steadyNs();
    const model::AdviceReport advice = model::computeAdvice(*profile, *breakdown);
    const double adviceS = (steadyNs() - t) / 1e9;
    t = steadyNs();
    {
        qt::OpTreeModel tree;
        tree.setAnalysis(session->analysis());
    }
    const double opModelS = (steadyNs() - t) / 1e9;

    std::vector<double> frame, paint, input, interval, zoomFrame, panFrame;
    for (size_t i = 0; i < steps.size(); ++i) {
        frame.push_back(steps[i].frameMs);
        paint.push_back(steps[i].paintMs);
        input.push_back(steps[i].inputMs);
        if (i > 0)
            interval.push_back(steps[i].intervalMs);
        (steps[i].zoom ? zoomFrame : panFrame).push_back(steps[i].frameMs);
    }
    const double events = static_cast<double>(profile->eventCount());
    const double perEvent = events > 0 ? 1024.0 / events : 0;
    JsonLine out;
    out.add("bench", std::string("app"));
    out.add("file", m_options.file.toStdString());
    out.add("format", profile->load.format);
    out.add("platform", QGuiApplication::platformName().toStdString());
    out.add("events", static_cast<long long>(profile->eventCount()));
    out.add("file_bytes", static_cast<long long>(profile->load.fileBytes));
    out.add("decoded_bytes", static_cast<long long>(profile->load.decodedBytes));
    out.add("main_steady_ns", static_cast<long long>(m_mainNs));
    out.add("open_s", sinceMain(m_openNs), 4);
    out.add("open_to_model_s", session->loadSeconds(), 4);
    out.add("load_s", profile->load.seconds, 4);
    out.add("model_ready_s", sinceMain(m_openNs) + session->loadSeconds(), 4);
    out.add("views_ready_s", sinceMain(m_loadedNs), 4);
    out.add("first_frame_s", sinceMain(m_firstFrameNs), 4);
    out.add("first_paint_s", sinceMain(m_firstPaintNs), 4);
    out.add("first_timeline_paint_ms", m_firstPaintPaintMs, 2);
    // A partial profile drawn while the rest loads (null when the load was too quick for one).
    out.add("first_preview_s", sinceMain(m_firstPreviewNs), 4);
    out.add("first_preview_events", m_firstPreviewEvents);
    out.add("preview_frames", static_cast<long long>(m_previewFrames));
    out.add("first_events_s",
        m_firstPreviewNs ? sinceMain(std::min(m_firstPreviewNs, m_firstPaintNs)) : sinceMain(m_firstPaintNs), 4);
    out.add("loading_frames", static_cast<long long>(m_loadingFrames));
    out.add("advice_ready_s", sinceMain(m_adviceReadyNs), 4);
    out.add("baseline_rss_mb", baselineKb / 1024.0, 1);
    out.add("resident_bytes", (residentKb - baselineKb) * 1024LL);
    out.add("peak_bytes", (peakKb - baselineKb) * 1024LL);
    out.add("resident_b_per_event", (residentKb - baselineKb) * perEvent, 1);
    out.add("peak_b_per_event", (peakKb - baselineKb) * perEvent, 1);
    out.add("peak_minus_resident_mb", (peakKb - residentKb) / 1024.0, 1);
    out.add("rss_end_mb", statusKb("VmRSS:") / 1024.0, 1);
    out.add("steps", static_cast<long long>(2 * m_options.steps));
    out.add("frames", static_cast<long long>(steps.size()));
    out.add("noop_steps", static_cast<long long>(noop));
    out.add("missed_frames", static_cast<long long>(missed));
    out.add("frame_p50_ms", percentile(frame, 0.5), 2);
    out.add("frame_p95_ms", percentile(frame, 0.95), 2);
    out.add("frame_max_ms", percentile(frame, 1), 2);
    out.add("zoom_frame_p95_ms", percentile(zoomFrame, 0.95), 2);
    out.add("pan_frame_p95_ms", percentile(panFrame, 0.95), 2);
    out.add("paint_p50_ms", percentile(paint, 0.5), 2);
    out.add("paint_p95_ms", percentile(paint, 0.95), 2);
    out.add("paint_max_ms", percentile(paint, 1), 2);
    out.add("input_p50_ms", percentile(input, 0.5), 2);
    out.add("input_p95_ms", percentile(input, 0.95), 2);
    out.add("interval_p50_ms", percentile(interval, 0.5), 2);
    out.add("interval_p95_ms", percentile(interval, 0.95), 2);
    out.add("breakdown_s", breakdownS, 4);
    out.add("advice_s", adviceS, 4);
    out.add("op_table_s", breakdownS + adviceS, 4);
    out.add("op_model_s", opModelS, 4);
    out.add("advice_items", static_cast<long long>(advice.advice.size()));
    out.add("window_width", static_cast<long long>(window.width()));
    out.add("window_height", static_cast<long long>(window.height()));
    out.add("timeline_width", static_cast<long long>(m_timeline->viewport()->width()));
    out.add("timeline_height", static_cast<long long>(m_timeline->viewport()->height()));
    std::printf("%s\n", out.text().c_str());
    std::fflush(stdout);
    m_window = nullptr;
    return 0;
}

bool parseOptions(int argc, char** argv, Options& options, QString& error)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--bench-load" && hasValue) {
            options.file = QString::fromLocal8Bit(argv[++i]);
        } else if (arg == "--bench-steps" && hasValue) {
            options.steps = std::atoi(argv[++i]);
            if (options.steps < 1 || options.steps > 10000) {
                error = QStringLiteral("--bench-steps needs a number from 1 to 10000");
                return false;
            }
        } else if (arg == "--bench-size" && hasValue) {
            if (std::sscanf(argv[++i], "%dx%d", &options.width, &options.height) != 2 || options.width < 200
                || options.height < 200 || options.width > 10000 || options.height > 10000) {
                error = QStringLiteral("--bench-size needs WxH, e.g. 1600x900");
                return false;
            }
        } else if (arg == "--bench-timeout" && hasValue) {
            options.timeoutSeconds = std::atof(argv[++i]);
            if (!(options.timeoutSeconds > 0)) {
                error = QStringLiteral("--bench-timeout needs a positive number of seconds");
                return false;
            }
        } else if (arg == "-platform" && hasValue) {
            ++i; // Qt's own option, handled by QApplication
        } else {
            error = QStringLiteral("unknown argument \"%1\"; usage: tpuscope --bench-load FILE [--bench-steps N] "
                                   "[--bench-size WxH] [--bench-timeout SECONDS]")
                        .arg(QString::fromLocal8Bit(argv[i]));
            return false;
        }
    }
    if (options.file.isEmpty()) {
        error = QStringLiteral("--bench-load needs a FILE");
        return false;
    }
    return true;
}

} // namespace

bool isBenchMode(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--bench-load") == 0)
            return true;
    return false;
}

int runBenchMode(int argc, char** argv)
{
    const qint64 mainNs = steadyNs();
    Options options;
    QString error;
    if (!parseOptions(argc, argv, options, error)) {
        std::fprintf(stderr, "tpuscope: %s\n", qPrintable(error));
        return 2;
    }
    // Like --screenshot: without a display, measure on the offscreen platform.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
        && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    // Settings are neither read nor written (MainWindow::Options), but keep any QSettings use
    // away from the user's own file.
    QCoreApplication::setOrganizationName(QStringLiteral("tpuscope-bench"));
    QCoreApplication::setApplicationName(QStringLiteral("tpuscope-bench"));
    BenchRun run(options, mainNs);
    return run.exec();
}

} // namespace tpuscope::app
