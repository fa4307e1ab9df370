// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../core/hlo.h"

#include <memory>
#include <string>
#include <string_view>

namespace tpuscope::model {

/// Decodes a serialized xla.HloProto into the plain HLO model. Returns null and sets `error`
/// when the bytes are not a valid HloProto.
std::shared_ptr<const hlo::Module> decodeHloProto(std::string_view bytes, std::string& error);

} // namespace tpuscope::model
