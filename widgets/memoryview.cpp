// SPDX-License-Identifier: GPL-3.0-or-later
#include "memoryview.h"
#include "qt/colors.h"
#include "qt/qstrings.h"
#include "sortarrows.h"

#include "analysis/layout.h"
#include "analysis/padding.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "report/report.h"

#include "chartheader.h"

#include <QComboBox>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>

namespace tpuscope::widgets {

using namespace tpuscope::model;

namespace {

using tpuscope::qt::qs;

QString bytesText(double bytes)
{
    return qs(formatBytes(bytes));
}

/// Sorts by the number in Qt::UserRole when there is one, else by text.
class SortItem : public QTableWidgetItem
{
public:
    SortItem(const QString& text, double key)
        : QTableWidgetItem(text)
    {
        setData(Qt::UserRole, key);
    }
    explicit SortItem(const QString& text)
        : QTableWidgetItem(text)
    {
    }
    bool operator<(const QTableWidgetItem& other) const override
    {
        const QVariant a = data(Qt::UserRole), b = other.data(Qt::UserRole);
        if (a.isValid() && b.isValid())
            return a.toDouble() < b.toDouble();
        return text() < other.text();
    }
};

enum Column {
    ColInstruction,
    ColKind,
    ColSize,
    ColUnpadded,
    ColPadding,
    ColPaddingShare,
    ColShape,
    ColDims,
    ColOp,
    ColCount
};

/// The unit the chart's value axis uses for a peak of this size.
std::pair<double, QString> axisUnit(double peak)
{
    if (peak >= 1024.0 * 1024 * 1024)
        return {1024.0 * 1024 * 1024, QStringLiteral("GiB")};
    if (peak >= 1024.0 * 1024)
        return {1024.0 * 1024, QStringLiteral("MiB")};
    if (peak >= 1024.0)
        return {1024.0, QStringLiteral("KiB")};
    return {1.0, QStringLiteral("B")};
}

} // namespace

MemoryView::MemoryView(QWidget* parent)
    : QWidget(parent)
    , m_report(std::make_shared<const MemoryReport>())
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    QHBoxLayout* header = makeChartHeader(this, tr("HBM memory"), m_status);
    m_moduleCombo = new QComboBox(this);
    m_moduleCombo->setToolTip(tr("The module (XLA program) whose buffer assignment is shown"));
    m_moduleCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    header->addWidget(m_moduleCombo);
    layout->addLayout(header);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    m_plot = new QCustomPlot(splitter);
    m_plot->setMinimumSize(200, 140);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->xAxis->setLabel(tr("Program order (heap-simulator events)"));
    auto ticker = QSharedPointer<QCPAxisTickerFixed>(new QCPAxisTickerFixed);
    ticker->setTickStep(1); // positions are whole events
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    splitter->addWidget(m_plot);

    auto* lower = new QSplitter(Qt::Horizontal, splitter);
    lower->setChildrenCollapsible(false);
    m_table = new QTableWidget(lower);
    m_table->setColumnCount(ColCount);
    m_table->setHorizontalHeaderLabels({tr("Instruction"), tr("Kind"), tr("Size"), tr("Unpadded"), tr("Padding"),
        tr("Padding %"), tr("Shape"), tr("Padded dimensions"), tr("Framework op")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSortingEnabled(true);
    m_table->verticalHeader()->hide();
    useConventionalSortArrows(m_table->horizontalHeader()); // down = largest first
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    lower->addWidget(m_table);
    m_details = new QTextBrowser(lower);
    m_details->setOpenLinks(false);
    m_details->setMinimumWidth(220);
    lower->addWidget(m_details);
    lower->setStretchFactor(0, 3);
    lower->setStretchFactor(1, 1);
    splitter->addWidget(lower);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);

    connect(m_moduleCombo, &QComboBox::currentIndexChanged, this, [this] { showCurrentModule(); });
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = m_table->selectionModel()->selectedRows();
        showBuffer(rows.isEmpty() ? -1 : rows.front().row());
    });
    rebuild();
}

