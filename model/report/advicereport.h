// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../analysis/advice.h"

#include <functional>
#include <string>
#include <string_view>

namespace tpuscope::model {

enum class AdviceFormat { Text, Json, Markdown };
bool parseAdviceFormat(std::string_view name, AdviceFormat& out);
std::string adviceReport(const Profile& profile, const AdviceReport& report, AdviceFormat format);

class JsonWriter;
/// Writes an advice value as JSON. `text`, when given, rewrites every text on the way out
/// (the share file's name redaction); otherwise texts are written as they are.
void writeAdviceValue(
    JsonWriter& w, const AdviceValue& v, const std::function<std::string(std::string_view)>& text = {});

} // namespace tpuscope::model
