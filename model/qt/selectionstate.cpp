// SPDX-License-Identifier: GPL-3.0-or-later
#include "selectionstate.h"

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
