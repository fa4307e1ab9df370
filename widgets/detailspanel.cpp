// SPDX-License-Identifier: GPL-3.0-or-later
#include "detailspanel.h"
#include "detailsdocument.h"
#include "qt/colors.h"
#include "qt/qstrings.h"
#include "timelinelegend.h"

#include "timelineeventinfo.h"

#include "qt/selectionstate.h"
#include "qt/tracesession.h"

#include "analysis/layout.h"
#include "analysis/utilization.h"
#include "report/report.h"

#include <QApplication>
#include <QClipboard>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <functional>

namespace tpuscope::widgets {

using namespace tpuscope::model;
namespace L = tpuscope::model::layout;
using Doc = DetailsDocument;

namespace {

constexpr int kInstructionIdRole = Qt::UserRole + 1;

using tpuscope::qt::qs;

} // namespace

namespace {

/// Shapes wrap at their break opportunities; the row is as tall as the column's width needs.
/// (QTreeView measures rows without the column width, so its own word wrap stays one line.)
class WrappingDelegate : public QStyledItemDelegate
{
public:
    explicit WrappingDelegate(QTreeView* view)
        : QStyledItemDelegate(view)
        , m_view(view)
    {
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        const int width = m_view->columnWidth(index.column()) - 8;
        if (width <= 0)
            return size;
        const QRect needed = option.fontMetrics.boundingRect(
            QRect(0, 0, width, 100000), Qt::TextWordWrap, index.data(Qt::DisplayRole).toString());
        size.setHeight(std::max(size.height(), needed.height() + 4));
        return size;
    }

private:
    QTreeView* m_view;
};

} // namespace

namespace {

/// Children get a palette change after their parent re-renders, so links take the panel's colour
/// explicitly.
void applyLinkColor(QTextBrowser* browser, const QPalette& pal)
{
    browser->document()->setDefaultStyleSheet(
        QStringLiteral("a { color: %1; text-decoration: none; }").arg(qt::colors::linkColor(pal).name()));
}

/// Programs are named like the breakdown names them.
std::string programKey(const Profile& profile, const OpInfo& op)
{
    std::string program;
    if (op.program != kNone)
        program = profile.programs[op.program].name;
    else if (op.hasProgramId)
        program = "program " + std::to_string(op.programId);
    return program + '\x1f' + profile.str(op.name);
}

} // namespace

DetailsPanel::DetailsPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);

    auto* header = new QHBoxLayout;
    auto* titles = new QVBoxLayout;
    titles->setSpacing(0);
    // Op names and device types come from the file: plain text, never rich text that a file could
    // fill with links, images or thousands of nested tags.
    m_title = new QLabel(this);
    m_title->setTextFormat(Qt::PlainText);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_subtitle = new QLabel(this);
    m_subtitle->setTextFormat(Qt::PlainText);
    m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_subtitle->setForegroundRole(QPalette::PlaceholderText);
    titles->addWidget(m_title);
    titles->addWidget(m_subtitle);
    header->addLayout(titles, 1);
    m_copyButton = new QToolButton(this);
    m_copyButton->setText(tr("Copy"));
    m_copyButton->setIcon(QIcon::fromTheme(QStringLiteral("edit-copy")));
    m_copyButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_copyButton->setToolTip(tr("Copy this drill-down as Markdown"));
    m_copyButton->setAutoRaise(true);
    connect(m_copyButton, &QToolButton::clicked, this, &DetailsPanel::copyMarkdown);
    header->addWidget(m_copyButton, 0, Qt::AlignTop);
    layout->addLayout(header);

    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->setChildrenCollapsible(false);
    m_browser = new QTextBrowser(m_splitter);
    m_browser->setOpenLinks(false);
    m_browser->setFrameShape(QFrame::NoFrame);
    connect(m_browser, &QTextBrowser::anchorClicked, this, &DetailsPanel::onAnchor);

    m_fusedBox = new QWidget(m_splitter);
    auto* fusedLayout = new QVBoxLayout(m_fusedBox);
    fusedLayout->setContentsMargins(0, 0, 0, 0);
    fusedLayout->setSpacing(2);
    m_fusedLabel = new QLabel(m_fusedBox);
    m_fusedLabel->setTextFormat(Qt::PlainText);
    QFont boldFont = m_fusedLabel->font();
    boldFont.setBold(true);
    m_fusedLabel->setFont(boldFont);
    fusedLayout->addWidget(m_fusedLabel);
    auto* fusedSplitter = new QSplitter(Qt::Vertical, m_fusedBox);
    m_fusedSplitter = fusedSplitter;
    fusedSplitter->setChildrenCollapsible(false);
    m_fusedTree = new QTreeWidget(fusedSplitter);
    m_fusedTree->setColumnCount(4);
    m_fusedTree->setHeaderLabels({tr("Instruction"), tr("Opcode"), tr("Shape"), tr("Padding")});
    m_fusedTree->setRootIsDecorated(false);
    // Shapes wrap (uneven rows) rather than lose their middle ("f32[1...128]}").
    m_fusedTree->setUniformRowHeights(false);
    m_fusedTree->setWordWrap(true);
    m_fusedTree->setAlternatingRowColors(true);
    m_fusedTree->header()->setStretchLastSection(false);
    m_fusedTree->header()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_fusedTree->header()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_fusedTree->setTextElideMode(Qt::ElideNone);
    // Row heights are measured at the column widths of the last layout: measure again when the
    // stretched shape column changes width (the dock is resized), or wrapped shapes overlap.
    m_fusedTree->setItemDelegateForColumn(2, new WrappingDelegate(m_fusedTree));
    connect(m_fusedTree->header(), &QHeaderView::sectionResized, m_fusedTree, [tree = m_fusedTree](int section) {
        if (section == 2)
            tree->doItemsLayout();
    });
    connect(m_fusedTree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        const hlo::Instruction* in = nullptr;
        if (item && m_profile && m_op != kNone)
            if (const hlo::Module* module = m_profile->hloFor(m_profile->ops[m_op]))
                in = module->instructionById(item->data(0, kInstructionIdRole).toLongLong());
        renderInstruction(in);
    });
    m_instructionBrowser = new QTextBrowser(fusedSplitter);
    m_instructionBrowser->setOpenLinks(false);
    connect(m_instructionBrowser, &QTextBrowser::anchorClicked, this, &DetailsPanel::onAnchor);
    fusedSplitter->setStretchFactor(0, 3);
    fusedSplitter->setStretchFactor(1, 2);
    fusedLayout->addWidget(fusedSplitter, 1);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    layout->addWidget(m_splitter, 1);
    connect(m_splitter, &QSplitter::splitterMoved, this, [this] { m_userSizedSplitter = true; });
    // The utilization chips are the one scale's tint (as the op table's bars): say what they mean.
    m_legend = new TimelineLegend(this);
    m_legend->setObjectName(QStringLiteral("detailsLegend"));
    m_legend->setShowsLowUtilizationMarker(false);
    m_legend->setCaption(tr("Utilization colour:"));
    m_legend->setEntries(utilizationScaleEntries(&palette()), 0.25);
    layout->addWidget(m_legend);

    render();
}

