// SPDX-License-Identifier: GPL-3.0-or-later
// Formats whose decoders are not written yet: they are detected and refused with a clear
// message, never misread as something else.
#include "formats.h"

namespace tpuscope::model {

bool looksLikeShareFile(std::string_view bytes) { return bytes.starts_with("TPUSCOPE-SHARE"); }

std::string decodeShareFile(std::string_view, ProfileBuilder&, const ProgressFn&, std::stop_token)
{
    return "tpuscope share files are not supported by this build yet";
}

} // namespace tpuscope::model
