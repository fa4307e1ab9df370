// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"

#include <QCoreApplication>
#include <QKeySequence>
#include <QList>
#include <QPoint>
#include <QString>

#include <optional>
#include <utility>

class QKeyEvent;
class QMouseEvent;
class QWheelEvent;

namespace tpuscope::widgets {

class TimelineView;

/// What a navigation key of the timeline does (Perfetto's keys: W/S zoom, A/D pan).
enum class TimelineCommand { ZoomIn, ZoomOut, PanLeft, PanRight, ZoomToSelection, ResetZoom, ClearSelection };

/// One navigation key binding: the keys, as shown in the shortcut list, and what they do.
struct TimelineKey
{
    TimelineCommand command;
    QList<QKeySequence> keys;
    QString keysText; ///< "W or + or ="
    QString description;
};

/// A mouse gesture of the timeline, for the shortcut list.
struct TimelineGesture
{
    QString keys; ///< "Shift+drag or right-drag"
    QString description;
};

/// The timeline's input state machine: mouse (click, pan drag, Shift/right-drag range selection,
/// double-click, wheel) and the navigation keys while the timeline has the focus. The window's
/// shortcuts (app/windowshortcuts) run the same commands from the same key table when the pointer
/// is over the timeline and the focus is elsewhere.
class TimelineInput
{
    Q_DECLARE_TR_FUNCTIONS(TimelineInput)
public:
    explicit TimelineInput(TimelineView& view);

    /// Every navigation key, in the order the shortcut list shows them.
    static QList<TimelineKey> keys();
    static QList<TimelineGesture> gestures();
    /// The command a key press means (none for other keys and for modifiers other than Shift).
    static std::optional<TimelineCommand> commandFor(const QKeyEvent* event);

    /// Zooms around the mouse when it is over the event area, else around the centre.
    void run(TimelineCommand command);

    void mousePress(QMouseEvent* event);
    void mouseMove(QMouseEvent* event);
    void mouseRelease(QMouseEvent* event);
    void mouseDoubleClick(QMouseEvent* event);
    /// False for a plain wheel (the scroll area scrolls the rows).
    bool wheel(QWheelEvent* event);
    /// False for keys that are not the timeline's.
    bool keyPress(QKeyEvent* event);
    /// True when the focused timeline takes the key before the window's shortcuts: its navigation
    /// keys, Esc only while a range is selected (else Esc cancels a load).
    bool overridesShortcut(const QKeyEvent* event) const;

    /// The range being dragged out with Shift+drag, while the drag lasts.
    bool isSelectingRange() const { return m_drag == Drag::Select; }
    std::pair<model::TimePs, model::TimePs> draggedRange() const;

private:
    enum class Drag { None, PendingClick, Pan, Select };

    TimelineView& m_view;
    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    model::TimePs m_pressBegin = 0, m_pressEnd = 0;
    model::TimePs m_selectAnchor = 0, m_selectCurrent = 0;
};

} // namespace tpuscope::widgets
