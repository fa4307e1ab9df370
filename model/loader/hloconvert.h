// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../core/hlo.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tpuscope::model {

/// The instructions a serialized xla.HloProto holds, counted on the wire without decoding it, so
/// that a module is budgeted before it is built (an empty instruction takes 2 bytes on the wire
/// and ~450 decoded). Counts what it can read of damaged bytes.
uint64_t countHloInstructions(std::string_view bytes);

/// Decodes a serialized xla.HloProto into the plain HLO model. Returns null and sets `error`
/// when the bytes are not a valid HloProto.
std::shared_ptr<const hlo::Module> decodeHloProto(std::string_view bytes, std::string& error);

} // namespace tpuscope::model
