// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

namespace tpuscope::model {

bool isGzip(std::string_view bytes);

/// Compressed data inflating by more than this ratio, once past kRatioGuardBytes, is taken for a
/// bomb: real profiles inflate 10-30:1, a stream of zeros 1000:1.
constexpr uint64_t kDefaultMaxCompressionRatio = 200;
constexpr uint64_t kRatioGuardBytes = 256ull << 20;

/// The messages of the inflaters (gunzip and InflateStream), worded once.
std::string inflateLimitMessage(uint64_t maxBytes);
/// Empty while `produced` bytes from `consumed` compressed bytes stay within `maxRatio` (0 = no
/// ratio guard) or below kRatioGuardBytes; otherwise the message, naming the flag that raises it.
std::string inflateRatioProblem(uint64_t consumed, uint64_t produced, uint64_t maxRatio);
std::string inflateTruncatedMessage(uint64_t compressedRead, uint64_t inflated);
std::string inflateCorruptMessage(uint64_t compressedOffset, const char* zlibMessage);

/// One gzip member of `in` at `level` (1 fastest … 9 smallest); false with `error` if zlib fails.
bool gzipCompress(std::string_view in, std::string& out, std::string& error, int level = 9);

/// Inflates a gzip stream of one or more members (concatenated, as gzip allows; trailing zero
/// padding is tolerated) in steps into buffers the caller brings. The inflater is ISA-L's igzip,
/// which streams at the speed of libdeflate's whole-buffer inflate (2-3x zlib); zlib when
/// TPUSCOPE_INFLATER=zlib (the tests compare the two).
class GzipReader
{
public:
    enum class Status { More, Done, Error };

    explicit GzipReader(std::string_view compressed);
    ~GzipReader();
    GzipReader(const GzipReader&) = delete;
    GzipReader& operator=(const GzipReader&) = delete;

    /// Inflates into [out, out + capacity) (capacity > 0), adding the bytes written to `written`.
    /// Error means corrupt or truncated input; error() says which and where.
    Status inflateInto(char* out, size_t capacity, size_t& written);
    /// Compressed bytes consumed so far.
    uint64_t consumed() const { return m_consumedBefore + m_totalIn; }
    uint64_t produced() const { return m_produced; }
    const std::string& error() const { return m_error; }

private:
    Status inflateIsal(char* out, size_t capacity, size_t& written);
    /// After a member's end: true when another member follows (the inflater is then reset to it).
    bool nextMember();

    std::string_view m_compressed;
    bool m_isal;
    void* m_stream = nullptr; // inflate_state (ISA-L) or z_stream, kept out of this header
    uint64_t m_consumedBefore = 0;
    uint64_t m_totalIn = 0;
    uint64_t m_produced = 0;
    std::string m_error;
};

/// Inflates a gzip stream (several members are concatenated, as gzip allows). Refuses to
/// produce more than `maxBytes` or more than `maxRatio` times the input (gzip bombs; 0 = no ratio
/// guard) and reports corrupt or truncated input in `error`. The buffer grows with the data: the
/// size in the gzip trailer is never trusted (a std::string sized from it would be committed
/// memory). `progress` gets the fraction of input consumed.
bool gunzip(std::string_view compressed, std::string& out, uint64_t maxBytes, std::string& error,
    const std::function<void(double)>& progress = {}, std::stop_token stop = {}, uint64_t maxRatio = 0);

} // namespace tpuscope::model
