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
class QThreadPool;

namespace tpuscope::model {
struct AdviceReport;
struct OpBreakdown;
} // namespace tpuscope::model

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

    /// Starts computing the advice off the GUI thread; the list fills in when it is done.
    void setProfile(tpuscope::model::ProfilePtr profile);

    /// Number of advice items shown (0 while computing).
    int adviceCount() const;
    bool isComputing() const { return m_computing; }
    /// Shows advice item `index` (of AdviceReport::advice) and selects its evidence; while the
    /// advice is still computing, it is shown when ready.
    void selectAdvice(int index);
    int currentAdvice() const;

signals:
    /// The evidence ops of the selected advice, or the op of a clicked evidence link.
    void opsSelected(const QList<quint32>& opIds);
    /// Emitted when the advice for the current profile is ready.
    void adviceReady();

private:
    struct Result;
    void showResult(std::shared_ptr<const Result> result, quint64 generation);
    void showAdvice(int row);
    void updateWhatIf();

    tpuscope::model::ProfilePtr m_profile;
    std::shared_ptr<const Result> m_result;
    quint64 m_generation = 0;
    bool m_computing = false;
    int m_pendingRow = -1; // selectAdvice while computing

    QLabel* m_header = nullptr;
    QListWidget* m_list = nullptr;
    QTextBrowser* m_details = nullptr;
    QSpinBox* m_globalBatch = nullptr;
    QLabel* m_perCore = nullptr;
    QTextBrowser* m_whatIf = nullptr;
    QThreadPool* m_pool = nullptr; // own pool: the destructor waits for a running computation
};

} // namespace tpuscope::widgets
