// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli share: a small share file (or its pasteable text) instead of the trace.
#include "cli.h"

#include "core/atomicfile.h"
#include "share/forumpost.h"
#include "share/sharefile.h"

#include <cstdio>

namespace tpuscope::cli {

using namespace tpuscope::model;

namespace {

/// What both forms start with: the redaction (`fallback` when --redact is not given), the check
/// that -o does not overwrite the input, and the load with its analysis. 0 when it went well,
/// else the exit code (a message is written).
int prepare(const Arguments& args, const ShareRedaction& fallback, ShareRedaction& redaction,
    ProfileAnalysisPtr& analysis, std::ostream& err)
{
    std::string error;
    redaction = fallback;
    if (!args.redact.empty() && !parseShareRedaction(args.redact, redaction, error)) {
        err << "tpuscope-cli share: " << error << "\n";
        return 2;
    }
    const std::string& input = args.positional.front();
    if (!args.output.empty() && outputRefused("share", args.output, {input}, err))
        return 2;
    ProfilePtr profile;
    if (!load(args, input, err, profile))
        return 1;
    analysis = buildProfileAnalysis(profile);
    return 0;
}

/// `payload` on stdout, or written atomically to -o (never over the input). 0, or the exit code.
int emit(const Arguments& args, const std::string& payload, std::ostream& out, std::ostream& err)
{
    std::string error;
    if (args.output.empty())
        out << payload;
    else if (!saveFileAtomically(args.output, payload, error, {args.positional.front()})) {
        err << "tpuscope-cli share: " << error << "\n";
        return 1;
    }
    return 0;
}

/// share --forum: the post the GUI's Copy for Forum puts on the clipboard, on stdout (or -o).
int runForumPost(const Arguments& args, std::ostream& out, std::ostream& err)
{
    ForumPostOptions options;
    ProfileAnalysisPtr analysis;
    if (const int code = prepare(args, ForumPostOptions::defaultRedaction(), options.redaction, analysis, err))
        return code;
    options.includeShareBlock = args.text;
    if (args.top > 0)
        options.topOps = args.top;
    const ForumPost post = buildForumPost(*analysis, options);
    if (!post.ok()) {
        err << "tpuscope-cli share: " << post.error << "\n";
        return 1;
    }
    return emit(args, post.markdown, out, err);
}

} // namespace

int runShare(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (args.positional.empty()) {
        err << "tpuscope-cli share: missing FILE\n";
        return 2;
    }
    if (args.forum)
        return runForumPost(args, out, err);
    if (args.output.empty() && !args.text) {
        err << "tpuscope-cli share: give -o OUT.tpuscope (or --text to print the pasteable text form)\n";
        return 2;
    }
    ShareOptions options;
    ProfileAnalysisPtr analysis;
    // Redacted as every export of the GUI is by default; "--redact none" keeps everything.
    if (const int code = prepare(args, defaultShareRedaction(), options.redaction, analysis, err))
        return code;
    if (args.top > 0)
        options.maxOps = args.top;
    const ShareResult share = buildShareFile(*analysis, options);
    if (!share.ok()) {
        err << "tpuscope-cli share: " << share.error << "\n";
        return 1;
    }
    const std::string payload = args.text ? shareFileToText(share.bytes) : share.bytes;
    if (const int code = emit(args, payload, out, err))
        return code;
    const ShareStats& s = share.stats;
    char line[320];
    std::snprintf(line, sizeof line,
        "%s: %s (%s JSON%s), top %zu of %zu ops%s covering %.1f %% of op time, %zu HLO instructions from %zu "
        "programs\n",
        args.output.empty() ? "share" : args.output.c_str(), kib(s.fileBytes).c_str(), kib(s.jsonBytes).c_str(),
        args.text ? (", " + kib(payload.size()) + " as text").c_str() : "", s.keptOps + s.keptAsyncPartners, s.totalOps,
        s.keptAsyncPartners
            ? (" (" + std::to_string(s.keptAsyncPartners) + " of them the other halves of async ops)").c_str()
            : "",
        100.0 * s.keptTimeFraction, s.hloInstructions, s.programsWithHlo);
    err << line;
    return 0;
}

namespace {
constexpr Option kShareOptions[] = {
    {"--redact", "LIST",
        "paths,names,hash, all or none: what the file leaves out (default: paths, with user and host names)",
        [](Arguments& args, std::string_view value, std::string&) {
            args.redact = value;
            return true;
        }},
    {"--text", "", "the pasteable text form (with --forum: the share block folded under the post)",
        [](Arguments& args, std::string_view, std::string&) {
            args.text = true;
            return true;
        }},
    {"--forum", "", "the Markdown post of the GUI's Copy for Forum instead",
        [](Arguments& args, std::string_view, std::string&) {
            args.forum = true;
            return true;
        }},
    {"--top", "N", "the N ops with the most time kept", setTop},
};
constexpr OptionGroup kShareOwn {"", kShareOptions};
constexpr const OptionGroup* kShareGroups[] = {&kShareOwn, &kOutputFileOption, &kLoadOptions};
} // namespace

constinit const Command kShareCommand {
    .name = "share",
    .operands = "FILE",
    .about = "A small share file (-o OUT.tpuscope) in place of the trace, its pasteable text or the forum post.",
    .groups = kShareGroups,
    .run = runShare,
};

} // namespace tpuscope::cli
