// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinesearch.h"

#include "timelineview.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <cctype>

namespace tpuscope::widgets {

using model::kNone;
using model::TimePs;
using model::TrackId;

struct TimelineSearch::Private
{
    struct Match
    {
        TimePs start;
        TrackId track;
        uint32_t event;
    };
    QLineEdit* edit = nullptr;
    QToolButton* prev = nullptr;
    QToolButton* next = nullptr;
    QLabel* status = nullptr;
    QTimer debounce;
    QString searchedText;
    const model::Profile* searchedProfile = nullptr;
    std::vector<Match> matches;
    bool truncated = false;
};

namespace {

/// Case-insensitive (ASCII) substring test; op names are ASCII identifiers in practice.
bool containsFolded(const std::string& haystack, const std::string& foldedNeedle)
{
    if (foldedNeedle.size() > haystack.size())
        return false;
    auto it = std::search(haystack.begin(), haystack.end(), foldedNeedle.begin(), foldedNeedle.end(),
        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
    return it != haystack.end();
}

} // namespace

TimelineSearch::TimelineSearch(TimelineView* view, QWidget* parent)
    : QWidget(parent)
    , d(std::make_unique<Private>())
    , m_view(view)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    d->edit = new QLineEdit(this);
    d->edit->setPlaceholderText(tr("Find op in timeline…"));
    d->edit->setClearButtonEnabled(true);
    d->edit->setToolTip(tr("Case-insensitive substring of the op name, over the whole profile.\n"
                           "Enter: next match, Shift+Enter: previous match."));
    d->prev = new QToolButton(this);
    d->prev->setArrowType(Qt::UpArrow);
    d->prev->setToolTip(tr("Previous match (Shift+Enter)"));
    d->next = new QToolButton(this);
    d->next->setArrowType(Qt::DownArrow);
    d->next->setToolTip(tr("Next match (Enter)"));
    d->status = new QLabel(this);
    d->status->setTextFormat(Qt::PlainText);
    d->status->setMinimumWidth(d->status->fontMetrics().horizontalAdvance(QStringLiteral("0000000 / 0000000+")));
    layout->addWidget(d->edit, 1);
    layout->addWidget(d->prev);
    layout->addWidget(d->next);
    layout->addWidget(d->status);

    // Typing only searches once the user pauses; stepping is immediate.
    d->debounce.setSingleShot(true);
    d->debounce.setInterval(300);
    connect(&d->debounce, &QTimer::timeout, this, [this] {
        search();
        updateStatus();
    });
    connect(d->edit, &QLineEdit::textChanged, this, [this] { d->debounce.start(); });
    connect(d->edit, &QLineEdit::returnPressed, this, [this] {
        if (QApplication::keyboardModifiers() & Qt::ShiftModifier)
            previous();
        else
            next();
    });
    connect(d->next, &QToolButton::clicked, this, &TimelineSearch::next);
    connect(d->prev, &QToolButton::clicked, this, &TimelineSearch::previous);
    updateStatus();
}

TimelineSearch::~TimelineSearch() = default;

void TimelineSearch::setText(const QString& text)
{
    d->edit->setText(text);
}

QLineEdit* TimelineSearch::lineEdit() const
{
    return d->edit;
}

void TimelineSearch::focusSearch()
{
    d->edit->setFocus(Qt::ShortcutFocusReason);
    d->edit->selectAll();
}

void TimelineSearch::search()
{
    d->debounce.stop();
    const QString text = d->edit->text().trimmed();
    const model::ProfilePtr profile = m_view ? m_view->profile() : nullptr;
    if (text == d->searchedText && profile.get() == d->searchedProfile)
        return;
    d->searchedText = text;
    d->searchedProfile = profile.get();
    d->matches.clear();
    d->truncated = false;
    m_current = -1;
    if (!profile || text.isEmpty()) {
        if (m_view)
            m_view->setSearchMatches({});
        updateStatus();
        return;
    }
    // The op table is small: match names there once, then scan the op columns with a mask.
    std::string needle = text.toLower().toStdString();
    std::vector<bool> mask(profile->ops.size(), false);
    bool any = false;
    for (size_t op = 0; op < profile->ops.size(); ++op) {
        if (containsFolded(profile->str(profile->ops[op].name), needle)) {
            mask[op] = true;
            any = true;
        }
    }
    // While the search is active, the timeline dims every event that does not match (no match at
    // all dims everything: nothing on screen is what was asked for).
    if (m_view)
        m_view->setSearchMatches(mask);
    if (any) {
        for (TrackId t = 0; t < profile->tracks.size() && !d->truncated; ++t) {
            const auto& track = profile->tracks[t];
            for (size_t i = 0; i < track.size(); ++i) {
                if (track.op[i] < mask.size() && mask[track.op[i]]) {
                    if (d->matches.size() >= kMaxMatches) {
                        d->truncated = true;
                        break;
                    }
                    d->matches.push_back({track.start[i], t, static_cast<uint32_t>(i)});
                }
            }
        }
        // Each track is already in time order; a stable sort by start merges them.
        std::stable_sort(d->matches.begin(), d->matches.end(),
            [](const Private::Match& a, const Private::Match& b) { return a.start < b.start; });
    }
    updateStatus();
}

void TimelineSearch::next()
{
    step(+1);
}

void TimelineSearch::previous()
{
    step(-1);
}

void TimelineSearch::step(int direction)
{
    search(); // no-op when nothing changed
    if (d->matches.empty() || !m_view) {
        updateStatus();
        return;
    }
    const int n = int(d->matches.size());
    if (m_current < 0) {
        // The first step goes to the first match in time (Shift+Enter: the last), wherever the
        // view happens to be: "1 / N" is the earliest occurrence.
        m_current = direction < 0 ? n - 1 : 0;
    } else {
        m_current = ((m_current + direction) % n + n) % n;
    }
    const auto& m = d->matches[size_t(m_current)];
    m_view->revealEvent(m.track, m.event);
    m_view->selectEvent(m.track, m.event);
    updateStatus();
}

size_t TimelineSearch::matchCount() const
{
    return d->matches.size();
}

std::pair<TrackId, uint32_t> TimelineSearch::match(size_t i) const
{
    if (i >= d->matches.size())
        return {kNone, 0};
    return {d->matches[i].track, d->matches[i].event};
}

QString TimelineSearch::statusText() const
{
    return d->status->text();
}

void TimelineSearch::updateStatus()
{
    const bool have = !d->matches.empty();
    d->prev->setEnabled(have);
    d->next->setEnabled(have);
    if (d->searchedText.isEmpty()) {
        d->status->clear();
        return;
    }
    if (!have) {
        d->status->setText(tr("no matches"));
        return;
    }
    const QString total = QString::number(d->matches.size()) + (d->truncated ? QStringLiteral("+") : QString());
    d->status->setText(
        m_current < 0 ? tr("%1 matches").arg(total) : QStringLiteral("%1 / %2").arg(m_current + 1).arg(total));
}

} // namespace tpuscope::widgets
