// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>

namespace tpuscope::model {

/// How an advice number (`Advice::numbers`, keyed for JSON) reads for a person: a label and the
/// value in its unit from the formatter set. The JSON keeps the raw keys and values; every view that
/// shows advice numbers (advice panel, details, overview) goes through here.
struct AdviceNumberText
{
    std::string label; ///< "share of time"
    std::string value; ///< "96.5%"
};

/// The label of a key: a fixed wording for the common keys, else the key with its unit suffix
/// dropped and underscores as spaces ("hbm_peak_bytes" -> "HBM peak").
std::string adviceNumberLabel(std::string_view key);
/// The value in the unit the key's suffix names (_fraction/_efficiency/_utilization: percent,
/// _ps: duration, _bytes: bytes, _gbps: GB/s, ...); a plain number otherwise.
std::string formatAdviceNumber(std::string_view key, double value);
inline AdviceNumberText adviceNumberText(std::string_view key, double value)
{
    return {adviceNumberLabel(key), formatAdviceNumber(key, value)};
}

} // namespace tpuscope::model
