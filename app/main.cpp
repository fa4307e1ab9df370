// SPDX-License-Identifier: GPL-3.0-or-later
#include "appearance.h"
#include "benchmode.h"
#include "mainwindow.h"
#include "qt/colors.h"
#include "qt/logging.h"
#include "screenshot.h"

#include "core/atomicfile.h"
#include "qt/tracesession.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QEventLoop>
#include <QSettings>
#include <QTextStream>

#include <cstring>

using tpuscope::app::MainWindow;

namespace {

bool wantsScreenshot(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--screenshot") == 0 || std::strncmp(argv[i], "--screenshot=", 13) == 0)
            return true;
    }
    return false;
}

int fail(const QString& message, int code)
{
    QTextStream(stderr) << "tpuscope: " << message << Qt::endl;
    return code;
}

/// Waits for the window's load to end; true when a profile arrived.
bool waitForLoad(MainWindow& window, QString* error)
{
    tpuscope::qt::TraceSession* session = window.session();
    if (!session->isLoading())
        return session->profile() != nullptr;
    QEventLoop loop;
    bool ok = false;
    QObject::connect(session, &tpuscope::qt::TraceSession::loaded, &loop, [&] {
        ok = true;
        loop.quit();
    });
    QObject::connect(
        session, &tpuscope::qt::TraceSession::loadFailed, &loop, [&](const QString&, const QString& message) {
            *error = message;
            loop.quit();
        });
    QObject::connect(session, &tpuscope::qt::TraceSession::loadCanceled, &loop, [&] {
        *error = QStringLiteral("loading was cancelled");
        loop.quit();
    });
    loop.exec();
    return ok;
}

} // namespace

