// SPDX-License-Identifier: GPL-3.0-or-later
#include "selectionstate.h"

#include "tracesession.h"

namespace tpuscope::qt {

SelectionState::SelectionState(QObject* parent)
    : QObject(parent)
{
}

void SelectionState::setSelectedOp(model::OpId op)
{
    // Choosing an op elsewhere (table, roofline) drops the single-event selection: it may
    // belong to another op.
    if (m_track != model::kNone && op != m_op) {
        m_track = model::kNone;
        m_event = model::kNone;
        emit selectedEventChanged(m_track, m_event);
    }
    if (op == m_op)
        return;
    m_op = op;
    emit selectedOpChanged(m_op);
}

void SelectionState::setSelectedEvent(model::TrackId track, quint32 index, model::OpId op)
{
    if (track != m_track || index != m_event) {
        m_track = track;
        m_event = index;
        emit selectedEventChanged(m_track, m_event);
    }
    if (op != m_op) {
        m_op = op;
        emit selectedOpChanged(m_op);
    }
}

void SelectionState::setSession(TraceSession* session)
{
    if (m_session)
        disconnect(m_session, nullptr, this, nullptr);
    m_session = session;
    if (!session)
        return;
    connect(session, &TraceSession::loaded, this, &SelectionState::clear);
    connect(session, &TraceSession::previewReady, this, &SelectionState::clear);
    connect(session, &TraceSession::closed, this, &SelectionState::clear);
}

void SelectionState::selectEvent(model::TrackId track, quint32 index)
{
    const model::ProfilePtr profile = m_session ? m_session->profile() : nullptr;
    if (!profile || track >= profile->tracks.size() || index >= profile->tracks[track].size()) {
        setSelectedEvent(model::kNone, model::kNone, m_op);
        return;
    }
    setSelectedEvent(track, index, profile->tracks[track].op[index]);
}

void SelectionState::setHighlightedOps(const QList<quint32>& ops)
{
    if (ops == m_highlighted)
        return;
    m_highlighted = ops;
    emit highlightedOpsChanged(m_highlighted);
}

void SelectionState::clear()
{
    setHighlightedOps({});
    setSelectedOp(model::kNone);
}

} // namespace tpuscope::qt
