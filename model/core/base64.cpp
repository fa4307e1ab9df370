// SPDX-License-Identifier: GPL-3.0-or-later
#include "base64.h"

#include <cstdint>

namespace tpuscope::model {

namespace {

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64Value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

} // namespace

std::string base64Encode(std::string_view in)
{
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        const uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
        out += kBase64[v >> 18];
        out += kBase64[(v >> 12) & 63];
        out += kBase64[(v >> 6) & 63];
        out += kBase64[v & 63];
    }
    if (i < in.size()) {
        uint32_t v = uint8_t(in[i]) << 16;
        if (i + 1 < in.size())
            v |= uint8_t(in[i + 1]) << 8;
        out += kBase64[v >> 18];
        out += kBase64[(v >> 12) & 63];
        out += i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

bool base64Decode(std::string_view in, std::string& out, std::string& error)
{
    out.clear();
    uint32_t acc = 0;
    int bits = 0;
    size_t padding = 0, chars = 0;
    for (size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (c == '=') {
            ++padding;
            continue;
        }
        const int v = base64Value(c);
        if (v < 0 || padding) {
            // Control and non-ASCII bytes are named by value: printed raw they garble the terminal.
            char shown[16];
            if (c > 0x20 && c < 0x7f)
                std::snprintf(shown, sizeof shown, "'%c'", c);
            else
                std::snprintf(shown, sizeof shown, "byte 0x%02X", static_cast<unsigned char>(c));
            error = "invalid character " + std::string(shown) + " at position " + std::to_string(i)
                + " of the base64 text";
            return false;
        }
        ++chars;
        acc = (acc << 6) | uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xff);
        }
    }
    if ((chars + padding) % 4 != 0 && padding) {
        error = "the base64 text has the wrong length (a line may be missing)";
        return false;
    }
    if (chars % 4 == 1) {
        error = "the base64 text ends in the middle of a byte (it is truncated)";
        return false;
    }
    return true;
}

} // namespace tpuscope::model
