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
/// "8 TPU cores", or "4 TPU cores (counted from the collectives' replica groups)" when the per-core
/// numbers divide by more cores than the file has planes (an op_profile's summed devices).
std::string adviceCoresText(const Profile& profile, const AdviceReport& report);

class JsonWriter;
/// Writes an advice value as JSON. `text`, when given, rewrites every text on the way out
/// (the share file's name redaction); otherwise texts are written as they are.
void writeAdviceValue(
    JsonWriter& w, const AdviceValue& v, const std::function<std::string(std::string_view)>& text = {});
/// Writes an item's fix as {"action", "per_core_batch", "global_batch", "devices"} (targets only when
/// set); the advice JSON and the share file write it the same way, and the share reader reads it.
void writeAdviceFix(JsonWriter& w, const AdviceFix& fix, const std::function<std::string(std::string_view)>& text = {});
/// Writes an item's time gain in its one unit: "gain_ps_per_step" where the report has steps, else
/// "gain_ps_over_capture" (per core) and "gain_op_time_fraction"; nothing for an item without a time
/// gain (a throughput gain is numbers.throughput_factor). The advice JSON and the share file agree.
void writeAdviceGain(JsonWriter& w, const AdviceReport& report, const Advice& a);

} // namespace tpuscope::model
