// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the pasteable text form of a share file (fenced/quoted/bare base64), then the
// decoded bytes through loadProfileFromBytes.
#include "fuzzcommon.h"
#include "share/sharefile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace tpuscope::model;
    std::string bytes, error;
    if (!shareFileFromText(std::string_view(reinterpret_cast<const char*>(data), size), bytes, error))
        return 0;
    tpuscope::fuzz::loadAndExercise(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "pasted.tpuscope");
    return 0;
}
