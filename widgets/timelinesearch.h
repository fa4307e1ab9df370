// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"

#include <QPointer>
#include <QWidget>

#include <memory>
#include <utility>

class QLineEdit;

namespace tpuscope::widgets {

class TimelineView;

/// Search bar for the timeline: finds ops by name (case-insensitive substring) over the whole
/// profile and steps through their occurrences in time order; each step reveals and selects one.
class TimelineSearch : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineSearch(TimelineView* view, QWidget* parent = nullptr);
    ~TimelineSearch() override;

    void setText(const QString& text);
    /// The search box (the window's shortcuts act on it: Enter, Esc).
    QLineEdit* lineEdit() const;
    /// Gives the box the focus with its text selected, so typing replaces it (Ctrl+F, /).
    void focusSearch();
    /// Runs the search now (normally debounced while typing).
    void search();
    void next();
    void previous();
    size_t matchCount() const;
    int currentIndex() const { return m_current; }
    /// Matches in time order: (track, event index).
    std::pair<model::TrackId, uint32_t> match(size_t i) const;
    QString statusText() const;

    /// Upper bound on collected occurrences; beyond it the count reads "N+".
    static constexpr size_t kMaxMatches = 2'000'000;

private:
    void step(int direction);
    void updateStatus();

    struct Private;
    std::unique_ptr<Private> d;
    QPointer<TimelineView> m_view;
    int m_current = -1;
};

} // namespace tpuscope::widgets
