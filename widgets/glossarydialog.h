// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

namespace tpuscope::widgets {

/// Help → Glossary: every metric and term with its meaning, formula and source, from the one list
/// the tooltips use (model/report/glossary.h).
class GlossaryDialog : public QDialog
{
    Q_OBJECT
public:
    explicit GlossaryDialog(QWidget* parent = nullptr);
    /// The dialog's text as HTML, for tests.
    static QString html();
};

} // namespace tpuscope::widgets
