// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;

namespace tpuscope::app {

/// The inline bar over the profile view for errors and notes while a profile is shown: not a
/// modal box, so the view stays usable. Hidden until showMessage(); the user can dismiss it.
class MessageBar : public QWidget
{
    Q_OBJECT
public:
    explicit MessageBar(QWidget* parent = nullptr);

    void showMessage(const QString& text);
    /// `lead` and the first few `items` as a list (the rest counted, all of them in the tooltip),
    /// so a profile with many warnings does not push the views off the window.
    void showList(const QString& lead, const QStringList& items);
    void hideMessage();
    /// The text shown; empty when the bar is hidden.
    QString text() const;

private:
    QLabel* m_label = nullptr;
};

} // namespace tpuscope::app