MemoryView::~MemoryView() = default;

void MemoryView::setSession(qt::TraceSession* session)
{
    session->follow(this, [this](const ProfileAnalysisPtr& analysis) { setAnalysis(analysis); });
}

void MemoryView::setAnalysis(const ProfileAnalysisPtr& analysis)
{
    const ProfilePtr profile = analysis ? analysis->profile : nullptr;
    if (profile == m_profile && (!analysis || m_report.get() == &analysis->memory))
        return;
    m_profile = profile;
    // The memory view was computed with the rest of the analysis, off the GUI thread.
    m_report = analysis ? std::shared_ptr<const MemoryReport>(analysis, &analysis->memory)
                        : std::make_shared<const MemoryReport>();
    rebuild();
}

void MemoryView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange && m_report)
        showCurrentModule();
    QWidget::changeEvent(event);
}

const ModuleMemory* MemoryView::currentModule() const
{
    const int index = m_moduleCombo->currentIndex();
    return index >= 0 && index < static_cast<int>(m_report->modules.size())
        ? &m_report->modules[static_cast<size_t>(index)]
        : nullptr;
}

bool MemoryView::showModule(const QString& name)
{
    const int index = m_moduleCombo->findText(name);
    if (index < 0)
        return false;
    m_moduleCombo->setCurrentIndex(index);
    return true;
}

void MemoryView::rebuild()
{
    const QSignalBlocker blocker(m_moduleCombo);
    m_moduleCombo->clear();
    // The module with the largest peak first: that is the one that runs out of HBM.
    size_t largest = 0;
    for (size_t i = 0; i < m_report->modules.size(); ++i) {
        const ModuleMemory& m = m_report->modules[i];
        m_moduleCombo->addItem(qs(m.name));
        if (m.peakHeapBytes > m_report->modules[largest].peakHeapBytes)
            largest = i;
    }
    m_moduleCombo->setVisible(m_report->modules.size() > 1);
    if (!m_report->modules.empty())
        m_moduleCombo->setCurrentIndex(static_cast<int>(largest));
    showCurrentModule();
}

void MemoryView::showCurrentModule()
{
    const ModuleMemory* m = currentModule();
    if (!m) {
        m_status->setText(!m_profile ? QString()
                                     : tr("— no module in this profile carries a buffer assignment (HloProto field "
                                          "3), so there is no memory view"));
        m_plot->clearGraphs();
        m_plot->clearItems();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        m_table->setRowCount(0);
        m_details->clear();
        return;
    }
    QString status = tr("— peak %1").arg(bytesText(static_cast<double>(m->peakHeapBytes)));
    if (const double share = m_report->capacityFraction(*m); share >= 0)
        status += tr(" (%1 of %2 HBM)").arg(qs(formatPercent(share)), bytesText(m_report->hbmCapacityBytes));
    status += tr(", padding %1 (%2 of the peak)")
                  .arg(bytesText(static_cast<double>(m->peakPaddingBytes)), qs(formatPercent(m->paddingFraction())));
    m_status->setText(status);
    fillChart(*m);
    fillTable(*m);
    showTotals(*m);
}

