// SPDX-License-Identifier: GPL-3.0-or-later
#include "shareactions.h"

#include "qt/qstrings.h"

#include "core/atomicfile.h"
#include "optableview.h"
#include "qt/optreemodel.h"
#include "qt/tracesession.h"
#include "report/report.h"
#include "share/sharefile.h"
#include "sharecard.h"
#include "tableimage.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace tpuscope::app {

namespace {

using tpuscope::qt::qs;

std::vector<std::string> openProfilePath(const qt::TraceSession* session)
{
    if (const model::ProfilePtr profile = session->profile(); profile && !profile->load.path.empty())
        return {profile->load.path};
    return {};
}

QString groupingText(qt::OpTreeModel::Grouping grouping)
{
    switch (grouping) {
    case qt::OpTreeModel::Grouping::Category:
        return QObject::tr("by category");
    case qt::OpTreeModel::Grouping::Program:
        return QObject::tr("by program");
    case qt::OpTreeModel::Grouping::FrameworkOp:
        return QObject::tr("by framework op");
    case qt::OpTreeModel::Grouping::Source:
        return QObject::tr("by source line");
    case qt::OpTreeModel::Grouping::LayerGroup:
        return QObject::tr("by layer group");
    }
    return {};
}

const QString kRedactionKey = QStringLiteral("share/redaction");

} // namespace

QString ShareActions::redactionSummary(const model::ShareRedaction& r)
{
    if (!r.any())
        return tr("not redacted");
    QStringList parts;
    if (r.paths)
        parts << tr("paths");
    if (r.names)
        parts << tr("framework op names");
    if (r.hashNames)
        parts << tr("HLO names hashed");
    return parts.join(QStringLiteral(", ")) + tr(" redacted");
}

QString sizeText(qsizetype bytes)
{
    return qs(model::formatBytes(static_cast<double>(bytes)));
}

ShareActions::ShareActions(qt::TraceSession* session, widgets::OpTableView* opTable, QWidget* dialogParent,
    Notify status, Notify failure, bool persist, QObject* parent)
    : QObject(parent)
    , m_session(session)
    , m_opTable(opTable)
    , m_dialogParent(dialogParent)
    , m_status(std::move(status))
    , m_failure(std::move(failure))
    , m_persist(persist)
{
    // A setting the parser refuses (a foreign or corrupt settings file) keeps the default.
    if (m_persist)
        if (const QString saved = QSettings().value(kRedactionKey).toString(); !saved.isEmpty()) {
            model::ShareRedaction redaction;
            std::string error;
            if (model::parseShareRedaction(saved.toStdString(), redaction, error))
                m_redaction = redaction;
        }
    connect(m_opTable, &widgets::OpTableView::copyRequested, this, &ShareActions::copyOpTable);
    connect(m_opTable, &widgets::OpTableView::exportPngRequested, this,
        static_cast<void (ShareActions::*)()>(&ShareActions::exportOpTablePng));
}

void ShareActions::setRedaction(const model::ShareRedaction& redaction)
{
    const bool changed = model::shareRedactionList(redaction) != model::shareRedactionList(m_redaction);
    m_redaction = redaction;
    if (m_persist)
        QSettings().setValue(kRedactionKey, qs(model::shareRedactionList(redaction)));
    if (changed)
        emit redactionChanged();
}

QString ShareActions::suggestedFileName(const QString& suffix) const
{
    const model::ProfilePtr profile = m_session->profile();
    QString stem = profile ? QFileInfo(qs(profile->load.path)).fileName() : QString();
    // "run.xplane.pb.gz" → "run": every extension goes, as the profile's name is the part before them.
    if (const qsizetype dot = stem.indexOf(QLatin1Char('.')); dot > 0)
        stem.truncate(dot);
    if (stem.isEmpty())
        stem = QStringLiteral("profile");
    return stem + suffix;
}

QStringList ShareActions::redactionChoices()
{
    return {tr("No redaction"), tr("Remove paths, user and host names"),
        tr("Remove paths, user and host names and framework op names"),
        tr("Remove paths and names, hash HLO op names")};
}

int ShareActions::choiceForRedaction(const model::ShareRedaction& redaction)
{
    if (redaction.hashNames)
        return 3;
    if (redaction.names)
        return 2;
    return redaction.any() ? 1 : 0;
}

bool ShareActions::confirmRedaction(const QString& title, const QString& intro)
{
    QDialog dialog(m_dialogParent);
    dialog.setObjectName(QStringLiteral("exportDialog"));
    dialog.setWindowTitle(title);
    auto* layout = new QVBoxLayout(&dialog);
    auto* text = new QLabel(intro, &dialog);
    text->setTextFormat(Qt::PlainText);
    text->setWordWrap(true);
    layout->addWidget(text);
    auto* form = new QFormLayout;
    auto* choice = new QComboBox(&dialog);
    choice->setObjectName(QStringLiteral("redaction"));
    choice->addItems(redactionChoices());
    choice->setCurrentIndex(choiceForRedaction(m_redaction));
    form->addRow(tr("Redaction:"), choice);
    layout->addLayout(form);
    auto* note
        = new QLabel(tr("One setting for every export (share file, forum post, card, op table); remembered."), &dialog);
    note->setWordWrap(true);
    note->setEnabled(false); // the palette's muted text
    layout->addWidget(note);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Save…"));
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    setRedaction(redactionForChoice(choice->currentIndex()));
    return true;
}

