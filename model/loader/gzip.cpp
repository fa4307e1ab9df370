// SPDX-License-Identifier: GPL-3.0-or-later
#include "gzip.h"

// zlib declares next_in const (z_const) under ZLIB_CONST: no cast away from the input's constness.
#define ZLIB_CONST
#include <zlib.h>

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

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

std::string inflateRatioProblem(uint64_t consumed, uint64_t produced, uint64_t maxRatio)
{
    if (maxRatio == 0 || produced <= kRatioGuardBytes || produced / std::max<uint64_t>(consumed, 1) <= maxRatio)
        return {};
    return "the gzip data inflates more than " + std::to_string(maxRatio) + ":1 (" + std::to_string(produced >> 20)
        + " MiB from " + std::to_string(consumed >> 10)
        + " KiB; possible gzip bomb); raise the ratio with --max-compression-ratio N (tpuscope-cli) or the "
          "environment variable TPUSCOPE_MAX_COMPRESSION_RATIO=N (tpuscope and tpuscope-cli)";
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

bool gzipCompress(std::string_view in, std::string& out, std::string& error, int level)
{
    z_stream z {};
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
        error = "cannot initialize zlib";
        return false;
    }
    out.resize(deflateBound(&z, static_cast<uLong>(in.size())) + 64);
    z.next_in = reinterpret_cast<const Bytef*>(in.data());
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    const size_t produced = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        error = "zlib deflate failed";
        return false;
    }
    out.resize(produced);
    return true;
}

namespace {

/// ISA-L's name for what went wrong, in zlib's words where zlib has one, so a damaged file reads
/// the same whichever inflater met it.
const char* isalErrorText(int rc)
{
    switch (rc) {
    case ISAL_INVALID_BLOCK:
        return "invalid block type";
    case ISAL_INVALID_SYMBOL:
        return "invalid code";
    case ISAL_INVALID_LOOKBACK:
        return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER:
        return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD:
        return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM:
        return "incorrect data check";
    default:
        return "inflate failed";
    }
}

bool zlibInflaterChosen()
{
    const char* inflater = std::getenv("TPUSCOPE_INFLATER");
    return inflater && std::strcmp(inflater, "zlib") == 0;
}

} // namespace

GzipReader::GzipReader(std::string_view compressed)
    : m_compressed(compressed)
    , m_isal(!zlibInflaterChosen())
{
    if (m_isal) {
        auto* state = new inflate_state;
        isal_inflate_init(state);
        state->crc_flag = ISAL_GZIP;
        state->next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(compressed.data()));
        m_stream = state;
        return;
    }
    auto* zs = new z_stream {};
    m_stream = zs;
    if (inflateInit2(zs, 16 + MAX_WBITS) != Z_OK)
        m_error = "zlib could not be initialised";
    zs->next_in = reinterpret_cast<const Bytef*>(compressed.data());
}

GzipReader::~GzipReader()
{
    if (m_isal) {
        delete static_cast<inflate_state*>(m_stream);
        return;
    }
    auto* zs = static_cast<z_stream*>(m_stream);
    inflateEnd(zs);
    delete zs;
}

bool GzipReader::nextMember()
{
    // Another gzip member may follow; trailing zero padding (or anything that is not a member)
    // ends the stream, as gzip itself reads it.
    const char* rest = m_compressed.data() + m_consumedBefore;
    const size_t restSize = m_compressed.size() - m_consumedBefore;
    return restSize >= 2 && isGzip(std::string_view(rest, restSize));
}

