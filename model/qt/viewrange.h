// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"

#include <QObject>

namespace tpuscope::qt {

/// The visible time range shared by the timeline and the charts (Qt Creator's TimelineZoomControl
/// pattern): each view writes the range it shows with setRange and follows rangeChanged. The range
/// emits only on change, and a view that answers rangeChanged with another range (clamped to its
/// span) during the emission gets that range delivered to everyone afterwards, so views never
/// echo each other and need no guard flags.
class ViewRange : public QObject
{
    Q_OBJECT
public:
    explicit ViewRange(QObject* parent = nullptr);

    model::TimePs begin() const { return m_begin; }
    model::TimePs end() const { return m_end; }

public slots:
    /// Ignored when `end <= begin`.
    void setRange(tpuscope::model::TimePs begin, tpuscope::model::TimePs end);

signals:
    void rangeChanged(tpuscope::model::TimePs begin, tpuscope::model::TimePs end);

private:
    model::TimePs m_begin = 0;
    model::TimePs m_end = 0;
    bool m_emitting = false;
};

} // namespace tpuscope::qt