model::ShareRedaction ShareActions::redactionForChoice(int level)
{
    model::ShareRedaction redaction;
    redaction.paths = level >= 1;
    redaction.names = level >= 2;
    redaction.hashNames = level >= 3;
    return redaction;
}

bool ShareActions::savePng(const QImage& image, const QString& path)
{
    QString error;
    if (widgets::savePngAtomically(image, path, error, openProfilePath(m_session)))
        return true;
    m_failure(tr("Could not write %1: %2").arg(path, error));
    return false;
}

void ShareActions::copied(const QString& text, const QString& what)
{
    QApplication::clipboard()->setText(text);
    m_status(tr("Copied %1 of %2").arg(sizeText(text.toUtf8().size()), what));
}

void ShareActions::saveShareFile()
{
    if (!m_session->analysis())
        return;
    if (!confirmRedaction(tr("Save Share File"),
            tr("A share file holds the top ops, their HLO, layouts and the advice — not the trace.")))
        return;
    const QString path = QFileDialog::getSaveFileName(m_dialogParent, tr("Save Share File"),
        suggestedFileName(QStringLiteral(".tpuscope")), tr("tpuscope share files (*.tpuscope)"));
    if (!path.isEmpty())
        saveShareFile(path, m_redaction);
}

bool ShareActions::saveShareFile(const QString& path, const model::ShareRedaction& redaction)
{
    if (!m_session->analysis())
        return false;
    model::ShareOptions options;
    options.redaction = redaction;
    m_status(tr("Writing the share file…"));
    // The session builds it off the GUI thread (the redaction, the JSON and the gzip of a large
    // profile take a noticeable moment); the file is written here, where the target is checked.
    m_session->requestShareFile(options, this, [this, path, redaction](const model::ShareResult& result) {
        std::string error = result.error;
        const bool saved = result.ok()
            && model::saveFileAtomically(path.toStdString(), result.bytes, error, openProfilePath(m_session));
        if (saved)
            m_status(tr("Saved %1 (%2, %3 ops, %4)")
                         .arg(QFileInfo(path).fileName(), sizeText(qsizetype(result.bytes.size())))
                         .arg(result.stats.keptOps)
                         .arg(redactionSummary(redaction)));
        else
            m_failure(tr("Could not save the share file: %1").arg(qs(error)));
        emit shareFinished(saved);
    });
    return true;
}

void ShareActions::copyForForum()
{
    if (!m_session->profile())
        return;
    QDialog dialog(m_dialogParent);
    dialog.setWindowTitle(tr("Copy for Forum"));
    auto* layout = new QVBoxLayout(&dialog);
    auto* intro = new QLabel(tr("Copies the headline, the top ops and the top advice as Markdown for a forum post "
                                "or an issue (GitHub-flavoured, at most %1 of text).")
                                 .arg(sizeText(qsizetype(model::kForumReadableLimitBytes))),
        &dialog);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    auto* redaction = new QComboBox(&dialog);
    redaction->setObjectName(QStringLiteral("redaction"));
    redaction->addItems(redactionChoices());
    redaction->setCurrentIndex(choiceForRedaction(m_redaction));
    form->addRow(tr("Redaction:"), redaction);
    layout->addLayout(form);
    auto* block = new QCheckBox(tr("Add the machine-readable share block (folded, below the post) so that others "
                                   "can open it in tpuscope"),
        &dialog);
    layout->addWidget(block);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Copy"));
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return;
    setRedaction(redactionForChoice(redaction->currentIndex()));
    model::ForumPostOptions options;
    options.redaction = m_redaction;
    options.includeShareBlock = block->isChecked();
    copyForForum(options);
}

bool ShareActions::copyForForum(const model::ForumPostOptions& options)
{
    if (!m_session->analysis())
        return false;
    m_status(tr("Building the forum post…"));
    m_session->requestForumPost(options, this, [this, options](const model::ForumPost& post) {
        if (!post.ok()) {
            m_failure(tr("Could not build the forum post: %1").arg(qs(post.error)));
            emit shareFinished(false);
            return;
        }
        QString what
            = tr("Markdown (top %1, %2, %3)")
                  .arg(post.opsShown == 1 ? tr("1 op") : tr("%1 ops").arg(post.opsShown),
                      post.adviceShown == 1 ? tr("1 advice item") : tr("%1 advice items").arg(post.adviceShown),
                      redactionSummary(options.redaction));
        what.chop(1); // the notes below go inside the parentheses
        if (post.shareBlockIncluded)
            what += tr(", share block included");
        else if (post.shareBlockOmitted)
            what += tr(", share block left out: over %1").arg(sizeText(qsizetype(options.shareLimit)));
        copied(qs(post.markdown), what + QLatin1Char(')'));
        emit shareFinished(true);
    });
    return true;
}