DetailsPanel::~DetailsPanel() = default;

void DetailsPanel::setAnalysis(std::shared_ptr<const model::ProfileAnalysis> analysis)
{
    m_analysis = std::move(analysis);
    m_profile = m_analysis ? m_analysis->profile : nullptr;
    m_op = kNone;
    m_eventTrack = kNone;
    m_eventIndex = 0;
    m_occurrence.reset();
    m_occurrencePending = false;
    m_indexed = false;
    m_rowOfOp.clear();
    m_opByProgramName.clear();
    m_opsByName.clear();
    render();
}

void DetailsPanel::ensureIndex()
{
    if (m_indexed || !m_profile)
        return;
    m_indexed = true;
    const OpBreakdown& breakdown = m_analysis->breakdown;
    std::unordered_map<std::string, int> rowByKey;
    for (size_t r = 0; r < breakdown.rows.size(); ++r)
        rowByKey.emplace(breakdown.rows[r].program + '\x1f' + breakdown.rows[r].name, static_cast<int>(r));
    m_rowOfOp.assign(m_profile->ops.size(), -1);
    for (OpId id = 0; id < m_profile->ops.size(); ++id) {
        const OpInfo& op = m_profile->ops[id];
        const std::string key = programKey(*m_profile, op);
        if (auto it = rowByKey.find(key); it != rowByKey.end())
            m_rowOfOp[id] = it->second;
        m_opByProgramName.emplace(key, id);
        m_opsByName[m_profile->str(op.name)].push_back(id);
    }
}

