// SPDX-License-Identifier: GPL-3.0-or-later
#include "utilizationchart.h"

#include "analysis/profileanalysis.h"
#include "analysis/utilization.h"
#include "chartheader.h"
#include "qt/colors.h"
#include "qt/tracesession.h"
#include "qt/viewrange.h"
#include "timeaxisticker.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace tpuscope::widgets {

using namespace tpuscope::model;

namespace {

// Over twice the visible width (~500 points on screen); the analysis' whole-span series has as many.
constexpr int kBuckets = kAnalysisUtilizationBuckets;
constexpr int kRecomputeDelayMs = 40;
constexpr int kEmitDelayMs = 15;
constexpr int kFollowDelayMs = 80;

} // namespace

UtilizationChart::UtilizationChart(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);

    QHBoxLayout* header = makeChartHeader(this, tr("Utilization over time"), m_status);
    m_legend = new QLabel(this);
    m_legend->setTextFormat(Qt::RichText);
    header->addWidget(m_legend);
    m_implausibleLabel = new QLabel(this);
    m_implausibleLabel->setTextFormat(Qt::PlainText);
    m_implausibleLabel->setForegroundRole(QPalette::PlaceholderText);
    m_implausibleLabel->hide();
    header->addWidget(m_implausibleLabel);
    header->addSpacing(8);
    m_peaksBox = new QCheckBox(tr("Peaks"), this);
    m_peaksBox->setChecked(true);
    m_peaksBox->setToolTip(
        tr("Shade up to the highest rate of any op inside each bucket (averages hide short bursts)"));
    header->addWidget(m_peaksBox);
    header->addSpacing(8);
    header->addWidget(new QLabel(tr("Core:"), this));
    m_coreCombo = new QComboBox(this);
    m_coreCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    header->addWidget(m_coreCombo);
    layout->addLayout(header);

    m_plot = new QCustomPlot(this);
    m_plot->setMinimumHeight(120);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new TimeAxisTicker));
    m_plot->yAxis->setLabel(tr("% of peak"));
    m_plot->yAxis->setRange(0, 105);
    m_plot->setMouseTracking(true);
    layout->addWidget(m_plot, 1);

    // Peak bands first so the average lines draw on top of them.
    m_flopsPeak = m_plot->addGraph();
    m_hbmPeak = m_plot->addGraph();
    m_flops = m_plot->addGraph();
    m_hbm = m_plot->addGraph();
    m_flops->setName(tr("FLOPS"));
    m_hbm->setName(tr("HBM bandwidth"));
    m_flopsPeak->setName(tr("FLOPS peak"));
    m_hbmPeak->setName(tr("HBM peak"));
    for (QCPGraph* g : {m_flops, m_flopsPeak, m_hbm, m_hbmPeak}) {
        g->setLineStyle(QCPGraph::lsStepCenter);
        g->setAdaptiveSampling(true);
    }
    m_flopsPeak->setChannelFillGraph(m_flops);
    m_hbmPeak->setChannelFillGraph(m_hbm);
    m_flopsPeak->removeFromLegend();
    m_hbmPeak->removeFromLegend();
    // The legend lives in the header row (see applyPalette) so it never hides data.
    m_plot->legend->setVisible(false);

    m_recomputeTimer = new QTimer(this);
    m_recomputeTimer->setSingleShot(true);
    m_recomputeTimer->setInterval(kRecomputeDelayMs);
    connect(m_recomputeTimer, &QTimer::timeout, this, [this] { recompute(); });
    m_followTimer = new QTimer(this);
    m_followTimer->setSingleShot(true);
    m_followTimer->setInterval(kFollowDelayMs);
    connect(m_followTimer, &QTimer::timeout, this, [this] { m_plot->replot(QCustomPlot::rpQueuedReplot); });
    m_emitTimer = new QTimer(this);
    m_emitTimer->setSingleShot(true);
    m_emitTimer->setInterval(kEmitDelayMs);
    connect(m_emitTimer, &QTimer::timeout, this, [this] {
        const QCPRange r = m_plot->xAxis->range();
        emit rangeChanged(static_cast<TimePs>(std::floor(r.lower)), static_cast<TimePs>(std::ceil(r.upper)));
    });

    connect(
        m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &UtilizationChart::onXRangeChanged);
    connect(m_coreCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        const int core = index >= 0 ? m_coreCombo->itemData(index).toInt() : -1;
        if (core != m_core) {
            m_core = core;
            recompute();
        }
    });
    connect(m_peaksBox, &QCheckBox::toggled, this, [this](bool on) {
        m_flopsPeak->setVisible(on);
        m_hbmPeak->setVisible(on);
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) { updateHover(e->pos()); });

    applyPalette();
    setAnalysis({});
}

