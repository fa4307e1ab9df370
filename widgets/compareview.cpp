// SPDX-License-Identifier: GPL-3.0-or-later
#include "compareview.h"
#include "qt/qstrings.h"
#include "sortarrows.h"

#include "report/diffreport.h"
#include "tableimage.h"

#include "qt/colors.h"
#include "qt/tracesession.h"

#include "report/report.h"
#include "sharecard.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace tpuscope::widgets {

namespace {
using tpuscope::qt::qs;

} // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent)
    , m_model(new qt::DiffModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTableView(this))
    , m_summary(new QLabel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(qt::DiffModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    useConventionalSortArrows(m_view->horizontalHeader()); // down = largest first
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setSectionResizeMode(qt::DiffModel::NameColumn, QHeaderView::Stretch);
    // The diff's own ranking first (the largest change of time per step, either way); a click on a
    // header sorts by that column.
    m_view->horizontalHeader()->setSortIndicator(-1, Qt::DescendingOrder);
    m_proxy->sort(-1);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setTextFormat(Qt::RichText); // our own markup around numbers only

    auto* copy = new QPushButton(tr("Copy as Markdown"), this);
    connect(copy, &QPushButton::clicked, this, [this] {
        const QString text = markdown();
        QApplication::clipboard()->setText(text);
        emit statusMessage(tr("Copied %1 of Markdown (the comparison)")
                               .arg(QString::fromStdString(model::formatBytes(double(text.toUtf8().size())))));
    });
    auto* card = new QPushButton(tr("Save Card…"), this);
    card->setToolTip(tr("A before/after PNG for a forum post"));
    connect(card, &QPushButton::clicked, this, [this] {
        if (!hasComparison())
            return;
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save Comparison Card"), suggestedCardName(), tr("PNG images (*.png)"));
        QString error; // written atomically, never through a symlink (tableimage.h)
        if (path.isEmpty())
            return;
        const QImage image = renderCard();
        if (savePngAtomically(image, path, error))
            emit statusMessage(
                tr("Saved %1 (%2×%3)").arg(QFileInfo(path).fileName()).arg(image.width()).arg(image.height()));
        else
            QMessageBox::warning(this, tr("Save Comparison Card"), tr("Could not write %1: %2").arg(path, error));
    });
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(copy, 0, Qt::AlignTop);
    top->addWidget(card, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    clear();
}

void CompareView::clear()
{
    m_model->setDiff(nullptr);
    m_summary->setText(tr("File → Compare with… opens a second profile (e.g. after a fix) and shows what changed."));
}

void CompareView::setDiff(
    std::shared_ptr<const model::ProfileDiff> diff, const QString& beforePath, const QString& afterPath)
{
    if (!diff) {
        clear();
        return;
    }
    // A log dir's run by its log dir and run, a file by its name; labels that would read alike get
    // their folders (two runs of one day share a timestamp).
    const auto [before, after] = model::comparisonLabels(beforePath.toStdString(), afterPath.toStdString());
    m_beforeName = qs(before);
    m_afterName = qs(after);
    m_model->setDiff(std::move(diff));
    m_summary->setText(summaryText());
    m_view->resizeColumnsToContents();
}

QString CompareView::suggestedCardName() const
{
    // "<before>-vs-<after>-compare.png", each the profile's name without its extensions.
    // A log dir's label ("pod16 · 2024_11_29_00_00_00") or a folder in front of a name becomes a
    // plain file name: anything but letters, digits, '-' and '_' is one '_'.
    const auto stem = [](const QString& name) {
        QString out;
        for (const QChar c : name.section(QLatin1Char('.'), 0, 0))
            if (c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_'))
                out += c;
            else if (!out.endsWith(QLatin1Char('_')))
                out += QLatin1Char('_');
        return out;
    };
    if (m_beforeName.isEmpty() || m_afterName.isEmpty())
        return QStringLiteral("compare.png");
    return stem(m_beforeName) + QStringLiteral("-vs-") + stem(m_afterName) + QStringLiteral("-compare.png");
}

QString CompareView::summaryText() const
{
    const auto diff = m_model->diff();
    if (!diff)
        return {};
    // Unrelated profiles: the figures side by side with no change, which would read as a result.
    const bool related = diff->related();
    const auto durations = [related](double before, double after) {
        return related ? beforeAfterText(before, after, false)
                       : tr("%1 and %2").arg(qs(model::formatDurationPs(before)), qs(model::formatDurationPs(after)));
    };
    QStringList parts;
    if (diff->a.stepPs > 0 && diff->b.stepPs > 0)
        parts << tr("step time %1").arg(durations(diff->a.stepPs, diff->b.stepPs));
    if (diff->a.examplesPerSecond && diff->b.examplesPerSecond)
        parts << tr("examples/s (global) %1 \u2192 %2")
                     .arg(qs(model::formatCount(*diff->a.examplesPerSecond)),
                         qs(model::formatCount(*diff->b.examplesPerSecond)));
    parts << tr("op time%1 %2")
                 .arg(diff->perStep ? tr(" per step and core") : tr(" per core"),
                     durations(diff->a.totalOpTimePs, diff->b.totalOpTimePs));
    if (related) {
        parts << tr("FLOPS util %1").arg(beforeAfterText(diff->a.flopsUtilization, diff->b.flopsUtilization));
        parts << tr("HBM util %1").arg(beforeAfterText(diff->a.hbmUtilization, diff->b.hbmUtilization));
    }
    parts << tr("%1 ops matched (%2 by name, %3 by fingerprint, %4 by framework op), %5 new, %6 removed")
                 .arg(diff->matched)
                 .arg(diff->matchedByName)
                 .arg(diff->matchedByFingerprint)
                 .arg(diff->matchedByFrameworkOp)
                 .arg(diff->added)
                 .arg(diff->removed);
    // File names are a stranger's strings: escaped.
    QString text = tr("<b>Before:</b> %1 (the open profile) · <b>after:</b> %2")
                       .arg(m_beforeName.toHtmlEscaped(), m_afterName.toHtmlEscaped());
    const QString warningColor
        = qt::colors::severityTextColor(model::Severity::Warning, palette()).name(QColor::HexRgb);
    for (const std::string& warning : diff->warnings())
        text += QStringLiteral("<br><b style=\"color:%1\">%2</b>").arg(warningColor, qs(warning).toHtmlEscaped());
    text += QStringLiteral("<br>") + parts.join(QStringLiteral(" · ")).toHtmlEscaped();
    if (related && diff->steps.known)
        text += QStringLiteral("<br>") + tr("Steps: %1").arg(qs(diff->steps.verdict())).toHtmlEscaped();
    return text;
}

QString CompareView::markdown() const
{
    const auto diff = m_model->diff();
    return diff ? qs(model::diffReport(
               *diff, model::TableFormat::Markdown, 0, m_beforeName.toStdString(), m_afterName.toStdString()))
                : QString();
}

QImage CompareView::renderCard() const
{
    const auto diff = m_model->diff();
    return diff ? renderComparisonCard(*diff, m_beforeName, m_afterName) : QImage();
}

void CompareView::setSession(qt::TraceSession* session)
{
    connect(session, &qt::TraceSession::comparisonReady, this, &CompareView::setDiff);
    connect(session, &qt::TraceSession::closed, this, &CompareView::clear);
}

} // namespace tpuscope::widgets