void DetailsPanel::setTimelineEvent(TrackId track, quint32 index)
{
    m_eventTrack = track;
    m_eventIndex = index;
    m_occurrence.reset();
    m_occurrencePending = false;
    if (m_analysis && m_profile && track < m_profile->tracks.size() && index < m_profile->tracks[track].size()) {
        // Where and when it ran needs no pass over the events; its place among the op's
        // occurrences does: a session job when a session shows this profile.
        const bool job = m_session && m_session->analysis() == m_analysis;
        auto event = std::make_shared<EventOccurrence>(describeEvent(*m_analysis, track, index));
        if (event->xlaOp && !job)
            compareWithOccurrences(*event, *m_profile, findOccurrences(*m_profile, event->op));
        m_occurrence = event;
        if (event->xlaOp && job) {
            m_occurrencePending = true;
            m_session->requestEventOccurrence(track, index, this,
                [this, track, index, analysis = m_analysis](const std::shared_ptr<const EventOccurrence>& found) {
                    if (analysis != m_analysis || track != m_eventTrack || index != m_eventIndex)
                        return; // another event or profile by now
                    m_occurrencePending = false;
                    m_occurrence = found;
                    if (found && found->op == m_op)
                        render();
                });
        }
    }
    // The op follows (SelectionState emits the event first); a second event of the shown op
    // only changes the event.
    if (m_profile && track < m_profile->tracks.size() && index < m_profile->tracks[track].size()
        && m_profile->tracks[track].op[index] == m_op)
        render();
}

void DetailsPanel::showOp(OpId op)
{
    if (!m_profile || op >= m_profile->ops.size())
        op = kNone;
    m_op = op;
    render();
}

bool DetailsPanel::showOpByName(const QString& name)
{
    if (!m_profile)
        return false;
    ensureIndex();
    const auto it = m_opsByName.find(name.toStdString());
    if (it == m_opsByName.end() || it->second.empty())
        return false;
    OpId best = it->second.front();
    double bestTime = -1;
    for (OpId id : it->second) {
        const int row = m_rowOfOp[id];
        const double t = row >= 0 ? m_analysis->breakdown.rows[row].totalTimePs : 0;
        if (t > bestTime) {
            bestTime = t;
            best = id;
        }
    }
    showOp(best);
    return true;
}

OpId DetailsPanel::opForInstruction(const std::string& name) const
{
    if (!m_profile || m_op == kNone)
        return kNone;
    OpInfo probe = m_profile->ops[m_op];
    std::string program;
    if (probe.program != kNone)
        program = m_profile->programs[probe.program].name;
    else if (probe.hasProgramId)
        program = "program " + std::to_string(probe.programId);
    const auto it = m_opByProgramName.find(program + '\x1f' + name);
    return it == m_opByProgramName.end() ? kNone : it->second;
}

QString DetailsPanel::markdown() const
{
    if (m_instructionMarkdown.isEmpty())
        return m_markdown;
    return m_markdown + m_instructionMarkdown;
}

