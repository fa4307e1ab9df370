// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: loadProfileFromBytes on a file named "trace" (format detection + decoder +
// ProfileBuilder::finish + the op breakdown and summary).
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tpuscope::fuzz::loadAndExercise(data, size, "trace");
    return 0;
}
