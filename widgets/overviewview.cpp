// SPDX-License-Identifier: GPL-3.0-or-later
#include "overviewview.h"
#include "qt/colors.h"
#include "qt/qstrings.h"

#include "analysis/advice.h"
#include "analysis/opbreakdown.h"
#include "chartheader.h"
#include "qt/tracesession.h"
#include "report/report.h"
#include "report/stragglertext.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QEvent>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>

namespace tpuscope::widgets {

using model::StepAnalysis;
using model::StepTimeSplit;
using model::TimePs;

namespace {

using tpuscope::qt::qs;

struct Part
{
    const char* name;
    QColor color;
    double StepTimeSplit::*field;
};

// Bottom to top. Idle is the light grey on top, so the bars' height is the step time.
const std::array<Part, 5>& parts()
{
    static const std::array<Part, 5> list = {{
        {"compute", qt::colors::stepPartColor(qt::colors::StepPart::Compute), &StepTimeSplit::computePs},
        {"collectives", qt::colors::stepPartColor(qt::colors::StepPart::Collectives), &StepTimeSplit::collectivePs},
        {"host transfer", qt::colors::stepPartColor(qt::colors::StepPart::HostTransfer),
            &StepTimeSplit::hostTransferPs},
        {"infeed/outfeed", qt::colors::stepPartColor(qt::colors::StepPart::Infeed), &StepTimeSplit::infeedPs},
        {"idle", qt::colors::stepPartColor(qt::colors::StepPart::Idle), &StepTimeSplit::idlePs},
    }};
    return list;
}

QString durationText(double ps)
{
    return qs(model::formatDurationPs(ps));
}

QString percent(double fraction)
{
    return qs(model::formatPercent(fraction));
}

/// The unit the chart's y axis uses for steps of about `ps`.
std::pair<double, QString> unitFor(double ps)
{
    const model::TimeUnit unit = std::max(model::timeUnitFor(ps), model::TimeUnit::Ns);
    return {model::timeUnitPs(unit), QString::fromUtf8(model::timeUnitName(unit))};
}

QString sourceText(const StepAnalysis& s)
{
    switch (s.source) {
    case model::StepSource::ProgramRuns:
        return QObject::tr("runs of %1 on the XLA Modules line").arg(qs(s.program).toHtmlEscaped());
    case model::StepSource::StepsLine:
        return QObject::tr("the device %1 line").arg(qs(s.sourceLine).toHtmlEscaped());
    case model::StepSource::HostMarkers:
        return QObject::tr("host step markers \"%1\"").arg(qs(s.sourceLine).toHtmlEscaped());
    case model::StepSource::None:
        break;
    }
    return {};
}

} // namespace

OverviewView::OverviewView(qt::TraceSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
{
    // The content scrolls when the view is shorter than its minimum (1280x720 with the Charts dock
    // open), instead of forcing the whole window taller than the screen.
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("overviewScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    outer->addWidget(scroll);
    auto* content = new QWidget(scroll);
    scroll->setWidget(content);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->setSpacing(6);

    m_headline = new QLabel(this);
    m_headline->setObjectName(QStringLiteral("overviewHeadline"));
    m_headline->setTextFormat(Qt::RichText);
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_headline);
    // Issue 25.9: the low-utilization ops of every kind, one click from their list in the op table.
    m_lowUtil = new QLabel(this);
    m_lowUtil->setObjectName(QStringLiteral("overviewLowUtilization"));
    m_lowUtil->setTextFormat(Qt::RichText);
    m_lowUtil->setWordWrap(true);
    m_lowUtil->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    m_lowUtil->hide();
    connect(m_lowUtil, &QLabel::linkActivated, this, [this](const QString&) { activateLowUtilizationLink(); });
    layout->addWidget(m_lowUtil);
    // Issue 12 (honest numbers) fills this with how much of the op time has costs recorded.
    m_costCoverage = new QLabel(this);
    m_costCoverage->setTextFormat(Qt::PlainText);
    m_costCoverage->setObjectName(QStringLiteral("costCoverage"));
    m_costCoverage->setWordWrap(true);
    m_costCoverage->setForegroundRole(QPalette::PlaceholderText);
    m_costCoverage->hide();
    layout->addWidget(m_costCoverage);

    auto* adviceBox = new QWidget(this);
    auto* adviceLayout = new QVBoxLayout(adviceBox);
    adviceLayout->setContentsMargins(0, 0, 0, 0);
    adviceLayout->setSpacing(2);
    m_adviceTitle = new QLabel(adviceBox);
    m_adviceTitle->setTextFormat(Qt::PlainText);
    QFont bold = m_adviceTitle->font();
    bold.setBold(true);
    m_adviceTitle->setFont(bold);
    adviceLayout->addWidget(m_adviceTitle);
    m_adviceList = new QVBoxLayout;
    m_adviceList->setSpacing(4);
    adviceLayout->addLayout(m_adviceList);
    layout->addWidget(adviceBox);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    auto* chartArea = new QWidget(splitter);
    auto* chartLayout = new QVBoxLayout(chartArea);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->setSpacing(0);
    QHBoxLayout* header = makeChartHeader(chartArea, tr("Step time"), m_stepStatus);
    header->setSpacing(10);
    // The status may be long: it gives way (clipped) rather than widen the window.
    m_stepStatus->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_legend = new QLabel(chartArea);
    m_legend->setTextFormat(Qt::RichText);
    header->addWidget(m_legend);
    m_coreCombo = new QComboBox(chartArea);
    header->addWidget(m_coreCombo);
    chartLayout->addLayout(header);
    m_plot = new QCustomPlot(chartArea);
    m_plot->setMinimumHeight(160);
    m_plot->legend->setVisible(false); // the legend is the header's, so it never hides a bar
    for (const Part& part : parts()) {
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(QString::fromLatin1(part.name));
        bars->setWidth(0.8);
        bars->setPen(Qt::NoPen);
        bars->setBrush(part.color);
        if (!m_bars.empty())
            bars->moveAbove(m_bars.back());
        m_bars.push_back(bars);
    }
    m_plot->setInteractions(QCP::iSelectPlottables);
    connect(m_plot, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable* p, int dataIndex, QMouseEvent*) {
        auto* bars = qobject_cast<QCPBars*>(p);
        if (bars && dataIndex >= 0 && dataIndex < bars->data()->size())
            selectStep(static_cast<int>(std::lround(bars->data()->at(dataIndex)->key)));
    });
    chartLayout->addWidget(m_plot, 1);
    // Without steps the plot hides: the header stays on top instead of floating mid-page.
    chartLayout->addStretch(0);
    splitter->addWidget(chartArea);

    m_programs = new QTableWidget(splitter);
    m_programs->setColumnCount(7);
    m_programs->setHorizontalHeaderLabels(
        {tr("Program"), tr("Runs/core"), tr("Average"), tr("Min"), tr("Max"), tr("Std dev"), tr("Share of profile")});
    m_programs->verticalHeader()->hide();
    m_programs->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_programs->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_programs->setSelectionMode(QAbstractItemView::SingleSelection);
    // The numbers fit their contents whenever the table is laid out: sizing them once when rows
    // arrive measured nothing while the tab was hidden (a device change) and the columns collapsed.
    m_programs->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_programs->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_programs->setToolTip(tr("Click a program to show its runs as the steps"));
    connect(m_programs, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (!m_defaultSteps || row < 0 || row >= static_cast<int>(m_defaultSteps->programs.size()))
            return;
        const QString name = qs(m_defaultSteps->programs[static_cast<size_t>(row)].name);
        setProgram(row == m_defaultSteps->dominantProgram && m_defaultSteps->source != model::StepSource::StepsLine
                ? QString()
                : name);
    });
    splitter->addWidget(m_programs);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);

    connect(m_coreCombo, &QComboBox::activated, this, [this](int index) { setCore(index - 1); });
    if (m_session) {
        connect(m_session, &qt::TraceSession::loaded, this, [this] { setAnalysis(m_session->analysis()); });
    }
    applyPalette();
    setAnalysis(nullptr);
}