void DetailsPanel::render()
{
    const QPalette pal = palette();
    m_instructionMarkdown.clear();
    if (!m_profile || m_op == kNone) {
        m_title->setText(tr("No op selected"));
        m_subtitle->setText(
            m_profile ? tr("Select an op in the table, the timeline or the roofline.") : tr("No profile loaded."));
        m_browser->clear();
        m_markdown.clear();
        m_fusedBox->hide();
        m_copyButton->setEnabled(false);
        return;
    }
    ensureIndex();
    m_copyButton->setEnabled(true);
    const Profile& p = *m_profile;
    const OpInfo& op = p.ops[m_op];
    const hlo::Module* module = p.hloFor(op);
    const hlo::Instruction* in = p.instructionFor(op);
    const OpRow* row = m_rowOfOp[m_op] >= 0 ? &m_analysis->breakdown.rows[m_rowOfOp[m_op]] : nullptr;
    const QString name = qs(p.str(op.name));
    const QString category = qs(p.str(op.category));
    QString program;
    if (op.program != kNone)
        program = qs(p.programs[op.program].name);
    else if (op.hasProgramId)
        program = QStringLiteral("program %1").arg(op.programId);

    m_title->setText(name);
    m_title->setToolTip(qt::plainToolTip(name));
    QStringList sub;
    if (!category.isEmpty())
        sub << category;
    if (!program.isEmpty())
        sub << program;
    m_subtitle->setText(sub.join(QStringLiteral(" · ")));

    Doc doc(pal);
    doc.rawMarkdown(QStringLiteral("## %1\n\n").arg(name));

    const bool eventOfOp = m_eventTrack < p.tracks.size() && m_eventIndex < p.tracks[m_eventTrack].size()
        && p.tracks[m_eventTrack].op[m_eventIndex] == m_op;
    // A step, module or host event selected on the timeline: its own facts (timelineeventinfo.h).
    if (!row && eventOfOp) {
        doc.heading(timelineEventKind(p, m_eventTrack));
        for (const auto& [label, value] : timelineEventFacts(p, m_eventTrack, m_eventIndex))
            doc.kv(label, value);
        if (sub.isEmpty())
            m_subtitle->setText(timelineEventKind(p, m_eventTrack));
        applyLinkColor(m_browser, pal);
        m_browser->setHtml(doc.html());
        m_markdown = doc.markdown();
        m_fusedBox->hide();
        return;
    }

    const OpDetails details {&p, m_op, row, module, in, category, program};
    // An op event selected on the timeline: this one run first, then the op's totals.
    const bool occurrence = eventOfOp && m_occurrence && m_occurrence->found && m_occurrence->track == m_eventTrack
        && m_occurrence->index == m_eventIndex;
    if (occurrence)
        addEventOccurrenceSection(doc, pal, *m_occurrence, m_occurrencePending);
    addPerformanceSection(doc, pal, details,
        occurrence ? tr("The op's totals over all %1 occurrences").arg(row->occurrences) : QString());
    addProvenanceSection(doc, details);
    addHloSection(doc, details);
    addOutputShapeSection(doc, pal, details);
    addOperandsSection(doc, details, [this](const std::string& name) { return opForInstruction(name); });
    const hlo::Computation* fused = addFusedComputationSection(doc, pal, details);

    applyLinkColor(m_browser, pal);
    m_browser->setHtml(doc.html());
    m_markdown = doc.markdown();
    m_fusedBox->setVisible(fused != nullptr);
    if (fused)
        fillFusedTree();
}

