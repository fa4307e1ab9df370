// SPDX-License-Identifier: GPL-3.0-or-later
#include "advicepanel.h"
#include "qt/colors.h"
#include "qt/qstrings.h"
#include "report/advicenumbers.h"
#include "report/advicereport.h"

#include "analysis/advice.h"
#include "analysis/attribution.h"
#include "analysis/opbreakdown.h"
#include "analysis/padding.h"
#include "analysis/profileanalysis.h"
#include "analysis/summary.h"
#include "qt/selectionstate.h"
#include "qt/tracesession.h"
#include "report/report.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace tpuscope::widgets {

using namespace tpuscope::model;

namespace {

using tpuscope::qt::qs;

using tpuscope::qt::colors::severityColor;

QIcon severityIcon(Severity severity)
{
    QPixmap pixmap(14, 14);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(severityColor(severity));
    painter.drawEllipse(QRectF(1, 1, 12, 12));
    return QIcon(pixmap);
}

QString valueHtml(const AdviceValue& v)
{
    switch (v.kind) {
    case AdviceValue::Kind::Number:
        return v.number == std::floor(v.number) && std::fabs(v.number) < 1e15 ? QString::number(v.number, 'f', 0)
                                                                              : QString::number(v.number, 'g', 4);
    case AdviceValue::Kind::Text:
        return qs(v.text).toHtmlEscaped();
    case AdviceValue::Kind::List: {
        QStringList parts;
        for (const AdviceValue& i : v.items)
            parts << valueHtml(i);
        return parts.join(QStringLiteral("<br>"));
    }
    case AdviceValue::Kind::Object: {
        QStringList parts;
        for (const auto& [k, f] : v.fields)
            parts << qs(k) + QLatin1Char('=') + valueHtml(f);
        return parts.join(QStringLiteral(", "));
    }
    }
    return {};
}

} // namespace

AdvicePanel::AdvicePanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    m_header = new QLabel(tr("No profile loaded."), this);
    m_header->setObjectName(QStringLiteral("adviceHeader"));
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    layout->addWidget(m_header);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_list = new QListWidget(splitter);
    m_list->setObjectName(QStringLiteral("adviceList"));
    m_list->setWordWrap(true);
    m_list->setTextElideMode(Qt::ElideNone);
    m_details = new QTextBrowser(splitter);
    m_details->setObjectName(QStringLiteral("adviceDetails"));
    m_details->setOpenLinks(false);
    m_details->setOpenExternalLinks(false);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);

    auto* whatIfRow = new QHBoxLayout;
    auto* whatIfLabel = new QLabel(tr("What if the global batch were"), this);
    m_globalBatch = new QSpinBox(this);
    m_globalBatch->setObjectName(QStringLiteral("whatIfGlobalBatch"));
    m_globalBatch->setRange(0, 1 << 24);
    m_globalBatch->setSpecialValueText(QStringLiteral("\u2013")); // 0: no batch known
    m_globalBatch->setEnabled(false);
    m_globalBatch->setToolTip(tr("Global batch; the per-core batch is this divided by the TPU cores"));
    // The question and the per-core answer wrap in a narrow dock instead of being clipped.
    whatIfLabel->setObjectName(QStringLiteral("whatIfLabel"));
    whatIfLabel->setWordWrap(true);
    m_perCore = new QLabel(this);
    m_perCore->setTextFormat(Qt::PlainText);
    m_perCore->setObjectName(QStringLiteral("whatIfPerCore"));
    m_perCore->setWordWrap(true);
    whatIfRow->addWidget(whatIfLabel, 1);
    whatIfRow->addWidget(m_globalBatch);
    layout->addLayout(whatIfRow);
    layout->addWidget(m_perCore);
    m_whatIf = new QTextBrowser(this);
    m_whatIf->setObjectName(QStringLiteral("whatIfResult"));
    m_whatIf->setOpenLinks(false);
    m_whatIf->setMaximumHeight(150);
    layout->addWidget(m_whatIf);

    connect(m_list, &QListWidget::currentRowChanged, this, &AdvicePanel::showAdvice);
    connect(m_list, &QListWidget::itemClicked, this, [this](QListWidgetItem*) { showAdvice(m_list->currentRow()); });
    auto onLink = [this](const QUrl& url) {
        if (url.scheme() != QLatin1String("op"))
            return;
        bool ok = false;
        const quint32 id = url.path().toUInt(&ok);
        if (ok)
            emit opsSelected({id});
    };
    connect(m_details, &QTextBrowser::anchorClicked, this, onLink);
    connect(m_whatIf, &QTextBrowser::anchorClicked, this, onLink);
    connect(m_globalBatch, &QSpinBox::valueChanged, this, &AdvicePanel::updateWhatIf);
}

AdvicePanel::~AdvicePanel() = default;

int AdvicePanel::adviceCount() const
{
    return m_list->count();
}

