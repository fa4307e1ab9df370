// SPDX-License-Identifier: GPL-3.0-or-later
#include "rooflinechart.h"

#include "analysis/profileanalysis.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"

#include "analysis/opbreakdown.h"
#include "analysis/utilization.h"
#include "report/report.h"

#include "chartheader.h"
#include "qt/colors.h"
#include "qt/qstrings.h"

#include <QEvent>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace tpuscope::widgets {

using namespace tpuscope::model;

namespace {

constexpr double kHitRadiusPx = 8.0;
constexpr int kLegendRows = 12;

} // namespace

// Usable for reading the points and the legend: below ~220 px the log axes keep two decades.
const QSize RooflineChart::kMinimumPlotSize(320, 220);

namespace {

using tpuscope::qt::qs;

} // namespace

RooflineChart::RooflineChart(QWidget* parent)
    : QWidget(parent)
    , m_roofline(std::make_shared<const Roofline>())
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    QHBoxLayout* header = makeChartHeader(this, tr("Roofline"), m_status);
    layout->addLayout(header);

    m_plot = new QCustomPlot(this);
    m_plot->setMinimumSize(kMinimumPlotSize);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setMouseTracking(true);
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog);
        ticker->setLogBase(10);
        ticker->setSubTickCount(8);
        axis->setTicker(ticker);
        axis->setNumberFormat(QStringLiteral("eb"));
        axis->setNumberPrecision(0);
    }
    m_plot->xAxis->setLabel(tr("Operational intensity (FLOP per HBM byte)"));
    m_plot->yAxis->setLabel(tr("Achieved TFLOP/s per core"));
    // The legend gets its own layout cell right of the axis rect (inside the plot it covered
    // points): a column holding the legend at its natural height on top and an empty filler below.
    m_plot->legend->setVisible(true);
    auto* side = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(0, 1, side);
    m_plot->plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, m_plot->legend);
    side->addElement(1, 0, new QCPLayoutElement(m_plot));
    side->setRowStretchFactor(0, 0.001);
    side->setMargins(QMargins(0, 8, 6, 8));
    // foRowsFirst fills a column downwards and starts the next one after kLegendRows entries.
    m_plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
    m_plot->legend->setWrap(kLegendRows);
    m_plot->legend->setMaximumSize(360, QWIDGETSIZE_MAX);
    layout->addWidget(m_plot, 1);

    auto pressPos = std::make_shared<QPoint>();
    connect(m_plot, &QCustomPlot::mousePress, this, [pressPos](QMouseEvent* e) { *pressPos = e->pos(); });
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this, pressPos](QMouseEvent* e) {
        if (e->button() != Qt::LeftButton || (e->pos() - *pressPos).manhattanLength() > 4)
            return; // a drag, not a click
        const OpId op = opAt(e->pos());
        if (op == kNone)
            return;
        setSelectedOp(op);
        emit opSelected(op);
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) { showTooltip(e->pos()); });

    rebuild();
}

RooflineChart::~RooflineChart() = default;

void RooflineChart::setAnalysis(ProfileAnalysisPtr analysis)
{
    m_analysis = std::move(analysis);
    m_profile = m_analysis ? m_analysis->profile : nullptr;
    m_selected = kNone;
    rebuild();
}

void RooflineChart::setSelectedOp(OpId op)
{
    if (op == m_selected)
        return;
    m_selected = op;
    updateSelection();
}

