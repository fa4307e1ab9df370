// SPDX-License-Identifier: GPL-3.0-or-later
#include "sharecard.h"
#include "pagefont.h"
#include "qt/colors.h"
#include "qt/qstrings.h"

#include "analysis/advice.h"
#include "analysis/attribution.h"
#include "analysis/memory.h"
#include "analysis/opbreakdown.h"
#include "analysis/padding.h"
#include "analysis/summary.h"
#include "report/advicenumbers.h"
#include "report/report.h"
#include "report/stragglertext.h"
#include "share/shareredaction.h"

#include <QFont>
#include <QFontMetrics>
#include <QLinearGradient>
#include <QPainter>
#include <QTextLayout>

#include <algorithm>
#include <cmath>

namespace tpuscope::widgets {

using namespace tpuscope::model;

namespace {

constexpr auto& q = tpuscope::qt::qs; // the one Qt string helper

const QColor kBackground = qt::colors::pageBackground();
const QColor kInk = qt::colors::pageInk();
const QColor kMuted(0x6a, 0x73, 0x7d);
const QColor kRule = qt::colors::pageRule();
const QColor kTimeBar(0x3b, 0x6e, 0xc4);
const QColor kHeader = qt::colors::pageHeaderBand();

QColor severityColor(Severity s)
{
    return qt::colors::readableOn(qt::colors::severityColor(s), {kBackground});
}

/// Draws wrapped text in [x, x + width) from y; returns the height used.
int drawWrapped(QPainter& p, const QString& text, const QFont& f, int x, int y, int width, int maxLines = 3)
{
    QTextLayout layout(text, f);
    layout.beginLayout();
    const QFontMetrics fm(f);
    int height = 0, lines = 0;
    while (true) {
        QTextLine line = layout.createLine();
        if (!line.isValid())
            break;
        line.setLineWidth(width);
        line.setPosition(QPointF(0, height));
        height += fm.lineSpacing();
        if (++lines >= maxLines)
            break;
    }
    layout.endLayout();
    p.setFont(f);
    layout.draw(&p, QPointF(x, y));
    return height;
}

void drawBar(QPainter& p, QRect r, double fraction, const QColor& color, const QString& label)
{
    p.fillRect(r, QColor(0xee, 0xf1, 0xf4));
    QRect filled = r;
    filled.setWidth(std::max(fraction > 0 ? 2 : 0, int(std::lround(r.width() * std::clamp(fraction, 0.0, 1.0)))));
    p.fillRect(filled, color);
    p.setPen(kInk);
    p.setFont(pageFont(15, true));
    p.drawText(r.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
}

/// The item's gain in the advice report's unit: time per step, without steps a share of op time over
/// the capture, or a batch fix's throughput (the forum post says the same).
std::string gainText(const Advice& a, int64_t steps)
{
    if (a.gainPs <= 0)
        return a.throughputFactor > 1
            ? "up to " + formatAdviceNumber("throughput_factor", a.throughputFactor) + " examples/s"
            : std::string();
    if (steps > 0)
        return "up to " + formatDurationPs(a.gainPs) + "/step";
    return "up to " + formatPercent(a.gainOpTimeFraction) + " of op time";
}

} // namespace

int fittedPagePixelSize(const QString& text, int width, int largest, int smallest, bool bold)
{
    int size = largest;
    while (size > smallest && QFontMetrics(pageFont(size, bold)).horizontalAdvance(text) > width)
        --size;
    return size;
}

QString shareCardStragglerLine(const AdviceReport& advice)
{
    const Advice* straggler = advice.find(AdviceRuleId::Straggler);
    const std::string line = straggler ? model::stragglerLine(*straggler) : std::string();
    return line.empty() ? QString() : QStringLiteral("Straggler: ") + q(line);
}

QColor shareCardFlopsColor(double utilization)
{
    return qt::colors::utilizationColor(utilization);
}

QStringList shareCardMemoryLines(const MemoryReport& report, size_t topBuffers)
{
    if (report.modules.empty())
        return {};
    const ModuleMemory& m = *std::max_element(report.modules.begin(), report.modules.end(),
        [](const ModuleMemory& a, const ModuleMemory& b) { return a.peakHeapBytes < b.peakHeapBytes; });
    QString headline
        = QStringLiteral("%1: peak %2").arg(q(m.name), q(formatBytes(static_cast<double>(m.peakHeapBytes))));
    if (const double share = report.capacityFraction(m); share >= 0)
        headline
            += QStringLiteral(" (%1 of %2 HBM)").arg(q(formatPercent(share)), q(formatBytes(report.hbmCapacityBytes)));
    headline += QStringLiteral(", %1 of it tile padding").arg(q(formatPercent(m.paddingFraction())));
    QStringList lines {headline};
    for (size_t i = 0; i < m.buffersAtPeak.size() && i < topBuffers; ++i) {
        const BufferAtPeak& b = m.buffersAtPeak[i];
        QString line = QStringLiteral("%1 \u00B7 %2 \u00B7 %3 for %4 of data")
                           .arg(q(b.instructionName), QString::fromLatin1(bufferKindName(b.kind)),
                               q(formatBytes(static_cast<double>(b.sizeBytes))),
                               q(formatBytes(static_cast<double>(b.unpaddedBytes))));
        if (!b.paddedDims.empty())
            line += QStringLiteral(" \u00B7 ") + q(b.paddedDims.front().text());
        lines << line;
    }
    return lines;
}

QStringList shareCardWarningLines(const ProfileAnalysis& analysis, const model::ShareRedaction& redaction)
{
    const std::vector<std::string> warnings = profileWarnings(*analysis.profile, analysis.breakdown);
    if (warnings.empty())
        return {};
    constexpr size_t kShown = 4;
    const ExportRedactor redactor(*analysis.profile, redaction);
    QStringList lines {QStringLiteral("\u26A0 Read before trusting these numbers (%1 warning%2):")
                           .arg(warnings.size())
                           .arg(warnings.size() == 1 ? QString() : QStringLiteral("s"))};
    for (size_t i = 0; i < std::min(warnings.size(), kShown); ++i)
        lines << QStringLiteral("\u2022 ") + q(redactor.text(warnings[i]));
    if (warnings.size() > kShown)
        lines << QStringLiteral("+ %1 more (tpuscope-cli summary)").arg(warnings.size() - kShown);
    return lines;
}

QImage renderShareCard(const ProfileAnalysis& analysis, const ShareCardOptions& options)
{
    const Profile& profile = *analysis.profile;
    const int width = std::max(600, options.width);
    const int margin = 36;
    const int inner = width - 2 * margin;
    QImage image(width, 4000, QImage::Format_ARGB32_Premultiplied);
    image.fill(kBackground);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);

