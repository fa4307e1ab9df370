// SPDX-License-Identifier: GPL-3.0-or-later
#include "hostsview.h"

#include "qt/colors.h"
#include "qt/qstrings.h"
#include "qt/tracesession.h"

#include "analysis/advice.h"
#include "analysis/hosts.h"
#include "analysis/profileanalysis.h"
#include "core/format.h"

#include <QButtonGroup>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tpuscope::widgets {

using model::HostAnalysis;
using model::HostRow;
using tpuscope::qt::qs;

namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

QString duration(double ps)
{
    return qs(model::formatDurationPs(ps));
}

QString unknownText()
{
    return QString::fromUtf8(model::kUnknownText);
}

/// The hatch drawn over an unknown cell or swatch: never mistaken for the scale's lowest colour.
void paintUnknown(QPainter& p, const QRect& r, const QPalette& pal)
{
    p.fillRect(r, pal.base());
    p.fillRect(r, QBrush(qt::colors::heatUnknownColor(pal), Qt::BDiagPattern));
}

/// A table cell that sorts by its number (unknown after every known value), not by its text.
class NumberItem : public QTableWidgetItem
{
public:
    NumberItem(const QString& text, double sortValue)
        : QTableWidgetItem(text)
    {
        setData(Qt::UserRole, sortValue);
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override
    {
        const double a = data(Qt::UserRole).toDouble(), b = other.data(Qt::UserRole).toDouble();
        if (std::isnan(a) || std::isnan(b))
            return !std::isnan(a) && std::isnan(b);
        return a < b;
    }
};

/// The colour scale: the gradient of heatColor from the low to the high end.
class ScaleBar : public QWidget
{
public:
    using QWidget::QWidget;
    QSize sizeHint() const override { return {220, 14}; }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        const int w = std::max(1, width());
        for (int x = 0; x < w; ++x)
            p.fillRect(QRect(x, 0, 1, height()), qt::colors::heatColor(double(x) / std::max(1, w - 1)));
        p.setPen(palette().color(QPalette::Mid));
        p.drawRect(rect().adjusted(0, 0, -1, -1));
    }
};

/// The "unknown" swatch beside the scale.
class UnknownSwatch : public QWidget
{
public:
    using QWidget::QWidget;
    QSize sizeHint() const override { return {22, 14}; }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        paintUnknown(p, rect(), palette());
        p.setPen(palette().color(QPalette::Mid));
        p.drawRect(rect().adjusted(0, 0, -1, -1));
    }
};

} // namespace

// --- HostHeatMap ---------------------------------------------------------------------------------

HostHeatMap::HostHeatMap(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setObjectName(QStringLiteral("hostHeatMap"));
}

void HostHeatMap::setHosts(std::shared_ptr<const HostAnalysis> hosts)
{
    m_hosts = std::move(hosts);
    updateScale();
    updateGeometry();
    update();
}

void HostHeatMap::setMeasure(Measure measure)
{
    if (measure == m_measure)
        return;
    m_measure = measure;
    updateScale();
    update();
}

const std::vector<std::vector<double>>* HostHeatMap::grid() const
{
    if (!m_hosts)
        return nullptr;
    return m_measure == Measure::StepTime ? &m_hosts->stepPs : &m_hosts->latenessPs;
}

int HostHeatMap::hostCount() const
{
    return m_hosts ? int(m_hosts->hosts.size()) : 0;
}

int HostHeatMap::stepCount() const
{
    return m_hosts ? int(m_hosts->steps) : 0;
}

double HostHeatMap::value(int hostRow, int step) const
{
    const auto* g = grid();
    if (!g || hostRow < 0 || hostRow >= int(g->size()) || step < 0 || step >= int((*g)[size_t(hostRow)].size()))
        return kUnknown;
    return (*g)[size_t(hostRow)][size_t(step)];
}

void HostHeatMap::updateScale()
{
    m_low = m_high = 0;
    bool any = false;
    for (int h = 0; h < hostCount(); ++h)
        for (int s = 0; s < stepCount(); ++s)
            if (const double v = value(h, s); !std::isnan(v)) {
                m_low = any ? std::min(m_low, v) : v;
                m_high = any ? std::max(m_high, v) : v;
                any = true;
            }
    // Lateness is measured from the earliest host: its scale starts at "on time".
    if (m_measure == Measure::Lateness)
        m_low = 0;
}

