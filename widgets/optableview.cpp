// SPDX-License-Identifier: GPL-3.0-or-later
#include "optableview.h"
#include "sortarrows.h"
#include "timelinelegend.h"

#include "costbardelegate.h"
#include "qt/colors.h"
#include "qt/qstrings.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "tableimage.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDataStream>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIODevice>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QStyle>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

namespace tpuscope::widgets {

using qt::OpTreeModel;
using qt::qs;

namespace {
constexpr quint32 kStateMagic = 0x4f505456; // "OPTV"
constexpr quint32 kStateVersion = 2; // 2: flat and low-utilization-only; 1 is still read
constexpr int kFilterDelayMs = 300;
constexpr int kMinNameWidth = 220;
} // namespace

OpFilterProxyModel::OpFilterProxyModel(QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true);
    setDynamicSortFilter(true);
    setFilterRole(OpTreeModel::FilterTextRole);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setSortRole(OpTreeModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
}

void OpFilterProxyModel::setTopTimeOnly(bool enabled)
{
    if (enabled == m_topTimeOnly)
        return;
    m_topTimeOnly = enabled;
    updateSourceFilter();
    invalidateFilter();
}

void OpFilterProxyModel::setLowUtilizationOnly(bool enabled)
{
    if (enabled == m_lowUtilOnly)
        return;
    m_lowUtilOnly = enabled;
    updateSourceFilter();
    invalidateFilter();
}

void OpFilterProxyModel::updateSourceFilter()
{
    if (auto* model = qobject_cast<OpTreeModel*>(sourceModel()))
        model->setFilter(model->filterText(), m_topTimeOnly, m_lowUtilOnly);
}

void OpFilterProxyModel::setOpFilterText(const QString& text)
{
    // The source model filters too, so that group rows total only the ops shown.
    if (auto* model = qobject_cast<OpTreeModel*>(sourceModel()))
        model->setFilter(text, m_topTimeOnly, m_lowUtilOnly);
    setFilterFixedString(text);
}

bool OpFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    // Group rows never match on their own: recursive filtering shows them when a child matches.
    // An op row's filter text includes its category and program, so typing a group's name still
    // brings up the whole group. Flat, every row is an op row.
    const auto* model = qobject_cast<const OpTreeModel*>(sourceModel());
    const bool flat = model && model->isFlat();
    if (!flat && !sourceParent.isValid())
        return false;
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_topTimeOnly && !index.data(OpTreeModel::InTopTimeRole).toBool())
        return false;
    if (m_lowUtilOnly && !index.data(OpTreeModel::FlaggedRole).toBool())
        return false;
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