OverviewView::~OverviewView() = default;

void OverviewView::setAnalysis(model::ProfileAnalysisPtr analysis)
{
    // The parts share the analysis' lifetime (aliasing pointers).
    m_analysis = analysis;
    m_profile = analysis ? analysis->profile : nullptr;
    m_breakdown = analysis ? std::shared_ptr<const model::OpBreakdown>(analysis, &analysis->breakdown) : nullptr;
    m_defaultSteps = analysis ? std::shared_ptr<const StepAnalysis>(analysis, &analysis->steps) : nullptr;
    m_advice = analysis ? std::shared_ptr<const model::AdviceReport>(analysis, &analysis->advice) : nullptr;
    m_core = -1;
    m_program.clear();
    m_shown = m_defaultSteps;
    m_coreCombo->clear();
    m_coreCombo->addItem(tr("All cores (average)"));
    if (m_profile) {
        const size_t cores = m_profile->tpuCorePlanes().size(); // once: a file may hold 16,384 planes
        for (size_t c = 0; c < cores; ++c)
            m_coreCombo->addItem(tr("Core %1").arg(c));
    }
    m_coreCombo->setVisible(m_coreCombo->count() > 2);
    showHeadline();
    showLowUtilization();
    showAdvice();
    showPrograms();
    showSteps();
}

