// SPDX-License-Identifier: GPL-3.0-or-later
// Entry points of the format decoders decodeInto dispatches to, other than XSpace
// (xspaceloader.h), op_profile (opprofile.h) and share files (sharereader.h). Each returns an
// error message, empty on success, and writes into the builder.
#pragma once

#include "decoder.h"

namespace tpuscope::model {

bool looksLikeOpProfileJson(std::string_view text);
bool looksLikeLegacyTrace(std::string_view bytes);

/// `source`, when given, is where more of the document comes from once `bytes` is read (an
/// inflate thread) and where pages already read are handed back.
std::string decodeChromeJson(std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress,
    std::stop_token stop, ByteSource* source = nullptr);
std::string decodeLegacyTrace(
    std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress, std::stop_token stop);
std::string decodeOpProfileJson(
    std::string_view bytes, ProfileBuilder& builder, const ProgressFn& progress, std::stop_token stop);

} // namespace tpuscope::model