OpTableView::OpTableView(QWidget* parent)
    : QWidget(parent)
    , m_model(new OpTreeModel(this))
    , m_proxy(new OpFilterProxyModel(this))
{
    m_proxy->setSourceModel(m_model);

    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by op, category, program, framework op or source…"));
    m_filter->setClearButtonEnabled(true);

    m_layoutMode = new QComboBox(this);
    m_layoutMode->addItem(tr("Grouped"), false);
    m_layoutMode->addItem(tr("Flat"), true);
    m_layoutMode->setToolTip(tr("Grouped: the ops under their group; Flat: one row per op, sorted as one list"));

    m_grouping = new QComboBox(this);
    m_grouping->addItem(tr("By category"), static_cast<int>(OpTreeModel::Grouping::Category));
    m_grouping->addItem(tr("By program"), static_cast<int>(OpTreeModel::Grouping::Program));
    m_grouping->addItem(tr("By framework op"), static_cast<int>(OpTreeModel::Grouping::FrameworkOp));
    m_grouping->addItem(tr("By source line"), static_cast<int>(OpTreeModel::Grouping::Source));
    m_grouping->addItem(tr("By layer group"), static_cast<int>(OpTreeModel::Grouping::LayerGroup));
    m_grouping->setToolTip(tr("Group the ops by HLO category, XLA program, framework op (layer), source line of your "
                              "code, or layer group (an op repeated in every layer: same name stem and HLO)"));

    m_topOnly = new QCheckBox(tr("Top 90% of time"), this);
    m_topOnly->setToolTip(tr("Show only the ops that together account for 90% of the op time"));
    m_lowOnly = new QCheckBox(tr("Low utilization only"), this);
    m_lowOnly->setToolTip(tr("Show only the low-utilization ops of every kind: %1 (the toolbar's \"Low utilization "
                             "below\" setting)")
                              .arg(qs(model::lowUtilizationRuleText())));

    m_count = new QLabel(this);
    m_count->setTextFormat(Qt::RichText); // the low-utilization count is a link that filters to those ops
    m_count->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(m_count, &QLabel::linkActivated, this,
        [this](const QString&) { setLowUtilizationOnly(!lowUtilizationOnly()); });
    // The count is a hint; it must not set the table's minimum width (an explicit minimum
    // overrides the text width).
    m_count->setMinimumWidth(60);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 4, 4, 2);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_layoutMode);
    bar->addWidget(m_grouping);
    bar->addWidget(m_topOnly);
    bar->addWidget(m_lowOnly);
    bar->addWidget(m_count);

    m_view = new QTreeView(this);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    useConventionalSortArrows(m_view->header()); // down = largest first
    m_view->setAlternatingRowColors(true);
    m_view->setUniformRowHeights(true);
    m_view->setIconSize(QSize(10, 10)); // the category swatch, small enough to keep the rows dense
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setAllColumnsShowFocus(true);
    m_view->setTextElideMode(Qt::ElideMiddle); // op names differ at the end (fusion.12 vs fusion.13)
    m_view->sortByColumn(OpTreeModel::TimeFractionColumn, Qt::DescendingOrder);
    m_view->setItemDelegateForColumn(OpTreeModel::TimeFractionColumn,
        new CostBarDelegate(OpTreeModel::BarFractionRole, CostBarDelegate::Scheme::Cost, m_view));
    for (int column : {OpTreeModel::FlopsUtilizationColumn, OpTreeModel::HbmUtilizationColumn}) {
        m_view->setItemDelegateForColumn(
            column, new CostBarDelegate(OpTreeModel::BarFractionRole, CostBarDelegate::Scheme::Utilization, m_view));
    }

    QHeaderView* header = m_view->header();
    header->setStretchLastSection(false);
    header->setSectionsMovable(true);
    header->setSectionResizeMode(QHeaderView::Interactive);
    // Names take whatever the numbers leave; they are the part worth reading in full.
    header->setSectionResizeMode(OpTreeModel::NameColumn, QHeaderView::Stretch);
    header->setMinimumSectionSize(48);
    header->setDefaultSectionSize(90);
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(header, &QHeaderView::customContextMenuRequested, this, [this, header](const QPoint& pos) {
        QMenu menu(this);
        for (int column = 1; column < OpTreeModel::ColumnCount; ++column) {
            QAction* action = menu.addAction(m_model->headerData(column, Qt::Horizontal).toString());
            action->setCheckable(true);
            action->setChecked(!header->isSectionHidden(column));
            connect(action, &QAction::toggled, header,
                [header, column](bool on) { header->setSectionHidden(column, !on); });
        }
        menu.exec(header->mapToGlobal(pos));
    });

    // Sharing from the table: the rows as shown, as Markdown/CSV/TSV or a PNG.
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        // ShareActions does the copying and writing, so every copy and export reports in the status bar.
        menu.addAction(tr("Copy as &Markdown"), this, [this] { emit copyRequested(model::TableFormat::Markdown); });
        menu.addAction(tr("Copy as &CSV"), this, [this] { emit copyRequested(model::TableFormat::Csv); });
        menu.addAction(tr("Copy as &TSV"), this, [this] { emit copyRequested(model::TableFormat::Tsv); });
        menu.addSeparator();
        menu.addAction(tr("Export &PNG…"), this, &OpTableView::exportPngRequested);
        menu.exec(m_view->viewport()->mapToGlobal(pos));
    });

    connect(header, &QHeaderView::sectionResized, this, [this](int logical) {
        if (logical != OpTreeModel::NameColumn)
            fitNameColumn();
    });
    m_view->viewport()->installEventFilter(this);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    m_legend = new TimelineLegend(this);
    m_legend->setObjectName(QStringLiteral("opTableLegend"));
    m_legend->setShowsLowUtilizationMarker(false);
    layout->addWidget(m_legend);
    updateLegend();

    m_filterTimer = new QTimer(this);
    m_filterTimer->setSingleShot(true);
    m_filterTimer->setInterval(kFilterDelayMs);
    connect(m_filterTimer, &QTimer::timeout, this, &OpTableView::applyFilter);
    connect(m_filter, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
    connect(m_filter, &QLineEdit::returnPressed, this, &OpTableView::applyFilter);

    connect(m_grouping, &QComboBox::currentIndexChanged, this,
        [this](int) { setGrouping(static_cast<OpTreeModel::Grouping>(m_grouping->currentData().toInt())); });
    connect(m_layoutMode, &QComboBox::currentIndexChanged, this,
        [this](int) { setFlat(m_layoutMode->currentData().toBool()); });
    connect(m_topOnly, &QCheckBox::toggled, this, &OpTableView::setTopTimeOnly);
    connect(m_lowOnly, &QCheckBox::toggled, this, &OpTableView::setLowUtilizationOnly);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex& current) { onCurrentChanged(current); });
    connect(m_view, &QTreeView::doubleClicked, this, &OpTableView::onActivated);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        // Layer groups are the point of that grouping: one row per repeated op, its copies folded.
        if (m_model->grouping() == OpTreeModel::Grouping::LayerGroup && !m_model->isFlat())
            m_view->collapseAll();
        else
            m_view->expandAll();
        updateCountLabel();
    });
    updateCountLabel();
}