    // Read from the analysis of the load: the card computes no breakdown, summary or advice.
    const OpBreakdown& breakdown = analysis.breakdown;
    const ProfileSummary& summary = analysis.summary;
    const AdviceReport& advice = analysis.advice;
    const bool peaksKnown = profile.device.peakTflopsPerCore > 0;
    // Every string from the profile goes through the export redaction (the share file's).
    const ExportRedactor redactor(profile, options.redaction);
    const auto r = [&redactor](std::string_view text) { return q(redactor.text(text)); };

    // Header band: device and the three numbers people ask for first.
    int y = 0;
    const int headerHeight = 150;
    p.fillRect(QRect(0, 0, width, headerHeight), kHeader);
    p.setPen(Qt::white);
    p.setFont(pageFont(30, true));
    QString device = profile.device.type.empty() ? QStringLiteral("Unknown TPU") : q(profile.device.type);
    device += QStringLiteral(" \u00B7 ") + q(model::coresCountText(profile.device, profile.device.cores));
    if (profile.device.hosts > 1)
        device += QStringLiteral(" \u00B7 %1 hosts").arg(profile.device.hosts);
    p.drawText(QRect(margin, 18, inner, 40), Qt::AlignLeft | Qt::AlignVCenter, device);
    QString title = options.title;
    if (title.isEmpty())
        title = redactor.fileName().empty() && !profile.load.path.empty() ? QStringLiteral("(file name redacted)")
                                                                          : q(redactor.fileName());
    p.setFont(pageFont(16));
    p.setPen(QColor(0xc8, 0xd6, 0xea));
    p.drawText(QRect(margin, 56, inner, 24), Qt::AlignLeft | Qt::AlignVCenter,
        QFontMetrics(pageFont(16)).elidedText(title, Qt::ElideMiddle, inner));

