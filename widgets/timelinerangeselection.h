// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/rangesummary.h"
#include "core/profile.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

#include <memory>
#include <utility>

namespace tpuscope::qt {
class TraceSession;
}

namespace tpuscope::widgets {

/// The timeline's selected time range and its statistics: the session's range job
/// (TraceSession::requestRangeSummary) computes them; a newer range supersedes an older request
/// and a result for a range no longer selected is dropped. No painting, no input.
class TimelineRangeSelection : public QObject
{
    Q_OBJECT
public:
    explicit TimelineRangeSelection(QObject* parent = nullptr);

    void setSession(tpuscope::qt::TraceSession* session);
    /// A new profile clears the range; true when one was selected.
    bool setProfile(tpuscope::model::ProfilePtr profile);

    /// begin == end clears. Asks for the statistics; emits rangeSelected when a range is or was selected.
    void select(tpuscope::model::TimePs begin, tpuscope::model::TimePs end);
    std::pair<tpuscope::model::TimePs, tpuscope::model::TimePs> range() const { return m_range; }
    bool hasRange() const { return m_range.second > m_range.first; }

    std::shared_ptr<const tpuscope::model::RangeSummary> summary() const { return m_summary; }
    bool isPending() const { return m_pending; }
    /// True when the profile shown is the session's analysed one (not a load's preview).
    bool hasStatistics() const;
    /// The statistics in a few lines (TimelineView::selectionSummary).
    QStringList summaryLines() const { return m_lines; }

signals:
    void rangeSelected(tpuscope::model::TimePs begin, tpuscope::model::TimePs end);
    void summaryReady(std::shared_ptr<const tpuscope::model::RangeSummary> summary);

private:
    void requestSummary();
    void updateLines();

    tpuscope::model::ProfilePtr m_profile;
    QPointer<tpuscope::qt::TraceSession> m_session;
    std::pair<tpuscope::model::TimePs, tpuscope::model::TimePs> m_range {0, 0};
    std::shared_ptr<const tpuscope::model::RangeSummary> m_summary;
    bool m_pending = false;
    QStringList m_lines;
};

} // namespace tpuscope::widgets
