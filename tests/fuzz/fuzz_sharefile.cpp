// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the tpuscope share file. The first byte picks the mode: odd = the rest is the
// share JSON, wrapped here in the real header + gzip (so mutations reach the JSON decoder), even =
// the rest is a whole file as is (damaged header, damaged gzip). Loaded through
// loadProfileFromBytes like any file, then the analyses run on the result.
#include "fuzzcommon.h"
#include "share/sharefile.h"

#include <zlib.h>

namespace {

std::string gzip(const uint8_t* data, size_t size)
{
    z_stream zs {};
    if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return {};
    std::string out(deflateBound(&zs, size) + 64, '\0');
    zs.next_in = const_cast<Bytef*>(data);
    zs.avail_in = static_cast<uInt>(size);
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return rc == Z_STREAM_END ? out : std::string();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace tpuscope::model;
    if (size < 1)
        return 0;
    const bool wrapHere = data[0] & 1;
    ++data;
    --size;
    if (!wrapHere) {
        tpuscope::fuzz::loadAndExercise(data, size, "profile.tpuscope");
        return 0;
    }
    const std::string file = std::string(kShareMagic) + " " + std::to_string(kShareVersion) + "\n" + gzip(data, size);
    tpuscope::fuzz::loadAndExercise(reinterpret_cast<const uint8_t*>(file.data()), file.size(), "profile.tpuscope");
    return 0;
}