    struct Stat
    {
        QString label, value;
    };
    std::vector<Stat> stats;
    stats.push_back({QStringLiteral("Step time"),
        summary.steps.count > 0 ? q(formatDurationPs(summary.steps.averagePs))
                + QStringLiteral("  (%1 step%2)")
                      .arg(summary.steps.count)
                      .arg(summary.steps.count == 1 ? QString() : QStringLiteral("s"))
                                : QStringLiteral("n/a")});
    // Headlines are capped per op and say what they cover; an unknown one says why.
    auto headlineValue = [&](const HeadlineUtilization& h, bool peakKnown) {
        if (!peakKnown)
            return QStringLiteral("peak unknown");
        if (!h.capped)
            return QStringLiteral("no cost data");
        QString text = q(formatPercent(*h.capped));
        if (h.overPeakOps > 0)
            text += QStringLiteral("*");
        return text;
    };
    stats.push_back({QStringLiteral("FLOPS utilization"), headlineValue(breakdown.flops, peaksKnown)});
    stats.push_back(
        {QStringLiteral("HBM bandwidth"), headlineValue(breakdown.hbm, profile.device.peakHbmGbpsPerCore > 0)});
    stats.push_back({QStringLiteral("Cost coverage"), q(formatPercent(breakdown.costCoverage))});
    stats.push_back({QStringLiteral("TensorCore busy"), q(formatPercent(summary.busyFraction))});
    const int statWidth = inner / int(stats.size());
    for (size_t i = 0; i < stats.size(); ++i) {
        const int x = margin + int(i) * statWidth;
        p.setPen(QColor(0xa9, 0xbc, 0xd6));
        p.setFont(pageFont(14));
        p.drawText(QRect(x, 88, statWidth, 18), Qt::AlignLeft | Qt::AlignVCenter, stats[i].label.toUpper());
        p.setPen(Qt::white);
        // A long value ("784 ms  (100 steps)") gets a smaller font rather than an ellipsis.
        const QFont valueFont = pageFont(fittedPagePixelSize(stats[i].value, statWidth - 8, 24, 14, true), true);
        p.setFont(valueFont);
        p.drawText(QRect(x, 106, statWidth - 8, 34), Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetrics(valueFont).elidedText(stats[i].value, Qt::ElideRight, statWidth - 8));
    }
    y = headerHeight + 24;

    // A pod's straggler in one line, first: which host holds every step back is the answer a pod
    // user came for.
    if (const QString straggler = shareCardStragglerLine(advice); !straggler.isEmpty()) {
        p.setPen(severityColor(advice.find(AdviceRuleId::Straggler)->severity));
        p.setFont(pageFont(18, true));
        p.drawText(QRect(margin, y, inner, 26), Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetrics(pageFont(18, true)).elidedText(straggler, Qt::ElideRight, inner));
        y += 36;
    }

    // Where a step goes: one stacked bar (the same parts and colours as the overview's chart).
    if (const StepAnalysis& steps = summary.stepBreakdown; steps.stepsPerCore > 0) {
        const StepTimeSplit a = steps.averageStep();
        const double total = std::max(1.0, a.totalPs());
        struct Part
        {
            const char* name;
            double ps;
            QColor color;
        };
        using qt::colors::StepPart, qt::colors::stepPartColor;
        std::vector<Part> parts = {{"compute", a.computePs, stepPartColor(StepPart::Compute)},
            {"collectives", a.collectivePs, stepPartColor(StepPart::Collectives)},
            {"host transfer", a.hostTransferPs, stepPartColor(StepPart::HostTransfer)},
            {"infeed/outfeed", a.infeedPs, stepPartColor(StepPart::Infeed)},
            {"idle", a.idlePs, stepPartColor(StepPart::Idle)}};
        if (!steps.opTimesKnown) // a share file keeps op totals, not op times: busy is all we know
            parts = {{"busy", a.busyPs(), stepPartColor(StepPart::Compute)},
                {"idle", a.idlePs, stepPartColor(StepPart::Idle)}};
        const int labelWidth = 230;
        p.setPen(kInk);
        p.setFont(pageFont(18, true));
        p.drawText(
            QRect(margin, y, labelWidth, 26), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("Where a step goes"));
        const QRect bar(margin + labelWidth, y + 3, inner - labelWidth, 20);
        p.fillRect(bar, QColor(0xee, 0xf1, 0xf4));
        double x = bar.left();
        QStringList legend;
        for (const Part& part : parts) {
            const double w = bar.width() * part.ps / total;
            p.fillRect(QRectF(x, bar.top(), w, bar.height()), part.color);
            x += w;
            if (part.ps > 0 || &part == &parts.front() || &part == &parts.back()) // empty parts say nothing
                legend << QStringLiteral("%1 %2").arg(
                    QString::fromLatin1(part.name), q(formatPercent(part.ps / total)));
        }
        y += 30;
        p.setPen(kMuted);
        p.setFont(pageFont(14));
        const QString idle = QStringLiteral("   (outside the steps: warm-up %1, tail %2 idle)")
                                 .arg(q(formatDurationPs(steps.warmup.idlePs)), q(formatDurationPs(steps.tail.idlePs)));
        p.drawText(QRect(margin + labelWidth, y, inner - labelWidth, 20), Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetrics(pageFont(14))
                .elidedText(legend.join(QStringLiteral(" \u00B7 ")) + idle, Qt::ElideRight, inner - labelWidth));
        y += 36;
    }

