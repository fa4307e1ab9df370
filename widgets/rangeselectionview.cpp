// SPDX-License-Identifier: GPL-3.0-or-later
#include "rangeselectionview.h"

#include "qt/qstrings.h"
#include "sortarrows.h"

#include "timelineview.h"

#include "report/report.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace tpuscope::widgets {

namespace {

using tpuscope::qt::qs;

} // namespace

RangeSelectionView::RangeSelectionView(TimelineView* timeline, QWidget* parent)
    : QWidget(parent)
    , m_timeline(timeline)
    , m_model(new qt::RangeSelectionModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTableView(this))
    , m_summary(new QLabel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(qt::RangeSelectionModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    useConventionalSortArrows(m_view->horizontalHeader()); // down = largest first
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(qt::RangeSelectionModel::NameColumn, QHeaderView::Stretch);
    m_view->sortByColumn(qt::RangeSelectionModel::TimeColumn, Qt::DescendingOrder);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setTextFormat(Qt::PlainText);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_view, 1);

    connect(m_view, &QTableView::activated, this, [this](const QModelIndex& index) {
        const QVariant op = index.data(qt::RangeSelectionModel::OpRole);
        if (op.isValid())
            emit opActivated(model::OpId(op.toUInt()));
    });
    if (m_timeline) {
        connect(m_timeline, &TimelineView::rangeSelected, this, &RangeSelectionView::showRange);
        connect(m_timeline, &TimelineView::rangeSummaryReady, this, &RangeSelectionView::showSummary);
    }
    showRange(0, 0);
}

void RangeSelectionView::showRange(model::TimePs begin, model::TimePs end)
{
    const model::ProfilePtr profile = m_timeline ? m_timeline->profile() : nullptr;
    m_model->clear();
    if (!profile || end <= begin) {
        m_summary->setText(tr("Shift+drag across the timeline to list the ops of a time range; Esc clears it."));
        return;
    }
    // The numbers come from the timeline's range job (rangeSummaryReady): one computation serves both.
    const QString range = tr("Selection %1 (from +%2)")
                              .arg(qs(model::formatDurationPs(double(end - begin))),
                                  qs(model::formatDurationPs(double(begin - profile->spanBegin))));
    m_summary->setText(m_timeline->isRangeSummaryPending()
            ? tr("%1 · computing…").arg(range)
            : tr("%1 · select it again when the load is done").arg(range));
    raiseDock();
}

void RangeSelectionView::showSummary(std::shared_ptr<const model::RangeSummary> summary)
{
    const model::ProfilePtr profile = m_timeline ? m_timeline->profile() : nullptr;
    if (!profile || !summary)
        return;
    m_model->setSummary(summary);
    const model::RangeSummary& s = *summary;
    m_summary->setText(tr("Selection %1 (from +%2) · %3 op occurrences in %4 rows · busy %5 of %6 core(s) × range")
                           .arg(qs(model::formatDurationPs(double(s.end - s.begin))),
                               qs(model::formatDurationPs(double(s.begin - profile->spanBegin))))
                           .arg(s.occurrences)
                           .arg(s.rows.size())
                           .arg(qs(model::formatPercent(s.busyShare)))
                           .arg(std::max(1, s.cores)));
    raiseDock();
}

void RangeSelectionView::raiseDock()
{
    // Docked (as in the main window): come to the front when the user selects a range.
    if (auto* dock = qobject_cast<QDockWidget*>(parentWidget())) {
        dock->show();
        dock->raise();
    }
}

QString RangeSelectionView::summaryText() const
{
    return m_summary->text();
}

} // namespace tpuscope::widgets