void OverviewView::setLowUtilizationThreshold(double fraction)
{
    fraction = std::clamp(fraction, 0.0, 1.0);
    if (fraction == m_lowUtilThreshold)
        return;
    m_lowUtilThreshold = fraction;
    showLowUtilization();
}

std::optional<int> OverviewView::lowUtilizationOpCount() const
{
    if (!m_breakdown)
        return std::nullopt;
    return model::countLowUtilizationOps(*m_breakdown, m_lowUtilThreshold);
}

void OverviewView::activateLowUtilizationLink()
{
    if (lowUtilizationOpCount().value_or(0) > 0)
        emit lowUtilizationOpsRequested();
}

void OverviewView::showLowUtilization()
{
    // The same count and words as the op table and `tpuscope-cli ops`/`summary` (model/report).
    const std::optional<int> count = lowUtilizationOpCount();
    if (!count || !m_profile || !m_profile->hasTpuOps()) {
        m_lowUtil->clear();
        m_lowUtil->hide();
        return;
    }
    const QString what = qs(model::lowUtilizationOpsText(count)).toHtmlEscaped();
    const QString rule = qs(model::lowUtilizationRuleText(m_lowUtilThreshold)).toHtmlEscaped();
    const QString muted = qt::colors::mutedTextColor(palette()).name();
    if (*count > 0)
        m_lowUtil->setText(
            tr("<a href='low-utilization' style='color:%1'><b>%2</b></a> <span style='color:%3'>(ops of any kind, %4): "
               "click to list them in the op table</span>")
                .arg(qt::colors::linkColor(palette()).name(), what, muted, rule));
    else
        m_lowUtil->setText(tr("<span style='color:%1'>%2 (%3)</span>").arg(muted, what, rule));
    m_lowUtil->setToolTip(*count > 0 ? tr("Show only the low-utilization ops in the op table") : QString());
    m_lowUtil->show();
}

void OverviewView::setCostCoverageText(const QString& text)
{
    m_costCoverage->setText(text);
    m_costCoverage->setVisible(!text.isEmpty());
}

void OverviewView::setCore(int core)
{
    if (core == m_core)
        return;
    m_core = core;
    if (m_coreCombo->currentIndex() != core + 1)
        m_coreCombo->setCurrentIndex(core + 1);
    recomputeSteps();
}

void OverviewView::setProgram(const QString& program)
{
    if (program == m_program)
        return;
    m_program = program;
    recomputeSteps();
}

void OverviewView::recomputeSteps()
{
    if (!m_profile)
        return;
    if (m_core < 0 && m_program.isEmpty()) {
        m_shown = m_defaultSteps;
    } else {
        model::StepOptions options;
        options.core = m_core;
        options.program = m_program.toStdString();
        // One core or another program: a session job, so a long profile never blocks the GUI
        // (the steps on screen stay until the new ones arrive). Without a session showing this
        // analysis there is nothing to ask, and the default steps stay.
        if (m_session && m_session->analysis() == m_analysis)
            m_session->requestSteps(options, this, [this](std::shared_ptr<const StepAnalysis> steps) {
                m_shown = std::move(steps);
                showPrograms();
                showSteps();
            });
        return;
    }
    showPrograms();
    showSteps();
}

QString OverviewView::headlineText() const
{
    return m_headline->text();
}

