// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsondom.h"

#include "jsontext.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace tpuscope::model::json {

namespace {
const Value& nullValue()
{
    static const Value null;
    return null;
}
const std::string& emptyString()
{
    static const std::string empty;
    return empty;
}
} // namespace

const Value* Value::find(std::string_view key) const
{
    if (m_type != Type::Object)
        return nullptr;
    for (const auto& [k, v] : m_object)
        if (k == key)
            return &v;
    return nullptr;
}

const Value& Value::operator[](std::string_view key) const
{
    const Value* v = find(key);
    return v ? *v : nullValue();
}

const Value& Value::at(size_t index) const
{
    return m_type == Type::Array && index < m_array.size() ? m_array[index] : nullValue();
}

size_t Value::size() const
{
    if (m_type == Type::Array)
        return m_array.size();
    if (m_type == Type::Object)
        return m_object.size();
    return 0;
}

const std::string& Value::string() const
{
    return m_type == Type::String ? m_string : emptyString();
}

double Value::number(double fallback) const
{
    if (m_type == Type::Number)
        return m_number;
    if (m_type != Type::String || m_string.empty())
        return fallback;
    if (m_string == "NaN")
        return std::numeric_limits<double>::quiet_NaN();
    if (m_string == "Infinity")
        return std::numeric_limits<double>::infinity();
    if (m_string == "-Infinity")
        return -std::numeric_limits<double>::infinity();
    double out = 0;
    const char* end = m_string.data() + m_string.size();
    auto [ptr, ec] = std::from_chars(m_string.data(), end, out);
    return ec == std::errc() && ptr == end ? out : fallback;
}

uint64_t Value::uint64(uint64_t fallback) const
{
    // Numbers keep their literal text so 64-bit ids survive (a double holds only 53 bits).
    if (m_type != Type::Number && m_type != Type::String)
        return fallback;
    const std::string& text = m_string;
    uint64_t out = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, out);
    if (ec == std::errc() && ptr == end && !text.empty())
        return out;
    if (m_type == Type::Number && m_number >= 0 && m_number < 18446744073709551616.0
        && m_number == std::floor(m_number))
        return static_cast<uint64_t>(m_number); // e.g. "1e3"
    return fallback;
}

std::string ParseError::describe() const
{
    return "JSON error at byte " + std::to_string(offset) + " (line " + std::to_string(line) + ", column "
        + std::to_string(column) + "): " + message;
}

class Parser
{
public:
    Parser(std::string_view text, const ParseOptions& options)
        : m_text(text)
        , m_options(options)
    {
    }

    bool run(Value& out, ParseError& error)
    {
        if (m_text.size() >= 3 && static_cast<unsigned char>(m_text[0]) == 0xEF
            && static_cast<unsigned char>(m_text[1]) == 0xBB && static_cast<unsigned char>(m_text[2]) == 0xBF)
            m_pos = 3;
        if (m_text.size() > m_options.maxBytes) {
            fail("document is larger than the " + std::to_string(m_options.maxBytes >> 20)
                + " MiB limit for this reader");
        } else {
            skipSpace();
            if (m_pos >= m_text.size())
                fail("empty document");
            else if (value(out, 0)) {
                skipSpace();
                if (m_pos < m_text.size())
                    fail("unexpected text after the end of the document");
            }
        }
        if (m_failed) {
            error = m_error;
            return false;
        }
        return true;
    }

private:
    bool fail(std::string message)
    {
        if (m_failed)
            return false;
        m_failed = true;
        m_error.message = std::move(message);
        m_error.offset = std::min(m_pos, m_text.size());
        m_error.line = 1;
        size_t lineStart = 0;
        for (size_t i = 0; i < m_error.offset; ++i)
            if (m_text[i] == '\n') {
                ++m_error.line;
                lineStart = i + 1;
            }
        m_error.column = m_error.offset - lineStart + 1;
        return false;
    }