OpTableView::~OpTableView() = default;

void OpTableView::setSelectionState(qt::SelectionState* selection)
{
    if (m_selection)
        disconnect(m_selection, nullptr, this, nullptr);
    m_selection = selection;
    if (!m_selection)
        return;
    connect(m_selection, &qt::SelectionState::selectedOpChanged, this, [this](model::OpId op) {
        if (op == model::kNone) {
            const QSignalBlocker blocker(m_view->selectionModel());
            m_view->selectionModel()->clearSelection();
            return;
        }
        selectOp(op);
    });
    connect(m_selection, &qt::SelectionState::highlightedOpsChanged, this, &OpTableView::selectOps);
}

void OpTableView::setAnalysis(model::ProfileAnalysisPtr analysis)
{
    const bool first = m_model->opRowCount() == 0;
    m_model->setAnalysis(std::move(analysis));
    if (first && !m_headerRestored)
        resizeColumnsToData();
}

void OpTableView::setLowUtilizationThreshold(double fraction)
{
    m_model->setLowUtilizationThreshold(fraction);
    updateCountLabel();
    updateLegend();
}

void OpTableView::updateLegend()
{
    // The FLOPS bars are the scale's tint over this palette, a low-utilization op is a tinted row.
    std::vector<TimelineLegendEntry> entries = utilizationScaleEntries(&palette());
    entries.push_back({tr("low-utilization op (\u2265 1% of time, below %1% of its roofline)")
                           .arg(int(std::lround(m_model->lowUtilizationThreshold() * 100))),
        {qt::colors::lowUtilizationRowBackground(palette()).rgb()}});
    m_legend->setCaption(tr("FLOPS utilization:"));
    m_legend->setEntries(std::move(entries), m_model->lowUtilizationThreshold());
}

void OpTableView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_legend)
        updateLegend();
}

void OpTableView::setGrouping(OpTreeModel::Grouping grouping)
{
    const model::OpId current = opAt(m_view->currentIndex());
    const int comboIndex = m_grouping->findData(static_cast<int>(grouping));
    if (comboIndex >= 0 && comboIndex != m_grouping->currentIndex()) {
        const QSignalBlocker blocker(m_grouping);
        m_grouping->setCurrentIndex(comboIndex);
    }
    m_model->setGrouping(grouping);
    if (current != model::kNone)
        selectOp(current);
}

