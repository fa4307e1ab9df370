// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: gzip-compressed Chrome JSON. The first byte picks the mode: odd = the rest is
// compressed here (so the fuzzer's JSON mutations reach the decoder through gunzip), even = the
// rest is fed as is (damaged, truncated, concatenated or bomb-like gzip streams).
#include "fuzzcommon.h"

#include <zlib.h>

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
    z_stream zs {};
    if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    std::string out(deflateBound(&zs, size) + 64, '\0');
    zs.next_in = const_cast<Bytef*>(data);
    zs.avail_in = static_cast<uInt>(size);
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    if (rc != Z_STREAM_END)
        return 0;
    tpuscope::fuzz::loadAndExercise(reinterpret_cast<const uint8_t*>(out.data()), out.size(), "trace.json.gz");
    return 0;
}