void RooflineChart::rebuild()
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_rooflineGraph = nullptr;
    m_selectionGraph = nullptr;
    // The points come with the analysis (ProfileAnalysis::roofline), computed off the GUI thread.
    m_roofline = m_analysis ? std::shared_ptr<const Roofline>(m_analysis, &m_analysis->roofline)
                            : std::make_shared<const Roofline>();
    const Roofline& r = *m_roofline;

    QStringList notes;
    if (m_profile) {
        notes << tr("%n op(s) plotted", nullptr, static_cast<int>(r.points.size()));
        if (r.opsWithoutFlops)
            notes << tr("%n without FLOPs not shown", nullptr, static_cast<int>(r.opsWithoutFlops));
        if (r.opsWithoutBytes)
            notes << tr("%n without bytes not shown", nullptr, static_cast<int>(r.opsWithoutBytes));
        if (!r.hasPeaks())
            notes << tr("device peaks unknown: no roofline");
    }
    m_status->setText(notes.isEmpty() ? QString() : QStringLiteral("— ") + notes.join(QStringLiteral(", ")));

    // Axis extents: all points, the ridge and the compute ceiling, with a margin of a factor of 3.
    double xMin = 1e300, xMax = 0, yMin = 1e300, yMax = 0;
    for (const auto& p : r.points) {
        xMin = std::min(xMin, p.intensity);
        xMax = std::max(xMax, p.intensity);
        yMin = std::min(yMin, p.achievedTflops);
        yMax = std::max(yMax, p.achievedTflops);
    }
    if (r.hasPeaks()) {
        xMin = std::min(xMin, r.ridge / 100);
        xMax = std::max(xMax, r.ridge * 10);
        yMax = std::max(yMax, r.peakTflops);
        yMin = std::min(yMin, rooflineTflops(xMin, r.peakTflops, r.peakHbmGbps));
    }
    if (xMax <= 0) {
        xMin = 0.1;
        xMax = 1000;
        yMin = 0.01;
        yMax = 1000;
    }
    xMin /= 3;
    xMax *= 3;
    yMin /= 3;
    yMax *= 3;

    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    if (r.hasPeaks()) {
        m_rooflineGraph = m_plot->addGraph();
        m_rooflineGraph->setName(tr("Roofline"));
        QVector<double> xs, ys;
        if (xMin < r.ridge) {
            xs << xMin << r.ridge;
            ys << rooflineTflops(xMin, r.peakTflops, r.peakHbmGbps) << r.peakTflops;
        }
        xs << std::max(xMin, r.ridge) << xMax;
        ys << r.peakTflops << r.peakTflops;
        m_rooflineGraph->setData(xs, ys, true);
        m_rooflineGraph->setPen(QPen(text, 2));

        auto* ridgeLine = new QCPItemLine(m_plot);
        ridgeLine->start->setCoords(r.ridge, yMin);
        ridgeLine->end->setCoords(r.ridge, r.peakTflops);
        QColor dim = text;
        dim.setAlpha(120);
        ridgeLine->setPen(QPen(dim, 1, Qt::DashLine));

        // At the foot of the dashed line: near the corner it would collide with the roofline.
        auto* ridgeLabel = new QCPItemText(m_plot);
        ridgeLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        ridgeLabel->position->setCoords(r.ridge, 1.0);
        ridgeLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        ridgeLabel->setPadding(QMargins(5, 0, 0, 4));
        ridgeLabel->setText(tr("ridge %1 FLOP per HBM byte").arg(r.ridge, 0, 'f', r.ridge < 10 ? 2 : 0));
        ridgeLabel->setColor(text);

        auto* peakLabel = new QCPItemText(m_plot);
        peakLabel->position->setCoords(xMax, r.peakTflops);
        peakLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        peakLabel->setPadding(QMargins(0, 0, 6, 3));
        peakLabel->setText(tr("peak %1 TFLOP/s").arg(r.peakTflops, 0, 'g', 4));
        peakLabel->setColor(text);

        const double slopeX = std::max(xMin * 30, r.ridge / 10);
        auto* bwLabel = new QCPItemText(m_plot);
        bwLabel->position->setCoords(slopeX, rooflineTflops(slopeX, r.peakTflops, r.peakHbmGbps));
        // Text extends to the left of its anchor, where the slope is lower: it stays above the line.
        bwLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        bwLabel->setPadding(QMargins(0, 0, 4, 4));
        bwLabel->setText(tr("HBM %1 GB/s").arg(r.peakHbmGbps, 0, 'g', 5));
        bwLabel->setColor(text);
    }

    // One scatter graph per category, largest total time first (that is the legend order).
    std::map<std::string, std::pair<double, std::vector<const RooflinePoint*>>> byCategory;
    for (const auto& p : r.points) {
        auto& entry = byCategory[p.category];
        entry.first += p.timePs;
        entry.second.push_back(&p);
    }
    std::vector<std::pair<std::string, const std::vector<const RooflinePoint*>*>> order;
    for (const auto& [category, entry] : byCategory)
        order.emplace_back(category, &entry.second);
    std::stable_sort(order.begin(), order.end(),
        [&](const auto& a, const auto& b) { return byCategory[a.first].first > byCategory[b.first].first; });
    const auto categoryColors
        = m_analysis ? qt::colors::categoryColors(m_analysis->breakdown) : std::unordered_map<std::string, QColor> {};
    for (size_t i = 0; i < order.size(); ++i) {
        QCPGraph* g = m_plot->addGraph();
        g->setName(order[i].first.empty() ? tr("(no category)") : qs(order[i].first));
        g->setLineStyle(QCPGraph::lsNone);
        // The category colour of every other view (timeline, op table, share card).
        const auto chosen = categoryColors.find(order[i].first);
        const QColor c = chosen != categoryColors.end()
            ? chosen->second
            : qt::colors::categoryColor(order[i].first,
                order[i].second->empty() ? model::OpClass::Compute : order[i].second->front()->categoryClass);
        QColor fill = c;
        fill.setAlpha(200);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c.darker(130), fill, 8));
        g->setAdaptiveSampling(false); // every op must stay visible and clickable
        QVector<double> xs, ys;
        for (const RooflinePoint* p : *order[i].second) {
            xs << p->intensity;
            ys << p->achievedTflops;
        }
        g->setData(xs, ys); // not sorted by key
    }

    m_selectionGraph = m_plot->addGraph();
    m_selectionGraph->setLineStyle(QCPGraph::lsNone);
    m_selectionGraph->removeFromLegend();

    m_plot->xAxis->setRange(xMin, xMax);
    m_plot->yAxis->setRange(yMin, yMax);
    applyPalette();
    updateSelection();
}

