// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsontokenizer.h"

#include "inputsource.h"

#include "core/jsontext.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace tpuscope::model::json {

namespace {

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// Reads the 4 hex digits after "\u" at raw[i]; -1 when they are not there.
int32_t readHex4(std::string_view raw, size_t i)
{
    if (i + 4 > raw.size())
        return -1;
    int32_t value = 0;
    for (size_t k = 0; k < 4; ++k) {
        const int h = hexValue(raw[i + k]);
        if (h < 0)
            return -1;
        value = value * 16 + h;
    }
    return value;
}

using jsontext::appendUtf8;
constexpr uint32_t kReplacement = jsontext::kReplacementCharacter;

} // namespace

void decodeEscapes(std::string_view raw, std::string& out)
{
    out.clear();
    out.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c != '\\' || i + 1 >= raw.size()) {
            out += c;
            continue;
        }
        const char e = raw[++i];
        char simple;
        if (jsontext::simpleEscape(e, simple)) {
            out += simple;
            continue;
        }
        if (e != 'u') {
            appendUtf8(out, kReplacement);
            continue;
        }
        const int32_t unit = readHex4(raw, i + 1);
        if (unit < 0) {
            appendUtf8(out, kReplacement);
            continue;
        }
        i += 4;
        // A high surrogate must be followed by \u and a low surrogate.
        int64_t next = -1;
        if (jsontext::isHighSurrogate(static_cast<uint32_t>(unit)) && i + 2 < raw.size() && raw[i + 1] == '\\'
            && raw[i + 2] == 'u')
            next = readHex4(raw, i + 3);
        bool usedNext = false;
        appendUtf8(out, jsontext::codePoint(static_cast<uint32_t>(unit), next, usedNext));
        if (usedNext)
            i += 6;
    }
}

bool decimalToScaledInt(std::string_view text, int scale, __int128& out)
{
    // Fast path for what trace writers print ("1144995.94963"): at most 18 digits, no
    // exponent, no more fraction digits than the scale — one 64-bit accumulation, exact.
    if (scale >= 0 && scale <= 18 && !text.empty()) {
        static constexpr uint64_t kPow10[19]
            = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
                10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
                1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull};
        size_t i = text[0] == '-' ? 1 : 0;
        const bool negative = i == 1;
        uint64_t mantissa = 0;
        int digits = 0, intDigits = 0, fracDigits = -1;
        for (; i < text.size(); ++i) {
            const char c = text[i];
            if (c >= '0' && c <= '9') {
                mantissa = mantissa * 10 + static_cast<uint64_t>(c - '0');
                ++digits;
                if (fracDigits >= 0)
                    ++fracDigits;
                else
                    ++intDigits;
            } else if (c == '.' && fracDigits < 0) {
                fracDigits = 0;
            } else {
                break;
            }
        }
        if (i == text.size() && digits <= 18 && intDigits > 0 && fracDigits != 0 && fracDigits <= scale) {
            const __int128 value = static_cast<__int128>(mantissa) * kPow10[scale - std::max(fracDigits, 0)];
            out = negative ? -value : value;
            return true;
        }
    }
    // Significant digits beyond 36 cannot change a result that must fit in ±1.7e38 except by
    // rounding; they are dropped (integer digits still count toward the exponent).
    constexpr int kMaxDigits = 36;
    size_t i = 0;
    bool negative = false;
    if (i < text.size() && text[i] == '-') {
        negative = true;
        ++i;
    }
    __int128 mantissa = 0;
    int digits = 0;
    int exponent = 0;
    bool anyDigit = false;
    bool roundUp = false; // first dropped digit >= 5
    bool dropped = false;
    auto addDigit = [&](int d, bool fractional) {
        anyDigit = true;
        if (digits == 0 && d == 0) {
            if (fractional)
                --exponent;
            return;
        }
        if (digits < kMaxDigits) {
            mantissa = mantissa * 10 + d;
            ++digits;
            if (fractional)
                --exponent;
        } else {
            if (!dropped)
                roundUp = d >= 5;
            dropped = true;
            if (!fractional)
                ++exponent;
        }
    };
    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
        addDigit(text[i++] - '0', false);
    if (i < text.size() && text[i] == '.') {
        ++i;
        const size_t fracStart = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9')
            addDigit(text[i++] - '0', true);
        if (i == fracStart)
            return false;
    }
    if (!anyDigit)
        return false;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool expNegative = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-'))
            expNegative = text[i++] == '-';
        const size_t expStart = i;
        int64_t e = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            if (e < 100000)
                e = e * 10 + (text[i] - '0');
            ++i;
        }
        if (i == expStart)
            return false;
        exponent += static_cast<int>(expNegative ? -e : e);
    }
    if (i != text.size())
        return false;
    if (roundUp)
        mantissa += 1;
    int shift = exponent + scale;
    if (mantissa == 0) {
        out = 0;
        return true;
    }
    constexpr __int128 kLimit = static_cast<__int128>(1) << 126;
    if (shift >= 0) {
        for (; shift > 0; --shift) {
            if (mantissa > kLimit / 10)
                return false;
            mantissa *= 10;
        }
    } else {
        // Divide with half-away-from-zero rounding; beyond 38 places everything rounds to 0.
        if (shift < -38) {
            out = 0;
            return true;
        }
        __int128 divisor = 1;
        for (; shift < 0; ++shift)
            divisor *= 10;
        const __int128 quotient = mantissa / divisor;
        const __int128 remainder = mantissa % divisor;
        mantissa = quotient + (remainder * 2 >= divisor ? 1 : 0);
    }
    out = negative ? -mantissa : mantissa;
    return true;
}

bool Cursor::refill()
{
    if (!m_source || m_error)
        return false;
    const char* end = m_source->extend(m_end);
    if (end <= m_end)
        return false;
    m_end = end;
    return true;
}

void Cursor::releaseRange(const char* from, const char* to)
{
    m_source->release(from, to);
}

bool parseInt64(std::string_view text, int64_t& out)
{
    const char* first = text.data();
    const char* last = first + text.size();
    auto [ptr, ec] = std::from_chars(first, last, out);
    return ec == std::errc() && ptr == last;
}

bool parseUint64(std::string_view text, uint64_t& out)
{
    const char* first = text.data();
    const char* last = first + text.size();
    auto [ptr, ec] = std::from_chars(first, last, out);
    return ec == std::errc() && ptr == last;
}

bool parseDouble(std::string_view text, double& out)
{
    const char* first = text.data();
    const char* last = first + text.size();
    auto [ptr, ec] = std::from_chars(first, last, out);
    if (ec == std::errc::result_out_of_range) {
        // from_chars leaves `out` untouched on overflow; keep the sign and magnitude class.
        out = (text.starts_with('-') ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
        for (char c : text)
            if (c == 'e' || c == 'E') {
                const bool tiny
                    = text.find("e-") != std::string_view::npos || text.find("E-") != std::string_view::npos;
                if (tiny)
                    out = 0;
                break;
            }
        return ptr == last;
    }
    return ec == std::errc() && ptr == last;
}

} // namespace tpuscope::model::json
