// SPDX-License-Identifier: GPL-3.0-or-later
#include "gzip.h"

#include <zlib.h>

#include <algorithm>

namespace tpuscope::model {

bool isGzip(std::string_view bytes)
{
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f
        && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string inflateLimitMessage(uint64_t maxBytes)
{
    return "decompressed data exceeds the limit of " + std::to_string(maxBytes >> 20)
        + " MiB (possible gzip bomb); raise it with --max-decompressed-mb";
}

std::string inflateTruncatedMessage(uint64_t compressedRead, uint64_t inflated)
{
    return "the gzip stream is truncated after " + std::to_string(compressedRead) + " compressed bytes ("
        + std::to_string(inflated) + " bytes inflated)";
}

std::string inflateCorruptMessage(uint64_t compressedOffset, const char* zlibMessage)
{
    return "corrupt gzip data at compressed offset " + std::to_string(compressedOffset) + ": "
        + (zlibMessage ? zlibMessage : "inflate failed");
}

bool gunzip(std::string_view compressed, std::string& out, uint64_t maxBytes, std::string& error,
    const std::function<void(double)>& progress, std::stop_token stop)
{
    z_stream zs {};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
        error = "zlib could not be initialised";
        return false;
    }
    out.clear();
    // ISIZE (last 4 bytes) is the uncompressed size mod 2^32. When it is at least what deflate
    // could have produced from this input (stored blocks add ~5 bytes per 64 KiB) it is taken as
    // the exact size, which it is for single-member files under 4 GiB: the buffer is then
    // allocated once and never grown, copied or shrunk (the loader's shrink_to_fit is free).
    // Otherwise (several members, > 4 GiB, damage) start from 4× and grow.
    uint64_t guess = compressed.size() * 4;
    if (compressed.size() >= 18) {
        const auto* tail = reinterpret_cast<const unsigned char*>(compressed.data() + compressed.size() - 4);
        const uint64_t isize = tail[0] | (tail[1] << 8) | (tail[2] << 16) | (uint32_t(tail[3]) << 24);
        const uint64_t lowerBound = compressed.size() > 1024 ? compressed.size() - compressed.size() / 64 - 1024 : 0;
        // A damaged trailer must not make us allocate more than deflate can expand to (1032:1).
        if (isize >= lowerBound)
            guess = std::min<uint64_t>(isize, compressed.size() * 1032ull + (1 << 20));
    }
    out.resize(std::min<uint64_t>(std::max<uint64_t>(guess, 1), maxBytes));
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    size_t produced = 0;
    size_t consumedBefore = 0;
    const size_t total = compressed.size();
    int lastPermille = -1;
    bool ok = true;
    for (;;) {
        const size_t remainingIn = total - consumedBefore - zs.total_in;
        zs.avail_in = static_cast<uInt>(std::min<size_t>(remainingIn, 1u << 30));
        if (produced == out.size()) {
            if (out.size() >= maxBytes) {
                error = inflateLimitMessage(maxBytes);
                ok = false;
                break;
            }
            out.resize(std::min<uint64_t>(maxBytes, out.size() * 2));
        }
        zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
        zs.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - produced, 1u << 30));
        const uInt outBefore = zs.avail_out;
        const int rc = inflate(&zs, Z_NO_FLUSH);
        produced += outBefore - zs.avail_out;
        if (rc == Z_STREAM_END) {
            consumedBefore += zs.total_in;
            // Another gzip member may follow; trailing zero padding is tolerated.
            const char* rest = compressed.data() + consumedBefore;
            const size_t restSize = total - consumedBefore;
            if (restSize >= 2 && isGzip(std::string_view(rest, restSize))) {
                inflateReset(&zs);
                zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(rest));
                continue;
            }
            break;
        }
        if (rc == Z_BUF_ERROR && zs.avail_in == 0 && remainingIn == 0) {
            error = inflateTruncatedMessage(consumedBefore + zs.total_in, produced);
            ok = false;
            break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            error = inflateCorruptMessage(consumedBefore + zs.total_in, zs.msg);
            ok = false;
            break;
        }
        if (stop.stop_requested()) {
            error = "cancelled";
            ok = false;
            break;
        }
        if (progress && total) {
            const int permille = static_cast<int>(1000.0 * (consumedBefore + zs.total_in) / total);
            if (permille != lastPermille) {
                lastPermille = permille;
                progress(permille / 1000.0);
            }
        }
    }
    inflateEnd(&zs);
    out.resize(produced);
    return ok;
}

} // namespace tpuscope::model
