// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "decoder.h"

namespace tpuscope::model {

/// Decodes a serialized tensorflow.profiler.XSpace straight from the wire format into the
/// columnar profile (no message objects per event). `host` names the host for log dirs.
/// Returns an error message, empty on success.
class ByteSource;

/// `source`, when given, gets back the pages of each line once it is decoded (a mapped file). When
/// it is still arriving (a gzip file inflated on another thread), `bytes` is what has arrived and
/// the decoder asks the source for more. With `rereadWhole`, planes whose bytes are whole are
/// decoded while the rest arrives; if their times cannot be moved to the final origin exactly
/// (times near the int64 limits), the decoder returns with *rereadWhole set and the builder
/// untouched, and the caller decodes a complete copy of the input again, without it.
std::string decodeXSpace(std::string_view bytes, ProfileBuilder& builder, uint32_t host, const ProgressFn& progress,
    std::stop_token stop, ByteSource* source = nullptr, bool* rereadWhole = nullptr);

/// Chunks of planes decoded over workers since the process started (a plane far larger than the
/// others is cut into chunks, see XSpaceDecoder). Lets tests check that a chunked decode ran.
uint64_t xspaceChunksDecoded();
/// Planes decoded while the rest of their input still arrived, and decodes that had to start
/// again on the whole input (see decodeXSpace), since the process started. For tests.
uint64_t xspacePlanesDecodedOnArrival();
uint64_t xspaceWholeRereads();

/// True when the bytes look like an XSpace (first field is a plane whose name is readable).
bool looksLikeXSpace(std::string_view bytes);

} // namespace tpuscope::model