void DetailsPanel::fillFusedTree()
{
    const QPalette pal = palette();
    const OpInfo& op = m_profile->ops[m_op];
    const hlo::Module* module = m_profile->hloFor(op);
    const hlo::Instruction* in = m_profile->instructionFor(op);
    const hlo::Computation* fused = module->computation(in->calledComputationIds.front());
    const hlo::Instruction* core = L::findComputeCore(*module, *in);

    const QSignalBlocker blocker(m_fusedTree);
    m_fusedTree->clear();
    QFont bold = m_fusedTree->font();
    bold.setBold(true);
    QTreeWidgetItem* select = nullptr;
    // Nested fusions expand in place, but a module can share a computation among many callers at
    // every level (rows multiply with depth): the tree stops at a fixed number of rows and says so.
    constexpr int kMaxRows = 20000;
    int rowsLeft = kMaxRows;
    int64_t rowsNotShown = 0;
    std::function<void(const hlo::Computation*, QTreeWidgetItem*, int)> addComputation;
    addComputation = [&](const hlo::Computation* computation, QTreeWidgetItem* parent, int depth) {
        for (const hlo::Instruction& fi : computation->instructions) {
            if (rowsLeft <= 0) {
                ++rowsNotShown;
                continue;
            }
            --rowsLeft;
            auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_fusedTree);
            QString label = qs(fi.name);
            QStringList marks;
            if (fi.id == computation->rootId)
                marks << tr("ROOT");
            if (core && &fi == core)
                marks << tr("compute");
            if (!marks.isEmpty())
                label += QStringLiteral("  [%1]").arg(marks.join(QStringLiteral(", ")));
            item->setText(0, label);
            item->setText(1, qs(fi.opcode));
            const QString shapeText = qs(hlo::shapeToString(fi.shape));
            item->setText(2, wrappableShapeText(shapeText));
            item->setToolTip(0, qt::plainToolTip(instructionText(module, fi)));
            item->setToolTip(2, qt::plainToolTip(shapeText));
            item->setData(0, kInstructionIdRole, QVariant::fromValue<qlonglong>(fi.id));
            if (!fi.shape.isTuple()) {
                const auto info = L::computePadding(fi.shape, L::inferOutputSemantics(*module, fi));
                if (info.valid) {
                    item->setText(3, efficiencyText(info.efficiency));
                    item->setBackground(3, paddingColor(info.efficiency, pal));
                    item->setToolTip(3, qt::plainToolTip(qs(info.usedOfTileText())));
                    item->setTextAlignment(3, Qt::AlignRight | Qt::AlignVCenter);
                }
            }
            if (!marks.isEmpty() || isComputeOpcode(fi.opcode)) {
                for (int c = 0; c < 4; ++c)
                    item->setFont(c, bold);
            }
            if (core && &fi == core)
                select = item;
            else if (!select && fi.id == computation->rootId && depth == 0)
                select = item;
            // Nested fusions expand in place.
            if (fi.opcode == "fusion" && depth < 4)
                for (int64_t id : fi.calledComputationIds)
                    if (const hlo::Computation* nested = module->computation(id))
                        addComputation(nested, item, depth + 1);
        }
    };
    addComputation(fused, nullptr, 0);
    if (rowsNotShown > 0) {
        auto* more = new QTreeWidgetItem(m_fusedTree);
        more->setText(0, tr("… at least %1 more instructions not shown").arg(rowsNotShown));
        more->setFlags(Qt::ItemIsEnabled);
    }
    m_fusedTree->setRootIsDecorated(m_fusedTree->topLevelItemCount() && [&] {
        for (int i = 0; i < m_fusedTree->topLevelItemCount(); ++i)
            if (m_fusedTree->topLevelItem(i)->childCount())
                return true;
        return false;
    }());
    m_fusedTree->expandAll();
    m_fusedTree->resizeColumnToContents(0);
    m_fusedTree->resizeColumnToContents(1);
    m_fusedTree->resizeColumnToContents(3);
    m_fusedTree->setColumnWidth(0, std::min(m_fusedTree->columnWidth(0), 260));
    m_fusedLabel->setText(tr("Fused instructions (%1) of %2").arg(fused->instructions.size()).arg(qs(fused->name)));
    // Small fusions: the tree is only as tall as its rows, the instruction details get the rest.
    // A wrapped shape takes as many lines as its width needs in the room the other columns leave.
    const int shapeRoom = std::max(120,
        m_fusedTree->viewport()->width() - m_fusedTree->columnWidth(0) - m_fusedTree->columnWidth(1)
            - m_fusedTree->columnWidth(3) - 12);
    const int lineHeight = m_fusedTree->fontMetrics().height();
    int rows = 0;
    int lines = 0;
    for (QTreeWidgetItemIterator it(m_fusedTree); *it; ++it) {
        ++rows;
        const int width = m_fusedTree->fontMetrics().horizontalAdvance((*it)->toolTip(2));
        lines += std::clamp((width + shapeRoom - 1) / shapeRoom, 1, 6);
    }
    const int treeHeight = m_fusedTree->header()->sizeHint().height() + lines * lineHeight + rows * 4
        + 2 * m_fusedTree->frameWidth() + 4;
    m_fusedTree->setMaximumHeight(rows <= 12 ? treeHeight : QWIDGETSIZE_MAX);
    applySplitterSizes();
    m_fusedTree->setCurrentItem(select);
    const hlo::Instruction* shown
        = select ? module->instructionById(select->data(0, kInstructionIdRole).toLongLong()) : nullptr;
    renderInstruction(shown);
}

