// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "decoder.h"

namespace tpuscope::model {

/// Decodes a serialized tensorflow.profiler.XSpace straight from the wire format into the
/// columnar profile (no message objects per event). `host` names the host for log dirs.
/// Returns an error message, empty on success.
class ByteSource;

/// `source`, when given, gets back the pages of each line once it is decoded (a mapped file).
std::string decodeXSpace(std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress,
    std::stop_token stop, ByteSource* source = nullptr);

/// Chunks of planes decoded over workers since the process started (a plane far larger than the
/// others is cut into chunks, see XSpaceDecoder). Lets tests check that a chunked decode ran.
uint64_t xspaceChunksDecoded();

/// True when the bytes look like an XSpace (first field is a plane whose name is readable).
bool looksLikeXSpace(std::string_view bytes);

} // namespace tpuscope::model