void AdvicePanel::setAnalysis(ProfileAnalysisPtr analysis)
{
    m_arrived = false;
    m_result = std::move(analysis);
    m_profile = m_result ? m_result->profile : nullptr;
    m_list->clear();
    m_details->clear();
    m_whatIf->clear();
    m_perCore->clear();
    showNoBatch();
    const int pendingRow = std::exchange(m_pendingRow, -1);
    if (!m_result) {
        m_header->setText(tr("No profile loaded."));
        return;
    }
    m_pendingRow = pendingRow;
    const AdviceReport& report = m_result->advice;
    const Profile& profile = *m_profile;

    // A profile without TPU ops (a GPU trace) says so, as the CLI's advice and summary do, rather
    // than "Unknown TPU, 0 TPU cores".
    QString header = profile.hasTpuOps()
        ? QStringLiteral("<b>%1</b>, %2")
              .arg(qs(profile.device.type.empty() ? std::string("Unknown TPU") : profile.device.type).toHtmlEscaped(),
                  qs(model::adviceCoresText(profile, report)).toHtmlEscaped())
        : qs(model::noTpuOpDataStatement(profile)).toHtmlEscaped();
    if (report.batch.known)
        header += tr("<br>Per-core batch <b>%1</b>, global <b>%2</b> (%1 × %3 cores, assumed data-parallel); "
                     "confidence %4")
                      .arg(report.batch.perCoreBatch)
                      .arg(report.batch.globalBatch)
                      .arg(report.batch.cores)
                      .arg(qs(report.batch.confidence));
    else
        header += tr("<br>Per-core batch not inferred: %1.").arg(qs(report.batch.reason).toHtmlEscaped());
    m_header->setText(header);
    m_header->setToolTip(
        qt::plainToolTip(qs(report.batch.known ? report.batch.explanation(profile) : report.batch.reason)));

    for (const Advice& a : report.advice) {
        auto* item = new QListWidgetItem(severityIcon(a.severity), qs(a.title), m_list);
        item->setToolTip(QStringLiteral("%1 (%2)").arg(qs(a.rule), QString::fromLatin1(severityName(a.severity))));
    }
    if (report.advice.empty()) {
        QString text = tr("<p>No rule fired.</p>");
        for (const std::string& note : report.notes)
            text += QStringLiteral("<p><i>%1</i></p>").arg(qs(note).toHtmlEscaped());
        m_details->setHtml(text);
    }

    if (report.batch.known && report.batch.cores > 0) {
        m_globalBatch->setEnabled(true);
        m_globalBatch->setSingleStep(report.batch.cores);
        // Start at the suggestion when there is one, so the panel shows the fix right away.
        int64_t start = report.batch.globalBatch;
        if (const Advice* batch = report.find(model::AdviceRuleId::PerCoreBatch); batch && batch->fix.globalBatch > 0)
            start = batch->fix.globalBatch;
        const QSignalBlocker blocker(m_globalBatch);
        m_globalBatch->setMinimum(1);
        m_globalBatch->setValue(static_cast<int>(std::min<int64_t>(start, m_globalBatch->maximum())));
    } else {
        m_perCore->setText(tr("(needs a known per-core batch)"));
    }
    updateWhatIf();
    if (!report.advice.empty())
        m_list->setCurrentRow(0);
    emit adviceReady();
    m_arrived = true;
    if (m_pendingRow > 0 && m_pendingRow < m_list->count())
        m_list->setCurrentRow(m_pendingRow);
    m_pendingRow = -1;
}

void AdvicePanel::selectAdvice(int index)
{
    if (!m_result) {
        m_pendingRow = index; // shown when the analysis arrives
        return;
    }
    if (index >= 0 && index < m_list->count())
        m_list->setCurrentRow(index);
}

int AdvicePanel::currentAdvice() const
{
    return m_list->currentRow();
}

