// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Decoding an XSpace while it still arrives (a gzip file inflated on another thread): the
// decoder follows the inflated bytes plane by plane and decodes a plane as soon as it is whole
// while the inflate has as much left to do (decodingNowPays), so inflate and decode overlap. Two things a whole-file
// decode knows up front are not known then: the time origin (the earliest line start of every plane) and whether the
// whole file fits the budget. Planes decoded early use the origin of what has arrived and are moved to the final origin
// at the end (moveToOrigin), which gives the same numbers as a decode that waited, or says it cannot; the budget is
// checked again on everything at the end.

#include "xspaceplane.h"

#include <cstdint>
#include <stop_token>
#include <string_view>

namespace tpuscope::model {
class ByteSource;
}

namespace tpuscope::model::xspace {

/// The bytes of a source that may still be growing. Addresses never move (see ByteSource), so
/// views into earlier bytes stay valid as more arrive.
class ArrivingBytes
{
public:
    ArrivingBytes(std::string_view bytes, ByteSource* source);

    std::string_view bytes() const { return m_bytes; }
    /// True while more bytes may come; once the source is complete, takes all of them.
    bool arriving();
    /// Waits until there are `end` bytes, or the input is complete, or `stop` fires.
    void await(uint64_t end, const std::stop_token& stop);
    /// Waits for the whole protobuf field that starts at `at` (tag, length and payload), so a
    /// reader sees it as it would in the complete input.
    void awaitField(uint64_t at, const std::stop_token& stop);
    /// Whether a plane of `bytes` that is whole now is best decoded now (see decodingNowPays).
    bool decodingNowPays(uint64_t bytes) const;

private:
    std::string_view m_bytes;
    ByteSource* m_source;
    bool m_complete;
};

/// Whether to decode a plane of `planeBytes` on this thread now, while the inflate goes on, given
/// `inflated` bytes so far and the `consumed` fraction of the compressed input: yes while the
/// inflate has about as much left to do as the plane's decode (the two take about as long per
/// byte), so it is done on time; no for a plane that makes up most of what is left (a one-chip
/// profile's), which then is decoded in parallel chunks once the inflate ends. Always yes when the
/// inflate is `heldBack` by its reader: it will not run ahead, so waiting gains nothing.
bool decodingNowPays(uint64_t planeBytes, uint64_t inflated, double consumed, bool heldBack);

/// Times within this distance of zero are far from the ends of the int64 range: moving them by
/// up to as much cannot change whether a sum overflows.
constexpr int64_t kSafeShiftPs = int64_t(1) << 61;

/// Moves the times of a plane decoded against `local.arrivalOriginNs` to `originNs`, as if it
/// had been decoded against that origin. False, with the plane unchanged, when the result could
/// differ from such a decode: a time near the int64 limits, a shift too large, or a line whose
/// start fits one origin but not the other. The caller then decodes the file again when whole.
bool moveToOrigin(LocalPlane& local, int64_t originNs);

} // namespace tpuscope::model::xspace
