// SPDX-License-Identifier: GPL-3.0-or-later
// op_profile.json (TF1 `tensorflow.tpu.op_profile` and xprof `op_profile.Profile`, FORMATS.md §4.2).
#pragma once

#include "decoder.h"

namespace tpuscope::model {

class ByteSource;

/// The parsed document tree costs about this many bytes per byte of JSON text, charged to the
/// memory budget before it is built (the v5 sample's 5.9 MB of text takes 3.7 bytes per byte).
constexpr uint64_t kPeakBytesPerOpProfileByte = 6;

struct OpProfileDecodeOptions
{
    uint32_t host = 0;
    /// Plane that receives the aggregate `XLA Ops` track; kNone = add a "/device:TPU:0" plane.
    PlaneId attachToPlane = kNone;
    /// Name of the aggregate track (a run that also has a timeline names it apart).
    std::string trackName = "XLA Ops";
};

/// Decodes an op_profile JSON document into per-op totals: one OpInfo per top-level XLA node and
/// one Track::Aggregated entry (occurrences, raw time) on an `XLA Ops` track, so the op breakdown
/// works unchanged. The file's own utilization metrics decide the peak when they imply one.
/// `source`, when given, gets the text's pages back once the document is parsed.
std::string decodeOpProfile(std::string_view bytes, ProfileBuilder& builder, const OpProfileDecodeOptions& options,
    const ProgressFn& progress, std::stop_token stop, ByteSource* source = nullptr);

} // namespace tpuscope::model
