// SPDX-License-Identifier: GPL-3.0-or-later
// base64 (RFC 4648, with padding): the share file's text form is written and read with it.
#pragma once

#include <string>
#include <string_view>

namespace tpuscope::model {

std::string base64Encode(std::string_view in);
/// Skips whitespace; fails with a clear message on other characters and on truncated text.
bool base64Decode(std::string_view in, std::string& out, std::string& error);

} // namespace tpuscope::model