void OverviewView::showHeadline()
{
    if (!m_profile) {
        m_headline->setText(tr("No profile loaded."));
        return;
    }
    const model::DeviceInfo& d = m_profile->device;
    if (!m_profile->hasTpuOps()) {
        m_headline->setText(tr("<b>No TPU op data</b> in this file: the timeline still shows every plane and line."));
        return;
    }
    QString device = d.type.empty() ? tr("Unknown TPU") : qs(d.type).toHtmlEscaped();
    const QString peaks = d.peakSource == model::PeakSource::None
        ? tr("peaks unknown: start with --device GEN for utilizations")
        : tr("peaks %1 TFLOP/s, %2 GB/s per core: %3")
              .arg(d.peakTflopsPerCore, 0, 'g', 4)
              .arg(d.peakHbmGbpsPerCore, 0, 'g', 4)
              .arg(qs(d.peakNote).toHtmlEscaped());
    QString text = tr("<span style='font-size:large'><b>%1</b></span> &middot; %2 <span "
                      "style='color:%4'>(%3)</span>")
                       .arg(device, qs(model::coresCountText(d, d.cores)).toHtmlEscaped(), peaks,
                           qt::colors::mutedTextColor(palette()).name());
    const StepAnalysis* s = m_defaultSteps.get();
    if (s && s->stepsPerCore > 0) {
        text += (s->stepsPerCore == 1
                ? tr("<br><span style='font-size:large'>Step <b>%1</b></span> &middot; %2 step per core from %3")
                : tr("<br><span style='font-size:large'>Step <b>%1</b></span> &middot; %2 steps per core from %3"))
                    .arg(durationText(s->avgStepPs))
                    .arg(s->stepsPerCore)
                    .arg(sourceText(*s));
        const StepTimeSplit a = s->averageStep();
        const double total = std::max(1.0, a.totalPs());
        QStringList split;
        for (const Part& part : parts())
            split << tr("%1 %2").arg(QString::fromLatin1(part.name), percent(a.*part.field / total));
        text += tr("<br>Where a step goes: %1").arg(split.join(QStringLiteral(" &middot; ")));
        text += tr("<br>Idle outside the steps: warm-up %1 before the first, tail %2 after the last (not "
                   "input-bound evidence)")
                    .arg(durationText(s->warmup.idlePs), durationText(s->tail.idlePs));
    } else if (s) {
        text += tr("<br>Steps: %1").arg(qs(s->note).toHtmlEscaped());
    }
    QStringList warnings;
    if (m_breakdown) {
        // Capped per op, over the ops with cost data, and saying how much of the op time that is:
        // an unknown figure reads "–", never 0 %.
        text += tr("<br>FLOPS utilization <b>%1</b> &middot; HBM bandwidth utilization <b>%2</b> &middot; %3")
                    .arg(qs(model::headlineUtilizationText(m_breakdown->flops)).toHtmlEscaped(),
                        qs(model::headlineUtilizationText(m_breakdown->hbm)).toHtmlEscaped(),
                        qs(model::costCoverageText(m_breakdown->costCoverage)));
        // A file without a timeline (op_profile.json) has no span to be busy in: say nothing, not 0 %.
        if (s && s->spanPs > 0)
            text += tr(" &middot; device busy %1 of the profile").arg(percent(s->busyFraction));
        if (m_profile)
            for (const std::string& w : model::breakdownWarnings(*m_profile, *m_breakdown))
                warnings << tr("Warning: %1").arg(qs(w));
    }
    m_headline->setText(text);
    setCostCoverageText(warnings.join(QLatin1Char('\n')));
}

