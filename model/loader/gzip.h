// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>

namespace tpuscope::model {

bool isGzip(std::string_view bytes);

/// The messages of the inflaters (gunzip and InflateStream), worded once.
std::string inflateLimitMessage(uint64_t maxBytes);
std::string inflateTruncatedMessage(uint64_t compressedRead, uint64_t inflated);
std::string inflateCorruptMessage(uint64_t compressedOffset, const char* zlibMessage);

/// Inflates a gzip stream (several members are concatenated, as gzip allows). Refuses to
/// produce more than `maxBytes` (gzip bombs) and reports corrupt or truncated input in
/// `error`. `progress` gets the fraction of input consumed.
bool gunzip(std::string_view compressed, std::string& out, uint64_t maxBytes, std::string& error,
    const std::function<void(double)>& progress = {}, std::stop_token stop = {});

} // namespace tpuscope::model