    // Top ops: time share and FLOPS utilization bars.
    p.setPen(kInk);
    p.setFont(pageFont(20, true));
    p.drawText(QRect(margin, y, inner, 28), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("Top ops by time"));
    y += 34;
    const int nameWidth = 360, categoryWidth = 190, barGap = 16;
    const int barWidth = (inner - nameWidth - categoryWidth - 2 * barGap) / 2;
    const int timeX = margin + nameWidth + categoryWidth + barGap;
    const int flopsX = timeX + barWidth + barGap;
    p.setFont(pageFont(14, true));
    p.setPen(kMuted);
    p.drawText(QRect(margin, y, nameWidth, 20), Qt::AlignLeft, QStringLiteral("OP"));
    p.drawText(QRect(margin + nameWidth, y, categoryWidth, 20), Qt::AlignLeft, QStringLiteral("CATEGORY"));
    p.drawText(QRect(timeX, y, barWidth, 20), Qt::AlignLeft, QStringLiteral("SHARE OF OP TIME"));
    p.drawText(QRect(flopsX, y, barWidth, 20), Qt::AlignLeft, QStringLiteral("FLOPS UTILIZATION"));
    y += 24;
    const size_t rows = std::min(options.topOps, breakdown.rows.size());
    const double maxFraction = rows ? breakdown.rows.front().timeFraction : 1.0;
    const int rowHeight = 32;
    for (size_t i = 0; i < rows; ++i) {
        const OpRow& row = breakdown.rows[i];
        if (i % 2 == 0)
            p.fillRect(QRect(margin - 8, y - 2, inner + 16, rowHeight), QColor(0xf7, 0xf9, 0xfb));
        p.setPen(kInk);
        p.setFont(pageFont(16, true));
        p.drawText(QRect(margin, y, nameWidth - 10, rowHeight - 4), Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetrics(pageFont(16, true)).elidedText(r(row.name), Qt::ElideMiddle, nameWidth - 10));
        p.setPen(kMuted);
        p.setFont(pageFont(15));
        p.drawText(QRect(margin + nameWidth, y, categoryWidth - 10, rowHeight - 4), Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetrics(pageFont(15)).elidedText(r(row.category), Qt::ElideRight, categoryWidth - 10));
        // Time bars are scaled to the largest op so small shares stay visible; the label is exact.
        QColor timeColor = kTimeBar;
        timeColor.setAlpha(110);
        drawBar(p, QRect(timeX, y + 3, barWidth, rowHeight - 10), maxFraction > 0 ? row.timeFraction / maxFraction : 0,
            timeColor, q(formatPercent(row.timeFraction)));
        if (row.costCoverage <= 0) {
            // A kernel that records no cost: its utilization is unknown, not zero.
            drawBar(p, QRect(flopsX, y + 3, barWidth, rowHeight - 10), 0, kRule, QStringLiteral("no cost data"));
        } else if (row.flops <= 0) {
            // Copies, collectives, waits: no FLOPs to use, which is not the same as 0 % of them.
            drawBar(p, QRect(flopsX, y + 3, barWidth, rowHeight - 10), 0, kRule, QStringLiteral("no FLOPs"));
        } else if (peaksKnown && row.flopsUtilization) {
            QColor c = shareCardFlopsColor(*row.flopsUtilization);
            c.setAlpha(170);
            drawBar(p, QRect(flopsX, y + 3, barWidth, rowHeight - 10), *row.flopsUtilization, c,
                q(formatUtilization(row.flopsUtilizationUncapped)));
        } else {
            drawBar(p, QRect(flopsX, y + 3, barWidth, rowHeight - 10), 0, kRule, QStringLiteral("peak unknown"));
        }
        y += rowHeight;
    }
    if (breakdown.rows.size() > rows) {
        double rest = 0;
        for (size_t i = rows; i < breakdown.rows.size(); ++i)
            rest += breakdown.rows[i].timeFraction;
        p.setPen(kMuted);
        p.setFont(pageFont(14));
        p.drawText(QRect(margin, y + 2, inner, 20), Qt::AlignLeft | Qt::AlignVCenter,
            QStringLiteral("+ %1 more ops, %2 of op time")
                .arg(breakdown.rows.size() - rows)
                .arg(q(formatPercent(rest))));
        y += 24;
    }