void AdvicePanel::showAdvice(int row)
{
    if (!m_result || row < 0 || row >= static_cast<int>(m_result->advice.advice.size()))
        return;
    const Advice& a = m_result->advice.advice[static_cast<size_t>(row)];
    QString html;
    html += QStringLiteral("<h3 style='color:%1'>%2</h3>")
                .arg(qt::colors::severityTextColor(a.severity, m_details->palette()).name(),
                    qs(a.title).toHtmlEscaped());
    html += QStringLiteral("<p><small>rule <code>%1</code> · %2</small></p>")
                .arg(qs(a.rule), QString::fromLatin1(severityName(a.severity)));
    html += QStringLiteral("<p>%1</p>").arg(qs(a.detail).toHtmlEscaped());
    if (!a.ops.empty()) {
        QStringList links;
        for (size_t i = 0; i < a.ops.size(); ++i) {
            QString link = QStringLiteral("<a href='op:%1'>%2</a>").arg(a.ops[i]).arg(qs(a.opNames[i]).toHtmlEscaped());
            // Whose code it is: layer and source line (attribution.h).
            if (i < a.evidence.size())
                if (const std::string whose = attributionText({a.evidence[i].frameworkOp, a.evidence[i].source});
                    !whose.empty())
                    link += QStringLiteral(" (%1)").arg(qs(whose).toHtmlEscaped());
            links << link;
        }
        html += tr("<p><b>Evidence:</b> %1</p>").arg(links.join(QStringLiteral(", ")));
    }
    html += tr("<p><b>Numbers</b></p><table cellspacing='0' cellpadding='2'>");
    // Human labels and units (share of time 96.5%), not the JSON keys (time_fraction 0.9648).
    for (const auto& [k, v] : a.numbers.fields) {
        const QString value
            = v.kind == AdviceValue::Kind::Number ? qs(formatAdviceNumber(k, v.number)).toHtmlEscaped() : valueHtml(v);
        // The JSON key last and muted: what `tpuscope-cli advise --format json` calls it.
        html += QStringLiteral("<tr><td style='padding-right:12px'>%1</td><td style='padding-right:12px'>%2</td>"
                               "<td style='color:%3'><small>%4</small></td></tr>")
                    .arg(qs(adviceNumberLabel(k)).toHtmlEscaped(), value,
                        qt::colors::mutedTextColor(m_details->palette()).name(), qs(k));
    }
    html += QStringLiteral("</table>");
    html += tr("<p><b>Threshold:</b> %1</p>").arg(qs(a.threshold).toHtmlEscaped());
    html += tr("<p><b>Estimated gain:</b> %1</p>").arg(qs(a.gain).toHtmlEscaped());
    m_details->setHtml(html);
    QList<quint32> ids;
    for (OpId id : a.ops)
        ids << id;
    if (!ids.isEmpty())
        emit opsSelected(ids);
}

void AdvicePanel::showNoBatch()
{
    // The previous profile's batch never stays: "–" until this profile's batch is known.
    const QSignalBlocker blocker(m_globalBatch);
    m_globalBatch->setMinimum(0);
    m_globalBatch->setValue(0);
    m_globalBatch->setEnabled(false);
}

void AdvicePanel::updateWhatIf()
{
    if (!m_result || !m_profile || !m_result->advice.batch.known)
        return;
    const int cores = std::max(1, m_result->advice.batch.cores);
    const int global = m_globalBatch->value();
    if (global % cores != 0) {
        m_perCore->setText(tr("= %1 per core: not a multiple of %2 cores").arg(double(global) / cores).arg(cores));
        m_whatIf->setHtml(tr("<p>Choose a multiple of %1 so every core gets the same batch.</p>").arg(cores));
        return;
    }
    const int64_t perCore = global / cores;
    m_perCore->setText(tr("= %1 per core × %2 cores").arg(perCore).arg(cores));
    const WhatIfResult w
        = whatIfBatch(*m_profile, m_result->breakdown, perCore, 8, m_result->advice.batch.perCoreBatch);
    if (!w.valid) {
        m_whatIf->setHtml(QStringLiteral("<p>%1</p>").arg(qs(w.error).toHtmlEscaped()));
        return;
    }
    QString html
        = tr("<p>Tile efficiency of the dominant ops, time-weighted: <b>%1</b> now → <b>%2</b> at global "
             "batch %3.</p><table cellspacing='0' cellpadding='2'><tr><th align='left'>op</th>"
             "<th align='right'>time</th><th align='left'>now</th><th align='left'>then</th></tr>")
              .arg(qs(formatPercent(w.currentWeightedEfficiency, 2)), qs(formatPercent(w.newWeightedEfficiency, 2)))
              .arg(global);
    for (const WhatIfOp& op : w.ops) {
        html += QStringLiteral("<tr><td><a href='op:%1'>%2</a></td><td align='right'>%3</td><td>%4 (%5)</td>"
                               "<td><b>%6</b> (%7)</td></tr>")
                    .arg(op.op)
                    .arg(qs(op.name).toHtmlEscaped(), qs(formatPercent(op.timeFraction)),
                        qs(formatPercent(op.currentEfficiency, 2)), qs(op.currentUsed).toHtmlEscaped(),
                        qs(formatPercent(op.newEfficiency, 2)), qs(op.newUsed).toHtmlEscaped());
    }
    html += QStringLiteral("</table><p><small>%1</small></p>")
                .arg(tr("Same layouts with the batch dimension replaced; XLA may choose another layout for a "
                        "different batch."));
    m_whatIf->setHtml(html);
}

void AdvicePanel::setSession(qt::TraceSession* session)
{
    session->follow(this, [this](const ProfileAnalysisPtr& analysis) { setAnalysis(analysis); });
}

void AdvicePanel::setSelectionState(qt::SelectionState* selection)
{
    m_selection = selection;
    connect(this, &AdvicePanel::opsSelected, selection, [this](const QList<quint32>& ops) {
        if (!m_arrived || !m_selection)
            return;
        if (!ops.isEmpty())
            m_selection->setSelectedOp(ops.first());
        m_selection->setHighlightedOps(ops);
    });
}

} // namespace tpuscope::widgets