void ShareActions::saveShareCard()
{
    if (!m_session->analysis()
        || !confirmRedaction(tr("Save Share Card"),
            tr("A PNG summary of the profile for a forum post: device, step time, top ops and advice.")))
        return;
    const QString path = QFileDialog::getSaveFileName(m_dialogParent, tr("Save Share Card"),
        suggestedFileName(QStringLiteral("-card.png")), tr("PNG images (*.png)"));
    if (!path.isEmpty())
        saveShareCard(path);
}

bool ShareActions::saveShareCard(const QString& path)
{
    // The card reads the session's analysis (none yet while a large file is still being analysed).
    const model::ProfileAnalysisPtr analysis = m_session->analysis();
    if (!analysis)
        return false;
    widgets::ShareCardOptions options;
    options.redaction = m_redaction;
    const QImage card = widgets::renderShareCard(*analysis, options);
    if (!savePng(card, path))
        return false;
    QApplication::clipboard()->setImage(card);
    m_status(tr("Saved %1 (%2×%3) and copied it to the clipboard")
                 .arg(QFileInfo(path).fileName())
                 .arg(card.width())
                 .arg(card.height()));
    return true;
}

QStringList ShareActions::tableImageHeader() const
{
    const model::ProfilePtr profile = m_session->profile();
    const qt::OpTreeModel* model = m_opTable->model();
    QStringList lines;
    lines << tr("tpuscope op table");
    if (!profile)
        lines << tr("File: (none)");
    else if (const std::string file = model::ExportRedactor(*profile, m_redaction).fileName(); file.empty())
        lines << tr("File: (name redacted)");
    else
        lines << tr("File: %1").arg(qs(file));
    if (profile) {
        const model::DeviceInfo& device = profile->device;
        lines << tr("Device: %1, %2")
                     .arg(device.type.empty() ? tr("unknown device") : qs(device.type),
                         qs(model::coresCountText(device, device.cores)));
    }
    lines << tr("Grouping: %1").arg(groupingText(model->grouping()));
    QStringList filter;
    if (!model->filterText().isEmpty())
        filter << tr("\"%1\"").arg(model->filterText());
    if (model->topTimeOnly())
        filter << tr("top 90% of time only");
    lines << (filter.isEmpty() ? tr("Filter: none (all %1 ops)").arg(model->opRowCount())
                               : tr("Filter: %1 (%2 of %3 ops; group rows total the ops shown)")
                                     .arg(filter.join(QStringLiteral(", ")))
                                     .arg(model->matchingOpCount())
                                     .arg(model->opRowCount()));
    lines << tr("Redaction: %1").arg(redactionSummary(m_redaction));
    lines << tr("Date: %1").arg(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")));
    return lines;
}

void ShareActions::exportOpTablePng()
{
    if (!confirmRedaction(tr("Export Op Table"), tr("The op table as shown (grouping, filter, columns) as a PNG.")))
        return;
    const QString path = QFileDialog::getSaveFileName(
        m_dialogParent, tr("Export Op Table"), suggestedFileName(QStringLiteral("-ops.png")), tr("PNG images (*.png)"));
    if (!path.isEmpty())
        exportOpTablePng(path);
}

bool ShareActions::exportOpTablePng(const QString& path)
{
    widgets::TableImageOptions options;
    const QImage image = widgets::renderTableImage(redactedOpTable(&options.boldRows), tableImageHeader(), options);
    if (!savePng(image, path))
        return false;
    m_status(tr("Saved %1 (%2×%3)").arg(QFileInfo(path).fileName()).arg(image.width()).arg(image.height()));
    return true;
}

model::Table ShareActions::redactedOpTable(std::vector<size_t>* groupRows) const
{
    model::Table table = m_opTable->exportTable(groupRows);
    const model::ProfilePtr profile = m_session->profile();
    if (!profile || !m_redaction.any())
        return table;
    const model::ExportRedactor redactor(*profile, m_redaction);
    for (std::vector<std::string>& row : table.rows)
        for (std::string& cell : row)
            cell = redactor.text(cell);
    return table;
}

void ShareActions::copyOpTable(model::TableFormat format)
{
    std::vector<size_t> groups;
    const model::Table table = redactedOpTable(&groups);
    const QString text = qs(model::renderTable(table, format));
    const QString formatName = format == model::TableFormat::Markdown ? tr("Markdown")
        : format == model::TableFormat::Csv                           ? tr("CSV")
                                                                      : tr("TSV");
    const qt::OpTreeModel* model = m_opTable->model();
    QString what = tr("%1 (%2 rows, %3 groups").arg(formatName).arg(table.rows.size()).arg(groups.size());
    if (!model->filterText().isEmpty() || model->topTimeOnly())
        what += tr(", filtered: %1 of %2 ops").arg(model->matchingOpCount()).arg(model->opRowCount());
    what += QStringLiteral(", ") + redactionSummary(m_redaction);
    copied(text, what + QLatin1Char(')'));
}

} // namespace tpuscope::app
