// SPDX-License-Identifier: GPL-3.0-or-later
#include "colors.h"

#include "analysis/opbreakdown.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

namespace tpuscope::qt::colors {

namespace {

// Tableau-like qualitative palette: readable with dark text, distinguishable on light and dark
// backgrounds.
constexpr std::array<QRgb, 16> kCategoryPalette = {
    qRgb(78, 121, 167),
    qRgb(242, 142, 43),
    qRgb(118, 183, 178),
    qRgb(89, 161, 79),
    qRgb(237, 201, 72),
    qRgb(176, 122, 161),
    qRgb(255, 157, 167),
    qRgb(156, 117, 95),
    qRgb(160, 203, 232),
    qRgb(255, 190, 125),
    qRgb(140, 209, 125),
    qRgb(182, 153, 45),
    qRgb(73, 152, 148),
    qRgb(212, 166, 200),
    qRgb(134, 188, 182),
    qRgb(225, 87, 89),
};

uint32_t fnv1a(std::string_view s)
{
    uint32_t h = 2166136261u;
    for (unsigned char c : s)
        h = (h ^ c) * 16777619u;
    return h;
}

double channelLuminance(double c)
{
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

double worstRatio(const QColor& color, std::initializer_list<QColor> backgrounds)
{
    double worst = 21;
    for (const QColor& bg : backgrounds)
        worst = std::min(worst, contrastRatio(color, bg));
    return worst;
}

} // namespace

QColor categoryColor(std::string_view category, model::OpClass opClass)
{
    using model::OpClass;
    // Classes that say what an op does beyond computing: one colour each, in hue families (reds for
    // collectives, browns and olives for copies, purples for the host link).
    switch (opClass) {
    case OpClass::SyncCollective:
        return QColor(225, 87, 89);
    case OpClass::AsyncCollectiveStart:
        return QColor(255, 157, 167);
    case OpClass::AsyncCollectiveDone:
        return QColor(190, 60, 70);
    case OpClass::CopyStart:
        return QColor(214, 190, 110);
    case OpClass::CopyDone:
        return QColor(160, 130, 40);
    case OpClass::HostTransferStart:
        return QColor(196, 160, 214);
    case OpClass::HostTransfer:
    case OpClass::HostTransferDone:
        return QColor(130, 90, 160);
    case OpClass::DataFormatting:
        return QColor(156, 117, 95);
    case OpClass::Infeed:
    case OpClass::Outfeed:
        return QColor(73, 152, 148);
    case OpClass::Control:
    case OpClass::Unattributed:
        return QColor(150, 150, 150);
    case OpClass::Compute:
    case OpClass::ComputeFusion:
    case OpClass::CustomKernel:
        break;
    }
    static const std::map<std::string, QRgb, std::less<>> known = {
        {"convolution fusion", kCategoryPalette[0]},
        {"convolution", qRgb(44, 86, 140)}, // the fusion's blue family, darker: two categories, two colours
        {"loop fusion", kCategoryPalette[1]},
        {"output fusion", kCategoryPalette[8]},
        {"input fusion", kCategoryPalette[2]},
        {"custom fusion", kCategoryPalette[5]},
        {"non-fusion elementwise", kCategoryPalette[3]},
        {"dot", kCategoryPalette[12]},
        {"fusion", kCategoryPalette[4]},
    };
    if (auto it = known.find(category); it != known.end())
        return QColor::fromRgb(it->second);
    // The hash skips the class colours' slots so a compute category never looks like a collective.
    static constexpr std::array<size_t, 12> kComputeSlots = {0, 1, 2, 3, 4, 5, 8, 9, 10, 12, 13, 14};
    return QColor::fromRgb(kCategoryPalette[kComputeSlots[fnv1a(category) % kComputeSlots.size()]]);
}

bool looksAlike(const QColor& a, const QColor& b)
{
    // "Redmean" distance (a cheap approximation of perceived difference), 0 … ~765.
    const double meanRed = (a.red() + b.red()) / 2.0;
    const double dr = a.red() - b.red(), dg = a.green() - b.green(), db = a.blue() - b.blue();
    const double distance
        = std::sqrt((2 + meanRed / 256) * dr * dr + 4 * dg * dg + (2 + (255 - meanRed) / 256) * db * db);
    return distance < 70;
}

std::unordered_map<std::string, QColor> categoryColors(const model::OpBreakdown& breakdown)
{
    // The busiest categories keep their usual colours; a later one that would look like an earlier
    // one takes a shade of its own colour (a collective stays in the collectives' reds), else a
    // palette colour nobody took.
    std::map<std::string, double> time;
    for (const model::OpRow& row : breakdown.rows)
        time[row.category] += row.totalTimePs;
    std::vector<std::pair<std::string, double>> order(time.begin(), time.end());
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    const auto classes = model::categoryClasses(breakdown);
    std::unordered_map<std::string, QColor> result;
    std::vector<QColor> taken;
    const auto isFree = [&](const QColor& c) {
        return std::none_of(taken.begin(), taken.end(), [&](const QColor& t) { return looksAlike(c, t); });
    };
    for (const auto& [category, ignored] : order) {
        const auto it = classes.find(category);
        const QColor preferred = categoryColor(category, it != classes.end() ? it->second : model::OpClass::Compute);
        std::vector<QColor> candidates = {preferred};
        for (int step = 1; step <= 3; ++step) {
            candidates.push_back(preferred.darker(100 + 30 * step));
            candidates.push_back(preferred.lighter(100 + 20 * step));
        }
        for (QRgb rgb : kCategoryPalette)
            candidates.push_back(QColor::fromRgb(rgb));
        for (int hue = 0; hue < 360; hue += 15)
            candidates.push_back(QColor::fromHsl(hue, 150, 110));
        QColor chosen = preferred;
        for (const QColor& candidate : candidates) {
            if (isFree(candidate)) {
                chosen = candidate;
                break;
            }
        }
        taken.push_back(chosen);
        result.emplace(category, chosen);
    }
    return result;
}

QColor nameColor(std::string_view name)
{
    return QColor::fromHsl(int(fnv1a(name) % 360), 70, 175);
}

QColor moduleColor()
{
    return QColor(128, 140, 160);
}

QColor flameColor(double fraction, double brightness, FlameCurve curve)
{
    if (std::isnan(fraction))
        return QColor::fromRgbF(brightness, brightness, brightness);
    const double f = std::clamp(fraction, 0.0, 1.0);
    const double g = std::clamp(curve == FlameCurve::Sqrt ? std::sqrt(f) : 1 - std::sqrt(1 - f), 0.0, 1.0);
    if (g < 0.5)
        return QColor::fromRgbF(brightness, 2 * g * brightness, 0);
    return QColor::fromRgbF(2 * (1 - g) * brightness, brightness, 0);
}

QColor over(const QColor& color, double opacity, const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Base);
    auto mix = [&](double a, double b) { return a * (1 - opacity) + b * opacity; };
    return QColor::fromRgbF(
        mix(base.redF(), color.redF()), mix(base.greenF(), color.greenF()), mix(base.blueF(), color.blueF()));
}

QColor utilizationColor(double fraction)
{
    // Unknown is a lavender grey, not the neutral grey of events that are not ops (the legend
    // listed "no FLOPS data" and "not an XLA op" in one grey).
    if (std::isnan(fraction))
        return QColor(176, 168, 208);
    return flameColor(fraction, 0.8, FlameCurve::Sqrt);
}

QColor utilizationTint(double fraction, const QPalette& palette)
{
    return over(utilizationColor(fraction), kUtilizationTintOpacity, palette);
}

std::vector<UtilizationLegendStop> utilizationLegendStops()
{
    std::vector<UtilizationLegendStop> stops;
    for (double stop : {0.0, 0.1, 0.25, 0.5, 0.75, 1.0})
        stops.push_back({stop, utilizationColor(stop)});
    stops.push_back({std::nan(""), utilizationColor(std::nan(""))});
    return stops;
}

QColor lowUtilizationMark()
{
    return QColor(176, 0, 32);
}

QColor lowUtilizationRowBackground(const QPalette& palette)
{
    return isDark(palette) ? QColor(255, 70, 50, 70) : QColor(255, 90, 60, 55);
}

QColor lowUtilizationRowText(const QPalette& palette)
{
    return isDark(palette) ? QColor(255, 165, 150) : QColor(160, 20, 10);
}

QColor flopsSeriesColor()
{
    return QColor(30, 136, 229);
}

QColor hbmSeriesColor()
{
    return QColor(245, 124, 0);
}

QColor memoryPaddedColor()
{
    return QColor::fromRgb(kCategoryPalette[0]);
}

QColor memoryUnpaddedColor()
{
    return QColor::fromRgb(kCategoryPalette[3]);
}

QColor memoryPeakColor()
{
    return QColor::fromRgb(kCategoryPalette[15]);
}

QColor stepPartColor(StepPart part)
{
    switch (part) {
    case StepPart::Compute:
        return QColor(76, 120, 168);
    case StepPart::Collectives:
        return QColor(245, 133, 24);
    case StepPart::HostTransfer:
        return QColor(228, 87, 86);
    case StepPart::Infeed:
        return QColor(114, 183, 178);
    case StepPart::Idle:
        break;
    }
    return QColor(186, 176, 172);
}

QColor heatColor(double fraction)
{
    if (std::isnan(fraction))
        return QColor(186, 176, 172);
    // ColorBrewer YlOrRd, 5 stops: ordered in lightness, readable for the common colour blindnesses.
    static const std::array<QColor, 5> stops
        = {QColor(255, 255, 204), QColor(254, 217, 118), QColor(253, 141, 60), QColor(227, 26, 28), QColor(128, 0, 38)};
    const double f = std::clamp(fraction, 0.0, 1.0) * double(stops.size() - 1);
    const size_t i = std::min(stops.size() - 2, size_t(f));
    const double t = f - double(i);
    auto mix = [t](double a, double b) { return a * (1 - t) + b * t; };
    return QColor::fromRgbF(mix(stops[i].redF(), stops[i + 1].redF()), mix(stops[i].greenF(), stops[i + 1].greenF()),
        mix(stops[i].blueF(), stops[i + 1].blueF()));
}

QColor heatUnknownColor(const QPalette& palette)
{
    return palette.color(QPalette::Mid);
}

QColor fasterColor()
{
    return QColor(0x1b, 0x7f, 0x3b);
}

QColor pageBackground()
{
    return QColor(0xff, 0xff, 0xff);
}

QColor pageInk()
{
    return QColor(0x20, 0x24, 0x2a);
}

QColor pageRule()
{
    return QColor(0xd8, 0xde, 0xe4);
}

QColor pageHeaderBand()
{
    return QColor(0x1f, 0x3a, 0x5f);
}

QColor slowerColor()
{
    return QColor(0xb7, 0x1c, 0x1c);
}

QColor severityColor(model::Severity severity)
{
    switch (severity) {
    case model::Severity::Critical:
        return QColor(0xd3, 0x2f, 0x2f);
    case model::Severity::Warning:
        return QColor(0xf5, 0x9e, 0x0b);
    case model::Severity::Info:
        break;
    }
    return QColor(0x1e, 0x88, 0xe5);
}

QColor severityTextColor(model::Severity severity, const QPalette& palette)
{
    return readableOn(severityColor(severity), {palette.color(QPalette::Window), palette.color(QPalette::Base)});
}

QColor linkColor(const QPalette& palette)
{
    return readableOn(palette.color(QPalette::Link), {palette.color(QPalette::Window), palette.color(QPalette::Base)});
}

QColor mutedTextColor(const QPalette& palette)
{
    return readableOn(QColor(128, 128, 128), {palette.color(QPalette::Window), palette.color(QPalette::Base)});
}

QPalette withReadableLinks(QPalette palette)
{
    for (QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive}) {
        const std::initializer_list<QColor> backgrounds
            = {palette.color(group, QPalette::Window), palette.color(group, QPalette::Base)};
        palette.setColor(group, QPalette::Link, readableOn(palette.color(group, QPalette::Link), backgrounds));
        palette.setColor(
            group, QPalette::LinkVisited, readableOn(palette.color(group, QPalette::LinkVisited), backgrounds));
    }
    return palette;
}

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(53, 53, 53), base(35, 35, 35), text(230, 230, 230), disabled(127, 127, 127);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(45, 45, 45));
    p.setColor(QPalette::ToolTipBase, QColor(25, 25, 25));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(170, 170, 170));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Light, QColor(80, 80, 80));
    p.setColor(QPalette::Midlight, QColor(66, 66, 66));
    p.setColor(QPalette::Mid, QColor(100, 100, 100));
    p.setColor(QPalette::Dark, QColor(25, 25, 25));
    p.setColor(QPalette::Shadow, QColor(10, 10, 10));
    p.setColor(QPalette::Highlight, QColor(42, 130, 218));
    p.setColor(QPalette::HighlightedText, Qt::white);
    // Deliberately the light palette's blue, as dark system palettes often keep it:
    // withReadableLinks() is what makes links readable, and the tests check that.
    p.setColor(QPalette::Link, QColor(0, 0, 255));
    p.setColor(QPalette::LinkVisited, QColor(255, 0, 255));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

