// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli card: the share card PNG (QtGui, offscreen: no display needed).
#include "cli.h"

#include "analysis/profileanalysis.h"
#include "core/atomicfile.h"

#ifdef TPUSCOPE_CLI_CARD
#include "sharecard.h"
#include "tableimage.h"

#include <QByteArray>
#include <QGuiApplication>
#include <QImage>
#include <QString>
#endif

namespace tpuscope::cli {

using namespace tpuscope::model;

int runCard(const Arguments& args, std::ostream& out, std::ostream& err)
{
#ifdef TPUSCOPE_CLI_CARD
    if (args.positional.empty() || args.output.empty()) {
        err << "tpuscope-cli card: usage: card FILE [AFTER] -o card.png\n";
        return 2;
    }
    if (outputRefused("card", args.output, args.positional, err))
        return 2;
    ProfilePtr profile, after;
    if (!load(args, args.positional.front(), err, profile))
        return 1;
    // card BEFORE AFTER -o card.png: the before/after card of a comparison.
    if (args.positional.size() >= 2 && !load(args, args.positional[1], err, after))
        return 1;
    // Works on a server: no display needed.
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
        && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    int argc = 1;
    char name[] = "tpuscope-cli";
    char* argv[] = {name, nullptr};
    QGuiApplication app(argc, argv);
    widgets::ShareCardOptions options;
    if (args.top > 0)
        options.topOps = args.top;
    // One analysis per profile, as in the GUI: the card (or the comparison's diff) reads it.
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(profile);
    // The comparison names its sides as diff and the Compare dock do (a log dir's run by its log dir).
    const auto labels
        = after ? comparisonLabels(profile->load.path, after->load.path) : std::pair<std::string, std::string>();
    const QImage image = after ? widgets::renderComparisonCard(analysis->diffAgainst(*buildProfileAnalysis(after)),
                             QString::fromStdString(labels.first), QString::fromStdString(labels.second), options)
                               : widgets::renderShareCard(*analysis, options);
    if (image.isNull()) {
        err << "tpuscope-cli card: could not render the card\n";
        return 1;
    }
    // Encoded in memory and saved like every other output: QImage::save would follow a planted
    // symlink and leave a fixed-name temporary file behind.
    const QByteArray png = widgets::encodePng(image);
    if (png.isEmpty()) {
        err << "tpuscope-cli card: could not encode the card as PNG\n";
        return 1;
    }
    std::string error;
    if (!saveFileAtomically(
            args.output, std::string_view(png.constData(), static_cast<size_t>(png.size())), error, args.positional)) {
        err << "tpuscope-cli card: " << error << "\n";
        return 1;
    }
    err << args.output << ": " << image.width() << "x" << image.height() << " PNG\n";
    (void)out;
    return 0;
#else
    (void)args;
    (void)out;
    err << "tpuscope-cli card: this build has no GUI libraries (configure with TPUSCOPE_BUILD_GUI=ON)\n";
    return 1;
#endif
}

namespace {
constexpr Option kCardOptions[] = {
    {"--top", "N", "the N ops with the most time on the card", setTop},
};
constexpr OptionGroup kCardOwn {"", kCardOptions};
constexpr const OptionGroup* kCardGroups[] = {&kCardOwn, &kOutputFileOption, &kLoadOptions};
} // namespace

constinit const Command kCardCommand {
    .name = "card",
    .operands = "FILE [AFTER]",
    .about = "The share card PNG (-o card.png; no display needed), or a before/after card of two profiles.",
    .groups = kCardGroups,
    .run = runCard,
};

} // namespace tpuscope::cli
