// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: loadProfileFromBytes on a file named "trace.xplane.pb" (format detection + decoder +
// ProfileBuilder::finish + the op breakdown and summary).
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tpuscope::fuzz::loadAndExercise(data, size, "trace.xplane.pb");
    return 0;
}
