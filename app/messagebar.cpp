// SPDX-License-Identifier: GPL-3.0-or-later
#include "messagebar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace tpuscope::app {

MessageBar::MessageBar(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("messageBar"));
    setAutoFillBackground(true);
    QPalette colors = palette();
    const bool dark = colors.color(QPalette::Window).lightness() < 128;
    colors.setColor(QPalette::Window, dark ? QColor(110, 40, 35) : QColor(250, 225, 220));
    colors.setColor(QPalette::WindowText, dark ? QColor(255, 225, 220) : QColor(110, 20, 10));
    setPalette(colors);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    auto* icon = new QLabel(this);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(16, 16));
    m_label = new QLabel(this);
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::PlainText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* dismiss = new QToolButton(this);
    dismiss->setAutoRaise(true);
    dismiss->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    dismiss->setToolTip(tr("Dismiss"));
    connect(dismiss, &QToolButton::clicked, this, &MessageBar::hideMessage);
    layout->addWidget(icon);
    layout->addWidget(m_label, 1);
    layout->addWidget(dismiss);
    hide();
}

void MessageBar::showMessage(const QString& text)
{
    m_label->setText(text);
    if (!text.contains(QLatin1Char('\n')))
        m_label->setToolTip({});
    show();
}

void MessageBar::showList(const QString& lead, const QStringList& items)
{
    constexpr int kShown = 3;
    QStringList lines {lead};
    for (int i = 0; i < items.size() && i < kShown; ++i)
        lines << QStringLiteral("• ") + items[i];
    if (items.size() > kShown)
        lines << tr("… and %n more (hover to read them all)", nullptr, int(items.size() - kShown));
    m_label->setToolTip(
        items.size() > kShown ? QStringList(QStringList {lead} + items).join(QStringLiteral("\n• ")) : QString());
    showMessage(lines.join(QLatin1Char('\n')));
}

void MessageBar::hideMessage()
{
    m_label->clear();
    hide();
}

QString MessageBar::text() const
{
    return isHidden() ? QString() : m_label->text();
}

} // namespace tpuscope::app
