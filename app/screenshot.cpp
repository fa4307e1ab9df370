// SPDX-License-Identifier: GPL-3.0-or-later
#include "screenshot.h"

#include "mainwindow.h"
#include "optableview.h"
#include "overviewview.h"

#include "analysis/eventoccurrence.h"
#include "core/profile.h"
#include "detailspanel.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "rangeselectionview.h"
#include "tableimage.h"
#include "timelineview.h"
#include "utilizationchart.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QImage>
#include <QLayout>
#include <QPixmap>
#include <QRegularExpression>
#include <QTimer>
#include <QWidget>

#include <algorithm>
#include <cmath>
#include <functional>

namespace tpuscope::app {

namespace {

const QString kFusionPrefix = QStringLiteral("fusion:");
const QString kEventPrefix = QStringLiteral("event:");

/// Lets queued work settle: layouts, debounced recomputes and QCustomPlot's queued replots all
/// run from the event loop, and a grab before they ran would show stale pixels.
void settle(int milliseconds)
{
    QCoreApplication::sendPostedEvents();
    QEventLoop loop;
    QTimer::singleShot(milliseconds, &loop, &QEventLoop::quit);
    loop.exec();
    QCoreApplication::sendPostedEvents();
}

/// Runs the event loop until `done` holds (a session job delivered its result) or `timeoutMs`
/// passed; returns whether it holds. The jobs run on other threads and report through the loop.
bool settleUntil(const std::function<bool()>& done, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (!done() && timer.elapsed() < timeoutMs)
        settle(10);
    return done();
}

model::OpId findOp(const model::Profile& profile, const QString& name)
{
    const std::string wanted = name.toStdString();
    model::OpId fallback = model::kNone;
    for (model::OpId id = 0; id < profile.ops.size(); ++id) {
        const model::OpInfo& op = profile.ops[id];
        if (profile.str(op.name) != wanted)
            continue;
        if (op.isXlaOp)
            return id; // prefer the device op over a host event with the same name
        if (fallback == model::kNone)
            fallback = id;
    }
    return fallback;
}

/// Waits (bounded) for the session jobs whose results `root` shows: the range statistics of a
/// timeline, the visible range's buckets of a utilization chart. A grab before they arrive would
/// show "computing…" or the previous range's series.
void settleJobs(QWidget* root)
{
    QList<widgets::UtilizationChart*> charts = root->findChildren<widgets::UtilizationChart*>();
    if (auto* chart = qobject_cast<widgets::UtilizationChart*>(root))
        charts << chart;
    QList<widgets::TimelineView*> timelines = root->findChildren<widgets::TimelineView*>();
    if (auto* timeline = qobject_cast<widgets::TimelineView*>(root))
        timelines << timeline;
    const bool done = settleUntil(
        [&] {
            return std::none_of(charts.begin(), charts.end(), [](auto* c) { return c->isComputing(); })
                && std::none_of(timelines.begin(), timelines.end(), [](auto* t) { return t->isRangeSummaryPending(); });
        },
        30'000);
    if (!done)
        qWarning("tpuscope: a view's numbers did not arrive in time; the image may show \"computing…\"");
}

QString grabToFile(QWidget* widget, const QSize& size, const QString& output, const std::vector<std::string>& inputs)
{
    widget->setAttribute(Qt::WA_DontShowOnScreen);
    widget->resize(size);
    widget->show();
    if (widget->layout())
        widget->layout()->activate();
    settle(250);
    settleJobs(widget);
    settle(20); // the replot the last result queued
    if (widget->width() > size.width() || widget->height() > size.height()) {
        qWarning("tpuscope: the view needs at least %dx%d pixels; the image shows its top-left part", widget->width(),
            widget->height());
    }
    const QPixmap pixmap = widget->grab(QRect(QPoint(0, 0), size));
    if (pixmap.isNull() || pixmap.size() != size)
        return QCoreApplication::translate("Screenshot", "Rendering the view failed (got %1×%2 pixels).")
            .arg(pixmap.width())
            .arg(pixmap.height());
    // Unique temp file + rename (O_EXCL|O_NOFOLLOW): replaced whole or not at all, never through a symlink.
    QString error;
    if (!widgets::savePngAtomically(pixmap.toImage(), output, error, inputs))
        return QCoreApplication::translate("Screenshot", "Cannot write %1: %2.").arg(output, error);
    return {};
}

} // namespace

bool parseScreenshotSize(const QString& text, QSize* size)
{
    static const QRegularExpression pattern(QStringLiteral("^\\s*(\\d{1,5})\\s*[xX×]\\s*(\\d{1,5})\\s*$"));
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch())
        return false;
    const int width = match.captured(1).toInt();
    const int height = match.captured(2).toInt();
    if (width < 100 || height < 100 || width > 16384 || height > 16384)
        return false;
    *size = QSize(width, height);
    return true;
}

bool parseScreenshotRange(const QString& text, std::optional<std::pair<double, double>>* range)
{
    const QStringList parts = text.split(QLatin1Char(','));
    bool ok0 = false, ok1 = false;
    const double t0 = parts.size() == 2 ? parts[0].trimmed().toDouble(&ok0) : 0;
    const double t1 = parts.size() == 2 ? parts[1].trimmed().toDouble(&ok1) : 0;
    if (!ok0 || !ok1 || !(t0 < t1) || t0 < 0)
        return false;
    *range = std::make_pair(t0, t1);
    return true;
}

bool isKnownScreenshotView(const QString& view)
{
    static const QStringList views = {QStringLiteral("window"), QStringLiteral("window-timeline"),
        QStringLiteral("ops"), QStringLiteral("timeline"), QStringLiteral("details"), QStringLiteral("advice"),
        QStringLiteral("charts"), QStringLiteral("utilization"), QStringLiteral("roofline"), QStringLiteral("compare"),
        QStringLiteral("overview"), QStringLiteral("memory"), QStringLiteral("selection"), QStringLiteral("hosts"),
        QStringLiteral("window-lowutil"), QStringLiteral("ops-flat-lowutil"), QStringLiteral("ops-groups")};
    return views.contains(view) || (view.startsWith(kFusionPrefix) && view.size() > kFusionPrefix.size())
        || (view.startsWith(kEventPrefix) && view.size() > kEventPrefix.size());
}

QString renderScreenshot(MainWindow& window, const ScreenshotRequest& request)
{
    if (!isKnownScreenshotView(request.view))
        return QCoreApplication::translate("Screenshot", "Unknown view \"%1\".").arg(request.view);
    const model::ProfilePtr profile = window.session()->profile();
    if (!profile)
        return QCoreApplication::translate("Screenshot", "No profile is loaded.");

    // Lay the whole window out once, so every view has seen the profile at a realistic size.
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.resize(request.size);
    window.show();
    settle(100);

    if (request.rangeUs) {
        if (auto* timeline = window.findChild<widgets::TimelineView*>()) {
            const auto at = [&](double us) { return profile->spanBegin + model::TimePs(std::llround(us * 1e6)); };
            timeline->selectRange(at(request.rangeUs->first), at(request.rangeUs->second));
            // The statistics come from a session job: show them, not "computing…".
            if (!settleUntil([timeline] { return !timeline->isRangeSummaryPending(); }, 30'000))
                qWarning("tpuscope: the range statistics did not arrive in time");
            settle(50);
        }
    }

    QString viewName = request.view;
    if (viewName.startsWith(kFusionPrefix)) {
        const QString opName = viewName.mid(kFusionPrefix.size());
        const model::OpId op = findOp(*profile, opName);
        if (op == model::kNone)
            return QCoreApplication::translate("Screenshot", "The profile has no op named \"%1\".").arg(opName);
        window.selection()->setSelectedOp(op);
        viewName = QStringLiteral("details");
    }
    if (viewName.startsWith(kEventPrefix)) {
        // The op's longest occurrence clicked on the timeline: the window on the Timeline tab, the
        // event in view and selected, its Details in front.
        const QString opName = viewName.mid(kEventPrefix.size());
        const model::OpId op = findOp(*profile, opName);
        const auto [track, index] = op == model::kNone
            ? std::pair<model::TrackId, uint32_t> {model::kNone, 0}
            : model::longestOccurrence(*profile, model::findOccurrences(*profile, op));
        if (track == model::kNone)
            return QCoreApplication::translate("Screenshot", "The profile has no event named \"%1\".").arg(opName);
        window.showTimelineTab();
        settle(100);
        window.timeline()->revealEvent(track, index);
        window.timeline()->selectEvent(track, index);
        auto* details = window.detailsPanel();
        if (!settleUntil([details] { return !details->isOccurrencePending(); }, 30'000))
            qWarning("tpuscope: the event's occurrences were not counted in time");
        viewName = QStringLiteral("window");
    }
    if (viewName == QLatin1String("window-lowutil")) {
        // The whole window after a click on the overview's low-utilization count.
        if (auto* overview = qobject_cast<widgets::OverviewView*>(window.viewWidget(QStringLiteral("overview"))))
            overview->activateLowUtilizationLink();
        settle(100);
        viewName = QStringLiteral("window");
    }
    if (viewName == QLatin1String("ops-groups")) {
        // The op table by layer group: an op repeated in every layer is one row with its total.
        if (auto* table = qobject_cast<widgets::OpTableView*>(window.viewWidget(QStringLiteral("ops"))))
            table->setGrouping(qt::OpTreeModel::Grouping::LayerGroup);
        settle(100);
        viewName = QStringLiteral("ops");
    }
    if (viewName == QLatin1String("ops-flat-lowutil")) {
        // The op table as one flat list of the low-utilization ops of every kind.
        if (auto* table = qobject_cast<widgets::OpTableView*>(window.viewWidget(QStringLiteral("ops")))) {
            table->setFlat(true);
            table->showLowUtilizationOps();
        }
        viewName = QStringLiteral("ops");
    }
    if (viewName == QLatin1String("window-timeline")) {
        // The whole window as a user sees it after clicking the Timeline tab.
        window.showTimelineTab();
        settle(100);
        viewName = QStringLiteral("window");
    }
    if (viewName == QLatin1String("window"))
        return grabToFile(&window, request.size, request.output, request.inputs);

    QWidget* widget = viewName == QLatin1String("selection")
        ? static_cast<QWidget*>(window.findChild<widgets::RangeSelectionView*>())
        : window.viewWidget(viewName);
    if (!widget)
        return QCoreApplication::translate("Screenshot", "The view \"%1\" is not part of this build.").arg(viewName);
    // Taken out of the window, the view gets exactly the requested size; the process ends next.
    widget->setParent(nullptr);
    return grabToFile(widget, request.size, request.output, request.inputs);
}

} // namespace tpuscope::app
