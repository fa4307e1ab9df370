// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/profile.h"

#include <QList>
#include <QWidget>

#include <memory>

class QLabel;
class QListWidget;
class QSpinBox;
class QTextBrowser;

namespace tpuscope::model {
struct ProfileAnalysis;
} // namespace tpuscope::model

namespace tpuscope::qt {
class SelectionState;
class TraceSession;
} // namespace tpuscope::qt

namespace tpuscope::widgets {

/// Side panel with the advice of the rule engine: a list (severity, title), the details of the
/// selected advice (explanation, numbers, threshold, gain, evidence links) and a what-if row that
/// shows the padding efficiency the dominant ops would get with another global batch.
class AdvicePanel : public QWidget
{
    Q_OBJECT
public:
    explicit AdvicePanel(QWidget* parent = nullptr);
    ~AdvicePanel() override;

    /// Shows the advice of a profile's analysis (the session's, computed with the load); null clears.
    void setAnalysis(std::shared_ptr<const tpuscope::model::ProfileAnalysis> analysis);
    /// Follows the session's analysis.
    void setSession(tpuscope::qt::TraceSession* session);
    /// The evidence of an advice the user picks becomes the selection (the first op) and the
    /// highlighted ops; the item previewed when an analysis arrives does not.
    void setSelectionState(tpuscope::qt::SelectionState* selection);

    /// Number of advice items shown.
    int adviceCount() const;
    /// The panel computes nothing: the advice arrives with the analysis (kept for callers that wait).
    bool isComputing() const { return false; }
    /// Shows advice item `index` (of AdviceReport::advice) and selects its evidence; before an
    /// analysis is shown, it is shown when one arrives.
    void selectAdvice(int index);
    int currentAdvice() const;

signals:
    /// The evidence ops of the selected advice, or the op of a clicked evidence link.
    void opsSelected(const QList<quint32>& opIds);
    /// Emitted when the advice of a new analysis is shown.
    void adviceReady();

private:
    void showAdvice(int row);
    void updateWhatIf();
    void showNoBatch();

    tpuscope::model::ProfilePtr m_profile;
    std::shared_ptr<const tpuscope::model::ProfileAnalysis> m_result;
    tpuscope::qt::SelectionState* m_selection = nullptr;
    bool m_arrived = false; // setAnalysis has emitted adviceReady: later selections are the user's
    int m_pendingRow = -1; // selectAdvice before an analysis arrived

    QLabel* m_header = nullptr;
    QListWidget* m_list = nullptr;
    QTextBrowser* m_details = nullptr;
    QSpinBox* m_globalBatch = nullptr;
    QLabel* m_perCore = nullptr;
    QTextBrowser* m_whatIf = nullptr;
};

} // namespace tpuscope::widgets