void OpTableView::setFlat(bool flat)
{
    const model::OpId current = opAt(m_view->currentIndex());
    const int comboIndex = m_layoutMode->findData(flat);
    if (comboIndex >= 0 && comboIndex != m_layoutMode->currentIndex()) {
        const QSignalBlocker blocker(m_layoutMode);
        m_layoutMode->setCurrentIndex(comboIndex);
    }
    m_grouping->setEnabled(!flat); // a flat list has no groups; the choice is kept for Grouped
    m_model->setFlat(flat);
    m_view->setRootIsDecorated(!flat);
    if (current != model::kNone)
        selectOp(current);
}

void OpTableView::setLowUtilizationOnly(bool enabled)
{
    if (m_lowOnly->isChecked() != enabled) {
        const QSignalBlocker blocker(m_lowOnly);
        m_lowOnly->setChecked(enabled);
    }
    m_proxy->setLowUtilizationOnly(enabled);
    m_view->expandAll();
    updateCountLabel();
}

void OpTableView::showLowUtilizationOps()
{
    setFilterText({});
    setTopTimeOnly(false);
    setLowUtilizationOnly(true);
    // The worst first: the table's own sort decides, the first row shown is made current.
    QModelIndex first = m_proxy->index(0, 0);
    while (first.isValid() && opAt(first) == model::kNone)
        first = m_proxy->index(0, 0, first);
    if (first.isValid())
        m_view->setCurrentIndex(first);
    m_view->setFocus(Qt::OtherFocusReason);
}

int OpTableView::shownOpCount() const
{
    if (m_model->isFlat())
        return m_proxy->rowCount();
    int shown = 0;
    for (int g = 0; g < m_proxy->rowCount(); ++g)
        shown += m_proxy->rowCount(m_proxy->index(g, 0));
    return shown;
}

void OpTableView::setTopTimeOnly(bool enabled)
{
    if (m_topOnly->isChecked() != enabled) {
        const QSignalBlocker blocker(m_topOnly);
        m_topOnly->setChecked(enabled);
    }
    m_proxy->setTopTimeOnly(enabled);
    m_view->expandAll();
    updateCountLabel();
}

void OpTableView::setFilterText(const QString& text)
{
    if (m_filter->text() != text) {
        const QSignalBlocker blocker(m_filter);
        m_filter->setText(text);
    }
    applyFilter();
}

void OpTableView::applyFilter()
{
    m_filterTimer->stop();
    m_proxy->setOpFilterText(m_filter->text().trimmed());
    m_view->expandAll();
    updateCountLabel();
}

void OpTableView::updateCountLabel()
{
    const int shown = shownOpCount();
    const int total = m_model->opRowCount();
    QString text = shown == total ? (total == 1 ? tr("1 op") : tr("%1 ops").arg(total))
                                  : tr("%1 of %2 ops").arg(shown).arg(total);
    QString html = text.toHtmlEscaped();
    // The same count and words as the overview and `tpuscope-cli ops` (model/report); a click
    // toggles "Low utilization only".
    const int flagged = m_model->flaggedCount();
    if (flagged > 0) {
        const QString low = qs(model::lowUtilizationOpsText(flagged));
        text += QStringLiteral(" · ") + low;
        html += QStringLiteral(" · <a href='low-utilization' style='color:%1'>%2</a>")
                    .arg(qt::colors::linkColor(palette()).name(), low.toHtmlEscaped());
    }
    m_count->setText(html);
    m_count->setToolTip(flagged > 0 ? text + QLatin1Char('\n') + tr("Click the count to show only those ops") : text);
}

void OpTableView::resizeColumnsToData()
{
    // Numbers get their width plus some air; the stretched name column takes the rest.
    QHeaderView* header = m_view->header();
    for (int column = 1; column < OpTreeModel::ColumnCount; ++column) {
        m_view->resizeColumnToContents(column);
        header->resizeSection(column, std::max(header->sectionSize(column) + 8, 60));
    }
    fitNameColumn();
}