int main(int argc, char** argv)
{
    // `--bench-load FILE`: the benchmark's measured run (app/benchmode.h); it times from here.
    if (tpuscope::app::isBenchMode(argc, argv))
        return tpuscope::app::runBenchMode(argc, argv);

    // Screenshots must work over ssh and in CI: without a display, use the offscreen platform.
    // This has to happen before QApplication picks a platform plugin.
    if (wantsScreenshot(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")
        && qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("tpuscope"));
    QCoreApplication::setApplicationName(QStringLiteral("tpuscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TPUSCOPE_VERSION));
    tpuscope::qt::installCoreLogBridge();

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Viewer for TPU (XLA) profiles."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("files"),
        QStringLiteral("Profiles or TensorBoard log directories to open."), QStringLiteral("[FILE|DIR ...]"));
    const QCommandLineOption demoOption(QStringLiteral("demo"), QStringLiteral("Open the bundled demo profile."));
    const QCommandLineOption deviceOption(QStringLiteral("device"),
        QStringLiteral("TPU generation to assume when the file does not say (v4, v5e, v6e, ...)."),
        QStringLiteral("generation"));
    const QCommandLineOption screenshotOption(QStringLiteral("screenshot"),
        QStringLiteral("Render a view to a PNG file and exit (works without a display)."), QStringLiteral("out.png"));
    const QCommandLineOption viewOption(QStringLiteral("view"),
        QStringLiteral("View for --screenshot: window, window-timeline (the window on its Timeline tab), "
                       "window-lowutil (after a click on the overview's low-utilization count), overview, ops, "
                       "ops-flat-lowutil (the low-utilization ops as one flat list), ops-groups (the op table by layer "
                       "group), timeline, hosts, details, advice, "
                       "charts, utilization, roofline, memory, fusion:NAME or event:NAME (the window with that op's "
                       "longest event selected) (default: window)."),
        QStringLiteral("view"), QStringLiteral("window"));
    const QCommandLineOption sizeOption(QStringLiteral("size"),
        QStringLiteral("Size of the --screenshot image (default: 1600x1000)."), QStringLiteral("WxH"),
        QStringLiteral("1600x1000"));
    const QCommandLineOption compareOption(QStringLiteral("compare"),
        QStringLiteral("Compare two profiles: tpuscope --compare BEFORE AFTER (the Compare dock shows the deltas)."));
    const QCommandLineOption rangeOption(QStringLiteral("range"),
        QStringLiteral("For --screenshot: select this timeline range first (µs from the profile start)."),
        QStringLiteral("T0,T1"));
    const QCommandLineOption darkOption(QStringLiteral("dark"),
        QStringLiteral("Use a dark palette (Fusion style) instead of the system's, e.g. for --screenshot."));
    parser.addOptions(
        {demoOption, deviceOption, screenshotOption, viewOption, sizeOption, compareOption, rangeOption, darkOption});
    parser.process(app);
    // Dark system palettes often keep the light palette's dark-blue links: make them readable (WCAG AA).
    QApplication::setPalette(tpuscope::qt::colors::withReadableLinks(QApplication::palette()));
    tpuscope::app::captureSystemAppearance();
    // --dark, or View → Dark Mode as the user left it (screenshots never read the user's settings).
    if (parser.isSet(darkOption)
        || (!parser.isSet(screenshotOption) && QSettings().value(tpuscope::app::kDarkModeSettingsKey).toBool()))
        tpuscope::app::setDarkMode(true);

    const QStringList files = parser.positionalArguments();
    const bool demo = parser.isSet(demoOption);
    const QString device = parser.value(deviceOption);
    const bool compare = parser.isSet(compareOption);
    if (compare && files.size() != 2)
        return fail(QStringLiteral("--compare needs two profiles: BEFORE AFTER"), 2);

    if (parser.isSet(screenshotOption)) {
        tpuscope::app::ScreenshotRequest request;
        request.output = parser.value(screenshotOption);
        request.view = parser.value(viewOption);
        if (!tpuscope::app::parseScreenshotSize(parser.value(sizeOption), &request.size))
            return fail(
                QStringLiteral("invalid --size \"%1\" (expected WxH, e.g. 1600x1000)").arg(parser.value(sizeOption)),
                2);
        if (parser.isSet(rangeOption)
            && !tpuscope::app::parseScreenshotRange(parser.value(rangeOption), &request.rangeUs))
            return fail(QStringLiteral("invalid --range \"%1\" (expected T0,T1 in µs, e.g. 1000,2500)")
                            .arg(parser.value(rangeOption)),
                2);
        if (!tpuscope::app::isKnownScreenshotView(request.view))
            return fail(QStringLiteral("unknown --view \"%1\"").arg(request.view), 2);
        if (files.isEmpty() && !demo)
            return fail(QStringLiteral("--screenshot needs a FILE or --demo"), 2);
        // Never over an input (or a link to one), and said before anything is loaded.
        for (const QString& file : files)
            request.inputs.push_back(file.toStdString());
        if (const std::string problem
            = tpuscope::model::outputPathProblem(request.output.toStdString(), request.inputs);
            !problem.empty())
            return fail(QString::fromStdString(problem), 2);

        MainWindow window(MainWindow::Options {false, false});
        if (!device.isEmpty())
            window.setDeviceOverride(device);
        const QString source = demo ? QStringLiteral("the demo profile") : files.first();
        if (demo) {
            if (!window.openDemo())
                return fail(QStringLiteral("the demo profile is not part of this build"), 1);
        } else {
            window.openFile(files.first());
        }
        QString error;
        if (!waitForLoad(window, &error))
            return fail(QStringLiteral("cannot open %1: %2").arg(source, error), 1);
        if (compare) {
            QEventLoop loop;
            bool compared = false;
            QObject::connect(&window, &MainWindow::comparisonReady, &loop, [&](bool ok) {
                compared = ok;
                loop.quit();
            });
            window.compareWith(files.at(1));
            loop.exec();
            if (!compared)
                return fail(QStringLiteral("cannot compare with %1: %2").arg(files.at(1), window.messageText()), 1);
        }
        const QString renderError = tpuscope::app::renderScreenshot(window, request);
        if (!renderError.isEmpty())
            return fail(renderError, 3);
        return 0;
    }

    // One window per file; a single window with the start page when nothing was given.
    auto* first = new MainWindow;
    first->setAttribute(Qt::WA_DeleteOnClose);
    if (!device.isEmpty())
        first->setDeviceOverride(device);
    first->show();
    if (demo)
        first->openDemo();
    if (compare) {
        // Open BEFORE, then compare with AFTER once it is loaded.
        const QString after = files.at(1);
        QObject::connect(
            first->session(), &tpuscope::qt::TraceSession::loaded, first, [first, after] { first->compareWith(after); },
            Qt::SingleShotConnection);
        first->openFile(files.at(0));
        return app.exec();
    }
    for (int i = 0; i < files.size(); ++i) {
        MainWindow* window = first;
        if (i > 0 || demo) {
            window = new MainWindow;
            window->setAttribute(Qt::WA_DeleteOnClose);
            if (!device.isEmpty())
                window->setDeviceOverride(device);
            window->show();
        }
        window->openFile(files.at(i));
    }
    return app.exec();
}
