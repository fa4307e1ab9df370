// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli open-text: a pasted share-text block back into a share file or a summary.
#include "cli.h"

#include "analysis/profileanalysis.h"

#include "analysis/opbreakdown.h"
#include "analysis/summary.h"
#include "core/atomicfile.h"
#include "loader/inputsource.h"
#include "loader/loader.h"
#include "report/report.h"
#include "share/sharefile.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace tpuscope::cli {

using namespace tpuscope::model;

namespace {

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

} // namespace

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
    const bool json = args.format == "json"; // else text: the parser took no other
    const ProfileAnalysisPtr analysis = buildProfileAnalysis(result.profile);
    out << summaryReport(*result.profile, analysis->summary, json);
    if (!json)
        out << "\n" << opsReport(*result.profile, analysis->breakdown, TableFormat::Text, args.top ? args.top : 10);
    return 0;
}

namespace {
constexpr FormatName kOpenTextFormats[] = {kTextFormat, kJsonFormat};
constexpr Option kOpenTextOptions[] = {
    {"--top", "N", "the N ops with the most time in the text summary (default: 10)", setTop},
};
constexpr OptionGroup kOpenTextOwn {"", kOpenTextOptions};
constexpr const OptionGroup* kOpenTextGroups[] = {&kOpenTextOwn, &kOutputFileOption, &kTextTableOptions, &kLoadOptions};
} // namespace

constinit const Command kOpenTextCommand {
    .name = "open-text",
    .operands = "FILE|-",
    .about = "A pasted share-text block (or - for standard input) back into a share file (-o) or a summary.",
    .formats = kOpenTextFormats,
    .groups = kOpenTextGroups,
    .run = runOpenText,
};

} // namespace tpuscope::cli
