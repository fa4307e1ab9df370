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

/// An op_profile.json of a log-dir host: only that format is accepted, and its totals go on
/// `attachToPlane` of the host's timeline (kNone = a plane of their own).
struct OpProfileTarget
{
    PlaneId attachToPlane = kNone;
};

struct DecodeOutcome
{
    std::string error; // without the file name; empty on success
    FileFormat format = FileFormat::Unknown;
    bool compressed = false;
    uint64_t decodedBytes = 0;
};

/// The one decode path of top-level files and log-dir hosts: format detection (on the first MiB
/// of inflated data for gzip), streaming inflate with the size and ratio limits, truncated-stream
/// handling, then the format's decoder into `builder`. `file` is the mapped file `bytes` live in
/// (its pages are handed back once decoded), or null. `name` is used as a format hint only.
/// "NAME: out of memory while loading (memory budget …, address-space limit …)": what a load
/// that caught std::bad_alloc reports.
std::string outOfMemoryMessage(const std::string& name, const LoadOptions& options);

/// What a load says about a mapped file that another process truncated while it was read.
std::string shrankMessage(const std::string& path, uint64_t mappedBytes);

DecodeOutcome decodeBytesInto(std::string_view bytes, ByteSource* file, const LoadOptions& options,
    ProfileBuilder& builder, const ProgressFn& progress, std::stop_token stop, const std::string& name,
    const OpProfileTarget* opProfile = nullptr);

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
