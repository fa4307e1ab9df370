// SPDX-License-Identifier: GPL-3.0-or-later
// A small pull tokenizer for large JSON documents: the caller walks the structure it expects
// and skips the rest, so nothing like a DOM is ever built. Strings come back as views into the
// input (escapes are decoded only on request), numbers as their text, which lets callers
// convert them exactly (Chrome trace timestamps are decimal microseconds that must become
// integer picoseconds without a detour through double).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tpuscope::model {
class ByteSource;
}

namespace tpuscope::model::json {

/// A string token as it appears in the input, without the quotes.
struct RawString
{
    std::string_view raw;
    bool escaped = false; // contains backslash escapes; decode() before showing it
};

/// Decodes JSON escapes (\n, \", \uXXXX with surrogate pairs) into UTF-8; malformed escapes
/// and lone surrogates become U+FFFD.
void decodeEscapes(std::string_view raw, std::string& out);

/// The text of a string token, decoded into `scratch` only when it has escapes.
inline std::string_view text(const RawString& s, std::string& scratch)
{
    if (!s.escaped)
        return s.raw;
    decodeEscapes(s.raw, scratch);
    return scratch;
}

/// Decimal text (JSON number grammar, leading/trailing spaces not allowed) × 10^scale as an
/// exact integer, rounded half away from zero. False on syntax errors or when the result does
/// not fit ±1.7e38. Used for µs → ps (scale 6).
bool decimalToScaledInt(std::string_view text, int scale, __int128& out);
/// Integer text (optionally with sign) into int64/uint64; false when it is not an integer or overflows.
bool parseInt64(std::string_view text, int64_t& out);
bool parseUint64(std::string_view text, uint64_t& out);
/// Any JSON number text; false on syntax errors.
bool parseDouble(std::string_view text, double& out);

class Cursor
{
public:
    static constexpr int kMaxDepth = 64;

    explicit Cursor(std::string_view text)
        : m_begin(text.data())
        , m_p(text.data())
        , m_end(text.data() + text.size())
    {
    }

    /// Input that is still arriving: whenever the cursor reaches the end of what it has, it asks
    /// the source for more (blocking) before treating the end as the end of the document.
    void setSource(ByteSource* source) { m_source = source; }
    const char* position() const { return m_p; }

    size_t offset() const { return static_cast<size_t>(m_p - m_begin); }
    bool atEnd()
    {
        skipWhitespace();
        return m_p >= m_end;
    }
    bool failed() const { return m_error != nullptr; }
    const char* error() const { return m_error; }
    size_t errorOffset() const { return m_errorOffset; }
    /// The error was running out of input (a truncated file) rather than bad syntax.
    bool truncated() const { return m_truncated; }

    /// Records the first error and moves to the end so that every later call fails fast.
    void fail(const char* message)
    {
        if (!m_error) {
            m_error = message;
            m_errorOffset = offset();
            m_truncated = m_p >= m_end;
        }
        m_p = m_end;
    }

    /// Skips a UTF-8 byte order mark at the cursor (Windows editors write one before the JSON),
    /// asking a streamed source for its first bytes if it has not given them yet.
    void skipByteOrderMark()
    {
        while (m_end - m_p < 3 && refill()) { }
        if (m_end - m_p >= 3 && static_cast<unsigned char>(m_p[0]) == 0xEF && static_cast<unsigned char>(m_p[1]) == 0xBB
            && static_cast<unsigned char>(m_p[2]) == 0xBF)
            m_p += 3;
    }

