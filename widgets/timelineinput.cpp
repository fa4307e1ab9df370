// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelineinput.h"

#include "timelineview.h"

#include <QCursor>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace tpuscope::widgets {

using model::kNone;
using model::TimePs;
using model::Track;

TimelineInput::TimelineInput(TimelineView& view)
    : m_view(view)
{
}

QList<TimelineKey> TimelineInput::keys()
{
    using C = TimelineCommand;
    return {
        {C::ZoomIn, {QKeySequence(Qt::Key_W), QKeySequence(Qt::Key_Plus), QKeySequence(Qt::Key_Equal)},
            tr("W or + or ="), tr("Zoom in around the mouse")},
        {C::ZoomOut, {QKeySequence(Qt::Key_S), QKeySequence(Qt::Key_Minus)}, tr("S or -"),
            tr("Zoom out around the mouse")},
        {C::PanLeft, {QKeySequence(Qt::Key_A)}, tr("A / D"), tr("Pan left / right by a tenth of the view")},
        {C::PanRight, {QKeySequence(Qt::Key_D)}, tr("A / D"), tr("Pan left / right by a tenth of the view")},
        {C::ZoomToSelection, {QKeySequence(Qt::Key_Z)}, tr("Z"), tr("Zoom to the selected range")},
        {C::ResetZoom, {QKeySequence(Qt::Key_0), QKeySequence(Qt::Key_Home)}, tr("0 or Home"), tr("Reset the zoom")},
        {C::ClearSelection, {QKeySequence(Qt::Key_Escape)}, tr("Esc"), tr("Clear the selected range")},
    };
}

QList<TimelineGesture> TimelineInput::gestures()
{
    return {
        {tr("Ctrl+wheel"), tr("Zoom around the mouse")},
        {tr("Shift+wheel or horizontal wheel"), tr("Pan")},
        {tr("Wheel"), tr("Scroll the rows")},
        {tr("Drag"), tr("Pan (sideways) and scroll (up and down)")},
        {tr("Shift+drag or right-drag"), tr("Select a time range: its ops fill the Selection dock (Esc clears)")},
        {tr("Click"), tr("Select an event (the ▸/▾ of a group header collapses or expands the group)")},
        {tr("Double-click"), tr("Zoom to the event")},
    };
}

namespace {

std::optional<TimelineCommand> commandForKey(int keyCode)
{
    for (const TimelineKey& key : TimelineInput::keys())
        for (const QKeySequence& sequence : key.keys)
            if (sequence[0].key() == keyCode)
                return key.command;
    return std::nullopt;
}

} // namespace

std::optional<TimelineCommand> TimelineInput::commandFor(const QKeyEvent* event)
{
    const Qt::KeyboardModifiers modifiers = event->modifiers() & ~Qt::KeypadModifier;
    if (modifiers != Qt::NoModifier && modifiers != Qt::ShiftModifier)
        return std::nullopt;
    return commandForKey(event->key());
}

void TimelineInput::run(TimelineCommand command)
{
    TimelineView& v = m_view;
    const double width = v.eventAreaWidth();
    const QPoint mouse = v.viewport()->mapFromGlobal(QCursor::pos());
    const double anchor = v.viewport()->rect().contains(mouse) && mouse.x() >= TimelineView::kLabelWidth
        ? mouse.x() - TimelineView::kLabelWidth
        : width / 2;
    const auto [rangeBegin, rangeEnd] = v.selectedRange();
    switch (command) {
    case TimelineCommand::ZoomIn:
        v.zoomBy(0.8, anchor);
        break;
    case TimelineCommand::ZoomOut:
        v.zoomBy(1.25, anchor);
        break;
    case TimelineCommand::PanLeft:
        v.panBy(-width / 10);
        break;
    case TimelineCommand::PanRight:
        v.panBy(width / 10);
        break;
    case TimelineCommand::ZoomToSelection:
        if (rangeEnd > rangeBegin)
            v.setVisibleRange(rangeBegin, rangeEnd);
        break;
    case TimelineCommand::ResetZoom:
        v.resetZoom();
        break;
    case TimelineCommand::ClearSelection:
        v.selectRange(0, 0);
        break;
    }
}

bool TimelineInput::keyPress(QKeyEvent* event)
{
    // A key press that reached the focused timeline is its key whatever the modifiers (those
    // with Ctrl or Alt were offered to the window's shortcuts first).
    const std::optional<TimelineCommand> command = commandForKey(event->key());
    if (!command)
        return false;
    run(*command);
    event->accept();
    return true;
}

bool TimelineInput::overridesShortcut(const QKeyEvent* event) const
{
    const std::optional<TimelineCommand> command = commandFor(event);
    if (!command)
        return false;
    const auto [begin, end] = m_view.selectedRange();
    return *command != TimelineCommand::ClearSelection || end > begin;
}