int HostHeatMap::rowHeight() const
{
    // Readable rows for a few hosts, still a label's height for 64: the map scrolls past that.
    return hostCount() <= 16 ? 22 : 16;
}

double HostHeatMap::columnWidth() const
{
    return stepCount() > 0 ? std::max(3.0, double(width() - kLabelWidth - 4) / stepCount()) : 0;
}

QSize HostHeatMap::sizeHint() const
{
    return {kLabelWidth + 4 + 12 * std::max(1, stepCount()), kAxisHeight + rowHeight() * hostCount() + 2};
}

QSize HostHeatMap::minimumSizeHint() const
{
    return {kLabelWidth + 4 + 3 * std::max(1, stepCount()), kAxisHeight + rowHeight() * hostCount() + 2};
}

QRect HostHeatMap::cellRect(int hostRow, int step) const
{
    if (hostRow < 0 || hostRow >= hostCount() || step < 0 || step >= stepCount())
        return {};
    const double w = columnWidth();
    const int left = kLabelWidth + int(std::lround(step * w));
    const int right = kLabelWidth + int(std::lround((step + 1) * w));
    return QRect(left, kAxisHeight + hostRow * rowHeight(), std::max(1, right - left), rowHeight());
}

int HostHeatMap::axisTop() const
{
    // The step axis stays at the top of what is shown: in a scroll area, the visible part's top.
    const QRect shown = visibleRegion().boundingRect();
    return shown.isEmpty() ? 0 : std::max(0, shown.top());
}

std::pair<int, int> HostHeatMap::cellAt(QPoint pos) const
{
    const double w = columnWidth();
    if (pos.x() < kLabelWidth || pos.y() < axisTop() + kAxisHeight || w <= 0)
        return {-1, -1};
    const int host = (pos.y() - kAxisHeight) / rowHeight();
    const int step = int((pos.x() - kLabelWidth) / w);
    if (host >= hostCount() || step >= stepCount())
        return {-1, -1};
    return {host, step};
}

void HostHeatMap::paintEvent(QPaintEvent* event)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(event->rect(), pal.base());
    if (!m_hosts)
        return;
    const QFontMetrics fm(font());
    const double w = columnWidth();
    const double span = m_high - m_low;
    const std::vector<std::vector<int>>& lateByStep = m_hosts->lateHostsByStep;
    for (int h = 0; h < hostCount(); ++h) {
        const int top = kAxisHeight + h * rowHeight();
        if (top > event->rect().bottom() || top + rowHeight() < event->rect().top())
            continue;
        // Names elided in the middle: pod host names differ at their ends ("...-w-12").
        p.setPen(pal.color(QPalette::WindowText));
        p.drawText(QRect(4, top, kLabelWidth - 10, rowHeight()), Qt::AlignLeft | Qt::AlignVCenter,
            fm.elidedText(qs(m_hosts->hosts[size_t(h)].name), Qt::ElideMiddle, kLabelWidth - 10));
        for (int s = 0; s < stepCount(); ++s) {
            const QRect c = cellRect(h, s).adjusted(0, 0, w >= 6 ? -1 : 0, -1);
            const double v = value(h, s);
            if (std::isnan(v)) {
                paintUnknown(p, c, pal);
                continue;
            }
            const QColor color = qt::colors::heatColor(span > 0 ? (v - m_low) / span : 0);
            p.fillRect(c, color);
            // The steps the analysis counts this host late in: a corner mark in the cell's text colour.
            if (size_t(s) < lateByStep.size()) {
                const auto& late = lateByStep[size_t(s)];
                if (std::find(late.begin(), late.end(), h) != late.end() && c.width() >= 5) {
                    const int m = std::min(c.width(), c.height()) / 2;
                    const QPoint tri[3] = {c.topLeft(), c.topLeft() + QPoint(m, 0), c.topLeft() + QPoint(0, m)};
                    p.setPen(Qt::NoPen);
                    p.setBrush(qt::colors::textOn(color));
                    p.drawPolygon(tri, 3);
                }
            }
        }
    }

    // Step axis, over the rows at the top of what is shown, so a scrolled map of 64 hosts still
    // says which step a column is: a label every few steps, at least 40 px apart.
    const int top = axisTop();
    p.fillRect(QRect(0, top, width(), kAxisHeight), pal.base());
    const int every = std::max(1, int(std::ceil(40.0 / std::max(1.0, w))));
    const int labelStep = every <= 1 ? 1 : every <= 2 ? 2 : every <= 5 ? 5 : every <= 10 ? 10 : 10 * ((every + 9) / 10);
    p.setPen(pal.color(QPalette::WindowText));
    for (int s = 0; s < stepCount(); s += labelStep) {
        const QRect c = cellRect(0, s);
        p.drawText(QRect(c.left(), top, 40, kAxisHeight), Qt::AlignLeft | Qt::AlignVCenter, QString::number(s));
    }
    p.drawText(QRect(4, top, kLabelWidth - 8, kAxisHeight), Qt::AlignLeft | Qt::AlignVCenter, tr("host \\ step"));
}

