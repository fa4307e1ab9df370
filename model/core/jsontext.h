// SPDX-License-Identifier: GPL-3.0-or-later
// JSON string helpers shared by the strict DOM parser (core/jsondom) and the lenient streaming
// tokenizer (loader/jsontokenizer): they differ in how they treat bad input, not in what a
// valid escape means.
#pragma once

#include <cstdint>
#include <string>

namespace tpuscope::model::jsontext {

constexpr uint32_t kReplacementCharacter = 0xFFFD;

inline void appendUtf8(std::string& out, uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

/// The character a one-letter escape (the letter after '\') stands for; false for 'u' and for
/// letters JSON does not define.
inline bool simpleEscape(char letter, char& out)
{
    switch (letter) {
    case '"':
        out = '"';
        return true;
    case '\\':
        out = '\\';
        return true;
    case '/':
        out = '/';
        return true;
    case 'b':
        out = '\b';
        return true;
    case 'f':
        out = '\f';
        return true;
    case 'n':
        out = '\n';
        return true;
    case 'r':
        out = '\r';
        return true;
    case 't':
        out = '\t';
        return true;
    default:
        return false;
    }
}

inline bool isHighSurrogate(uint32_t unit)
{
    return unit >= 0xD800 && unit <= 0xDBFF;
}
inline bool isLowSurrogate(uint32_t unit)
{
    return unit >= 0xDC00 && unit <= 0xDFFF;
}

/// The code point of a \u escape, given the following \u unit when there is one (-1 if not).
/// Lone surrogates become U+FFFD: names are only shown, so the text keeps going.
inline uint32_t codePoint(uint32_t unit, int64_t nextUnit, bool& usedNext)
{
    usedNext = false;
    if (isHighSurrogate(unit)) {
        if (nextUnit >= 0 && isLowSurrogate(static_cast<uint32_t>(nextUnit))) {
            usedNext = true;
            return 0x10000 + ((unit - 0xD800) << 10) + (static_cast<uint32_t>(nextUnit) - 0xDC00);
        }
        return kReplacementCharacter;
    }
    return isLowSurrogate(unit) ? kReplacementCharacter : unit;
}

} // namespace tpuscope::model::jsontext