void OverviewView::showAdvice()
{
    while (QLayoutItem* item = m_adviceList->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_adviceShown = 0;
    m_adviceIndices.clear();
    if (!m_advice || m_advice->advice.empty()) {
        m_adviceTitle->setText(m_profile && m_advice ? tr("No advice rule fired.") : QString());
        return;
    }
    m_adviceTitle->setText(tr("What to change first (click for the evidence)"));
    // The top three by the report's order; a pod's straggler is always among them (it says which
    // host holds every step back, which no other item can), in the third place if it ranked lower.
    const size_t n = std::min<size_t>(3, m_advice->advice.size());
    for (size_t i = 0; i < n; ++i)
        m_adviceIndices.push_back(int(i));
    for (size_t i = n; i < m_advice->advice.size(); ++i)
        if (m_advice->advice[i].id == model::AdviceRuleId::Straggler) {
            m_adviceIndices.back() = int(i);
            break;
        }
    for (size_t shown = 0; shown < m_adviceIndices.size(); ++shown) {
        const size_t i = size_t(m_adviceIndices[shown]);
        const model::Advice& a = m_advice->advice[i];
        const QString severity = qs(model::severityName(a.severity));
        // Text, not an icon: the severity hue at WCAG AA contrast on this palette (light or dark).
        const QColor color = a.severity == model::Severity::Info ? qt::colors::mutedTextColor(palette())
                                                                 : qt::colors::severityTextColor(a.severity, palette());
        QString html
            = tr("<a href='%1' style='text-decoration:none; color:%5'><b style='color:%2'>%3</b>&nbsp; %4</a>")
                  .arg(shown)
                  .arg(color.name(), severity, qs(a.title).toHtmlEscaped(), qt::colors::linkColor(palette()).name());
        // One line under the title: the item's fix when it names an action of its own (the title
        // often names the fix already), else what fixing it could gain.
        const QString fix = qs(a.fix.action);
        QString gain = qs(a.gain);
        for (const QString& stop : {QStringLiteral(" ("), QStringLiteral(": "), QStringLiteral(". ")})
            if (const qsizetype at = gain.indexOf(stop); at > 0)
                gain.truncate(at);
        constexpr qsizetype kLine = 150; // characters: the fix stays on one line
        // The straggler: which host, how late, why and what keeping up gains, from its numbers.
        if (const std::string straggler = model::stragglerLine(a); !straggler.empty())
            html += tr("<br><b>Straggler:</b> %1").arg(qs(straggler).toHtmlEscaped());
        if (!fix.isEmpty())
            html += tr("<br><span style='color:%2'>Fix: %1</span>")
                        .arg((fix.size() > kLine ? fix.left(kLine - 1) + QStringLiteral("…") : fix).toHtmlEscaped(),
                            qt::colors::mutedTextColor(palette()).name());
        else if (a.gainPs > 0 && !gain.isEmpty())
            html += tr("<br><span style='color:%2'>Gain: %1</span>")
                        .arg(gain.toHtmlEscaped(), qt::colors::mutedTextColor(palette()).name());
        auto* label = new QLabel(html, this);
        label->setObjectName(QStringLiteral("overviewAdvice%1").arg(shown));
        label->setTextFormat(Qt::RichText);
        label->setWordWrap(true);
        label->setToolTip(qt::plainToolTip(qs(a.detail)));
        connect(label, &QLabel::linkActivated, this, [this](const QString& link) { activateAdvice(link.toInt()); });
        m_adviceList->addWidget(label);
        ++m_adviceShown;
    }
}

QString OverviewView::adviceItemText(int index) const
{
    const auto* label = findChild<QLabel*>(QStringLiteral("overviewAdvice%1").arg(index));
    return label ? label->text() : QString();
}

void OverviewView::activateAdvice(int index)
{
    if (index >= 0 && index < m_adviceShown)
        emit adviceActivated(m_adviceIndices[size_t(index)]);
}

void OverviewView::showPrograms()
{
    const StepAnalysis* s = m_defaultSteps.get();
    m_programs->setRowCount(s ? static_cast<int>(s->programs.size()) : 0);
    m_programs->setVisible(m_programs->rowCount() > 0);
    if (!s)
        return;
    const QString shownProgram = m_shown ? qs(m_shown->program) : QString();
    for (size_t r = 0; r < s->programs.size(); ++r) {
        const model::ProgramRunStats& p = s->programs[r];
        const QStringList cells = {qs(p.name), QString::number(p.runsPerCore, 'g', 6), durationText(p.avgPs),
            durationText(p.minPs), durationText(p.maxPs), durationText(p.stddevPs), percent(p.timeFraction)};
        const bool shown = !shownProgram.isEmpty() && qs(p.name) == shownProgram;
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c > 0)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            QFont font = item->font();
            font.setBold(shown);
            item->setFont(font);
            if (shown)
                item->setToolTip(tr("The steps shown are the runs of this program"));
            m_programs->setItem(static_cast<int>(r), c, item);
        }
    }
    // As tall as its rows (a few programs is the usual case), so the chart keeps the room.
    const int rows = std::min(m_programs->rowCount(), 8);
    m_programs->setMaximumHeight(m_programs->horizontalHeader()->height() + 2 * m_programs->frameWidth() + 4
        + rows * m_programs->verticalHeader()->defaultSectionSize());
}

