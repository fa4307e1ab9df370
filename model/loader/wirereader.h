// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tpuscope::model::wire {

enum WireType : uint32_t { Varint = 0, Fixed64 = 1, Len = 2, StartGroup = 3, EndGroup = 4, Fixed32 = 5 };

/// A bounds-checked protobuf wire-format cursor. It never reads past `end`; on malformed input
/// it sets failed() and stops, so callers loop on next() without further checks. Offsets are
/// relative to `base` for error messages.
class Reader
{
public:
    Reader(const char* begin, const char* end, const char* base)
        : m_p(reinterpret_cast<const uint8_t*>(begin))
        , m_end(reinterpret_cast<const uint8_t*>(end))
        , m_base(reinterpret_cast<const uint8_t*>(base))
    {
    }
    explicit Reader(std::string_view bytes)
        : Reader(bytes.data(), bytes.data() + bytes.size(), bytes.data())
    {
    }
    Reader(std::string_view bytes, const char* base)
        : Reader(bytes.data(), bytes.data() + bytes.size(), base)
    {
    }

    /// Reads the next tag; false at the end or on error.
    bool next()
    {
        if (m_failed || m_p >= m_end)
            return false;
        uint64_t tag;
        if (!varint(tag))
            return false;
        m_field = static_cast<uint32_t>(tag >> 3);
        m_type = static_cast<uint32_t>(tag & 7);
        if (m_field == 0)
            return fail("field number 0");
        return true;
    }

    uint32_t field() const { return m_field; }
    uint32_t type() const { return m_type; }
    bool failed() const { return m_failed; }
    const char* error() const { return m_error; }
    uint64_t offset() const { return static_cast<uint64_t>(m_p - m_base); }
    uint64_t errorOffset() const { return m_errorOffset; }
    bool atEnd() const { return m_p >= m_end; }

    uint64_t u64()
    {
        uint64_t v = 0;
        if (m_type == Varint)
            varint(v);
        else if (m_type == Fixed64)
            fixed(&v, 8);
        else if (m_type == Fixed32) {
            uint32_t w = 0;
            fixed(&w, 4);
            v = w;
        } else
            skip();
        return v;
    }
    int64_t i64() { return static_cast<int64_t>(u64()); }
    double f64()
    {
        if (m_type == Fixed64) {
            double d = 0;
            fixed(&d, 8);
            return d;
        }
        if (m_type == Fixed32) {
            float f = 0;
            fixed(&f, 4);
            return f;
        }
        return static_cast<double>(u64());
    }
    /// Length-delimited payload (strings, bytes, sub-messages, packed arrays).
    std::string_view bytes()
    {
        if (m_type != Len) {
            skip();
            fail("expected a length-delimited field");
            return {};
        }
        uint64_t n;
        if (!varint(n))
            return {};
        if (n > static_cast<uint64_t>(m_end - m_p)) {
            fail("length runs past the end of the enclosing message (truncated or corrupt)");
            return {};
        }
        std::string_view out(reinterpret_cast<const char*>(m_p), n);
        m_p += n;
        return out;
    }
    /// A sub-reader over a length-delimited payload, sharing the base for offsets.
    Reader sub()
    {
        std::string_view b = bytes();
        Reader r(b.data(), b.data() + b.size(), reinterpret_cast<const char*>(m_base));
        if (m_failed)
            r.m_failed = true;
        return r;
    }
    /// Reads a repeated int64 field, packed or not, calling fn(value) for each.
    template<typename Fn>
    void repeatedI64(Fn&& fn)
    {
        if (m_type == Len) {
            Reader packed = sub();
            while (!packed.atEnd() && !packed.failed()) {
                uint64_t v;
                if (!packed.varint(v))
                    break;
                fn(static_cast<int64_t>(v));
            }
            if (packed.failed())
                fail(packed.error());
        } else {
            fn(i64());
        }
    }

    void skip()
    {
        switch (m_type) {
        case Varint: {
            uint64_t v;
            varint(v);
            break;
        }
        case Fixed64: advance(8); break;
        case Fixed32: advance(4); break;
        case Len: bytes(); break;
        default: fail("unsupported wire type (groups or garbage)"); break;
        }
    }

    bool fail(const char* why)
    {
        if (!m_failed) {
            m_failed = true;
            m_error = why;
            m_errorOffset = offset();
        }
        m_p = m_end;
        return false;
    }

    bool varint(uint64_t& out)
    {
        uint64_t result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_p >= m_end)
                return fail("varint runs past the end (truncated)");
            const uint8_t byte = *m_p++;
            result |= static_cast<uint64_t>(byte & 0x7f) << shift;
            if (!(byte & 0x80)) {
                out = result;
                return true;
            }
        }
        return fail("varint longer than 10 bytes");
    }

private:
    void advance(size_t n)
    {
        if (static_cast<size_t>(m_end - m_p) < n) {
            fail("fixed-width field runs past the end (truncated)");
            return;
        }
        m_p += n;
    }
    void fixed(void* out, size_t n)
    {
        if (static_cast<size_t>(m_end - m_p) < n) {
            fail("fixed-width field runs past the end (truncated)");
            return;
        }
        std::memcpy(out, m_p, n);
        m_p += n;
    }

    const uint8_t* m_p;
    const uint8_t* m_end;
    const uint8_t* m_base;
    uint32_t m_field = 0;
    uint32_t m_type = 0;
    bool m_failed = false;
    const char* m_error = "";
    uint64_t m_errorOffset = 0;
};

} // namespace tpuscope::model::wire
