// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Wire-level decode of the compiler's buffer assignment (HloProto field 3, FORMATS.md §3.1).

#include "../core/hlo.h"

#include <memory>
#include <string>
#include <string_view>

namespace tpuscope::model {

/// Decodes a serialized xla.BufferAssignmentProto. Bounds-checked: on malformed bytes it returns
/// null and sets `error` (with the byte offset); unknown fields are skipped; unknown heap event
/// kinds are dropped with a warning in the result.
std::shared_ptr<const hlo::BufferAssignment> decodeBufferAssignment(std::string_view bytes, std::string& error);

/// Finds field 3 of a serialized xla.HloProto and decodes it. Returns null with an empty `error`
/// when the proto has no buffer assignment.
std::shared_ptr<const hlo::BufferAssignment> decodeHloProtoBufferAssignment(
    std::string_view hloProtoBytes, std::string& error);

} // namespace tpuscope::model
