// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"
#include "qt/diffmodel.h"

#include <QImage>
#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace tpuscope::qt {
class TraceSession;
}

namespace tpuscope::widgets {

/// Before/after comparison of two profiles: a summary line (step time, op time and
/// utilization change) over a sortable table of per-op deltas, new and removed ops marked.
class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);

    /// Shows a comparison (TraceSession::comparisonReady hands it over); null clears.
    void setDiff(std::shared_ptr<const model::ProfileDiff> diff, const QString& beforePath, const QString& afterPath);
    void clear();
    /// Shows the session's comparisons; a closed profile clears.
    void setSession(qt::TraceSession* session);
    bool hasComparison() const { return m_model->diff() != nullptr; }
    /// The comparison as Markdown (summary and table), for a forum post.
    QString markdown() const;
    QString summaryText() const;
    /// The comparison card's proposed file name, from the two profiles' names.
    QString suggestedCardName() const;
    /// The before/after share card of the comparison (null when there is none).
    QImage renderCard() const;
    qt::DiffModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }

signals:
    /// What a copy or a card export did (or why it failed), for the window's status bar.
    void statusMessage(const QString& text);

private:
    qt::DiffModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLabel* m_summary;
    QString m_beforeName, m_afterName;
};

} // namespace tpuscope::widgets
