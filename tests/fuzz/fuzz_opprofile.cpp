// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: loadProfileFromBytes on a file named "op_profile.json" (format detection + decoder +
// ProfileBuilder::finish + the op breakdown and summary).
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tpuscope::fuzz::loadAndExercise(data, size, "op_profile.json");
    return 0;
}
