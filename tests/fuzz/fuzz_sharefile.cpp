// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the tpuscope share file. The first byte picks the mode: odd = the rest is the
// share JSON, wrapped here in the real header + gzip (so mutations reach the JSON decoder), even =
// the rest is a whole file as is (damaged header, damaged gzip). Loaded through
// loadProfileFromBytes like any file, then the analyses run on the result. The custom mutator
// changes the JSON's counts, lengths, indices and names (sharemutator.h) half of the time.
#include "fuzzcommon.h"
#include "loader/gzip.h"
#include "share/sharefile.h"
#include "sharemutator.h"

#include <cstring>

namespace {

std::string gzip(const uint8_t* data, size_t size)
{
    std::string out, error;
    return tpuscope::model::gzipCompress(std::string_view(reinterpret_cast<const char*>(data), size), out, error, 1)
        ? out
        : std::string();
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

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize, unsigned int seed)
{
    if (size > 1 && (data[0] & 1) && seed % 2 == 0) {
        const std::string_view json(reinterpret_cast<const char*>(data + 1), size - 1);
        const std::string mutated = tpuscope::fuzz::ShareJsonMutator::mutate(json, seed);
        if (mutated != json && mutated.size() + 1 <= maxSize) {
            std::memcpy(data + 1, mutated.data(), mutated.size());
            return mutated.size() + 1;
        }
    }
    return LLVMFuzzerMutate(data, size, maxSize);
}