void HostHeatMap::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(event);
    const auto [host, step] = cellAt(event->position().toPoint());
    if (host >= 0)
        emit cellClicked(host, step);
}

bool HostHeatMap::event(QEvent* event)
{
    if (event->type() != QEvent::ToolTip || !m_hosts)
        return QWidget::event(event);
    auto* help = static_cast<QHelpEvent*>(event);
    const QPoint pos = help->pos();
    const int row = pos.y() >= axisTop() + kAxisHeight ? (pos.y() - kAxisHeight) / rowHeight() : -1;
    if (row < 0 || row >= hostCount()) {
        QToolTip::hideText();
        return true;
    }
    const QString name = qs(m_hosts->hosts[size_t(row)].name).toHtmlEscaped();
    const auto [host, step] = cellAt(pos);
    if (host < 0) {
        QToolTip::showText(help->globalPos(), name, this);
        return true;
    }
    auto text = [](double v) { return std::isnan(v) ? unknownText() : duration(v); };
    const size_t h = size_t(host), s = size_t(step);
    QString tip = tr("<b>%1</b>, step %2<br>step time %3<br>late %4 after the earliest host")
                      .arg(name)
                      .arg(step)
                      .arg(text(m_hosts->stepPs[h][s]), text(m_hosts->latenessPs[h][s]));
    if (s < m_hosts->lateHostsByStep.size()) {
        const auto& late = m_hosts->lateHostsByStep[s];
        if (std::find(late.begin(), late.end(), host) != late.end())
            tip += tr("<br>counted late in this step (the corner mark)");
    }
    tip += tr("<br><i>click to open this host and step in the timeline</i>");
    QToolTip::showText(help->globalPos(), tip, this, cellRect(host, step));
    return true;
}

// --- HostsView -----------------------------------------------------------------------------------