void OpTableView::fitNameColumn()
{
    // The name column stretches into the room the numbers leave, but never below a readable
    // width: when the room is smaller it stops stretching and the view scrolls sideways.
    QHeaderView* header = m_view->header();
    int others = 0;
    for (int column = 0; column < header->count(); ++column) {
        if (column != OpTreeModel::NameColumn && !header->isSectionHidden(column))
            others += header->sectionSize(column);
    }
    const bool stretch = m_view->viewport()->width() - others >= kMinNameWidth;
    const bool stretching = header->sectionResizeMode(OpTreeModel::NameColumn) == QHeaderView::Stretch;
    if (stretch && !stretching) {
        header->setSectionResizeMode(OpTreeModel::NameColumn, QHeaderView::Stretch);
    } else if (!stretch && stretching) {
        header->setSectionResizeMode(OpTreeModel::NameColumn, QHeaderView::Interactive);
        header->resizeSection(OpTreeModel::NameColumn, kMinNameWidth);
    }
}

bool OpTableView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        fitNameColumn();
    return QWidget::eventFilter(watched, event);
}

model::OpId OpTableView::opAt(const QModelIndex& proxyIndex) const
{
    if (!proxyIndex.isValid())
        return model::kNone;
    return proxyIndex.data(OpTreeModel::OpIdRole).toUInt();
}

void OpTableView::onCurrentChanged(const QModelIndex& current)
{
    if (m_syncing)
        return;
    const model::OpId op = opAt(current);
    if (op == model::kNone)
        return;
    m_syncing = true;
    if (m_selection)
        m_selection->setSelectedOp(op);
    m_syncing = false;
    emit opSelected(op);
}

void OpTableView::onActivated(const QModelIndex& index)
{
    const model::OpId op = opAt(index);
    if (op != model::kNone)
        emit opActivated(op);
}

bool OpTableView::selectOp(model::OpId op)
{
    if (m_syncing)
        return false;
    const QModelIndex index = m_proxy->mapFromSource(m_model->indexForOp(op));
    if (!index.isValid())
        return false;
    if (opAt(m_view->currentIndex()) == op && m_view->selectionModel()->isSelected(m_view->currentIndex()))
        return true;
    m_syncing = true;
    m_view->expand(index.parent());
    m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
    m_syncing = false;
    return true;
}

void OpTableView::selectOps(const QList<quint32>& ops)
{
    QItemSelection selection;
    QModelIndex first;
    for (quint32 op : ops) {
        const QModelIndex index = m_proxy->mapFromSource(m_model->indexForOp(op));
        if (!index.isValid())
            continue;
        if (!first.isValid())
            first = index;
        m_view->expand(index.parent());
        selection.select(index, index.siblingAtColumn(OpTreeModel::ColumnCount - 1));
    }
    if (!first.isValid())
        return;
    m_syncing = true;
    m_view->selectionModel()->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
    m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(first);
    m_syncing = false;
}

QByteArray OpTableView::saveState() const
{
    QByteArray data;
    QDataStream stream(&data, QIODevice::WriteOnly);
    stream << kStateMagic << kStateVersion << m_view->header()->saveState() << static_cast<qint32>(m_model->grouping())
           << m_proxy->topTimeOnly() << m_model->isFlat() << m_proxy->lowUtilizationOnly();
    return data;
}

bool OpTableView::restoreState(const QByteArray& state)
{
    QDataStream stream(state);
    quint32 magic = 0;
    quint32 version = 0;
    QByteArray headerState;
    qint32 grouping = 0;
    bool topOnly = false;
    bool flat = false;
    bool lowOnly = false;
    stream >> magic >> version >> headerState >> grouping >> topOnly;
    if (version >= 2)
        stream >> flat >> lowOnly;
    if (stream.status() != QDataStream::Ok || magic != kStateMagic || version < 1 || version > kStateVersion)
        return false;
    if (grouping < static_cast<qint32>(OpTreeModel::Grouping::Category)
        || grouping > static_cast<qint32>(OpTreeModel::Grouping::LayerGroup))
        return false;
    QHeaderView* header = m_view->header();
    const QByteArray fallback = header->saveState();
    if (!header->restoreState(headerState) || header->count() != OpTreeModel::ColumnCount) {
        header->restoreState(fallback);
        return false;
    }
    // A state in which the name column vanished is worse than the default.
    if (header->isSectionHidden(OpTreeModel::NameColumn)) {
        header->restoreState(fallback);
        return false;
    }
    setGrouping(static_cast<OpTreeModel::Grouping>(grouping));
    setFlat(flat);
    setTopTimeOnly(topOnly);
    setLowUtilizationOnly(lowOnly);
    m_headerRestored = true;
    fitNameColumn();
    return true;
}

