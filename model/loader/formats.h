// SPDX-License-Identifier: GPL-3.0-or-later
// Entry points of the format decoders other than XSpace. Each returns an error message,
// empty on success, and writes into the builder.
#pragma once

#include "loader.h"

namespace tpuscope::model {

bool looksLikeOpProfileJson(std::string_view text);
bool looksLikeShareFile(std::string_view bytes);
bool looksLikeLegacyTrace(std::string_view bytes);

class ByteSource;

/// `source`, when given, is where more of the document comes from once `bytes` is read (an
/// inflate thread) and where pages already read are handed back.
std::string decodeChromeJson(std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress,
    std::stop_token stop, ByteSource* source = nullptr);
std::string decodeLegacyTrace(
    std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress, std::stop_token stop);
std::string decodeOpProfileJson(
    std::string_view bytes, ProfileBuilder& builder, const ProgressFn& progress, std::stop_token stop);
std::string decodeShareFile(
    std::string_view bytes, ProfileBuilder& builder, const ProgressFn& progress, std::stop_token stop);

} // namespace tpuscope::model