void MemoryView::fillChart(const ModuleMemory& memory)
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    const auto [unit, unitName] = axisUnit(static_cast<double>(memory.peakHeapBytes));
    const QPalette pal = palette();
    const QColor padded = qt::colors::memoryPaddedColor();
    const QColor unpadded = qt::colors::memoryUnpaddedColor();

    QVector<double> x, heap, data;
    for (const MemoryPoint& p : memory.timeline) {
        x.push_back(static_cast<double>(p.position));
        heap.push_back(static_cast<double>(p.heapBytes) / unit);
        data.push_back(static_cast<double>(p.unpaddedBytes) / unit);
    }
    // A single point (no heap trace) still draws as a flat line.
    if (x.size() == 1) {
        x.push_back(1);
        heap.push_back(heap.front());
        data.push_back(data.front());
    }
    QCPGraph* heapGraph = m_plot->addGraph();
    heapGraph->setName(tr("Heap (padded, as allocated)"));
    heapGraph->setLineStyle(QCPGraph::lsStepLeft);
    heapGraph->setPen(QPen(padded, 2));
    QColor fill = padded;
    fill.setAlpha(40);
    heapGraph->setBrush(fill);
    heapGraph->setData(x, heap, true);
    QCPGraph* dataGraph = m_plot->addGraph();
    dataGraph->setName(tr("Unpadded (the data)"));
    dataGraph->setLineStyle(QCPGraph::lsStepLeft);
    dataGraph->setPen(QPen(unpadded, 2));
    dataGraph->setData(x, data, true);

    const double peak = static_cast<double>(memory.peakHeapBytes) / unit;
    const double xMax = x.isEmpty() ? 1 : std::max(1.0, x.back());
    if (memory.heapTrace >= 0) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(static_cast<double>(memory.peakPosition), 0);
        line->point2->setCoords(static_cast<double>(memory.peakPosition), 1);
        QPen pen(qt::colors::memoryPeakColor(), 1, Qt::DashLine);
        line->setPen(pen);
    }
    auto* label = new QCPItemText(m_plot);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    label->position->setCoords(memory.heapTrace >= 0 ? static_cast<double>(memory.peakPosition) : 0, peak);
    label->setText(
        tr(" peak %1, %2 padding")
            .arg(bytesText(static_cast<double>(memory.peakHeapBytes)), qs(formatPercent(memory.paddingFraction()))));
    label->setColor(qt::colors::readableOn(qt::colors::memoryPeakColor(), {pal.color(QPalette::Base)})); // AA text
    label->setClipToAxisRect(false);
    double yMax = peak * 1.2;
    // The HBM capacity only when the peak comes near it; otherwise it would flatten the curve.
    if (m_report->hbmCapacityBytes > 0
        && static_cast<double>(memory.peakHeapBytes) > 0.5 * m_report->hbmCapacityBytes) {
        auto* capacity = new QCPItemStraightLine(m_plot);
        const double c = m_report->hbmCapacityBytes / unit;
        capacity->point1->setCoords(0, c);
        capacity->point2->setCoords(1, c);
        capacity->setPen(QPen(pal.color(QPalette::WindowText), 1, Qt::DotLine));
        auto* capacityLabel = new QCPItemText(m_plot);
        capacityLabel->setObjectName(QStringLiteral("hbmCapacityLabel"));
        // Under its line: above it, the axis rect's top cut the text off in a short chart.
        capacityLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        capacityLabel->position->setType(QCPItemPosition::ptAxisRectRatio);
        capacityLabel->position->setTypeY(QCPItemPosition::ptPlotCoords);
        capacityLabel->position->setCoords(0.01, c);
        capacityLabel->setText(tr("HBM capacity %1").arg(bytesText(m_report->hbmCapacityBytes)));
        capacityLabel->setColor(pal.color(QPalette::WindowText));
        yMax = std::max(yMax, c * 1.1);
    }
    m_plot->yAxis->setLabel(unitName);
    m_plot->xAxis->setRange(0, xMax);
    m_plot->yAxis->setRange(0, yMax > 0 ? yMax : 1);
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setBasePen(QPen(pal.color(QPalette::WindowText)));
        axis->setTickPen(QPen(pal.color(QPalette::WindowText)));
        axis->setSubTickPen(QPen(pal.color(QPalette::WindowText)));
        axis->setTickLabelColor(pal.color(QPalette::WindowText));
        axis->setLabelColor(pal.color(QPalette::WindowText));
    }
    m_plot->setBackground(pal.color(QPalette::Base));
    m_plot->legend->setBrush(pal.color(QPalette::Base));
    m_plot->legend->setTextColor(pal.color(QPalette::WindowText));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryView::fillTable(const ModuleMemory& memory)
{
    m_table->setSortingEnabled(false);
    m_table->clearContents();
    m_table->setRowCount(static_cast<int>(memory.buffersAtPeak.size()));
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const BufferAtPeak& b = memory.buffersAtPeak[static_cast<size_t>(row)];
        QStringList dims;
        for (const auto& d : b.paddedDims)
            dims << qs(d.text());
        const double share
            = b.sizeBytes > 0 ? static_cast<double>(b.paddingBytes()) / static_cast<double>(b.sizeBytes) : 0.0;
        auto* name = new SortItem(qs(b.instructionName));
        name->setData(Qt::UserRole + 1, row); // index into buffersAtPeak, kept across sorting
        m_table->setItem(row, ColInstruction, name);
        m_table->setItem(row, ColKind, new SortItem(QString::fromLatin1(bufferKindName(b.kind))));
        m_table->setItem(
            row, ColSize, new SortItem(bytesText(static_cast<double>(b.sizeBytes)), static_cast<double>(b.sizeBytes)));
        m_table->setItem(row, ColUnpadded,
            new SortItem(bytesText(static_cast<double>(b.unpaddedBytes)), static_cast<double>(b.unpaddedBytes)));
        m_table->setItem(row, ColPadding,
            new SortItem(bytesText(static_cast<double>(b.paddingBytes())), static_cast<double>(b.paddingBytes())));
        m_table->setItem(row, ColPaddingShare, new SortItem(qs(formatPercent(share)), share));
        m_table->setItem(row, ColShape, new SortItem(qs(b.shape)));
        m_table->setItem(row, ColDims, new SortItem(dims.join(QStringLiteral("; "))));
        m_table->setItem(row, ColOp, new SortItem(qs(b.frameworkOp)));
        for (int c : {ColSize, ColUnpadded, ColPadding, ColPaddingShare})
            m_table->item(row, c)->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ColSize, Qt::DescendingOrder);
    m_table->resizeColumnsToContents();
    for (int c = 0; c < ColCount; ++c)
        m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), 320));
}