    void skipWhitespace()
    {
        const char* run = m_p;
        do {
            while (m_p < m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t'))
                ++m_p;
            releaseSkipped(run);
        } while (m_p >= m_end && refill());
    }

    /// Next significant character, or '\0' at the end.
    char peek()
    {
        skipWhitespace();
        return m_p < m_end ? *m_p : '\0';
    }

    bool consume(char c)
    {
        skipWhitespace();
        if (m_p < m_end && *m_p == c) {
            ++m_p;
            return true;
        }
        return false;
    }

    bool expect(char c, const char* message)
    {
        if (consume(c))
            return true;
        fail(m_p >= m_end ? "unexpected end of data" : message);
        return false;
    }

    /// Reads a string token (the cursor must be at its opening quote after whitespace).
    bool string(RawString& out) { return scanString(out, SIZE_MAX); }

    /// Reads a string token the caller only needs when it is short: one longer than `keepAtMost`
    /// bytes is skipped like an unread value (its pages go back to the system as the scan passes
    /// them) and comes back with `kept` false and an empty view.
    bool stringIfShort(RawString& out, size_t keepAtMost, bool& kept)
    {
        const bool ok = scanString(out, keepAtMost);
        kept = ok && out.raw.data() != nullptr;
        return ok;
    }

    /// Reads a number token's text (validated later by the converters).
    bool number(std::string_view& out)
    {
        skipWhitespace();
        const char* start = m_p;
        do {
            while (m_p < m_end && isNumberChar(*m_p))
                ++m_p;
        } while (m_p >= m_end && refill());
        if (m_p == start || m_p >= m_end) {
            // A number can never end a valid document inside our containers.
            fail(m_p >= m_end ? "unexpected end of data" : "expected a number");
            return false;
        }
        out = std::string_view(start, static_cast<size_t>(m_p - start));
        return true;
    }

    /// Skips one value of any type without recursion. `depth` is the nesting level the value
    /// sits at; containers nested deeper than kMaxDepth are an error (not a stack overflow).
    bool skipValue(int depth)
    {
        const char c = peek();
        if (c == '"') {
            RawString ignored;
            return scanString(ignored, 0);
        }
        if (c == '{' || c == '[')
            return skipContainer(depth);
        if (c == 't' || c == 'f' || c == 'n')
            return literal();
        if (c == '-' || (c >= '0' && c <= '9')) {
            std::string_view ignored;
            return number(ignored);
        }
        fail(c == '\0' ? "unexpected end of data" : "unexpected character");
        return false;
    }

    /// true / false / null; returns which via `value` ('t', 'f', 'n').
    bool literal(char* which = nullptr)
    {
        skipWhitespace();
        while (m_end - m_p < 5 && refill()) { }
        auto match = [&](std::string_view word) {
            if (static_cast<size_t>(m_end - m_p) >= word.size() && std::string_view(m_p, word.size()) == word) {
                m_p += word.size();
                return true;
            }
            return false;
        };
        const char c = m_p < m_end ? *m_p : '\0';
        if ((c == 't' && match("true")) || (c == 'f' && match("false")) || (c == 'n' && match("null"))) {
            if (which)
                *which = c;
            return true;
        }
        // A literal cut short by the end of the data ("tru") is truncation, not bad syntax.
        const std::string_view rest(m_p, static_cast<size_t>(m_end - m_p));
        if (rest.size() < 5
            && (std::string_view("true").starts_with(rest) || std::string_view("false").starts_with(rest)
                || std::string_view("null").starts_with(rest))) {
            m_p = m_end;
            fail("unexpected end of data");
        } else {
            fail("unexpected character");
        }
        return false;
    }

private:
    /// Asks the source for more input; false when there is none (the real end).
    bool refill();
    void releaseRange(const char* from, const char* to);

    /// The string token at the cursor. Once it is longer than `keepAtMost` bytes nobody reads it:
    /// its pages are handed back in 1 MiB runs while the scan goes on, so a huge string inside a
    /// skipped value never stays resident, and `out.raw` comes back empty with a null data().
    bool scanString(RawString& out, size_t keepAtMost)
    {
        constexpr size_t kReleaseRun = 1 << 20;
        skipWhitespace();
        if (m_p >= m_end || *m_p != '"') {
            fail(m_p >= m_end ? "unexpected end of data" : "expected a string");
            return false;
        }
        const char* start = ++m_p;
        const char* p = start;
        const char* unreleased = start; // bytes of a dropped string not yet handed back
        bool dropped = keepAtMost == 0;
        bool escaped = false;
        for (;;) {
            if (!dropped && static_cast<size_t>(p - start) > keepAtMost)
                dropped = true;
            if (dropped && m_source && static_cast<size_t>(p - unreleased) >= kReleaseRun) {
                releaseRange(unreleased, p);
                unreleased = p;
            }
            // A dropped string is scanned in runs so that its pages can be handed back as it goes.
            const char* runEnd = m_end;
            if (dropped && m_source && static_cast<size_t>(m_end - p) > kReleaseRun)
                runEnd = p + kReleaseRun;
#if defined(__SSE2__)
            const __m128i quote = _mm_set1_epi8('"');
            const __m128i backslash = _mm_set1_epi8('\\');
            while (p + 16 <= runEnd) {
                const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
                const int mask
                    = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
                if (mask) {
                    p += __builtin_ctz(static_cast<unsigned>(mask));
                    goto found;
                }
                p += 16;
            }
#endif
            while (p < runEnd && *p != '"' && *p != '\\')
                ++p;
            if (p >= runEnd && runEnd < m_end)
                continue; // the end of a run, not of the input
            if (p >= m_end && refill())
                continue;
            if (p >= m_end) {
                m_p = m_end;
                fail("unexpected end of data inside a string");
                return false;
            }
#if defined(__SSE2__)
        found:
#endif
            if (*p == '"')
                break;
            escaped = true;
            while (p + 2 > m_end && refill()) { }
            if (p + 2 > m_end) {
                m_p = m_end;
                fail("unexpected end of data inside a string");
                return false;
            }
            p += 2;
        }
        if (dropped) {
            if (m_source && static_cast<size_t>(p - start) > kReleaseRun)
                releaseRange(unreleased, p);
            out.raw = std::string_view();
            out.escaped = false;
        } else {
            out.raw = std::string_view(start, static_cast<size_t>(p - start));
            out.escaped = escaped;
        }
        m_p = p + 1;
        return true;
    }

    /// Skipped bytes (whitespace, values nobody reads) are never looked at again: once a run of
    /// them is long, its pages go back to the system, so padding does not stay resident.
    void releaseSkipped(const char*& from)
    {
        constexpr ptrdiff_t kReleaseRun = 1 << 20;
        if (m_source && m_p - from >= kReleaseRun) {
            releaseRange(from, m_p);
            from = m_p;
        }
    }

    static bool isNumberChar(char c)
    {
        return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
    }

    bool skipContainer(int depth)
    {
        // Bit i of `kinds` says whether open level i is an object; with at most kMaxDepth
        // levels the whole stack fits one word, and closing brackets are checked against it.
        uint64_t kinds = 0;
        int level = 0;
        const int limit = kMaxDepth - depth;
        const char* skipped = m_p;
        while (m_p < m_end || refill()) {
            releaseSkipped(skipped);
            const char c = *m_p;
            switch (c) {
            case '"': {
                RawString ignored;
                if (!scanString(ignored, 0))
                    return false;
                continue;
            }
            case '{':
            case '[':
                if (level >= limit || level >= 64) {
                    fail("JSON nested deeper than 64 levels");
                    return false;
                }
                kinds = (kinds & ~(uint64_t(1) << level)) | (uint64_t(c == '{') << level);
                ++level;
                break;
            case '}':
            case ']':
                if (level == 0 || ((kinds >> (level - 1)) & 1) != (c == '}')) {
                    fail("mismatched bracket");
                    return false;
                }
                --level;
                if (level == 0) {
                    ++m_p;
                    return true;
                }
                break;
            default:
                break;
            }
            ++m_p;
        }
        fail("unexpected end of data");
        return false;
    }

    const char* m_begin;
    const char* m_p;
    const char* m_end;
    const char* m_error = nullptr;
    size_t m_errorOffset = 0;
    bool m_truncated = false;
    ByteSource* m_source = nullptr;
};

} // namespace tpuscope::model::json
