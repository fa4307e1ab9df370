// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli share / open-text / diff / card: sharing a diagnosis without the trace.
#include "cli.h"

#include "analysis/diff.h"
#include "analysis/opbreakdown.h"
#include "analysis/summary.h"
#include "core/atomicfile.h"
#include "core/jsondom.h"
#include "loader/inputsource.h"
#include "loader/loader.h"
#include "report/report.h"
#include "share/sharefile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <unistd.h>

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

namespace {

bool load(const Arguments& args, const std::string& path, std::ostream& err, ProfilePtr& profile)
{
    return loadProfileArgument(args, path, err, profile) == 0;
}

/// Refuses an output that is one of the inputs (or a file of an input log dir) or not a regular
/// file, before anything is loaded; the write checks again.
bool outputRefused(
    const char* command, const std::string& output, const std::vector<std::string>& inputs, std::ostream& err)
{
    const std::string problem = outputPathProblem(output, inputs);
    if (problem.empty())
        return false;
    err << "tpuscope-cli " << command << ": " << problem << "\n";
    return true;
}

std::string kib(size_t bytes)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f KB", static_cast<double>(bytes) / 1024.0);
    return buffer;
}

int runShare(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (args.positional.empty()) {
        err << "tpuscope-cli share: missing FILE\n";
        return 2;
    }
    if (args.output.empty() && !args.text) {
        err << "tpuscope-cli share: give -o OUT.tpuscope (or --text to print the pasteable text form)\n";
        return 2;
    }
    ShareOptions options;
    std::string error;
    if (!parseShareRedaction(args.redact, options.redaction, error)) {
        err << "tpuscope-cli share: " << error << "\n";
        return 2;
    }
    if (args.top > 0)
        options.maxOps = args.top;
    const std::string& input = args.positional.front();
    if (!args.output.empty() && outputRefused("share", args.output, {input}, err))
        return 2;
    ProfilePtr profile;
    if (!load(args, input, err, profile))
        return 1;
    const ShareResult share = buildShareFile(*profile, options);
    if (!share.ok()) {
        err << "tpuscope-cli share: " << share.error << "\n";
        return 1;
    }
    const std::string payload = args.text ? shareFileToText(share.bytes) : share.bytes;
    if (args.output.empty()) {
        out << payload;
    } else if (!saveFileAtomically(args.output, payload, error, {input})) {
        err << "tpuscope-cli share: " << error << "\n";
        return 1;
    }
    const ShareStats& s = share.stats;
    char line[320];
    std::snprintf(line, sizeof line,
        "%s: %s (%s JSON%s), top %zu of %zu ops covering %.1f %% of op time, %zu HLO instructions from %zu "
        "programs\n",
        args.output.empty() ? "share" : args.output.c_str(), kib(s.fileBytes).c_str(), kib(s.jsonBytes).c_str(),
        args.text ? (", " + kib(payload.size()) + " as text").c_str() : "", s.keptOps, s.totalOps,
        100.0 * s.keptTimeFraction, s.hloInstructions, s.programsWithHlo);
    err << line;
    return 0;
}

bool checkTextSize(uint64_t size, std::string& error)
{
    if (size <= kMaxShareTextBytes)
        return true;
    error = "more than " + std::to_string(kMaxShareTextBytes >> 20)
        + " MiB, which is no share text (those are a few hundred KB); stopped reading";
    return false;
}

/// Standard input up to `limit` bytes; an endless stream stops there with a message.
bool readStandardInput(std::string& text, uint64_t limit, std::string& error)
{
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            error = std::string("read error: ") + std::strerror(errno);
            return false;
        }
        if (n == 0)
            return true;
        text.append(buffer, static_cast<size_t>(n));
        if (!checkTextSize(text.size(), error))
            return false;
    }
}

int runOpenText(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (args.positional.empty()) {
        err << "tpuscope-cli open-text: missing FILE (or - for standard input)\n";
        return 2;
    }
    const std::string& input = args.positional.front();
    std::string text, error;
    if (input == "-") {
        if (!readStandardInput(text, kMaxShareTextBytes, error)) {
            err << "tpuscope-cli open-text: standard input: " << error << "\n";
            return 1;
        }
    } else {
        // Regular files only, opened without blocking: a FIFO, a device or a directory is refused.
        MappedFile file;
        if (!file.open(input, error) || !checkTextSize(file.bytes().size(), error)) {
            err << "tpuscope-cli open-text: " << input << ": " << error << "\n";
            return 1;
        }
        text.assign(file.bytes());
    }
    std::string bytes;
    if (!shareFileFromText(text, bytes, error)) {
        err << "tpuscope-cli open-text: " << (input == "-" ? "standard input" : input) << ": " << error << "\n";
        return 1;
    }
    if (!args.output.empty()) {
        const std::vector<std::string> inputs = input == "-" ? std::vector<std::string> {} : std::vector {input};
        if (outputRefused("open-text", args.output, inputs, err))
            return 2;
        if (!saveFileAtomically(args.output, bytes, error, inputs)) {
            err << "tpuscope-cli open-text: " << error << "\n";
            return 1;
        }
        err << args.output << ": " << kib(bytes.size()) << "\n";
        return 0;
    }
    LoadResult result = loadProfileFromBytes(
        std::move(bytes), input == "-" ? "stdin.tpuscope" : input, loadOptionsFromArguments(args));
    if (!result.ok()) {
        err << "tpuscope-cli open-text: " << result.error << "\n";
        return 1;
    }
    const bool json = args.format == "json";
    if (!args.format.empty() && args.format != "text" && !json) {
        err << "tpuscope-cli open-text: --format must be text or json\n";
        return 2;
    }
    out << summaryReport(*result.profile, computeSummary(*result.profile), json);
    if (!json)
        out << "\n"
            << opsReport(
                   *result.profile, computeOpBreakdown(*result.profile), TableFormat::Text, args.top ? args.top : 10);
    return 0;
}

int runDiff(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (args.positional.size() != 2) {
        err << "tpuscope-cli diff: needs two files: diff A B\n";
        return 2;
    }
    TableFormat format = TableFormat::Text;
    if (!args.format.empty() && !parseTableFormat(args.format, format)) {
        err << "tpuscope-cli diff: --format must be table, csv, tsv, json or md\n";
        return 2;
    }
    ProfilePtr a, b;
    if (!load(args, args.positional[0], err, a) || !load(args, args.positional[1], err, b))
        return 1;
    for (const ProfilePtr& p : {a, b})
        if (!p->hasTpuOps()) {
            err << "tpuscope-cli diff: " << p->load.path << ": " << computeSummary(*p).message << "\n";
            return 1;
        }
    out << diffReport(computeDiff(*a, *b), format, args.top);
    return 0;
}

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
    const auto fileName = [](const std::string& path) {
        return QString::fromStdString(std::filesystem::path(path).filename().string());
    };
    const QImage image = after ? widgets::renderComparisonCard(computeDiff(*profile, *after),
                             fileName(args.positional[0]), fileName(args.positional[1]), options)
                               : widgets::renderShareCard(*profile, options);
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

} // namespace

int runShareCommand(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (args.command == "share")
        return runShare(args, out, err);
    if (args.command == "open-text")
        return runOpenText(args, out, err);
    if (args.command == "diff")
        return runDiff(args, out, err);
    if (args.command == "card")
        return runCard(args, out, err);
    return kUnknownCommand;
}

} // namespace tpuscope::cli
