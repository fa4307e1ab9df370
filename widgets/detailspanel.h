// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/eventoccurrence.h"
#include "analysis/opbreakdown.h"
#include "analysis/profileanalysis.h"
#include "core/profile.h"

#include <QPointer>
#include <QString>
#include <QWidget>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

class QLabel;
class QSplitter;
class QTextBrowser;
class QToolButton;
class QTreeWidget;
class QTreeWidgetItem;
class QUrl;

namespace tpuscope::qt {
class SelectionState;
class TraceSession;
} // namespace tpuscope::qt

namespace tpuscope::widgets {

class TimelineLegend;

/// Fusion drill-down: everything known about one op (metrics from the op breakdown, provenance,
/// HLO text, output shape with per-dimension tiling/padding) and, for a fusion, its fused
/// instructions with the root and the convolution/dot marked. Fused instructions can be inspected
/// one by one; operands that are profiled ops are links (opActivated).
class DetailsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);
    ~DetailsPanel() override;

    /// Shows ops of a profile with the numbers of its analysis (the session's); null clears.
    void setAnalysis(std::shared_ptr<const tpuscope::model::ProfileAnalysis> analysis);
    /// Follows the session's analysis.
    void setSession(tpuscope::qt::TraceSession* session);
    /// Shows the selected op; an operand link selects its op.
    void setSelectionState(tpuscope::qt::SelectionState* selection);
    void showOp(tpuscope::model::OpId op); // kNone clears
    /// The timeline event selected (kNone: none); a step, module or host event of the shown op
    /// is described by its own facts instead of the op's, an XLA op event by its own section
    /// ("This occurrence") above the op's totals. Its comparison with the op's other occurrences
    /// is a session job (TraceSession::requestEventOccurrence); without a session it is computed here.
    void setTimelineEvent(tpuscope::model::TrackId track, quint32 index);
    /// The selected event's comparison with its op's occurrences has not arrived yet.
    bool isOccurrencePending() const { return m_occurrencePending; }
    /// For --view fusion:NAME: the op with this name (the one with the most time when several
    /// programs have it); false if not found.
    bool showOpByName(const QString& name);

    tpuscope::model::OpId currentOp() const { return m_op; }
    /// The drill-down as Markdown (what the Copy button puts on the clipboard).
    QString markdown() const;

    // For tests and screenshots.
    QTextBrowser* browser() const { return m_browser; }
    QLabel* subtitleLabel() const { return m_subtitle; }
    QTreeWidget* fusedTree() const { return m_fusedTree; }
    QTextBrowser* instructionBrowser() const { return m_instructionBrowser; }
    /// The utilization colour legend under the panel.
    TimelineLegend* legend() const { return m_legend; }
    /// Selects a fused instruction by name and shows its details; false when not in the tree.
    bool selectFusedInstruction(const QString& name);

signals:
    void opActivated(tpuscope::model::OpId op);

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void ensureIndex();
    void render();
    void renderInstruction(const tpuscope::model::hlo::Instruction* instruction);
    void fillFusedTree();
    void applySplitterSizes();
    void onAnchor(const QUrl& url);
    void copyMarkdown();
    tpuscope::model::OpId opForInstruction(const std::string& name) const;

    tpuscope::model::ProfilePtr m_profile;
    tpuscope::model::OpId m_op = tpuscope::model::kNone;
    tpuscope::model::TrackId m_eventTrack = tpuscope::model::kNone;
    quint32 m_eventIndex = 0;
    // The selected event described (model::describeEvent, then the session's comparison).
    std::shared_ptr<const tpuscope::model::EventOccurrence> m_occurrence;
    bool m_occurrencePending = false;
    QPointer<tpuscope::qt::TraceSession> m_session;
    // Computed on first use per profile: the breakdown rows indexed by op.
    bool m_indexed = false;
    std::shared_ptr<const tpuscope::model::ProfileAnalysis> m_analysis;
    std::vector<int> m_rowOfOp; // OpId → row (-1 none)
    std::unordered_map<std::string, tpuscope::model::OpId> m_opByProgramName; // program '\x1f' name
    std::unordered_map<std::string, std::vector<tpuscope::model::OpId>> m_opsByName;

    QLabel* m_title = nullptr;
    QLabel* m_subtitle = nullptr;
    QToolButton* m_copyButton = nullptr;
    TimelineLegend* m_legend = nullptr;
    QSplitter* m_splitter = nullptr;
    QSplitter* m_fusedSplitter = nullptr;
    bool m_userSizedSplitter = false;
    QTextBrowser* m_browser = nullptr;
    QWidget* m_fusedBox = nullptr;
    QLabel* m_fusedLabel = nullptr;
    QTreeWidget* m_fusedTree = nullptr;
    QTextBrowser* m_instructionBrowser = nullptr;
    QString m_markdown;
    QString m_instructionMarkdown;
};

} // namespace tpuscope::widgets
