// SPDX-License-Identifier: GPL-3.0-or-later
// Build-time tool: draws the tpuscope icon (the design of resources/tpuscope.svg) as PNGs for the hicolor
// theme's fixed sizes. QPainter redraws the SVG's shapes instead of rendering the file, so the build needs
// QtGui only (QtSvg is not a dependency). Keep the two in step when the design changes.
// Usage: tpuscope_iconpainter OUT_DIR SIZE... writes OUT_DIR/SIZExSIZE/apps/tpuscope.png.

#include <QColor>
#include <QDir>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QPen>
#include <QRectF>
#include <QString>
#include <QTextStream>

namespace {

// The SVG's viewBox is 64x64; every coordinate below is in that space.
constexpr double kDesignSize = 64.0;

QPen roundPen(const QColor& color, double width)
{
    QPen pen(color, width);
    pen.setCapStyle(Qt::RoundCap);
    return pen;
}

void drawIcon(QPainter& painter)
{
    const QColor frame(0x1f, 0x3a, 0x5f);
    const QColor pin(0x9f, 0xb7, 0xd6);
    const QColor die(0x2d, 0x55, 0x88);
    const QColor amber(0xf0, 0xa8, 0x30);
    const QColor green(0x5c, 0xc4, 0x8a);
    const QColor red(0xe0, 0x5a, 0x4f);

    painter.setPen(Qt::NoPen);
    painter.setBrush(frame);
    painter.drawRoundedRect(QRectF(4, 4, 56, 56), 10, 10);

    // The chip's pins: four on each side.
    painter.setPen(roundPen(pin, 2));
    for (const double along : {20.0, 28.0, 36.0, 44.0}) {
        painter.drawLine(QPointF(along, 10), QPointF(along, 16));
        painter.drawLine(QPointF(along, 48), QPointF(along, 54));
        painter.drawLine(QPointF(10, along), QPointF(16, along));
        painter.drawLine(QPointF(48, along), QPointF(54, along));
    }

    painter.setPen(QPen(pin, 2));
    painter.setBrush(die);
    painter.drawRoundedRect(QRectF(16, 16, 32, 32), 3, 3);

    // Timeline bars on the die.
    painter.setPen(Qt::NoPen);
    const struct
    {
        QRectF rect;
        QColor color;
    } bars[] = {
        {QRectF(20, 22, 14, 4), amber},
        {QRectF(35, 22, 8, 4), green},
        {QRectF(20, 30, 6, 4), green},
        {QRectF(27, 30, 16, 4), red},
        {QRectF(20, 38, 20, 4), amber},
    };
    for (const auto& bar : bars) {
        painter.setBrush(bar.color);
        painter.drawRoundedRect(bar.rect, 1, 1);
    }

    // The lens over the chip and its handle.
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(Qt::white, 3));
    painter.drawEllipse(QPointF(38, 38), 11, 11);
    painter.setPen(roundPen(Qt::white, 5));
    painter.drawLine(QPointF(46, 46), QPointF(54, 54));
}

bool writeIcon(const QString& outDir, int size, QTextStream& err)
{
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.scale(size / kDesignSize, size / kDesignSize);
        drawIcon(painter);
    }
    const QString dir = QStringLiteral("%1/%2x%2/apps").arg(outDir).arg(size);
    const QString path = dir + QStringLiteral("/tpuscope.png");
    if (!QDir().mkpath(dir) || !image.save(path, "PNG")) {
        err << "tpuscope_iconpainter: cannot write " << path << Qt::endl;
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    QTextStream err(stderr);
    if (argc < 3) {
        err << "usage: tpuscope_iconpainter OUT_DIR SIZE..." << Qt::endl;
        return 2;
    }
    const QString outDir = QString::fromLocal8Bit(argv[1]);
    for (int i = 2; i < argc; ++i) {
        bool ok = false;
        const int size = QString::fromLocal8Bit(argv[i]).toInt(&ok);
        if (!ok || size < 1 || size > 1024) {
            err << "tpuscope_iconpainter: invalid size " << argv[i] << Qt::endl;
            return 2;
        }
        if (!writeIcon(outDir, size, err))
            return 1;
    }
    return 0;
}