GzipReader::Status GzipReader::inflateIsal(char* out, size_t capacity, size_t& written)
{
    auto* state = static_cast<inflate_state*>(m_stream);
    const auto* base = reinterpret_cast<const uint8_t*>(m_compressed.data());
    const size_t total = m_compressed.size();
    const size_t remainingIn = total - static_cast<size_t>(state->next_in - base);
    state->avail_in = static_cast<uint32_t>(std::min<size_t>(remainingIn, 1u << 30));
    state->next_out = reinterpret_cast<uint8_t*>(out);
    state->avail_out = static_cast<uint32_t>(std::min<size_t>(capacity, 1u << 30));
    const uint32_t outBefore = state->avail_out;
    const int rc = isal_inflate(state);
    const size_t n = outBefore - state->avail_out;
    written += n;
    m_produced += n;
    m_totalIn = static_cast<uint64_t>(state->next_in - base) - m_consumedBefore;
    if (rc < 0) {
        m_error = inflateCorruptMessage(consumed(), isalErrorText(rc));
        return Status::Error;
    }
    if (state->block_state == ISAL_BLOCK_FINISH) {
        m_consumedBefore += m_totalIn;
        m_totalIn = 0;
        if (!nextMember())
            return Status::Done;
        isal_inflate_reset(state);
        state->crc_flag = ISAL_GZIP;
        state->next_in = const_cast<uint8_t*>(base) + m_consumedBefore;
        return Status::More;
    }
    // No output and no input left: the member ends early. (ISA-L keeps up to a few bytes of
    // output of its own between calls, so only a call that gives nothing means the end.)
    if (n == 0 && state->avail_in == 0 && remainingIn == 0) {
        m_error = inflateTruncatedMessage(consumed(), m_produced);
        return Status::Error;
    }
    // A call that neither reads nor writes would be called again forever: never seen, but the
    // input is a stranger's.
    if (n == 0 && static_cast<size_t>(state->next_in - base) == total - remainingIn) {
        m_error = inflateCorruptMessage(consumed(), "inflate made no progress");
        return Status::Error;
    }
    return Status::More;
}

GzipReader::Status GzipReader::inflateInto(char* out, size_t capacity, size_t& written)
{
    if (!m_error.empty())
        return Status::Error;
    if (m_isal)
        return inflateIsal(out, capacity, written);
    auto* zs = static_cast<z_stream*>(m_stream);
    const size_t total = m_compressed.size();
    const size_t remainingIn = total - m_consumedBefore - zs->total_in;
    zs->avail_in = static_cast<uInt>(std::min<size_t>(remainingIn, 1u << 30));
    zs->next_out = reinterpret_cast<Bytef*>(out);
    zs->avail_out = static_cast<uInt>(std::min<size_t>(capacity, 1u << 30));
    const uInt outBefore = zs->avail_out;
    const int rc = inflate(zs, Z_NO_FLUSH);
    const size_t n = outBefore - zs->avail_out;
    written += n;
    m_produced += n;
    m_totalIn = zs->total_in;
    if (rc == Z_STREAM_END) {
        m_consumedBefore += zs->total_in;
        m_totalIn = 0;
        if (nextMember()) {
            inflateReset(zs);
            zs->next_in = reinterpret_cast<const Bytef*>(m_compressed.data() + m_consumedBefore);
            return Status::More;
        }
        return Status::Done;
    }
    if (rc == Z_BUF_ERROR && zs->avail_in == 0 && remainingIn == 0) {
        m_error = inflateTruncatedMessage(consumed(), m_produced);
        return Status::Error;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
        m_error = inflateCorruptMessage(consumed(), zs->msg);
        return Status::Error;
    }
    return Status::More;
}

bool gunzip(std::string_view compressed, std::string& out, uint64_t maxBytes, std::string& error,
    const std::function<void(double)>& progress, std::stop_token stop, uint64_t maxRatio)
{
    out.clear();
    // The trailer's ISIZE is not trusted (a damaged or hostile file claims 4 GiB): the buffer
    // starts at a few times the input and doubles, bounded by the limit.
    const uint64_t start = std::clamp<uint64_t>(compressed.size() * 4, 64 << 10, 64 << 20);
    out.resize(std::min<uint64_t>(start, std::max<uint64_t>(maxBytes, 1)));
    GzipReader reader(compressed);
    size_t produced = 0;
    const size_t total = compressed.size();
    int lastPermille = -1;
    bool ok = true;
    for (;;) {
        if (produced == out.size()) {
            if (out.size() >= maxBytes) {
                error = inflateLimitMessage(maxBytes);
                ok = false;
                break;
            }
            out.resize(std::min<uint64_t>(maxBytes, out.size() * 2));
        }
        const GzipReader::Status status = reader.inflateInto(out.data() + produced, out.size() - produced, produced);
        if (status == GzipReader::Status::Done)
            break;
        if (status == GzipReader::Status::Error) {
            error = reader.error();
            ok = false;
            break;
        }
        if (std::string problem = inflateRatioProblem(reader.consumed(), produced, maxRatio); !problem.empty()) {
            error = std::move(problem);
            ok = false;
            break;
        }
        if (stop.stop_requested()) {
            error = "cancelled";
            ok = false;
            break;
        }
        if (progress && total) {
            const int permille = static_cast<int>(1000.0 * static_cast<double>(reader.consumed()) / total);
            if (permille != lastPermille) {
                lastPermille = permille;
                progress(permille / 1000.0);
            }
        }
    }
    out.resize(produced);
    return ok;
}

} // namespace tpuscope::model
