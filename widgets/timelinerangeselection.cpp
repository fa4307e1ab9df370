// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinerangeselection.h"

#include "timescale.h"

#include "qt/qstrings.h"
#include "qt/tracesession.h"

#include <algorithm>

namespace tpuscope::widgets {

using model::TimePs;
using tpuscope::qt::qs;

TimelineRangeSelection::TimelineRangeSelection(QObject* parent)
    : QObject(parent)
{
}

void TimelineRangeSelection::setSession(qt::TraceSession* session)
{
    m_session = session;
}

bool TimelineRangeSelection::setProfile(model::ProfilePtr profile)
{
    m_profile = std::move(profile);
    const bool hadRange = hasRange();
    m_range = {0, 0};
    m_summary.reset();
    m_pending = false;
    m_lines.clear();
    return hadRange;
}

void TimelineRangeSelection::select(TimePs begin, TimePs end)
{
    if (end < begin)
        std::swap(begin, end);
    if (end <= begin)
        begin = end = 0;
    const bool hadRange = hasRange();
    m_range = {begin, end};
    requestSummary();
    if (end > begin || hadRange)
        emit rangeSelected(begin, end);
}

bool TimelineRangeSelection::hasStatistics() const
{
    return m_profile && m_session && m_session->analysis() && m_session->analysis()->profile == m_profile;
}

void TimelineRangeSelection::requestSummary()
{
    m_summary.reset();
    const auto [begin, end] = m_range;
    m_pending = end > begin && hasStatistics();
    updateLines();
    if (!m_pending)
        return;
    // A newer range (Shift+drag again) supersedes this request in the session; a result that
    // arrives for a range no longer selected (cleared, another profile) is dropped here too.
    m_session->requestRangeSummary(
        begin, end, this, [this, begin, end](std::shared_ptr<const model::RangeSummary> summary) {
            if (m_range != std::make_pair(begin, end) || !m_pending)
                return;
            m_summary = std::move(summary);
            m_pending = false;
            updateLines();
            emit summaryReady(m_summary);
        });
}

void TimelineRangeSelection::updateLines()
{
    m_lines.clear();
    const auto [begin, end] = m_range;
    if (!m_profile || end <= begin)
        return;
    const QString range = tr("Selection %1").arg(TimeScale::formatDuration(double(end - begin)));
    if (!m_summary) {
        m_lines << (m_pending ? tr("%1 · computing…").arg(range)
                              : tr("%1 · select it again when the load is done").arg(range));
        return;
    }
    m_lines << range;
    const model::RangeSummary& s = *m_summary;
    if (s.occurrences == 0) {
        m_lines << tr("no XLA ops in the range");
        return;
    }
    const int cores = std::max(1, s.cores);
    m_lines << tr("%1 ops · busy %2 of %3 core(s) × range (%4%)")
                   .arg(s.occurrences)
                   .arg(TimeScale::formatDuration(s.busyPs))
                   .arg(cores)
                   .arg(100.0 * s.busyShare, 0, 'f', 1);
    for (size_t i = 0; i < s.rows.size() && i < 3; ++i) {
        const auto& row = s.rows[i];
        m_lines << QStringLiteral("%1. %2 — %3 (%4%)")
                       .arg(i + 1)
                       .arg(qs(row.name))
                       .arg(TimeScale::formatDuration(row.timeInRangePs))
                       .arg(100.0 * row.rangeShare, 0, 'f', 1);
    }
}

} // namespace tpuscope::widgets