    // Colour legend of the FLOPS bars (the xprof flame scale).
    y += 8;
    if (peaksKnown) {
        const QRect legend(flopsX, y, barWidth, 12);
        for (int x = 0; x < legend.width(); ++x) {
            QColor c = shareCardFlopsColor(double(x) / std::max(1, legend.width() - 1));
            c.setAlpha(170);
            p.fillRect(QRect(legend.x() + x, legend.y(), 1, legend.height()), c);
        }
        p.setPen(kMuted);
        p.setFont(pageFont(13));
        p.drawText(QRect(flopsX - 260, y - 4, 250, 20), Qt::AlignRight | Qt::AlignVCenter,
            QStringLiteral("FLOPS colour (xprof scale):"));
        p.drawText(QRect(flopsX, y + 14, 60, 18), Qt::AlignLeft, QStringLiteral("0%"));
        p.drawText(QRect(flopsX + barWidth / 4 - 30, y + 14, 60, 18), Qt::AlignHCenter, QStringLiteral("25%"));
        p.drawText(QRect(flopsX + barWidth - 60, y + 14, 60, 18), Qt::AlignRight, QStringLiteral("100%"));
        y += 40;
    } else {
        p.setPen(kMuted);
        p.setFont(pageFont(13));
        p.drawText(QRect(margin, y, inner, 18), Qt::AlignLeft,
            QStringLiteral("Device peaks unknown: utilizations need --device GEN"));
        y += 26;
    }

    // Padding of the flagged ops.
    std::vector<OpId> flagged;
    for (const Advice& a : advice.advice)
        if (a.id == AdviceRuleId::Padding || a.id == AdviceRuleId::PerCoreBatch
            || a.id == AdviceRuleId::LowUtilizationFusion)
            for (OpId op : a.ops)
                if (std::find(flagged.begin(), flagged.end(), op) == flagged.end())
                    flagged.push_back(op);
    std::vector<QString> paddingLines;
    for (OpId op : flagged) {
        if (paddingLines.size() >= 4)
            break;
        const OpPadding padding = resolveOpPadding(profile, op);
        const ArrayPadding* worst = padding.worst();
        if (!worst || worst->padding.efficiency >= 0.999)
            continue;
        paddingLines.push_back(
            QStringLiteral("%1 \u00B7 %2 %3: %4  (%5 of the tiles hold data)")
                .arg(r(padding.name), q(worst->role.substr(0, worst->role.find(' '))), q(arrayShapeText(*worst)),
                    q(worst->padding.usedOfTileText()), q(formatPercent(worst->padding.efficiency)))
            + (worst->assumption.rfind("T(8,128) assumed", 0) == 0 ? QStringLiteral(", T(8,128) assumed") : QString()));
    }
    if (!paddingLines.empty()) {
        p.fillRect(QRect(margin, y, inner, 1), kRule);
        y += 14;
        p.setPen(kInk);
        p.setFont(pageFont(20, true));
        p.drawText(QRect(margin, y, inner, 28), Qt::AlignLeft | Qt::AlignVCenter,
            QStringLiteral("Tile padding of flagged ops"));
        y += 34;
        for (const QString& line : paddingLines) {
            p.setPen(kInk);
            p.setFont(pageFont(16));
            p.drawText(QRect(margin + 8, y, inner - 8, 24), Qt::AlignLeft | Qt::AlignVCenter,
                QFontMetrics(pageFont(16)).elidedText(line, Qt::ElideMiddle, inner - 8));
            y += 26;
        }
        y += 8;
    }

    // The HBM peak of the largest module and the buffers that make it.
    if (const QStringList memoryLines = shareCardMemoryLines(analysis.memory); !memoryLines.isEmpty()) {
        p.fillRect(QRect(margin, y, inner, 1), kRule);
        y += 14;
        p.setPen(kInk);
        p.setFont(pageFont(20, true));
        p.drawText(QRect(margin, y, inner, 28), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("HBM peak"));
        y += 34;
        for (int i = 0; i < memoryLines.size(); ++i) {
            p.setPen(i == 0 ? kInk : kMuted);
            p.setFont(pageFont(16, i == 0));
            p.drawText(QRect(margin + 8, y, inner - 8, 24), Qt::AlignLeft | Qt::AlignVCenter,
                QFontMetrics(pageFont(16, i == 0))
                    .elidedText(r(memoryLines[i].toStdString()), Qt::ElideMiddle, inner - 8));
            y += 26;
        }
        y += 8;
    }

