// SPDX-License-Identifier: GPL-3.0-or-later
// Formats whose decoders are not written yet: they are detected and refused with a clear
// message, never misread as something else.
#include "formats.h"

namespace tpuscope::model {

bool looksLikeOpProfileJson(std::string_view text)
{
    const auto head = text.substr(0, 4096);
    return head.find("\"byCategory\"") != std::string_view::npos || head.find("\"byProgram\"") != std::string_view::npos
        || head.find("\"by_category\"") != std::string_view::npos;
}

bool looksLikeShareFile(std::string_view bytes) { return bytes.starts_with("TPUSCOPE-SHARE"); }

bool looksLikeLegacyTrace(std::string_view bytes) { return false; }

std::string decodeChromeJson(std::string_view, ProfileBuilder&, uint32_t, const ProgressFn&, std::stop_token)
{
    return "Chrome trace JSON is not supported by this build yet; open the run's *.xplane.pb instead";
}

std::string decodeLegacyTrace(std::string_view, ProfileBuilder&, uint32_t, const ProgressFn&, std::stop_token)
{
    return "TF1 trace files are not supported by this build yet";
}

std::string decodeOpProfileJson(std::string_view, ProfileBuilder&, const ProgressFn&, std::stop_token)
{
    return "op_profile.json is not supported by this build yet";
}

std::string decodeShareFile(std::string_view, ProfileBuilder&, const ProgressFn&, std::stop_token)
{
    return "tpuscope share files are not supported by this build yet";
}

} // namespace tpuscope::model