bool DetailsPanel::selectFusedInstruction(const QString& name)
{
    const auto items = m_fusedTree->findItems(name, Qt::MatchStartsWith | Qt::MatchRecursive, 0);
    for (QTreeWidgetItem* item : items) {
        const QString text = item->text(0);
        if (text == name || text.startsWith(name + QLatin1Char(' '))) {
            m_fusedTree->setCurrentItem(item);
            return true;
        }
    }
    return false;
}

void DetailsPanel::renderInstruction(const hlo::Instruction* fi)
{
    m_instructionMarkdown.clear();
    if (!fi || !m_profile || m_op == kNone) {
        m_instructionBrowser->setHtml(tr("<p>Select a fused instruction to see its shape and padding.</p>"));
        return;
    }
    const QPalette pal = palette();
    const OpInfo& op = m_profile->ops[m_op];
    const hlo::Module* module = m_profile->hloFor(op);
    const hlo::Instruction* fusion = m_profile->instructionFor(op);
    Doc doc(pal);
    doc.rawHtml(
        QStringLiteral("<p style=\"margin-top:0;\"><b>%1</b> · %2</p>").arg(esc(qs(fi->name)), esc(qs(fi->opcode))));
    doc.rawMarkdown(QStringLiteral("### Fused instruction %1\n\n").arg(qs(fi->name)));
    doc.code(instructionText(module, *fi));
    if (fi->hasConvolutionDimensions) {
        const auto& c = fi->convolution;
        auto list = [](const std::vector<int64_t>& v) {
            QStringList s;
            for (int64_t d : v)
                s << QString::number(d);
            return s.join(QLatin1Char(','));
        };
        doc.kv(tr("Convolution dims"),
            QStringLiteral("input b%1 f%2 s[%3], kernel i%4 o%5 s[%6], output b%7 f%8 s[%9]")
                .arg(c.inputBatch)
                .arg(c.inputFeature)
                .arg(list(c.inputSpatial))
                .arg(c.kernelInputFeature)
                .arg(c.kernelOutputFeature)
                .arg(list(c.kernelSpatial))
                .arg(c.outputBatch)
                .arg(c.outputFeature)
                .arg(list(c.outputSpatial)));
    }
    if (!fi->opName.empty())
        doc.kv(tr("Framework op"), qs(fi->opName));
    if (!fi->sourceFile.empty())
        doc.kv(tr("Source"),
            qs(fi->sourceFile) + (fi->sourceLine ? QStringLiteral(":%1").arg(fi->sourceLine) : QString()));
    addShapeSection(doc, pal, fi->shape, L::inferOutputSemantics(*module, *fi), tr("Shape"));

    // Operands: inside the fusion they link to the fused instruction; parameters lead to the fusion's
    // operand, which is a profiled op when it was itself an XLA op.
    QList<QList<Doc::Cell>> rows;
    auto addRow = [&](const QString& index, const hlo::Instruction* target, const QString& via) {
        const OpId targetOp = target ? opForInstruction(target->name) : kNone;
        QString html;
        const QString name = target ? qs(target->name) : QStringLiteral("?");
        if (targetOp != kNone && targetOp != m_op)
            html = QStringLiteral("<a href=\"op:%1\">%2</a> <small>(profiled op)</small>").arg(targetOp).arg(esc(name));
        else if (target && target != fusion)
            html = QStringLiteral("<a href=\"instr:%1\">%2</a>").arg(target->id).arg(esc(name));
        rows.append(QList<Doc::Cell> {{index}, {name + via, {}, html + esc(via)},
            {target ? qs(target->opcode) : QString()}, {target ? qs(hlo::shapeToString(target->shape)) : QString()}});
    };
    for (size_t i = 0; i < fi->operandIds.size(); ++i)
        addRow(QString::number(i), module->instructionById(fi->operandIds[i]), {});
    if (fi->opcode == "parameter" && fusion && fi->parameterNumber >= 0
        && static_cast<size_t>(fi->parameterNumber) < fusion->operandIds.size()) {
        addRow(tr("fusion operand %1").arg(fi->parameterNumber),
            module->instructionById(fusion->operandIds[fi->parameterNumber]), {});
    }
    if (!rows.isEmpty()) {
        doc.heading(fi->opcode == "parameter" ? tr("Bound to") : tr("Operands"));
        doc.table({tr("#"), tr("Operand"), tr("Opcode"), tr("Shape")}, rows, {true, false, false, false});
    }
    applyLinkColor(m_instructionBrowser, pal);
    m_instructionBrowser->setHtml(doc.html());
    m_instructionMarkdown = doc.markdown();
}