    // Advice: severity, title, the estimated gain.
    p.fillRect(QRect(margin, y, inner, 1), kRule);
    y += 14;
    p.setPen(kInk);
    p.setFont(pageFont(20, true));
    p.drawText(QRect(margin, y, inner, 28), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("Advice"));
    y += 36;
    if (advice.advice.empty()) {
        p.setPen(kMuted);
        p.setFont(pageFont(16));
        const QString why = advice.notes.empty() ? QStringLiteral("No rule fired.") : r(advice.notes.front());
        y += drawWrapped(p, why, pageFont(16), margin, y, inner, 2) + 8;
    }
    for (size_t i = 0; i < advice.advice.size() && i < options.maxAdvice; ++i) {
        const Advice& a = advice.advice[i];
        const QColor color = severityColor(a.severity);
        const QString chip = q(severityName(a.severity)).toUpper();
        const QFont chipFont = pageFont(13, true);
        // One chip width for all severities so the titles line up.
        const int chipWidth = QFontMetrics(chipFont).horizontalAdvance(QStringLiteral("CRITICAL")) + 16;
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        p.drawRoundedRect(QRect(margin, y + 2, chipWidth, 22), 4, 4);
        p.setPen(Qt::white);
        p.setFont(chipFont);
        p.drawText(QRect(margin, y + 2, chipWidth, 22), Qt::AlignCenter, chip);
        p.setPen(kInk);
        const int textX = margin + chipWidth + 12;
        const int used = drawWrapped(p, r(a.title), pageFont(17, true), textX, y, inner - chipWidth - 12, 2);
        y += std::max(used, 26);
        // Whose code it is: the top evidence's layer and line (a redacted share file has none).
        if (!a.evidence.empty()) {
            const AdviceEvidence& top = a.evidence.front();
            if (const std::string whose = attributionText({top.frameworkOp, top.source}); !whose.empty()) {
                p.setPen(kInk);
                y += drawWrapped(p, r(top.name + " = " + whose), pageFont(14), textX, y, inner - chipWidth - 12, 1);
            }
        }
        const std::string gain = gainText(a, advice.steps);
        if (!gain.empty()) {
            p.setPen(kMuted);
            y += drawWrapped(p, q(gain + " (upper bound)  \u00B7  rule " + a.rule), pageFont(14), textX, y,
                inner - chipWidth - 12, 1);
        }
        y += 12;
    }
    if (advice.advice.size() > options.maxAdvice) {
        p.setPen(kMuted);
        p.setFont(pageFont(14));
        p.drawText(QRect(margin, y, inner, 20), Qt::AlignLeft,
            QStringLiteral("+ %1 more (tpuscope-cli advise)").arg(advice.advice.size() - options.maxAdvice));
        y += 24;
    }

