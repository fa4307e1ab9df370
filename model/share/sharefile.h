// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The tpuscope share file (*.tpuscope): what an expert needs to diagnose a profile, small enough
// to attach to a forum post (target < 64 KB), and its pasteable text form. See sharefile.cpp for
// the schema. A share file loads back into a Profile (loadProfile detects it) with the top ops,
// their HLO and the step/idle statistics, so the op table, details and advice work; there is no
// timeline.

#include "../analysis/profileanalysis.h"
#include "../core/profile.h"
#include "../loader/sharereader.h" // the reader: kShareMagic, shareFileJson, shareFileFromText, ...
#include "shareredaction.h" // ShareRedaction, parseShareRedaction, redactedName

#include <stop_token>
#include <string>
#include <string_view>

namespace tpuscope::model {

struct ShareOptions
{
    ShareRedaction redaction;
    double timeCoverage = 0.95; // keep the top ops until this share of op time is covered...
    size_t maxOps = 200; // ...but at most this many (ops above 1 % of time are always kept)
    /// A session job's token: once stopped, buildShareFile returns an error the job discards.
    std::stop_token stop;
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
    std::string bytes {}; // the file: header line + gzip(JSON)
    std::string json {}; // the uncompressed JSON (for tests and --format json dumps)
    std::string error {};
    ShareStats stats {};
    bool ok() const { return error.empty(); }
};

/// Builds a share file from a loaded profile's analysis (its breakdown, steps and advice are
/// written as they are; nothing is computed again). Fails only when there is nothing to share.
ShareResult buildShareFile(const ProfileAnalysis& analysis, const ShareOptions& options = {});

/// The text form: "```tpuscope\n" + base64 of the file in 76-column lines + "\n```\n".
std::string shareFileToText(std::string_view shareBytes);
/// saveFileAtomically (core/atomicfile.h) without inputs to protect: kept for the GUI's share export.
bool writeFileAtomically(const std::string& path, std::string_view bytes, std::string& error);

} // namespace tpuscope::model
