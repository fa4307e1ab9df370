// SPDX-License-Identifier: GPL-3.0-or-later
#include "viewrange.h"

namespace tpuscope::qt {

namespace {
constexpr int kMaxRounds = 4; // views that keep correcting each other stop here
}

ViewRange::ViewRange(QObject* parent)
    : QObject(parent)
{
}

void ViewRange::setRange(model::TimePs begin, model::TimePs end)
{
    if (end <= begin || (begin == m_begin && end == m_end))
        return;
    m_begin = begin;
    m_end = end;
    if (m_emitting)
        return; // the emission below delivers the corrected range once the current one is done
    m_emitting = true;
    for (int round = 0; round < kMaxRounds; ++round) {
        const model::TimePs sentBegin = m_begin, sentEnd = m_end;
        emit rangeChanged(sentBegin, sentEnd);
        if (m_begin == sentBegin && m_end == sentEnd)
            break;
    }
    m_emitting = false;
}

} // namespace tpuscope::qt
