// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"

#include <QList>
#include <QObject>
#include <QPointer>

namespace tpuscope::qt {

class TraceSession;

/// The one selection every panel observes (RenderDoc's ICaptureViewer idea): the op table, the
/// timeline, the details panel and the charts write to it and react to its signals, so no panel
/// needs to know about another. Setters emit only on change, which breaks feedback loops.
class SelectionState : public QObject
{
    Q_OBJECT
public:
    explicit SelectionState(QObject* parent = nullptr);

    /// The session whose profile selectEvent resolves events in; a new or closed profile clears
    /// the selection.
    void setSession(TraceSession* session);

    /// model::kNone when nothing is selected.
    model::OpId selectedOp() const { return m_op; }
    model::TrackId selectedTrack() const { return m_track; }
    quint32 selectedEventIndex() const { return m_event; }
    /// Ops pointed at as a group (e.g. the evidence of an advice item); may be empty.
    const QList<quint32>& highlightedOps() const { return m_highlighted; }

public slots:
    void setSelectedOp(tpuscope::model::OpId op);
    /// Selects one timeline event; `op` is the event's op, which becomes the selected op too.
    void setSelectedEvent(tpuscope::model::TrackId track, quint32 index, tpuscope::model::OpId op);
    /// Selects a timeline event of the session's profile and its op; an event that is not there
    /// clears the event and keeps the op.
    void selectEvent(tpuscope::model::TrackId track, quint32 index);
    void setHighlightedOps(const QList<quint32>& ops);
    void clear();

signals:
    void selectedOpChanged(tpuscope::model::OpId op);
    void selectedEventChanged(tpuscope::model::TrackId track, quint32 index);
    void highlightedOpsChanged(const QList<quint32>& ops);

private:
    QPointer<TraceSession> m_session;
    model::OpId m_op = model::kNone;
    model::TrackId m_track = model::kNone;
    quint32 m_event = model::kNone;
    QList<quint32> m_highlighted;
};

} // namespace tpuscope::qt
