// SPDX-License-Identifier: GPL-3.0-or-later
// Timeline frame-time benchmark: generates a profile of N events over 8 TPU cores directly
// through ProfileBuilder (no file), scripts 40 zoom steps and 40 pan steps on a 1600×900
// TimelineView, and prints one JSON line per case with frame-time percentiles:
//   wall_ms_*   the whole synchronous repaint() (paint + backing-store flush to the window system)
//   cpu_ms_*    the GUI thread's CPU time for it (not inflated by other processes' load)
//   frame_ms_*  paintEvent alone (TimelineView::framePainted), as the app's bench mode reports
// plus depth_index_ms (what the load job builds for the timeline), set_profile_ms (the GUI
// thread's part of showing the profile), first_frame_ms (the repaint right after setProfile, before the levels of
// detail are ready), lod_build_ms (worker time), lod_wait_ms (how long the script then waited
// for them) and bytes per event resident for the event columns and the timeline's indices.
//
//   bench_timeline [--events N]... [--screenshot DIR] [--sample FILE]
//
// Runs offscreen unless QT_QPA_PLATFORM says otherwise (e.g. under xvfb-run with xcb).
#include "timelineview.h"

#include "core/depthindex.h"
#include "core/profile.h"
#include "loader/loader.h"
#include "synth/benchinputs.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QScrollBar>
#include <QTest>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <vector>

using namespace tpuscope;
using model::TimePs;

namespace {

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t i = std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5));
    return v[i];
}

struct Frames
{
    std::vector<double> zoom, pan, geometry;
    std::vector<double> wall, cpu; // per frame, zoom then pan
    double lastPaint = 0;
};