void DetailsPanel::onAnchor(const QUrl& url)
{
    const QString scheme = url.scheme();
    bool ok = false;
    const qlonglong id = url.path().toLongLong(&ok);
    if (!ok)
        return;
    if (scheme == QLatin1String("op") && m_profile && id >= 0 && static_cast<size_t>(id) < m_profile->ops.size()) {
        emit opActivated(static_cast<OpId>(id));
    } else if (scheme == QLatin1String("instr")) {
        for (QTreeWidgetItemIterator it(m_fusedTree); *it; ++it) {
            if ((*it)->data(0, kInstructionIdRole).toLongLong() == id) {
                m_fusedTree->setCurrentItem(*it);
                m_fusedTree->scrollToItem(*it);
                return;
            }
        }
    }
}

void DetailsPanel::copyMarkdown()
{
    if (QClipboard* clipboard = QApplication::clipboard())
        clipboard->setText(markdown());
}

void DetailsPanel::applySplitterSizes()
{
    // The op details matter most; the user's own split wins once they drag the handle.
    if (m_userSizedSplitter || m_splitter->height() <= 0)
        return;
    const int h = m_splitter->height();
    m_splitter->setSizes({h * 11 / 20, h * 9 / 20});
}

void DetailsPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    applySplitterSizes();
}

void DetailsPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange) {
        if (m_legend)
            m_legend->setEntries(utilizationScaleEntries(&palette()), 0.25);
        const QString current = m_fusedTree->currentItem() ? m_fusedTree->currentItem()->text(0) : QString();
        render(); // colours are baked into the HTML
        if (!current.isEmpty())
            selectFusedInstruction(current.section(QStringLiteral("  ["), 0, 0));
    }
    QWidget::changeEvent(event);
}

void DetailsPanel::setSession(qt::TraceSession* session)
{
    m_session = session;
    session->follow(this, [this](const model::ProfileAnalysisPtr& analysis) { setAnalysis(analysis); });
}

void DetailsPanel::setSelectionState(qt::SelectionState* selection)
{
    connect(selection, &qt::SelectionState::selectedOpChanged, this, &DetailsPanel::showOp);
    connect(this, &DetailsPanel::opActivated, selection, &qt::SelectionState::setSelectedOp);
}

} // namespace tpuscope::widgets