    void skipSpace()
    {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
                break;
            ++m_pos;
        }
    }

    bool literal(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            return fail("invalid literal (expected " + std::string(word) + ")");
        m_pos += word.size();
        return true;
    }

    bool value(Value& out, int depth)
    {
        if (m_pos >= m_text.size())
            return fail("unexpected end of the document (truncated?)");
        if (++m_values > m_options.maxValues) {
            m_error.tooManyValues = true;
            return fail("the document holds more than " + std::to_string(m_options.maxValues) + " values");
        }
        switch (m_text[m_pos]) {
        case '{':
            return object(out, depth + 1);
        case '[':
            return array(out, depth + 1);
        case '"':
            out.m_type = Value::Type::String;
            return string(out.m_string);
        case 't':
            out.m_type = Value::Type::Bool;
            out.m_bool = true;
            return literal("true");
        case 'f':
            out.m_type = Value::Type::Bool;
            out.m_bool = false;
            return literal("false");
        case 'n':
            out.m_type = Value::Type::Null;
            return literal("null");
        default:
            return number(out);
        }
    }

    bool object(Value& out, int depth)
    {
        if (depth > m_options.maxDepth)
            return fail("nesting deeper than " + std::to_string(m_options.maxDepth) + " levels");
        out.m_type = Value::Type::Object;
        ++m_pos; // '{'
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == '}') {
            ++m_pos;
            return true;
        }
        while (true) {
            skipSpace();
            if (m_pos >= m_text.size())
                return fail("unexpected end inside an object (truncated?)");
            if (m_text[m_pos] != '"')
                return fail("expected a quoted object key");
            std::string key;
            if (!string(key))
                return false;
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != ':')
                return fail("expected ':' after an object key");
            ++m_pos;
            skipSpace();
            out.m_object.emplace_back(std::move(key), Value());
            if (!value(out.m_object.back().second, depth))
                return false;
            skipSpace();
            if (m_pos >= m_text.size())
                return fail("unexpected end inside an object (truncated?)");
            if (m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_text[m_pos] == '}') {
                ++m_pos;
                return true;
            }
            return fail("expected ',' or '}' in an object");
        }
    }

    bool array(Value& out, int depth)
    {
        if (depth > m_options.maxDepth)
            return fail("nesting deeper than " + std::to_string(m_options.maxDepth) + " levels");
        out.m_type = Value::Type::Array;
        ++m_pos; // '['
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == ']') {
            ++m_pos;
            return true;
        }
        while (true) {
            skipSpace();
            out.m_array.emplace_back();
            if (!value(out.m_array.back(), depth))
                return false;
            skipSpace();
            if (m_pos >= m_text.size())
                return fail("unexpected end inside an array (truncated?)");
            if (m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_text[m_pos] == ']') {
                ++m_pos;
                return true;
            }
            return fail("expected ',' or ']' in an array");
        }
    }

    bool hex4(uint32_t& out)
    {
        if (m_text.size() - m_pos < 4)
            return fail("truncated \\u escape");
        out = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = m_text[m_pos++];
            out <<= 4;
            if (c >= '0' && c <= '9')
                out |= static_cast<uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f')
                out |= static_cast<uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                out |= static_cast<uint32_t>(c - 'A' + 10);
            else {
                --m_pos;
                return fail("invalid hex digit in a \\u escape");
            }
        }
        return true;
    }

    bool string(std::string& out)
    {
        ++m_pos; // opening quote
        while (true) {
            // Copy the plain run in one go; most strings have no escapes.
            const size_t runStart = m_pos;
            while (m_pos < m_text.size() && m_text[m_pos] != '"' && m_text[m_pos] != '\\'
                && static_cast<unsigned char>(m_text[m_pos]) >= 0x20)
                ++m_pos;
            out.append(m_text.data() + runStart, m_pos - runStart);
            if (m_pos >= m_text.size())
                return fail("unterminated string (truncated?)");
            const char c = m_text[m_pos];
            if (c == '"') {
                ++m_pos;
                return true;
            }
            if (c != '\\')
                return fail("control character inside a string");
            if (++m_pos >= m_text.size())
                return fail("unterminated escape");
            const char e = m_text[m_pos++];
            char simple;
            if (jsontext::simpleEscape(e, simple)) {
                out += simple;
                continue;
            }
            if (e != 'u') {
                --m_pos;
                return fail("invalid escape sequence in a string");
            }
            uint32_t unit = 0;
            if (!hex4(unit))
                return false;
            int64_t next = -1;
            const size_t afterUnit = m_pos;
            if (jsontext::isHighSurrogate(unit) && m_text.substr(m_pos, 2) == "\\u") {
                m_pos += 2;
                uint32_t low = 0;
                if (!hex4(low))
                    return false;
                next = low;
            }
            bool usedNext = false;
            jsontext::appendUtf8(out, jsontext::codePoint(unit, next, usedNext));
            if (next >= 0 && !usedNext)
                m_pos = afterUnit; // not a low surrogate: read it again as its own escape
        }
    }

    bool number(Value& out)
    {
        const size_t begin = m_pos;
        auto digits = [&] {
            const size_t s = m_pos;
            while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9')
                ++m_pos;
            return m_pos > s;
        };
        if (m_pos < m_text.size() && m_text[m_pos] == '-')
            ++m_pos;
        if (!digits()) {
            m_pos = begin;
            return fail("unexpected character (expected a value)");
        }
        if (m_pos < m_text.size() && m_text[m_pos] == '.') {
            ++m_pos;
            if (!digits())
                return fail("expected digits after the decimal point");
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            ++m_pos;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
                ++m_pos;
            if (!digits())
                return fail("expected digits in the exponent");
        }
        out.m_type = Value::Type::Number;
        const char* first = m_text.data() + begin;
        const char* last = m_text.data() + m_pos;
        auto [ptr, ec] = std::from_chars(first, last, out.m_number);
        if (ec == std::errc::result_out_of_range) {
            out.m_number
                = (*first == '-') ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
        } else if (ec != std::errc() || ptr != last) {
            m_pos = begin;
            return fail("malformed number");
        }
        out.m_string.assign(first, last);
        return true;
    }

    std::string_view m_text;
    const ParseOptions& m_options;
    size_t m_pos = 0;
    uint64_t m_values = 0;
    bool m_failed = false;
    ParseError m_error;
};

bool parse(std::string_view text, Value& out, ParseError& error, const ParseOptions& options)
{
    out = Value();
    Parser parser(text, options);
    if (parser.run(out, error))
        return true;
    out = Value();
    return false;
}

} // namespace tpuscope::model::json
