// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The tpuscope share file (*.tpuscope): what an expert needs to diagnose a profile, small enough
// to attach to a forum post (target < 64 KB), and its pasteable text form. See sharefile.cpp for
// the schema. A share file loads back into a Profile (loadProfile detects it) with the top ops,
// their HLO and the step/idle statistics, so the op table, details and advice work; there is no
// timeline.

#include "../core/profile.h"

#include <functional>
#include <stop_token>
#include <string>
#include <string_view>

namespace tpuscope::model {

constexpr std::string_view kShareMagic = "TPUSCOPE-SHARE";
constexpr int kShareVersion = 1;

struct ShareRedaction
{
    bool paths = false; // source file:line, HLO source_file/source_line, the original file name
    bool names = false; // framework op names (tf_op / provenance, HLO op_type/op_name metadata)
    bool hashNames = false; // HLO op, computation and program names → stable short hashes
    bool any() const { return paths || names || hashNames; }
};

/// Parses "paths,names,hash" (any subset, comma-separated; "all" = every option).
bool parseShareRedaction(std::string_view list, ShareRedaction& out, std::string& error);

struct ShareOptions
{
    ShareRedaction redaction;
    double timeCoverage = 0.95; // keep the top ops until this share of op time is covered...
    size_t maxOps = 200; // ...but at most this many (ops above 1 % of time are always kept)
};

struct ShareStats
{
    size_t keptOps = 0;
    size_t keptAsyncPartners = 0; // other halves of kept async ops, kept beyond the top rows
    size_t totalOps = 0;
    double keptTimeFraction = 0;
    size_t programsWithHlo = 0;
    size_t hloInstructions = 0;
    size_t jsonBytes = 0;
    size_t fileBytes = 0;
};

struct ShareResult
{
    std::string bytes; // the file: header line + gzip(JSON)
    std::string json; // the uncompressed JSON (for tests and --format json dumps)
    std::string error;
    ShareStats stats;
    bool ok() const { return error.empty(); }
};

/// Builds a share file from a loaded profile. Fails only when there is nothing to share.
ShareResult buildShareFile(const Profile& profile, const ShareOptions& options = {});

/// The share-file reader, which decodeInto (loader/decoder.h) dispatches to.
class ProfileBuilder;
bool looksLikeShareFile(std::string_view bytes);
/// Decodes a share file into `builder`; an error message, empty on success.
std::string decodeShareFile(std::string_view bytes, ProfileBuilder& builder,
    const std::function<void(std::string_view, double)>& progress, std::stop_token stop);

/// Header check + gunzip: the JSON document inside a share file, with a clear error otherwise.
bool shareFileJson(std::string_view bytes, std::string& json, std::string& error);

/// The text form: "```tpuscope\n" + base64 of the file in 76-column lines + "\n```\n".
std::string shareFileToText(std::string_view shareBytes);
/// The JSON inside a share file is at most this big (real ones are a few hundred KB), and the
/// text form read from a file or standard input at most kMaxShareTextBytes: bigger input is
/// refused, never read on without bound (/dev/zero, an endless pipe).
constexpr uint64_t kMaxShareJsonBytes = 64ull << 20;
constexpr uint64_t kMaxShareTextBytes = 128ull << 20;

/// Reads the text form back (the fenced block may be surrounded by other text, quoted with
/// "> ", or be bare base64). Fails with a clear message for damaged or truncated text.
bool shareFileFromText(std::string_view text, std::string& shareBytes, std::string& error);

/// saveFileAtomically (core/atomicfile.h) without inputs to protect: kept for the GUI's share export.
bool writeFileAtomically(const std::string& path, std::string_view bytes, std::string& error);

/// Stable short hash used for name redaction ("op_1a2b3c4d").
std::string redactedName(std::string_view name, std::string_view prefix = "op_");

} // namespace tpuscope::model