void MemoryView::showTotals(const ModuleMemory& m)
{
    QString html = QStringLiteral("<b>%1</b><table cellspacing=2>").arg(qs(m.name).toHtmlEscaped());
    auto row = [&](const QString& label, double bytes, const QString& note = {}) {
        html += QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td>%3</td></tr>")
                    .arg(label, bytesText(bytes), note.toHtmlEscaped());
    };
    row(tr("Peak heap"), static_cast<double>(m.peakHeapBytes),
        m_report->capacityFraction(m) >= 0
            ? tr("%1 of %2 HBM")
                  .arg(qs(formatPercent(m_report->capacityFraction(m))), bytesText(m_report->hbmCapacityBytes))
            : tr("HBM capacity unknown"));
    row(tr("Unpadded at peak"), static_cast<double>(m.peakUnpaddedBytes));
    row(tr("Padding at peak"), static_cast<double>(m.peakPaddingBytes), qs(formatPercent(m.paddingFraction())));
    row(tr("Entry parameters"), static_cast<double>(m.entryParameterBytes));
    row(tr("Maybe live-out"), static_cast<double>(m.maybeLiveOutBytes));
    row(tr("Indefinite lifetime"), static_cast<double>(m.indefiniteBytes));
    row(tr("All allocations"), static_cast<double>(m.totalAllocationBytes));
    html += QStringLiteral("</table>");
    if (m.heapTrace < 0)
        html += tr("<p>No heap-simulator trace for HBM: the peak is the allocations that live for the whole "
                   "program.</p>");
    for (const auto& w : m.warnings)
        html += QStringLiteral("<p><i>%1</i></p>").arg(qs(w).toHtmlEscaped());
    if (!m_report->capacityNote.empty())
        html += QStringLiteral("<p><small>%1</small></p>").arg(qs(m_report->capacityNote).toHtmlEscaped());
    html += tr("<p><small>Select a buffer to see its instruction and its padding per dimension.</small></p>");
    m_totalsHtml = html;
    m_details->setHtml(html);
}