void OverviewView::showSteps()
{
    for (QCPBars* bars : m_bars)
        bars->data()->clear();
    m_plot->clearItems();
    const StepAnalysis* s = m_shown.get();
    // No steps (an op_profile has no timeline to find them in): the note says why, and no empty
    // axes pretend there is something to read.
    const bool hasSteps = s && !s->steps.empty();
    m_plot->setVisible(hasSteps);
    m_legend->setVisible(hasSteps);
    if (!hasSteps) {
        m_stepStatus->setText(s ? qs(s->note) : QString());
        m_stepStatus->setToolTip(m_stepStatus->text());
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const auto [scale, unit] = unitFor(s->maxStepPs);
    const int n = static_cast<int>(s->steps.size());
    std::vector<QVector<double>> values(parts().size(), QVector<double>(n));
    QVector<double> keys(n);
    for (int i = 0; i < n; ++i) {
        keys[i] = i;
        for (size_t p = 0; p < parts().size(); ++p)
            values[p][i] = s->steps[static_cast<size_t>(i)].time.*parts()[p].field / scale;
    }
    for (size_t p = 0; p < parts().size(); ++p)
        m_bars[p]->setData(keys, values[p], true);
    m_plot->xAxis->setRange(-1.2, n + 0.2);
    m_plot->yAxis->setRange(0, s->maxStepPs / scale * 1.25);
    m_plot->xAxis->setLabel(tr("step"));
    m_plot->yAxis->setLabel(tr("time per step (%1)").arg(unit));
    m_plot->xAxis->ticker()->setTickCount(std::min(n, 10));

    // Warm-up before the first step and tail after the last: marked, not drawn to scale.
    const QColor muted = palette().color(QPalette::PlaceholderText);
    auto mark = [&](double x, const QString& text, Qt::Alignment align) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(x, 0);
        line->point2->setCoords(x, 1);
        line->setPen(QPen(muted, 1, Qt::DashLine));
        auto* label = new QCPItemText(m_plot);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(x, 0.02);
        label->setPositionAlignment(align | Qt::AlignTop);
        label->setText(text);
        label->setColor(muted);
        label->setPadding(QMargins(4, 0, 4, 0));
    };
    mark(-0.5, tr("warm-up %1\n(%2 idle)").arg(durationText(s->warmupPs), durationText(s->warmup.idlePs)),
        s->warmupPs > 0 ? Qt::AlignLeft : Qt::AlignLeft);
    mark(n - 0.5, tr("tail %1\n(%2 idle)").arg(durationText(s->tailPs), durationText(s->tail.idlePs)), Qt::AlignRight);

    const QString where = s->core >= 0 ? tr("core %1").arg(s->core) : tr("average of %1 cores").arg(s->cores);
    m_stepStatus->setText(
        (n == 1 ? tr("%1 step from %2, %3 · average %4 · click the bar to see it in the timeline")
                : tr("%1 steps from %2, %3 · average %4 · click a bar to see the step in the timeline"))
            .arg(n)
            .arg(sourceText(*s).remove(QStringLiteral("&quot;")), where, durationText(s->avgStepPs)));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void OverviewView::selectStep(int index)
{
    const StepAnalysis* s = m_shown.get();
    if (!s || index < 0 || index >= static_cast<int>(s->steps.size()))
        return;
    const model::StepRow& row = s->steps[static_cast<size_t>(index)];
    emit stepSelected(row.startPs, row.endPs);
}

void OverviewView::applyPalette()
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    const QColor grid = pal.color(QPalette::Mid);
    m_plot->setBackground(pal.brush(QPalette::Base));
    m_plot->axisRect()->setBackground(pal.brush(QPalette::Base));
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
    }
    QString legend;
    for (const Part& part : parts())
        legend += QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2&nbsp;&nbsp;")
                      .arg(part.color.name(), QString::fromLatin1(part.name));
    m_legend->setText(legend);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void OverviewView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        // The texts carry colours chosen for the palette (severity, muted notes, links). Later, not
        // here: rebuilding the advice labels deletes widgets the palette change is still visiting.
        QTimer::singleShot(0, this, [this] {
            showHeadline();
            showLowUtilization();
            showAdvice();
        });
    }
}

} // namespace tpuscope::widgets