HostsView::HostsView(qt::TraceSession* session, QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->setSpacing(6);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("hostsSummary"));
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    m_noMap = new QLabel(this);
    m_noMap->setObjectName(QStringLiteral("hostsNoMap"));
    m_noMap->setTextFormat(Qt::PlainText);
    m_noMap->setWordWrap(true);
    layout->addWidget(m_noMap);

    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->setChildrenCollapsible(false);

    m_mapArea = new QWidget(m_splitter);
    auto* mapLayout = new QVBoxLayout(m_mapArea);
    mapLayout->setContentsMargins(0, 0, 0, 0);
    mapLayout->setSpacing(4);
    auto* header = new QHBoxLayout;
    header->setSpacing(8);
    auto* title = new QLabel(tr("Hosts × steps:"), m_mapArea);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    header->addWidget(title);
    m_stepTime = new QRadioButton(tr("Step time"), m_mapArea);
    m_lateness = new QRadioButton(tr("Lateness at the synchronizing collective"), m_mapArea);
    // Lateness first: every host of a synchronous pod has about the same step time (they all wait
    // for the last one), so the step-time map is one colour; lateness shows who is waited for.
    m_lateness->setChecked(true);
    auto* measures = new QButtonGroup(this);
    measures->addButton(m_stepTime);
    measures->addButton(m_lateness);
    header->addWidget(m_stepTime);
    header->addWidget(m_lateness);
    header->addSpacing(16);
    m_scaleLow = new QLabel(m_mapArea);
    header->addWidget(m_scaleLow);
    m_scaleBar = new ScaleBar(m_mapArea);
    m_scaleBar->setFixedSize(200, 14);
    header->addWidget(m_scaleBar);
    m_scaleHigh = new QLabel(m_mapArea);
    header->addWidget(m_scaleHigh);
    header->addSpacing(8);
    auto* unknown = new UnknownSwatch(m_mapArea);
    unknown->setFixedSize(22, 14);
    header->addWidget(unknown);
    header->addWidget(new QLabel(tr("unknown"), m_mapArea));
    m_scaleNote = new QLabel(m_mapArea);
    m_scaleNote->setForegroundRole(QPalette::PlaceholderText);
    m_scaleNote->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    header->addWidget(m_scaleNote, 1);
    mapLayout->addLayout(header);

    m_map = new HostHeatMap;
    m_scroll = new QScrollArea(m_mapArea);
    m_scroll->setObjectName(QStringLiteral("hostHeatMapScroll"));
    m_scroll->setWidgetResizable(true);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setWidget(m_map);
    // The step axis is painted at the top of the shown part: a scroll moves it, so the whole map
    // is painted again rather than the scrolled pixels reused.
    connect(m_scroll->verticalScrollBar(), &QScrollBar::valueChanged, m_map, qOverload<>(&QWidget::update));
    mapLayout->addWidget(m_scroll, 1);
    // The scroll area is capped at its rows' height (setAnalysis): spare room goes below the map,
    // so the toggle and the scale stay right above it.
    mapLayout->addStretch(0);
    m_splitter->addWidget(m_mapArea);

    m_table = new QTableWidget(m_splitter);
    m_table->setObjectName(QStringLiteral("hostTable"));
    m_table->setColumnCount(14);
    m_table->setHorizontalHeaderLabels({tr("Host"), tr("Chips"), tr("Cores"), tr("Steps"), tr("Avg step"),
        tr("Compute"), tr("Collectives"), tr("Collective wait"), tr("Idle"), tr("Host transfer"), tr("Late steps"),
        tr("Late vs others"), tr("Clock offset"), tr("Offset source")});
    m_table->horizontalHeaderItem(4)->setToolTip(tr("The host's average step (mean over its cores)"));
    for (int c = 5; c <= 9; ++c)
        m_table->horizontalHeaderItem(c)->setToolTip(tr("Per step and per core, averaged over the host's cores"));
    m_table->horizontalHeaderItem(7)->setToolTip(
        tr("Time in collectives beyond the transfer itself: waiting for the last participant (per step and core)"));
    m_table->horizontalHeaderItem(11)->setToolTip(
        tr("Mean arrival at the step's synchronizing collective after the other hosts' median (aligned clocks)"));
    m_table->horizontalHeaderItem(12)->setToolTip(
        tr("This host's clock minus the reference host's, estimated from events that coincide"));
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->setWordWrap(false);
    m_splitter->addWidget(m_table);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    layout->addWidget(m_splitter, 1);

    connect(m_stepTime, &QRadioButton::toggled, this,
        [this](bool on) { setMeasure(on ? HostHeatMap::Measure::StepTime : HostHeatMap::Measure::Lateness); });
    connect(m_map, &HostHeatMap::cellClicked, this, &HostsView::openCell);
    if (session) {
        connect(session, &qt::TraceSession::loaded, this, [this, session] { setAnalysis(session->analysis()); });
        connect(session, &qt::TraceSession::closed, this, [this] { setAnalysis(nullptr); });
    }
    setAnalysis(nullptr);
}

HostsView::~HostsView() = default;