double threadCpuMs()
{
    timespec t {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

/// One synchronous repaint. Returns paintEvent's own time (framePainted); records the wall time
/// of the whole repaint() (paint plus the backing store's flush to the window system) and the
/// thread CPU time it took (what the load of other processes cannot inflate).
double timedRepaint(widgets::TimelineView& view, Frames& f)
{
    QElapsedTimer wall;
    const double cpu0 = threadCpuMs();
    wall.start();
    view.viewport()->repaint();
    f.wall.push_back(wall.nsecsElapsed() / 1e6);
    f.cpu.push_back(threadCpuMs() - cpu0);
    return f.lastPaint;
}

/// 40 zoom steps into the middle (×0.8 each, down to ~1e-4 of the profile), then 40 pan steps
/// of 10 % of the window; each step is one synchronous repaint.
Frames script(widgets::TimelineView& view)
{
    Frames f;
    QObject::connect(&view, &widgets::TimelineView::framePainted, &view, [&](qint64 ns) { f.lastPaint = ns / 1e6; });
    view.resetZoom();
    auto [b, e] = view.visibleRange();
    const TimePs centre = b + (e - b) * 3 / 7; // off-centre so windows cut through events
    for (int i = 0; i < 40; ++i) {
        const auto [cb, ce] = view.visibleRange();
        const TimePs d = TimePs(double(ce - cb) * 0.8);
        view.setVisibleRange(centre - d / 2, centre - d / 2 + d);
        f.zoom.push_back(timedRepaint(view, f));
        if (qEnvironmentVariableIsSet("BENCH_TIMELINE_VERBOSE"))
            std::fprintf(stderr, "zoom %d: paint %.2f ms, wall %.2f ms, cpu %.2f ms, geometry %.2f ms, %zu rects\n", i,
                f.zoom.back(), f.wall.back(), f.cpu.back(), view.lastGeometryBuildNs() / 1e6, view.lastRectCount());
        f.geometry.push_back(view.lastGeometryBuildNs() / 1e6);
    }
    for (int i = 0; i < 40; ++i) {
        const auto [cb, ce] = view.visibleRange();
        const TimePs step = (ce - cb) / 10;
        view.setVisibleRange(cb + step, ce + step);
        f.pan.push_back(timedRepaint(view, f));
        f.geometry.push_back(view.lastGeometryBuildNs() / 1e6);
    }
    return f;
}

struct Extra
{
    double depthIndexMs = 0; // the load job's depth index (model::buildDepthIndex), off the GUI thread
    double setProfileMs = 0; // the GUI thread's part of showing the profile
    double firstFrameMs = 0; // the first repaint after setProfile (levels of detail still building)
    double lodWaitMs = 0; // how long the benchmark then waited for them
    double lodBuildMs = 0; // the worker's time building them
    double lodBytesPerEvent = 0;
    double residentBytesPerEvent = 0; // event columns + timeline indices + levels of detail
    double cachedMs = 0;
    size_t maxRects = 0;
};

void printCase(const char* name, size_t events, int cores, const Frames& f, const Extra& x)
{
    std::vector<double> all = f.zoom;
    all.insert(all.end(), f.pan.begin(), f.pan.end());
    std::printf("{\"bench\":\"timeline\",\"case\":\"%s\",\"events\":%zu,\"cores\":%d,\"width\":1600,\"height\":900,"
                "\"depth_index_ms\":%.1f,\"set_profile_ms\":%.1f,\"first_frame_ms\":%.1f,\"lod_wait_ms\":%.1f,\"lod_"
                "build_ms\":%.1f,"
                "\"lod_bytes_per_event\":%.2f,\"resident_bytes_per_event\":%.2f,\"frames\":%zu,"
                "\"wall_ms_p50\":%.2f,\"wall_ms_p95\":%.2f,\"wall_ms_max\":%.2f,\"cpu_ms_p50\":%.2f,"
                "\"cpu_ms_p95\":%.2f,\"frame_ms_p50\":%.2f,\"frame_ms_p95\":%.2f,"
                "\"frame_ms_max\":%.2f,\"zoom_ms_p50\":%.2f,\"zoom_ms_p95\":%.2f,\"pan_ms_p50\":%.2f,"
                "\"pan_ms_p95\":%.2f,\"geometry_ms_p50\":%.2f,\"geometry_ms_p95\":%.2f,"
                "\"cached_frame_ms_p50\":%.2f,\"max_rects\":%zu,\"platform\":\"%s\"}\n",
        name, events, cores, x.depthIndexMs, x.setProfileMs, x.firstFrameMs, x.lodWaitMs, x.lodBuildMs,
        x.lodBytesPerEvent, x.residentBytesPerEvent, all.size(), percentile(f.wall, 0.5), percentile(f.wall, 0.95),
        percentile(f.wall, 1.0), percentile(f.cpu, 0.5), percentile(f.cpu, 0.95), percentile(all, 0.5),
        percentile(all, 0.95), percentile(all, 1.0), percentile(f.zoom, 0.5), percentile(f.zoom, 0.95),
        percentile(f.pan, 0.5), percentile(f.pan, 0.95), percentile(f.geometry, 0.5), percentile(f.geometry, 0.95),
        x.cachedMs, x.maxRects, qPrintable(QGuiApplication::platformName()));
    std::fflush(stdout);
}

/// Event columns of the profile plus the timeline's indices and levels of detail, per event.
double residentBytesPerEvent(const model::Profile& p, const widgets::TimelineView& view)
{
    size_t bytes = view.geometryBuilder().indexBytes();
    for (const auto& t : p.tracks)
        bytes += t.start.capacity() * sizeof(TimePs) + t.duration.capacity() * sizeof(TimePs)
            + t.op.capacity() * sizeof(model::OpId) + t.depth.capacity() * sizeof(uint16_t);
    return double(bytes) / double(std::max<size_t>(1, p.eventCount()));
}

/// Lets the levels of detail finish (as they do while a user looks at the first frame) and says
/// how long that took.
void finishLevelsOfDetail(widgets::TimelineView& view, Extra& x)
{
    QElapsedTimer timer;
    timer.start();
    view.waitForLevelsOfDetail();
    x.lodWaitMs = timer.nsecsElapsed() / 1e6;
    x.lodBuildMs = view.geometryBuilder().lodBuildNs() / 1e6;
    const size_t events = view.profile() ? view.profile()->eventCount() : 0;
    x.lodBytesPerEvent = double(view.geometryBuilder().lodBytes()) / double(std::max<size_t>(1, events));
}

/// The view with its search bar and legend, as the main window will show them.
struct Window
{
    QWidget root;
    widgets::TimelineView* view;
    widgets::TimelineSearch* search;
    Window()
    {
        auto* layout = new QVBoxLayout(&root);
        layout->setContentsMargins(0, 0, 0, 0);
        view = new widgets::TimelineView;
        search = new widgets::TimelineSearch(view);
        layout->addWidget(search);
        layout->addWidget(view, 1);
        layout->addWidget(view->legendWidget());
        root.resize(1600, 900);
        root.show();
        // repaint() does nothing until the window is exposed.
        if (!QTest::qWaitForWindowExposed(&root))
            std::fprintf(stderr, "window was not exposed; frame times will be empty\n");
    }
};

void save(QWidget& w, const QString& dir, const QString& name)
{
    QApplication::processEvents();
    const QString path = dir + QStringLiteral("/timeline_") + name + QStringLiteral(".png");
    if (!w.grab().save(path))
        std::fprintf(stderr, "could not write %s\n", qPrintable(path));
    else
        std::fprintf(stderr, "wrote %s\n", qPrintable(path));
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    std::vector<size_t> sizes;
    QString screenshotDir;
    std::string sample;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--events" && i + 1 < argc)
            sizes.push_back(size_t(std::stod(argv[++i])));
        else if (arg == "--screenshot" && i + 1 < argc)
            screenshotDir = QString::fromLocal8Bit(argv[++i]);
        else if (arg == "--sample" && i + 1 < argc)
            sample = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [--events N]... [--screenshot DIR] [--sample FILE]\n", argv[0]);
            return 2;
        }
    }
    if (sizes.empty() && sample.empty())
        sizes = {1'000'000, 10'000'000};

    if (!sample.empty()) {
        const auto result = model::loadProfile(sample);
        if (!result.ok()) {
            std::fprintf(stderr, "%s\n", result.error.c_str());
            return 1;
        }
        Window w;
        Extra x;
        QElapsedTimer timer;
        timer.start();
        auto index = std::make_shared<const model::DepthIndex>(model::buildDepthIndex(*result.profile));
        x.depthIndexMs = timer.nsecsElapsed() / 1e6;
        timer.restart();
        w.view->setProfile(result.profile, nullptr, index);
        x.setProfileMs = timer.nsecsElapsed() / 1e6;
        timer.restart();
        w.view->viewport()->repaint();
        x.firstFrameMs = timer.nsecsElapsed() / 1e6;
        finishLevelsOfDetail(*w.view, x);
        if (!screenshotDir.isEmpty()) {
            save(w.root, screenshotDir, QStringLiteral("sample_full"));
            const auto [b, e] = w.view->visibleRange();
            w.view->setVisibleRange(b + (e - b) * 45 / 100, b + (e - b) * 46 / 100);
            save(w.root, screenshotDir, QStringLiteral("sample_zoom"));
            w.search->setText(QStringLiteral("fusion"));
            w.search->search();
            w.search->next();
            const auto [track, event] = w.view->selectedEvent();
            if (track != model::kNone) // a profile without fusions has nothing to highlight
                w.view->setHighlightedOp(result.profile->tracks[track].op[event]);
            const auto [sb, se] = w.view->visibleRange();
            w.view->selectRange(sb + (se - sb) / 4, sb + (se - sb) / 2);
            w.view->setColorMode(widgets::TimelineView::ColorMode::FlopsUtilization);
            save(w.root, screenshotDir, QStringLiteral("sample_util"));
            w.view->setColorMode(widgets::TimelineView::ColorMode::Category);
            for (int g = 0; g < w.view->groupNames().size(); ++g)
                w.view->setGroupCollapsed(g, g < 3);
            w.view->resetZoom();
            save(w.root, screenshotDir, QStringLiteral("sample_host"));
        }
        Frames f = script(*w.view);
        x.maxRects = w.view->lastRectCount();
        x.residentBytesPerEvent = residentBytesPerEvent(*result.profile, *w.view);
        printCase("sample", result.profile->eventCount(), result.profile->device.cores, f, x);
    }

    for (size_t n : sizes) {
        QElapsedTimer timer;
        timer.start();
        const auto profile = model::benchTimelineProfile(n, 8);
        const double genMs = timer.nsecsElapsed() / 1e6;
        Window w;
        Extra x;
        timer.restart();
        auto index = std::make_shared<const model::DepthIndex>(model::buildDepthIndex(*profile));
        x.depthIndexMs = timer.nsecsElapsed() / 1e6;
        timer.restart();
        w.view->setProfile(profile, nullptr, index);
        x.setProfileMs = timer.nsecsElapsed() / 1e6;
        std::fprintf(stderr, "generated %zu events in %.0f ms\n", n, genMs);
        timer.restart();
        w.view->viewport()->repaint();
        x.firstFrameMs = timer.nsecsElapsed() / 1e6;
        finishLevelsOfDetail(*w.view, x);
        if (!screenshotDir.isEmpty()) {
            const QString tag = QStringLiteral("synth_%1").arg(n);
            save(w.root, screenshotDir, tag + QStringLiteral("_full"));
        }
        Frames f = script(*w.view);
        x.maxRects = w.view->lastRectCount();
        // A repaint with unchanged geometry (hover, selection) costs only the drawing.
        double cached = 0;
        QObject::connect(w.view, &widgets::TimelineView::framePainted, w.view, [&](qint64 ns) { cached = ns / 1e6; });
        std::vector<double> cachedFrames;
        for (int i = 0; i < 20; ++i) {
            w.view->viewport()->repaint();
            cachedFrames.push_back(cached);
        }
        w.view->resetZoom();
        w.view->viewport()->repaint();
        x.maxRects = std::max(x.maxRects, w.view->lastRectCount());
        x.cachedMs = percentile(cachedFrames, 0.5);
        x.residentBytesPerEvent = residentBytesPerEvent(*profile, *w.view);
        printCase("synthetic", n, 8, f, x);
        if (!screenshotDir.isEmpty()) {
            const QString tag = QStringLiteral("synth_%1").arg(n);
            const auto [b, e] = w.view->visibleRange();
            w.view->setVisibleRange(b + (e - b) / 2, b + (e - b) / 2 + (e - b) / 2000);
            save(w.root, screenshotDir, tag + QStringLiteral("_zoom"));
            w.view->setVisibleRange(b + (e - b) / 2, b + (e - b) / 2 + (e - b) / 200000);
            save(w.root, screenshotDir, tag + QStringLiteral("_deep"));
        }
    }
    return 0;
}