model::Table OpTableView::exportTable(std::vector<size_t>* groupRows) const
{
    const QHeaderView* header = m_view->header();
    std::vector<int> columns; // visible columns in their on-screen order
    for (int visual = 0; visual < header->count(); ++visual) {
        const int logical = header->logicalIndex(visual);
        if (!header->isSectionHidden(logical))
            columns.push_back(logical);
    }
    model::Table table;
    for (int column : columns) {
        table.header.push_back(m_proxy->headerData(column, Qt::Horizontal).toString().toStdString());
        table.rightAligned.push_back(column != OpTreeModel::NameColumn);
    }
    // Depth-first in the view's order; op rows under a group are marked so the tree survives
    // as a flat table.
    std::function<void(const QModelIndex&, int)> walk = [&](const QModelIndex& parent, int depth) {
        for (int row = 0; row < m_proxy->rowCount(parent); ++row) {
            std::vector<std::string> cells;
            for (int column : columns) {
                QString text = m_proxy->index(row, column, parent).data(Qt::DisplayRole).toString();
                if (column == OpTreeModel::NameColumn && depth > 0)
                    text = QStringLiteral("↳ ") + text;
                cells.push_back(text.toStdString());
            }
            if (depth == 0 && groupRows && !m_model->isFlat())
                groupRows->push_back(table.rows.size());
            table.rows.push_back(std::move(cells));
            walk(m_proxy->index(row, 0, parent), depth + 1);
        }
    };
    walk({}, 0);
    return table;
}

QString OpTableView::exportText(model::TableFormat format) const
{
    return QString::fromStdString(model::renderTable(exportTable(), format));
}

QImage OpTableView::renderImage(const QStringList& header) const
{
    // Drawn from the rows, not grabbed from the screen: no selection, scroll position or clipping.
    TableImageOptions options;
    const model::Table table = exportTable(&options.boldRows);
    return renderTableImage(table, header, options);
}

void OpTableView::copyAs(model::TableFormat format) const
{
    QApplication::clipboard()->setText(exportText(format));
}

void OpTableView::setSession(qt::TraceSession* session)
{
    session->follow(this, [this](const model::ProfileAnalysisPtr& analysis) { setAnalysis(analysis); });
}

int OpTableView::heightForRows(int rows) const
{
    // Before a profile is loaded there is no row to measure: the style's row is text plus margins.
    const int rowHeight = m_proxy->rowCount() > 0 ? m_view->sizeHintForRow(0) : m_view->fontMetrics().height() + 6;
    const int frame = 2 * m_view->frameWidth();
    const int scrollBar = m_view->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_view);
    const QMargins margins = layout() ? layout()->contentsMargins() : QMargins();
    const int spacing = layout() ? std::max(0, layout()->spacing()) : 0;
    const int barHeight = m_filter->sizeHint().height() + 6; // the filter bar's own margins (4 + 2)
    // The legend wraps at the table's width; before the first layout, one line.
    const int legend = m_legend ? m_legend->heightForWidth(width() > 200 ? width() : QWIDGETSIZE_MAX) + spacing : 0;
    return margins.top() + margins.bottom() + barHeight + spacing + frame + m_view->header()->sizeHint().height()
        + rows * rowHeight + scrollBar + legend;
}

QSize OpTableView::sizeHint() const
{
    return {QWidget::sizeHint().width(), heightForRows(kPreferredVisibleRows)};
}

} // namespace tpuscope::widgets