void HostsView::setAnalysis(std::shared_ptr<const model::ProfileAnalysis> analysis)
{
    m_analysis = std::move(analysis);
    const HostAnalysis* hosts = m_analysis ? &m_analysis->hosts : nullptr;
    // The map shares the analysis' lifetime (an aliasing pointer).
    const bool pod = hosts && hosts->hosts.size() >= 2 && hosts->steps > 0;
    m_map->setHosts(pod ? std::shared_ptr<const HostAnalysis>(m_analysis, hosts) : nullptr);
    // As tall as its rows (up to the splitter's share): a few hosts leave the room to the table.
    m_scroll->setMaximumHeight(m_map->sizeHint().height() + 2 * m_scroll->frameWidth());
    if (!hosts) {
        m_summary->setText(tr("No profile loaded."));
    } else {
        QString summary = hosts->hosts.size() == 1 ? tr("1 host") : tr("%1 hosts").arg(hosts->hosts.size());
        if (hosts->steps > 0)
            summary += tr(" · %1 steps matched across hosts · average step %2")
                           .arg(hosts->steps)
                           .arg(duration(hosts->avgStepPs));
        if (!hosts->syncCollective.empty())
            summary += tr(" · synchronizing collective %1").arg(qs(hosts->syncCollective));
        if (const int row = stragglerRow(); row >= 0) {
            const HostRow& late = hosts->hosts[size_t(row)];
            summary += tr(" · straggler: %1").arg(qs(late.name));
            if (late.lateSteps && late.lateVsOthersPs)
                summary += tr(" (late in %1 of %2 steps, %3 per step after the others)")
                               .arg(*late.lateSteps)
                               .arg(hosts->steps)
                               .arg(duration(*late.lateVsOthersPs));
        }
        if (!hosts->note.empty())
            summary += QStringLiteral("\n") + qs(hosts->note);
        m_summary->setText(summary);
    }
    QString noMap;
    if (hosts && hosts->hosts.size() == 1)
        noMap = tr("This profile has one host: a pod view compares several hosts (a log dir with one "
                   ".xplane.pb per host), so there is no map. The table shows this host's numbers.");
    else if (hosts && hosts->hosts.empty())
        noMap = tr("This profile has no host with TPU cores: there is nothing to compare.");
    else if (hosts && !pod)
        noMap = tr("The hosts share no step, so there is no map: the table shows each host's numbers.");
    m_noMap->setText(noMap);
    m_noMap->setVisible(!noMap.isEmpty());
    m_mapArea->setVisible(pod);
    showScale();
    showTable();
    m_revealPending = stragglerRow() >= 0;
    revealStragglerLater();
}

int HostsView::stragglerRow() const
{
    if (!m_analysis)
        return -1;
    // The host the advice names (read from its numbers, not its prose).
    const model::Advice* a = m_analysis->advice.find(model::AdviceRuleId::Straggler);
    const model::AdviceValue* host = a ? a->numbers.find("host") : nullptr;
    if (!host)
        return -1;
    const auto& rows = m_analysis->hosts.hosts;
    const auto it = std::find_if(rows.begin(), rows.end(), [&](const HostRow& r) { return r.name == host->text; });
    return it == rows.end() ? -1 : int(it - rows.begin());
}

QString HostsView::summaryText() const
{
    return m_summary->text();
}

void HostsView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    revealStragglerLater();
}

void HostsView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    revealStragglerLater();
}

void HostsView::revealStragglerLater()
{
    // After the layout has given the scroll area and the table their sizes (queued behind it).
    if (m_revealPending && isVisible())
        QTimer::singleShot(0, this, &HostsView::revealStraggler);
}

void HostsView::revealStraggler()
{
    const int row = stragglerRow();
    if (!m_revealPending || row < 0 || !isVisible())
        return;
    m_revealPending = false;
    if (m_map->hostCount() > row) {
        const QRect cell = m_map->cellRect(row, 0);
        m_scroll->ensureVisible(0, cell.center().y(), 0, m_scroll->viewport()->height() / 2);
    }
    for (int r = 0; r < m_table->rowCount(); ++r)
        if (const QTableWidgetItem* name = m_table->item(r, 0); name && name->data(Qt::UserRole).toInt() == row) {
            m_table->scrollToItem(name, QAbstractItemView::PositionAtCenter);
            break;
        }
}

QString HostsView::noMapText() const
{
    return m_noMap->isVisibleTo(this) ? m_noMap->text() : QString();
}

bool HostsView::isMapShown() const
{
    return m_mapArea->isVisibleTo(this) && m_map->hostCount() > 0;
}

void HostsView::setMeasure(HostHeatMap::Measure measure)
{
    m_map->setMeasure(measure);
    QRadioButton* button = measure == HostHeatMap::Measure::StepTime ? m_stepTime : m_lateness;
    if (!button->isChecked())
        button->setChecked(true);
    showScale();
}

