// SPDX-License-Identifier: GPL-3.0-or-later
#include "tableimage.h"

#include "core/atomicfile.h"
#include "pagefont.h"
#include "qt/colors.h"

#include <QBuffer>
#include <QFont>
#include <QFontMetrics>
#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace tpuscope::widgets {

namespace {

const QColor kTableBackground = qt::colors::pageBackground();
const QColor kTableInk = qt::colors::pageInk();
const QColor kTableMuted(0x55, 0x5e, 0x68); // darker than the card's: it sits on striped rows
const QColor kTableRule = qt::colors::pageRule();
const QColor kStripe(0xf3, 0xf5, 0xf8);
const QColor kHeaderBand = qt::colors::pageHeaderBand();

constexpr int kMargin = 16;
constexpr int kCellPadding = 8;
constexpr int kRowHeight = 22;

} // namespace

std::vector<int> tableImageColumnWidths(const model::Table& table, const TableImageOptions& options)
{
    const size_t columns = table.header.size();
    const size_t shownRows = std::min(table.rows.size(), options.maxRows);
    auto isBold = [&](size_t row) {
        return std::find(options.boldRows.begin(), options.boldRows.end(), row) != options.boldRows.end();
    };
    auto cellText = [&](size_t row, size_t column) {
        const auto& cells = table.rows[row];
        return column < cells.size() ? QString::fromStdString(cells[column]) : QString();
    };
    // Column widths from the widest cell (bold for group rows), the first column capped. Measured
    // in fractional pixels and rounded up: an integer advance can be a fraction short of what
    // elidedText needs, and the name was elided although it fit ("conv…ion.33").
    const auto advance = [](const QFontMetricsF& metrics, const QString& text) {
        return static_cast<int>(std::ceil(metrics.horizontalAdvance(text))) + 1;
    };
    const QFontMetricsF cellMetricsF(pageFont(13));
    const QFontMetricsF boldMetricsF(pageFont(13, true));
    std::vector<int> widths(columns, 0);
    for (size_t c = 0; c < columns; ++c)
        widths[c] = advance(boldMetricsF, QString::fromStdString(table.header[c]));
    for (size_t r = 0; r < shownRows; ++r)
        for (size_t c = 0; c < columns; ++c)
            widths[c] = std::max(widths[c], advance(isBold(r) ? boldMetricsF : cellMetricsF, cellText(r, c)));
    if (columns > 0)
        widths[0] = std::min(widths[0], options.maxNameWidth);
    return widths;
}

QImage renderTableImage(const model::Table& table, const QStringList& header, const TableImageOptions& options)
{
    const QFont titleFont = pageFont(18, true);
    const QFont headerFont = pageFont(13);
    const QFont cellFont = pageFont(13);
    const QFont boldFont = pageFont(13, true);

    const size_t columns = table.header.size();
    const size_t shownRows = std::min(table.rows.size(), options.maxRows);
    auto isBold = [&](size_t row) {
        return std::find(options.boldRows.begin(), options.boldRows.end(), row) != options.boldRows.end();
    };
    auto cellText = [&](size_t row, size_t column) {
        const auto& cells = table.rows[row];
        return column < cells.size() ? QString::fromStdString(cells[column]) : QString();
    };

    const std::vector<int> widths = tableImageColumnWidths(table, options);
    int tableWidth = 0;
    for (int w : widths)
        tableWidth += w + 2 * kCellPadding;

    const int titleHeight = 30;
    const int headerLineHeight = 19;
    const int headerBlock = kMargin + titleHeight + headerLineHeight * std::max<int>(0, int(header.size()) - 1) + 10;
    const bool truncated = table.rows.size() > shownRows;
    const int height = headerBlock + kRowHeight * (int(shownRows) + 1) + (truncated ? kRowHeight : 0) + kMargin;
    int width = tableWidth + 2 * kMargin;
    const QFontMetrics headerMetrics(headerFont);
    for (const QString& line : header)
        width = std::max(width, headerMetrics.horizontalAdvance(line) + 2 * kMargin);
    width = std::max(width, 480);

    QImage image(width, height, QImage::Format_RGB32);
    image.fill(kTableBackground);
    QPainter p(&image);
    p.setRenderHint(QPainter::TextAntialiasing);

    int y = kMargin;
    for (int i = 0; i < header.size(); ++i) {
        p.setFont(i == 0 ? titleFont : headerFont);
        p.setPen(i == 0 ? kHeaderBand : kTableMuted);
        const int h = i == 0 ? titleHeight : headerLineHeight;
        p.drawText(QRect(kMargin, y, width - 2 * kMargin, h), Qt::AlignLeft | Qt::AlignVCenter, header[i]);
        y += h;
    }
    y = headerBlock;

    auto drawRow = [&](int top, const std::vector<QString>& cells, const QFont& font, const QColor& ink) {
        p.setFont(font);
        p.setPen(ink);
        const QFontMetrics metrics(font);
        int x = kMargin;
        for (size_t c = 0; c < columns; ++c) {
            const QRect cell(x + kCellPadding, top, widths[c], kRowHeight);
            const bool right = c < table.rightAligned.size() && table.rightAligned[c];
            const QString text = c == 0 ? metrics.elidedText(cells[c], Qt::ElideMiddle, widths[c]) : cells[c];
            p.drawText(cell, (right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter, text);
            x += widths[c] + 2 * kCellPadding;
        }
    };

    // Column header on a tinted band, then striped rows.
    p.fillRect(QRect(kMargin, y, tableWidth, kRowHeight), kHeaderBand);
    std::vector<QString> headerCells;
    for (const std::string& h : table.header)
        headerCells.push_back(QString::fromStdString(h));
    drawRow(y, headerCells, boldFont, kTableBackground);
    y += kRowHeight;
    for (size_t r = 0; r < shownRows; ++r) {
        if (r % 2 == 1)
            p.fillRect(QRect(kMargin, y, tableWidth, kRowHeight), kStripe);
        std::vector<QString> cells;
        for (size_t c = 0; c < columns; ++c)
            cells.push_back(cellText(r, c));
        drawRow(y, cells, isBold(r) ? boldFont : cellFont, kTableInk);
        y += kRowHeight;
    }
    p.setPen(kTableRule);
    p.drawLine(kMargin, y, kMargin + tableWidth, y);
    if (truncated) {
        p.setFont(headerFont);
        p.setPen(kTableMuted);
        p.drawText(QRect(kMargin, y, tableWidth, kRowHeight), Qt::AlignLeft | Qt::AlignVCenter,
            QStringLiteral("… %1 more rows not shown").arg(table.rows.size() - shownRows));
    }
    return image;
}

QByteArray encodePng(const QImage& image)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    if (!buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG"))
        return {};
    return bytes;
}

bool savePngAtomically(const QImage& image, const QString& path, QString& error, const std::vector<std::string>& inputs)
{
    const QByteArray bytes = encodePng(image);
    if (bytes.isEmpty()) {
        error = QStringLiteral("could not encode the image as PNG");
        return false;
    }
    std::string message;
    if (!model::saveFileAtomically(
            path.toStdString(), std::string_view(bytes.constData(), size_t(bytes.size())), message, inputs)) {
        error = QString::fromStdString(message);
        return false;
    }
    return true;
}

} // namespace tpuscope::widgets