    // Footer: what the window's message bar says of this profile (truncation, corruption, limits,
    // cost coverage, device), so a reader of the card is warned as the one who made it was.
    y += 10;
    if (const QStringList warnings = shareCardWarningLines(analysis, options.redaction); !warnings.isEmpty()) {
        p.setPen(qt::colors::readableOn(qt::colors::severityColor(Severity::Warning), {kBackground}));
        y += drawWrapped(p, warnings.front(), pageFont(14, true), margin, y, inner, 1);
        for (qsizetype i = 1; i < warnings.size(); ++i)
            y += drawWrapped(p, warnings[i], pageFont(13), margin + 12, y, inner - 12, 2);
        y += 10;
    }
    p.fillRect(QRect(0, y, width, 40), QColor(0xf0, 0xf3, 0xf6));
    p.setPen(kHeader);
    p.setFont(pageFont(16, true));
    p.drawText(QRect(margin, y, 200, 40), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("tpuscope"));
    p.setPen(kMuted);
    p.setFont(pageFont(13));
    QString source
        = QStringLiteral("from %1").arg(q(profile.load.format.empty() ? std::string("profile") : profile.load.format));
    if (!profile.device.peakNote.empty() && peaksKnown)
        source += QStringLiteral(" \u00B7 peaks %1 TFLOP/s, %2 GB/s per core")
                      .arg(profile.device.peakTflopsPerCore, 0, 'g', 4)
                      .arg(profile.device.peakHbmGbpsPerCore, 0, 'g', 4);
    p.drawText(QRect(margin + 120, y, inner - 120, 40), Qt::AlignRight | Qt::AlignVCenter,
        QFontMetrics(pageFont(13)).elidedText(source, Qt::ElideLeft, inner - 120));
    y += 40;
    p.end();
    return image.copy(0, 0, width, std::min(y, image.height()));
}

QString beforeAfterText(double before, double after, bool fraction)
{
    if (fraction)
        return q(formatPercent(before)) + QStringLiteral(" \u2192 ") + q(formatPercent(after));
    QString text = q(formatDurationPs(before)) + QStringLiteral(" \u2192 ") + q(formatDurationPs(after));
    if (before > 0)
        text += QString::asprintf(" (%+.0f%%)", (after - before) / before * 100);
    return text;
}

QString beforeAfterText(const std::optional<double>& before, const std::optional<double>& after)
{
    return q(formatOptionalPercent(before)) + QStringLiteral(" \u2192 ") + q(formatOptionalPercent(after));
}

namespace {

/// The card's title band: which profiles, and the three figures that say most (examples per second
/// when the global batch changed, else step or op time; FLOPS and HBM utilization).
void drawComparisonHeader(
    QPainter& p, const ProfileDiff& diff, const QString& beforeLabel, const QString& afterLabel, int width, int margin)
{
    const int inner = width - 2 * margin;
    p.fillRect(QRect(0, 0, width, 150), kHeader);
    p.setPen(Qt::white);
    p.setFont(pageFont(28, true));
    // Unrelated profiles (ProfileDiff::related): said in the title, and no percentage change.
    const bool related = diff.related();
    p.drawText(QRect(margin, 16, inner, 40), Qt::AlignLeft | Qt::AlignVCenter,
        related ? QStringLiteral("Before \u2192 after") : QStringLiteral("Unrelated profiles: not a before/after"));
    p.setFont(pageFont(16));
    p.setPen(QColor(0xc8, 0xd6, 0xea));
    p.drawText(QRect(margin, 54, inner, 24), Qt::AlignLeft | Qt::AlignVCenter,
        QFontMetrics(pageFont(16))
            .elidedText(beforeLabel + QStringLiteral("  \u2192  ") + afterLabel, Qt::ElideMiddle, inner));
    auto change = [related](double before, double after, bool fraction) {
        return related ? beforeAfterText(before, after, fraction)
                       : q(formatDurationPs(before)) + QStringLiteral(" \u00B7 ") + q(formatDurationPs(after));
    };
    // A new global batch makes a longer step on purpose: examples per second say what it bought.
    const bool throughput = related && diff.steps.batchDiffers && diff.a.examplesPerSecond && diff.b.examplesPerSecond;
    const bool steps = diff.a.stepPs > 0 && diff.b.stepPs > 0;
    const QString first = throughput ? q(formatCount(*diff.a.examplesPerSecond)) + QStringLiteral(" \u2192 ")
            + q(formatCount(*diff.b.examplesPerSecond))
            + q(" (" + formatSignedPercent(*diff.b.examplesPerSecond / *diff.a.examplesPerSecond - 1, 0) + ")")
        : steps ? change(diff.a.stepPs, diff.b.stepPs, false)
                : change(diff.a.totalOpTimePs, diff.b.totalOpTimePs, false);
    const QString stats[][2] = {
        {throughput     ? QStringLiteral("Examples/s, global")
                : steps ? QStringLiteral("Step time")
                        : QStringLiteral("Op time"),
            first},
        {QStringLiteral("FLOPS utilization"), beforeAfterText(diff.a.flopsUtilization, diff.b.flopsUtilization)},
        {QStringLiteral("HBM bandwidth"), beforeAfterText(diff.a.hbmUtilization, diff.b.hbmUtilization)},
    };
    const int statWidth = inner / 3;
    for (int i = 0; i < 3; ++i) {
        const int x = margin + i * statWidth;
        p.setPen(QColor(0xa9, 0xbc, 0xd6));
        p.setFont(pageFont(14));
        p.drawText(QRect(x, 88, statWidth, 18), Qt::AlignLeft | Qt::AlignVCenter, stats[i][0].toUpper());
        p.setPen(Qt::white);
        p.setFont(pageFont(20, true));
        p.drawText(QRect(x, 106, statWidth - 8, 34), Qt::AlignLeft | Qt::AlignVCenter, stats[i][1]);
    }
}

/// One op: its name (and its name before, when renumbered), before and after bars, the change
/// (muted within the noise, as in the Compare dock) and why it changed.
void drawComparisonRow(QPainter& p, const DiffRow& row, QRect line, double longest)
{
    const int inner = line.width();
    // The reason is the widest text: the bars give it room.
    const int nameWidth = inner * 27 / 100, barWidth = inner * 15 / 100, deltaWidth = inner * 10 / 100;
    const int y = line.top(), rowHeight = line.height();
    int x = line.left();
    p.setPen(kInk);
    p.setFont(pageFont(15, true));
    QString name = q(row.name);
    if (row.status == DiffStatus::Both && row.a.name != row.name)
        name += QStringLiteral(" (was ") + q(row.a.name) + QStringLiteral(")");
    if (row.status == DiffStatus::New)
        name += QStringLiteral("  (new)");
    else if (row.status == DiffStatus::Removed)
        name += QStringLiteral("  (removed)");
    p.drawText(QRect(x, y, nameWidth - 8, rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
        QFontMetrics(pageFont(15, true)).elidedText(name, Qt::ElideMiddle, nameWidth - 8));
    x += nameWidth;
    drawBar(p, QRect(x, y + 5, barWidth - 10, rowHeight - 10), row.a.timePs / longest, kRule.darker(120),
        row.status == DiffStatus::New ? QString() : q(formatDurationPs(row.a.timePs)));
    x += barWidth;
    drawBar(p, QRect(x, y + 5, barWidth - 10, rowHeight - 10), row.b.timePs / longest, kTimeBar.lighter(140),
        row.status == DiffStatus::Removed ? QString() : q(formatDurationPs(row.b.timePs)));
    x += barWidth;
    const double delta = row.timeDeltaPs();
    p.setPen(row.withinNoise() || delta == 0 ? kMuted
            : delta < 0                      ? qt::colors::fasterColor()
                                             : qt::colors::slowerColor());
    p.setFont(pageFont(15, true));
    p.drawText(QRect(x, y, deltaWidth, rowHeight), Qt::AlignRight | Qt::AlignVCenter, q(formatSignedDurationPs(delta)));
    x += deltaWidth + 12;
    if (row.status != DiffStatus::Both)
        return;
    p.setPen(kMuted);
    p.setFont(pageFont(13));
    // Why it changed (its first reason), else the FLOPS utilization before and after.
    const QString why = row.explanation().empty()
        ? QStringLiteral("FLOPS ") + beforeAfterText(row.a.flopsUtilization, row.b.flopsUtilization)
        : q(row.explanation());
    const int whyWidth = line.right() - x;
    p.drawText(QRect(x, y, whyWidth, rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
        QFontMetrics(pageFont(13)).elidedText(why, Qt::ElideRight, whyWidth));
}

} // namespace

QImage renderComparisonCard(
    const ProfileDiff& diff, const QString& beforeLabel, const QString& afterLabel, const ShareCardOptions& options)
{
    const int width = std::max(600, options.width);
    const int margin = 36;
    const int inner = width - 2 * margin;
    const size_t rows = std::min(diff.rows.size(), std::max<size_t>(options.topOps, 1) + 4);
    const int rowHeight = 30;
    const int height = 150 + 70 + int(rows) * rowHeight + 90;
    QImage image(width, height, QImage::Format_ARGB32_Premultiplied);
    image.fill(kBackground);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    drawComparisonHeader(p, diff, beforeLabel, afterLabel, width, margin);

    int y = 150 + 24;
    p.setPen(kInk);
    p.setFont(pageFont(20, true));
    p.drawText(QRect(margin, y, inner, 28), Qt::AlignLeft | Qt::AlignVCenter,
        diff.perStep ? QStringLiteral("Ops that moved most (time per step and core)")
                     : QStringLiteral("Ops that moved most (time per core)"));
    y += 36;
    double longest = 1;
    for (size_t i = 0; i < rows; ++i)
        longest = std::max({longest, diff.rows[i].a.timePs, diff.rows[i].b.timePs});
    for (size_t i = 0; i < rows; ++i, y += rowHeight)
        drawComparisonRow(p, diff.rows[i], QRect(margin, y, inner, rowHeight), longest);
    y += 10;
    p.setPen(kMuted);
    p.setFont(pageFont(13));
    p.drawText(QRect(margin, y, inner, 20), Qt::AlignLeft | Qt::AlignVCenter,
        QStringLiteral("grey bar: before \u00B7 blue bar: after \u00B7 %1 ops matched (%2 by HLO fingerprint, %3 by "
                       "framework op), %4 new, %5 removed")
            .arg(diff.matched)
            .arg(diff.matchedByFingerprint)
            .arg(diff.matchedByFrameworkOp)
            .arg(diff.added)
            .arg(diff.removed));
    p.fillRect(QRect(0, height - 40, width, 40), QColor(0xf0, 0xf3, 0xf6));
    p.setPen(kHeader);
    p.setFont(pageFont(16, true));
    p.drawText(QRect(margin, height - 40, inner, 40), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("tpuscope"));
    p.end();
    return image;
}

} // namespace tpuscope::widgets