void HostsView::showScale()
{
    const auto [low, high] = m_map->scaleRange();
    m_scaleLow->setText(duration(low));
    m_scaleHigh->setText(duration(high));
    m_scaleNote->setText(m_map->measure() == HostHeatMap::Measure::StepTime
            ? tr("a corner mark: the host was counted late in that step · click a cell for the timeline")
            : tr("after the earliest host, clocks aligned · a corner mark: counted late · click a cell for the "
                 "timeline"));
}

void HostsView::showTable()
{
    m_table->setSortingEnabled(false);
    m_table->clearContents();
    const HostAnalysis* hosts = m_analysis ? &m_analysis->hosts : nullptr;
    m_table->setRowCount(hosts ? int(hosts->hosts.size()) : 0);
    if (!hosts)
        return;
    // The straggler the advice names is bolded here too.
    const int stragglerIndex = stragglerRow();
    auto durationItem = [](double ps) { return new NumberItem(duration(ps), ps); };
    auto optionalDuration = [](const std::optional<double>& ps) {
        return ps ? new NumberItem(duration(*ps), *ps) : new NumberItem(unknownText(), kUnknown);
    };
    for (size_t r = 0; r < hosts->hosts.size(); ++r) {
        const HostRow& h = hosts->hosts[r];
        const int row = int(r);
        auto* name = new QTableWidgetItem(qs(h.name));
        name->setData(Qt::UserRole, int(r));
        name->setToolTip(qs(h.name));
        m_table->setItem(row, 0, name);
        m_table->setItem(row, 1,
            h.chips ? new NumberItem(QString::number(*h.chips), *h.chips) : new NumberItem(unknownText(), kUnknown));
        m_table->setItem(row, 2, new NumberItem(QString::number(h.cores), h.cores));
        m_table->setItem(row, 3, new NumberItem(QString::number(h.steps), double(h.steps)));
        m_table->setItem(row, 4, durationItem(h.avgStepPs));
        m_table->setItem(row, 5, durationItem(h.computePs));
        m_table->setItem(row, 6, durationItem(h.collectivePs));
        m_table->setItem(row, 7, optionalDuration(h.collectiveWaitPs));
        m_table->setItem(row, 8, durationItem(h.idlePs));
        m_table->setItem(row, 9, durationItem(h.hostTransferPs));
        m_table->setItem(row, 10,
            h.lateSteps ? new NumberItem(QString::number(*h.lateSteps), double(*h.lateSteps))
                        : new NumberItem(unknownText(), kUnknown));
        m_table->setItem(row, 11, optionalDuration(h.lateVsOthersPs));
        m_table->setItem(row, 12,
            optionalDuration(h.clockOffsetPs ? std::optional<double>(double(*h.clockOffsetPs)) : std::nullopt));
        m_table->setItem(row, 13, new QTableWidgetItem(h.offsetSource.empty() ? unknownText() : qs(h.offsetSource)));
        if (int(r) == stragglerIndex)
            for (int c = 0; c < m_table->columnCount(); ++c) {
                QTableWidgetItem* item = m_table->item(row, c);
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
                item->setToolTip(tr("%1: the straggler the advice names").arg(qs(h.name)));
            }
    }
    m_table->setSortingEnabled(true);
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(0, std::min(m_table->columnWidth(0), 220));
}

void HostsView::openCell(int hostRow, int step)
{
    if (!m_analysis)
        return;
    const HostAnalysis& hosts = m_analysis->hosts;
    if (hostRow < 0 || size_t(hostRow) >= hosts.stepStartPs.size()
        || step >= int(hosts.stepStartPs[size_t(hostRow)].size()) || step < 0)
        return;
    const size_t h = size_t(hostRow), s = size_t(step);
    const model::TimePs begin = hosts.stepStartPs[h][s];
    // The host's own step when known, else up to its next step, else the pod's average step.
    double length = hosts.stepPs[h][s];
    if (std::isnan(length) || length <= 0)
        length = s + 1 < hosts.stepStartPs[h].size() ? double(hosts.stepStartPs[h][s + 1] - begin) : hosts.avgStepPs;
    const model::TimePs end = begin + std::max<model::TimePs>(1, model::TimePs(std::llround(length)));
    emit hostStepSelected(hosts.hosts[h].host, begin, end);
}

} // namespace tpuscope::widgets