void RooflineChart::updateSelection()
{
    if (!m_selectionGraph)
        return;
    m_selectionGraph->data()->clear();
    const RooflinePoint* hit = nullptr;
    for (const auto& p : m_roofline->points)
        if (p.op == m_selected)
            hit = &p;
    // Breakdown rows merge ops with the same program and name; the point carries the first of them.
    if (!hit && m_profile && m_selected < m_profile->ops.size()) {
        const std::string& name = m_profile->str(m_profile->ops[m_selected].name);
        const uint32_t program = m_profile->ops[m_selected].program;
        for (const auto& p : m_roofline->points)
            if (p.name == name && m_profile->ops[p.op].program == program)
                hit = &p;
    }
    if (hit)
        m_selectionGraph->addData(hit->intensity, hit->achievedTflops);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

OpId RooflineChart::opAt(const QPointF& pos) const
{
    OpId best = kNone;
    double bestDistance = kHitRadiusPx * kHitRadiusPx;
    for (const auto& p : m_roofline->points) {
        const double dx = m_plot->xAxis->coordToPixel(p.intensity) - pos.x();
        const double dy = m_plot->yAxis->coordToPixel(p.achievedTflops) - pos.y();
        const double d = dx * dx + dy * dy;
        if (d <= bestDistance) {
            bestDistance = d;
            best = p.op;
        }
    }
    return best;
}

bool RooflineChart::pointPosition(OpId op, QPointF* pos) const
{
    for (const auto& p : m_roofline->points) {
        if (p.op == op) {
            *pos = QPointF(m_plot->xAxis->coordToPixel(p.intensity), m_plot->yAxis->coordToPixel(p.achievedTflops));
            return true;
        }
    }
    return false;
}

void RooflineChart::showTooltip(const QPoint& pos)
{
    const OpId op = opAt(pos);
    const RooflinePoint* point = nullptr;
    for (const auto& p : m_roofline->points)
        if (p.op == op)
            point = &p;
    if (!point) {
        QToolTip::hideText();
        m_plot->setCursor(Qt::ArrowCursor);
        return;
    }
    m_plot->setCursor(Qt::PointingHandCursor);
    QString text
        = QStringLiteral("<b>%1</b><br>%2").arg(qs(point->name).toHtmlEscaped(), qs(point->category).toHtmlEscaped());
    if (!point->program.empty())
        text += QStringLiteral(" · ") + qs(point->program).toHtmlEscaped();
    text += tr("<br>Intensity: %1 FLOP per HBM byte<br>Achieved: %2 TFLOP/s per core")
                .arg(point->intensity, 0, 'g', 3)
                .arg(point->achievedTflops, 0, 'g', 3);
    // The same roofline efficiency as the op table: attained over the roof at this intensity.
    if (point->attainableTflops > 0)
        text += tr(" of %1 attainable (roofline efficiency %2%%3)")
                    .arg(point->attainableTflops, 0, 'g', 3)
                    .arg(100 * point->rooflineEfficiency, 0, 'f', 1)
                    .arg(point->lowUtilization ? tr(", low utilization") : QString());
    text += tr("<br>Time: %1 (%2 of op time)<br>Bound by: %3")
                .arg(qs(formatDurationPs(point->timePs)), qs(formatPercent(point->timeFraction)), qs(point->boundBy));
    QToolTip::showText(m_plot->mapToGlobal(pos), text, m_plot);
}

void RooflineChart::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange && m_plot)
        rebuild(); // item colours are set while building
    QWidget::changeEvent(event);
}

void RooflineChart::applyPalette()
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    QColor grid = pal.color(QPalette::Mid);
    grid.setAlpha(90);
    QColor subGrid = grid;
    subGrid.setAlpha(40);
    m_plot->setBackground(pal.brush(QPalette::Base));
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setBasePen(QPen(text, 1));
        axis->setTickPen(QPen(text, 1));
        axis->setSubTickPen(QPen(text, 1));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
        axis->grid()->setSubGridVisible(true);
        axis->grid()->setSubGridPen(QPen(subGrid, 1, Qt::DotLine));
    }
    m_plot->legend->setBrush(pal.brush(QPalette::Base));
    m_plot->legend->setBorderPen(QPen(pal.color(QPalette::Mid)));
    m_plot->legend->setTextColor(text);
    if (m_selectionGraph)
        m_selectionGraph->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(pal.color(QPalette::Highlight), 2.5), Qt::NoBrush, 16));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void RooflineChart::setSession(qt::TraceSession* session)
{
    session->follow(this, [this](const ProfileAnalysisPtr& analysis) { setAnalysis(analysis); });
}

void RooflineChart::setSelectionState(qt::SelectionState* selection)
{
    connect(selection, &qt::SelectionState::selectedOpChanged, this, &RooflineChart::setSelectedOp);
    connect(this, &RooflineChart::opSelected, selection, &qt::SelectionState::setSelectedOp);
}

} // namespace tpuscope::widgets
