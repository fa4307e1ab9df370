// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: gzip-compressed Chrome JSON. The first byte picks the mode: odd = the rest is
// compressed here (so the fuzzer's JSON mutations reach the decoder through gunzip), even = the
// rest is fed as is (damaged, truncated, concatenated or bomb-like gzip streams).
#include "fuzzcommon.h"
#include "loader/gzip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 1)
        return 0;
    const bool compressHere = data[0] & 1;
    ++data;
    --size;
    if (!compressHere) {
        tpuscope::fuzz::loadAndExercise(data, size, "trace.json.gz");
        return 0;
    }
    std::string out, error;
    if (!tpuscope::model::gzipCompress(
            std::string_view(reinterpret_cast<const char*>(data), size), out, error, /*level=*/1))
        return 0;
    tpuscope::fuzz::loadAndExercise(reinterpret_cast<const uint8_t*>(out.data()), out.size(), "trace.json.gz");
    return 0;
}