std::pair<TimePs, TimePs> TimelineInput::draggedRange() const
{
    return {std::min(m_selectAnchor, m_selectCurrent), std::max(m_selectAnchor, m_selectCurrent)};
}

void TimelineInput::mousePress(QMouseEvent* event)
{
    TimelineView& v = m_view;
    m_pressPos = event->position().toPoint();
    std::tie(m_pressBegin, m_pressEnd) = v.visibleRange();
    const bool select = event->button() == Qt::RightButton
        || (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
    if (select && m_pressPos.x() >= TimelineView::kLabelWidth) {
        m_drag = Drag::Select;
        m_selectAnchor = m_selectCurrent = v.scale().xToTime(m_pressPos.x() - TimelineView::kLabelWidth);
    } else if (event->button() == Qt::LeftButton) {
        m_drag = Drag::PendingClick;
    }
    event->accept();
}

void TimelineInput::mouseMove(QMouseEvent* event)
{
    TimelineView& v = m_view;
    const QPoint pos = event->position().toPoint();
    if (m_drag == Drag::PendingClick && (pos - m_pressPos).manhattanLength() > 3
        && m_pressPos.x() >= TimelineView::kLabelWidth)
        m_drag = Drag::Pan;
    if (m_drag == Drag::Pan) {
        const double psPerPx = double(m_pressEnd - m_pressBegin) / v.eventAreaWidth();
        const TimePs delta = TimePs(std::llround((m_pressPos.x() - pos.x()) * psPerPx));
        v.setVisibleRange(m_pressBegin + delta, m_pressEnd + delta);
        const int dy = m_pressPos.y() - pos.y();
        if (dy != 0) {
            v.verticalScrollBar()->setValue(v.verticalScrollBar()->value() + dy);
            m_pressPos.setY(pos.y());
        }
    } else if (m_drag == Drag::Select) {
        m_selectCurrent = v.scale().xToTime(std::clamp(pos.x() - TimelineView::kLabelWidth, 0, v.eventAreaWidth()));
        v.viewport()->update();
    } else if (m_drag == Drag::None) {
        v.setHoveredEvent(v.eventAt(pos));
    }
}

void TimelineInput::mouseRelease(QMouseEvent* event)
{
    TimelineView& v = m_view;
    const QPoint pos = event->position().toPoint();
    if (m_drag == Drag::PendingClick) {
        const TimelineView::Row* row
            = pos.y() >= TimelineView::kRulerHeight ? v.rowAtContentY(v.contentY(pos.y())) : nullptr;
        if (row && row->header) {
            // Only the ▸/▾ toggle collapses: a click that merely gives the timeline the focus
            // must not fold a group away.
            const int top = row->top + TimelineView::kRulerHeight - v.verticalScrollBar()->value();
            if (TimelineView::headerToggleRect(top, row->level).contains(pos))
                v.setGroupCollapsed(row->group, !v.isGroupCollapsed(row->group));
        } else if (pos.x() >= TimelineView::kLabelWidth) {
            const auto [track, index] = v.eventAt(pos);
            v.selectEvent(track, index);
        }
    } else if (m_drag == Drag::Select) {
        m_drag = Drag::None;
        const double widthPx = std::abs(double(m_selectCurrent - m_selectAnchor)) * v.scale().pixelsPerPs();
        if (widthPx >= 3)
            v.selectRange(std::min(m_selectAnchor, m_selectCurrent), std::max(m_selectAnchor, m_selectCurrent));
        else
            v.selectRange(0, 0);
    }
    m_drag = Drag::None;
    v.viewport()->update();
}

void TimelineInput::mouseDoubleClick(QMouseEvent* event)
{
    TimelineView& v = m_view;
    const auto [track, index] = v.eventAt(event->position().toPoint());
    if (track != kNone) {
        const Track& t = v.profile()->tracks[track];
        const TimePs margin = std::max<TimePs>(t.duration[index] / 10, 1);
        v.setVisibleRange(t.start[index] - margin, t.end(index) + margin);
    }
}

bool TimelineInput::wheel(QWheelEvent* event)
{
    TimelineView& v = m_view;
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ControlModifier) {
        const double steps = delta.y() / 120.0;
        v.zoomBy(std::pow(0.8, steps), event->position().x() - TimelineView::kLabelWidth);
        event->accept();
        return true;
    }
    if (event->modifiers() & Qt::ShiftModifier || std::abs(delta.x()) > std::abs(delta.y())) {
        const int d = delta.x() != 0 ? delta.x() : delta.y();
        v.panBy(-d / 120.0 * v.eventAreaWidth() / 10);
        event->accept();
        return true;
    }
    return false;
}

} // namespace tpuscope::widgets
