// SPDX-License-Identifier: GPL-3.0-or-later
// The share-file reader: decodeInto (decoder.h) dispatches a *.tpuscope file here, and the text
// form (a fenced base64 block) is read back with shareFileFromText. The writer is in
// share/sharefile.h, which includes this header.
#pragma once

#include "decoder.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tpuscope::model {

constexpr std::string_view kShareMagic = "TPUSCOPE-SHARE";
constexpr int kShareVersion = 1;

/// The JSON inside a share file is at most this big (real ones are a few hundred KB), and the
/// text form read from a file or standard input at most kMaxShareTextBytes: bigger input is
/// refused, never read on without bound (/dev/zero, an endless pipe).
constexpr uint64_t kMaxShareJsonBytes = 64ull << 20;
constexpr uint64_t kMaxShareTextBytes = 128ull << 20;

bool looksLikeShareFile(std::string_view bytes);

/// Header check + gunzip: the JSON document inside a share file, with a clear error otherwise.
bool shareFileJson(std::string_view bytes, std::string& json, std::string& error);

/// Reads the text form back (the fenced block may be surrounded by other text, quoted with
/// "> ", or be bare base64). Fails with a clear message for damaged or truncated text.
bool shareFileFromText(std::string_view text, std::string& shareBytes, std::string& error);

/// Decodes a share file into `builder`: the top ops with their totals, their HLO and memory, and
/// the step windows; there is no timeline. An error message, empty on success.
std::string decodeShareFile(
    std::string_view bytes, ProfileBuilder& builder, const ProgressFn& progress, std::stop_token stop);

} // namespace tpuscope::model