OpId MemoryView::opFor(const BufferAtPeak& buffer) const
{
    if (!m_profile || !buffer.instruction)
        return kNone;
    for (OpId op = 0; op < m_profile->ops.size(); ++op) {
        const OpInfo& info = m_profile->ops[op];
        if (info.isXlaOp && m_profile->instructionFor(info) == buffer.instruction)
            return op;
    }
    return kNone;
}

void MemoryView::showBuffer(int row)
{
    const ModuleMemory* m = currentModule();
    QTableWidgetItem* item = row >= 0 ? m_table->item(row, ColInstruction) : nullptr;
    if (!m || !item) {
        m_details->setHtml(m_totalsHtml);
        return;
    }
    const BufferAtPeak& b = m->buffersAtPeak[static_cast<size_t>(item->data(Qt::UserRole + 1).toInt())];
    QString html
        = QStringLiteral("<b>%1</b> — %2, %3 for %4 of data")
              .arg(qs(b.instructionName).toHtmlEscaped(), QString::fromLatin1(bufferKindName(b.kind)),
                  bytesText(static_cast<double>(b.sizeBytes)), bytesText(static_cast<double>(b.unpaddedBytes)));
    if (b.indefinite)
        html += tr(" (lives for the whole program)");
    html += QStringLiteral("<p><code>%1</code></p>").arg(qs(b.shape).toHtmlEscaped());
    const layout::ShapeParseResult parsed = layout::parseShape(b.shape);
    if (parsed.ok() && !parsed.shape.isTuple() && parsed.shape.hasLayout) {
        std::vector<layout::DimSemantics> semantics;
        if (b.instruction && m->module && b.instruction->shape.tupleShapes.empty())
            semantics = layout::inferOutputSemantics(*m->module, *b.instruction);
        const layout::PaddingInfo padding = layout::computePadding(parsed.shape, semantics);
        html += tr("<table cellspacing=4><tr><th align=left>dim</th><th align=left>meaning</th><th "
                   "align=right>size</th><th align=right>padded</th><th align=right>tile</th></tr>");
        for (const auto& d : padding.dims)
            html += QStringLiteral("<tr><td>%1</td><td>%2</td><td align=right>%3</td><td align=right>%4%5</td><td "
                                   "align=right>%6</td></tr>")
                        .arg(d.logicalDim)
                        .arg(QString::fromLatin1(layout::semanticsName(d.semantics)))
                        .arg(d.size)
                        .arg(d.padded > d.size ? QStringLiteral("<b>") : QString())
                        .arg(QString::number(d.padded) + (d.padded > d.size ? QStringLiteral("</b>") : QString()))
                        .arg(d.tile ? QString::number(d.tile) : QStringLiteral("—"));
        html += QStringLiteral("</table>");
        if (!padding.tileText.empty())
            html += tr("<p>Tile %1: %2</p>").arg(qs(padding.tileText), qs(padding.usedOfTileText()));
    }
    for (const auto& d : b.paddedDims)
        html += QStringLiteral("<p>%1</p>").arg(qs(d.text()).toHtmlEscaped());
    if (b.instruction && m->module)
        html += QStringLiteral("<p><code>%1</code></p>")
                    .arg(qs(instructionSummary(*m->module, *b.instruction)).toHtmlEscaped());
    if (!b.frameworkOp.empty())
        html += tr("<p>Framework op: %1</p>").arg(qs(b.frameworkOp).toHtmlEscaped());
    if (!b.source.empty())
        html += tr("<p>Source: %1</p>").arg(qs(b.source).toHtmlEscaped());
    const OpId op = opFor(b);
    if (op != kNone) {
        html += tr("<p>The op is shown in the Details panel.</p>");
        if (m_selection)
            m_selection->setSelectedOp(op);
        emit opSelected(op);
    }
    m_details->setHtml(html);
}

} // namespace tpuscope::widgets