double relativeLuminance(const QColor& color)
{
    const QColor c = color.toRgb();
    return 0.2126 * channelLuminance(c.redF()) + 0.7152 * channelLuminance(c.greenF())
        + 0.0722 * channelLuminance(c.blueF());
}

double contrastRatio(const QColor& a, const QColor& b)
{
    const double la = relativeLuminance(a), lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor readableOn(const QColor& color, std::initializer_list<QColor> backgrounds, double ratio)
{
    if (worstRatio(color, backgrounds) >= ratio)
        return color;
    double meanLuminance = 0;
    for (const QColor& bg : backgrounds)
        meanLuminance += relativeLuminance(bg) / double(backgrounds.size());
    // Move the lightness away from the backgrounds, keeping hue and saturation, in small steps.
    const bool lighten = meanLuminance < 0.18;
    QColor hsl = color.toHsl();
    float h = 0, s = 0, l = 0, a = 1;
    hsl.getHslF(&h, &s, &l, &a);
    for (int step = 0; step < 100; ++step) {
        l = std::clamp(l + (lighten ? 0.01f : -0.01f), 0.0f, 1.0f);
        QColor candidate = QColor::fromHslF(h, s, l, a).toRgb();
        if (worstRatio(candidate, backgrounds) >= ratio)
            return candidate;
    }
    return lighten ? QColor(Qt::white) : QColor(Qt::black);
}

QColor textOn(const QColor& background)
{
    return contrastRatio(background, Qt::black) >= contrastRatio(background, Qt::white) ? QColor(Qt::black)
                                                                                        : QColor(Qt::white);
}

} // namespace tpuscope::qt::colors