UtilizationChart::~UtilizationChart() = default;

void UtilizationChart::setSession(qt::TraceSession* session)
{
    m_session = session;
    session->follow(this, [this](const ProfileAnalysisPtr& analysis) { setAnalysis(analysis); });
    // After follow()'s connection, which has just cleared the chart for the preview.
    connect(session, &qt::TraceSession::previewReady, this, [this](const ProfilePtr& partial) {
        if (partial)
            showPreview(*partial);
    });
}

void UtilizationChart::showPreview(const Profile& partial)
{
    // Rates over a part of the events would read as the profile's: the chart waits, empty, and
    // says so, on the partial profile's time axis (lined up with the timeline that draws it).
    m_status->setText(tr("— computed when the whole file is read"));
    m_plot->xAxis->ticker()->setTickOrigin(static_cast<double>(partial.spanBegin));
    const bool ranged = m_viewRange && m_viewRange->end() > m_viewRange->begin();
    m_settingRange = true;
    m_plot->xAxis->setRange(static_cast<double>(ranged ? m_viewRange->begin() : partial.spanBegin),
        static_cast<double>(ranged ? m_viewRange->end() : std::max(partial.spanEnd, partial.spanBegin + 1)));
    m_settingRange = false;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void UtilizationChart::setViewRange(qt::ViewRange* range)
{
    m_viewRange = range;
    connect(range, &qt::ViewRange::rangeChanged, this, &UtilizationChart::setVisibleRange);
    connect(this, &UtilizationChart::rangeChanged, range, &qt::ViewRange::setRange);
}

void UtilizationChart::setAnalysis(ProfileAnalysisPtr analysis)
{
    m_analysis = std::move(analysis);
    m_profile = m_analysis ? m_analysis->profile : nullptr;
    m_core = -1;
    rebuildCoreCombo();
    m_percent = !m_profile || (m_profile->device.peakTflopsPerCore > 0 && m_profile->device.peakHbmGbpsPerCore > 0);
    m_hbm->setValueAxis(m_percent ? m_plot->yAxis : m_plot->yAxis2);
    m_hbmPeak->setValueAxis(m_percent ? m_plot->yAxis : m_plot->yAxis2);
    m_plot->yAxis2->setVisible(!m_percent);
    m_plot->yAxis->setLabel(m_percent ? tr("% of peak") : tr("TFLOP/s per core"));
    m_plot->yAxis2->setLabel(tr("HBM GB/s per core"));

    if (!m_profile || !m_profile->hasTpuOps()) {
        ++m_generation; // drops a result still in flight for the previous profile
        m_computing = false;
        m_implausibleLabel->hide();
        for (QCPGraph* g : {m_flops, m_flopsPeak, m_hbm, m_hbmPeak})
            g->data()->clear();
        m_status->setText(m_profile ? tr("— no TPU ops in this profile") : QString());
        m_settingRange = true;
        m_plot->xAxis->setRange(0, 1e9);
        m_settingRange = false;
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const auto& d = m_profile->device;
    m_status->setText(m_percent ? tr("— per-core peak %1 TFLOP/s, %2 GB/s HBM")
                                      .arg(d.peakTflopsPerCore, 0, 'g', 4)
                                      .arg(d.peakHbmGbpsPerCore, 0, 'g', 5)
                                : tr("— device peaks unknown: absolute rates"));
    m_plot->xAxis->ticker()->setTickOrigin(static_cast<double>(m_profile->spanBegin));
    // Views follow a load in the order they subscribed: when the timeline has already written its
    // opening range for this profile (it lies around this span), show that range, not the span.
    double begin = static_cast<double>(m_profile->spanBegin), end = static_cast<double>(m_profile->spanEnd);
    if (m_viewRange && m_viewRange->end() > m_viewRange->begin()) {
        const double span = std::max(1.0, end - begin);
        const double shownBegin = static_cast<double>(m_viewRange->begin());
        const double shownEnd = static_cast<double>(m_viewRange->end());
        if (shownBegin >= begin - span && shownEnd <= end + span && shownEnd > begin && shownBegin < end) {
            begin = shownBegin;
            end = shownEnd;
        }
    }
    m_settingRange = true;
    m_plot->xAxis->setRange(begin, end);
    m_settingRange = false;
    recompute();
}

void UtilizationChart::alignTimeAxisWith(QWidget* timeline, int eventLeft)
{
    if (m_alignTimeline)
        m_alignTimeline->removeEventFilter(this);
    m_alignTimeline = timeline;
    m_alignEventLeft = eventLeft;
    if (timeline)
        timeline->installEventFilter(this);
    m_plot->installEventFilter(this);
    updateAxisAlignment();
}

std::pair<int, int> UtilizationChart::timeAxisGlobalSpan() const
{
    const QRect r = m_plot->axisRect()->rect();
    return {m_plot->mapToGlobal(r.topLeft()).x(), m_plot->mapToGlobal(r.topRight()).x()};
}

bool UtilizationChart::eventFilter(QObject* watched, QEvent* event)
{
    if ((watched == m_plot || watched == m_alignTimeline)
        && (event->type() == QEvent::Resize || event->type() == QEvent::Move || event->type() == QEvent::Show))
        QTimer::singleShot(0, this, &UtilizationChart::updateAxisAlignment); // after the layouts settled
    return QWidget::eventFilter(watched, event);
}

void UtilizationChart::updateAxisAlignment()
{
    QCPAxisRect* rect = m_plot->axisRect();
    constexpr int kMinLeft = 48; // room for the y tick labels and the axis label
    const int plotLeft = m_plot->mapToGlobal(QPoint(0, 0)).x();
    const int plotRight = m_plot->mapToGlobal(QPoint(m_plot->width(), 0)).x();
    int left = -1, right = -1;
    if (m_alignTimeline && m_alignTimeline->width() > m_alignEventLeft) {
        // Hidden behind another tab, the timeline keeps the geometry of its tab page.
        left = m_alignTimeline->mapToGlobal(QPoint(m_alignEventLeft, 0)).x() - plotLeft;
        right = plotRight - m_alignTimeline->mapToGlobal(QPoint(m_alignTimeline->width(), 0)).x();
    }
    const bool aligned = left >= kMinLeft && right >= 0 && left + right < m_plot->width() - 100;
    const QCP::MarginSides autoSides = aligned ? QCP::msTop | QCP::msBottom : QCP::msAll;
    const QMargins margins = aligned ? QMargins(left, 0, right, 0) : QMargins();
    if (rect->autoMargins() == autoSides
        && (!aligned || (rect->margins().left() == left && rect->margins().right() == right)))
        return;
    rect->setAutoMargins(autoSides);
    if (aligned)
        rect->setMargins(margins);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void UtilizationChart::setVisibleRange(TimePs begin, TimePs end)
{
    if (end <= begin)
        return;
    const QCPRange current = m_plot->xAxis->range();
    if (current.lower == static_cast<double>(begin) && current.upper == static_cast<double>(end))
        return;
    m_settingRange = true;
    m_plot->xAxis->setRange(static_cast<double>(begin), static_cast<double>(end));
    m_settingRange = false;
    // While the timeline zooms or pans, a replot per step would cost as much as the timeline's
    // own frame (7-40 ms in software raster): the chart follows once the range rests.
    m_followTimer->start();
}

void UtilizationChart::setCore(int core)
{
    const int index = m_coreCombo->findData(core);
    m_coreCombo->setCurrentIndex(index >= 0 ? index : 0);
}

void UtilizationChart::flush()
{
    m_recomputeTimer->stop();
    m_followTimer->stop();
    recompute();
    m_plot->replot();
}

bool UtilizationChart::isComputing() const
{
    return m_computing || m_recomputeTimer->isActive();
}

QString UtilizationChart::statusText() const
{
    return m_status->text();
}

int UtilizationChart::pointCount() const
{
    return m_flops->data()->size();
}

double UtilizationChart::flopsValueAt(int index) const
{
    if (index < 0 || index >= m_flops->data()->size())
        return 0;
    return m_flops->data()->at(index)->value;
}

void UtilizationChart::rebuildCoreCombo()
{
    const QSignalBlocker blocker(m_coreCombo);
    m_coreCombo->clear();
    m_coreCombo->addItem(tr("All cores"), -1);
    if (m_profile) {
        const auto cores = m_profile->tpuCorePlanes();
        for (size_t i = 0; i < cores.size(); ++i) {
            const Plane& plane = m_profile->planes[cores[i]];
            QString label = tr("Core %1").arg(i);
            if (m_profile->hosts.size() > 1)
                label += QStringLiteral(" (%1)").arg(QString::fromStdString(m_profile->str(plane.name)));
            m_coreCombo->addItem(label, static_cast<int>(i));
        }
    }
    m_coreCombo->setEnabled(m_coreCombo->count() > 2);
    m_coreCombo->setCurrentIndex(0);
}

void UtilizationChart::onXRangeChanged()
{
    if (!m_profile)
        return;
    // Keep the view on the profile: at most its span, shifted back inside when dragged past an edge.
    const double spanBegin = static_cast<double>(m_profile->spanBegin);
    const double spanEnd = static_cast<double>(std::max(m_profile->spanEnd, m_profile->spanBegin + 1000));
    QCPRange r = m_plot->xAxis->range();
    QCPRange clamped = r;
    if (clamped.size() > spanEnd - spanBegin)
        clamped = QCPRange(spanBegin, spanEnd);
    else if (clamped.lower < spanBegin)
        clamped = QCPRange(spanBegin, spanBegin + r.size());
    else if (clamped.upper > spanEnd)
        clamped = QCPRange(spanEnd - r.size(), spanEnd);
    if (clamped.size() < 1000) // 1 ns: below that the ticks stop being useful
        clamped = QCPRange(clamped.center() - 500, clamped.center() + 500);
    // A range set from outside (the timeline, with its margin around the span) is shown as it is:
    // the two time axes must show the same times at the same x.
    if (!m_settingRange && (clamped.lower != r.lower || clamped.upper != r.upper)) {
        m_plot->xAxis->setRange(clamped); // re-enters with the clamped range
        return;
    }
    if (!m_settingRange)
        m_emitTimer->start();
    m_recomputeTimer->start();
}

void UtilizationChart::recompute()
{
    const int generation = ++m_generation; // drops a result still in flight for an older range
    m_computing = false;
    if (!m_profile || !m_profile->hasTpuOps())
        return;
    // Compute over twice the visible range so a drag shows data before the debounced recompute.
    const QCPRange r = m_plot->xAxis->range();
    UtilizationOptions options;
    options.core = m_core;
    options.begin = std::max<TimePs>(m_profile->spanBegin, static_cast<TimePs>(std::floor(r.lower - r.size() / 2)));
    options.end = std::min<TimePs>(m_profile->spanEnd, static_cast<TimePs>(std::ceil(r.upper + r.size() / 2)));
    if (options.end <= options.begin)
        options.end = options.begin + 1;
    options.buckets = kBuckets;
    options.implausibleRateFactor = kAnalysisImplausibleRateFactor;
    const UtilizationOptions whole = analysisUtilizationOptions(*m_profile);
    const bool wholeSpan = options.core == whole.core && options.begin == whole.begin && options.end == whole.end;
    // Every other range or core is a session job over the analysis shown; without a session
    // showing this analysis (a chart on its own) the whole-span series is all there is.
    if (wholeSpan || !m_session || m_session->analysis() != m_analysis) {
        applySeries(m_analysis->utilization); // computed with the load
        return;
    }
    // A newer request supersedes an older one, in the session and through our generation counter.
    m_computing = true;
    m_session->requestUtilization(options, this, [this, generation](const UtilizationSeries& series) {
        if (generation != m_generation)
            return;
        m_computing = false;
        applySeries(series);
    });
}

void UtilizationChart::applySeries(const UtilizationSeries& s)
{
    m_computedBegin = static_cast<double>(s.begin);
    m_computedEnd = static_cast<double>(s.end);

    const double flopsScale = m_percent ? 100.0 / s.peakTflops : 1.0;
    const double hbmScale = m_percent ? 100.0 / s.peakHbmGbps : 1.0;
    // xprof caps utilization at 100%; a few ops record more bytes than their duration allows.
    auto shown = [this](double v) { return m_percent ? std::min(v, 100.0) : v; };
    QVector<double> x(static_cast<qsizetype>(s.size()));
    QVector<double> fa(x.size()), fp(x.size()), ha(x.size()), hp(x.size());
    double maxFlops = 0, maxHbm = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        x[i] = s.bucketCenter(i);
        fa[i] = shown(s.flopsAverage[i] * flopsScale);
        fp[i] = shown(s.flopsPeak[i] * flopsScale);
        ha[i] = shown(s.hbmAverage[i] * hbmScale);
        hp[i] = shown(s.hbmPeak[i] * hbmScale);
        maxFlops = std::max(maxFlops, fp[i]);
        maxHbm = std::max(maxHbm, hp[i]);
    }
    m_implausibleLabel->setVisible(s.implausibleEvents > 0);
    m_implausibleLabel->setToolTip(
        tr("%n event(s) in this range claim more than the peak FLOP or HBM rate (typically async copy-start "
           "events that record the bytes of a whole transfer). They count in the averages but not in the peak band.",
            nullptr, static_cast<int>(s.implausibleEvents)));
    m_implausibleLabel->setText(tr("(%n event(s) above peak rate)", nullptr, static_cast<int>(s.implausibleEvents)));
    m_flops->setData(x, fa, true);
    m_flopsPeak->setData(x, fp, true);
    m_hbm->setData(x, ha, true);
    m_hbmPeak->setData(x, hp, true);
    if (m_percent) {
        m_plot->yAxis->setRange(0, 105);
    } else {
        m_plot->yAxis->setRange(0, std::max(1e-9, maxFlops * 1.05));
        m_plot->yAxis2->setRange(0, std::max(1e-9, maxHbm * 1.05));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void UtilizationChart::updateHover(const QPoint& pos)
{
    if (!m_profile || m_flops->data()->isEmpty() || !m_plot->axisRect()->rect().contains(pos)) {
        QToolTip::hideText();
        return;
    }
    const double x = m_plot->xAxis->pixelToCoord(pos.x());
    auto it = m_flops->data()->findBegin(x, false);
    if (it == m_flops->data()->constEnd())
        return;
    const int index = static_cast<int>(it - m_flops->data()->constBegin());
    const double bucket = (m_computedEnd - m_computedBegin) / std::max(1, m_flops->data()->size());
    const QString unitF = m_percent ? QStringLiteral("%") : QStringLiteral(" TFLOP/s");
    const QString unitH = m_percent ? QStringLiteral("%") : QStringLiteral(" GB/s");
    const QCPRange r = m_plot->xAxis->range();
    const double origin = m_plot->xAxis->ticker()->tickOrigin();
    const QString text = tr("<b>%1</b> (bucket %2)<br>FLOPS: %3%4 average, %5%4 peak<br>HBM: %6%7 average, %8%7 peak")
                             .arg(TimeAxisTicker::formatTime(it->key - origin,
                                      std::max(std::abs(r.lower - origin), std::abs(r.upper - origin)), bucket),
                                 TimeAxisTicker::formatTime(bucket, bucket, bucket / 10))
                             .arg(it->value, 0, 'f', 1)
                             .arg(unitF)
                             .arg(m_flopsPeak->data()->at(index)->value, 0, 'f', 1)
                             .arg(m_hbm->data()->at(index)->value, 0, 'f', 1)
                             .arg(unitH)
                             .arg(m_hbmPeak->data()->at(index)->value, 0, 'f', 1);
    QToolTip::showText(m_plot->mapToGlobal(pos), text, m_plot);
}

void UtilizationChart::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
    QWidget::changeEvent(event);
}

void UtilizationChart::applyPalette()
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    QColor grid = pal.color(QPalette::Mid);
    grid.setAlpha(90);
    m_plot->setBackground(pal.brush(QPalette::Base));
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis, m_plot->yAxis2}) {
        axis->setBasePen(QPen(text, 1));
        axis->setTickPen(QPen(text, 1));
        axis->setSubTickPen(QPen(text, 1));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
    auto swatch = [](const QColor& c, const QString& label) {
        return QStringLiteral("<span style=\"color:%1;\">&#9644;</span>&nbsp;%2").arg(c.name(), label.toHtmlEscaped());
    };
    m_legend->setText(swatch(qt::colors::flopsSeriesColor(), tr("FLOPS")) + QStringLiteral("&nbsp;&nbsp;&nbsp;")
        + swatch(qt::colors::hbmSeriesColor(), tr("HBM bandwidth")));

    auto style = [](QCPGraph* line, QCPGraph* peak, QColor c) {
        line->setPen(QPen(c, 1.6));
        QColor band = c;
        band.setAlpha(40);
        QColor edge = c;
        edge.setAlpha(70);
        peak->setPen(QPen(edge, 1));
        peak->setBrush(band);
    };
    style(m_flops, m_flopsPeak, qt::colors::flopsSeriesColor());
    style(m_hbm, m_hbmPeak, qt::colors::hbmSeriesColor());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace tpuscope::widgets
