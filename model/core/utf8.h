// SPDX-License-Identifier: GPL-3.0-or-later
// Names in a profile are bytes from the file; what tpuscope writes (JSON, CSV, Markdown, share
// files) must be valid UTF-8. Invalid sequences become U+FFFD, one per byte that starts no valid
// sequence, so the same bytes always give the same text.
#pragma once

#include <string>
#include <string_view>

namespace tpuscope::model {

namespace utf8_detail {

/// Length of the valid UTF-8 sequence at s[i] (1..4), or 0 when none starts there. Rejects
/// overlong forms, surrogates and code points above U+10FFFF (RFC 3629).
inline size_t validSequenceLength(std::string_view s, size_t i)
{
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    if (c < 0x80)
        return 1;
    size_t length;
    unsigned char low = 0x80, high = 0xBF; // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        length = 3;
        if (c == 0xE0)
            low = 0xA0;
        else if (c == 0xED)
            high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        length = 4;
        if (c == 0xF0)
            low = 0x90;
        else if (c == 0xF4)
            high = 0x8F;
    } else {
        return 0;
    }
    if (i + length > s.size() || byte(i + 1) < low || byte(i + 1) > high)
        return 0;
    for (size_t k = 2; k < length; ++k)
        if ((byte(i + k) & 0xC0) != 0x80)
            return 0;
    return length;
}

} // namespace utf8_detail

inline bool isValidUtf8(std::string_view s)
{
    for (size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) { // ASCII fast path
            ++i;
            continue;
        }
        const size_t n = utf8_detail::validSequenceLength(s, i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

/// Appends `s` to `out` with every invalid byte replaced by U+FFFD.
inline void appendValidUtf8(std::string& out, std::string_view s)
{
    for (size_t i = 0; i < s.size();) {
        const size_t n = utf8_detail::validSequenceLength(s, i);
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
        } else {
            out.append(s.data() + i, n);
            i += n;
        }
    }
}

inline std::string toValidUtf8(std::string_view s)
{
    if (isValidUtf8(s))
        return std::string(s);
    std::string out;
    out.reserve(s.size() + 8);
    appendValidUtf8(out, s);
    return out;
}

} // namespace tpuscope::model
