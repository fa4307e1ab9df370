// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "../core/utf8.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpuscope::model {

/// The version of every `--format json` output: each opens with "schema_version", and the JSON
/// Schema files in resources/schema/ describe that version. A change that removes, renames or
/// retypes a field raises it (adding a field does not: the schemas list each command's fields, so
/// a new one is added there too).
inline constexpr int kJsonSchemaVersion = 1;

/// Minimal streaming JSON writer: numbers stay numbers, strings are escaped, NaN/inf become null.
class JsonWriter
{
public:
    explicit JsonWriter(bool pretty = true)
        : m_pretty(pretty)
    {
    }

    JsonWriter& beginObject() { return open('{'); }
    /// The top-level object of a command's JSON output, with its schema_version first.
    JsonWriter& beginReport()
    {
        beginObject();
        key("schema_version");
        return value(kJsonSchemaVersion);
    }
    JsonWriter& endObject() { return close('}'); }
    JsonWriter& beginArray() { return open('['); }
    JsonWriter& endArray() { return close(']'); }

    JsonWriter& key(std::string_view k)
    {
        separator();
        writeString(k);
        m_out += m_pretty ? ": " : ":";
        m_afterKey = true;
        return *this;
    }
    JsonWriter& value(std::string_view s)
    {
        separator();
        writeString(s);
        return *this;
    }
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
    JsonWriter& value(bool b)
    {
        separator();
        m_out += b ? "true" : "false";
        return *this;
    }
    JsonWriter& value(double d)
    {
        separator();
        if (!std::isfinite(d)) {
            m_out += "null";
            return *this;
        }
        char buffer[32];
        if (d == std::floor(d) && std::fabs(d) < 9e15)
            std::snprintf(buffer, sizeof buffer, "%.0f", d);
        else
            std::snprintf(buffer, sizeof buffer, "%.15g", d);
        m_out += buffer;
        return *this;
    }
    JsonWriter& value(int64_t i)
    {
        separator();
        m_out += std::to_string(i);
        return *this;
    }
    JsonWriter& value(uint64_t i)
    {
        separator();
        m_out += std::to_string(i);
        return *this;
    }
    JsonWriter& value(int i) { return value(static_cast<int64_t>(i)); }
    /// An unknown number or flag is `null`, never a made-up zero.
    template <typename T> JsonWriter& value(const std::optional<T>& v) { return v ? value(*v) : null(); }
    /// A value that is already JSON text (a subtree copied from a parsed document), as it is.
    JsonWriter& rawValue(std::string_view json)
    {
        separator();
        m_out += json;
        return *this;
    }
    JsonWriter& null()
    {
        separator();
        m_out += "null";
        return *this;
    }
    template <typename T> JsonWriter& field(std::string_view k, const T& v)
    {
        key(k);
        return value(v);
    }

    const std::string& str() const { return m_out; }

    /// Escapes `s` for a JSON string; bytes that are not valid UTF-8 become U+FFFD, so the
    /// output always decodes.
    static void escapeInto(std::string& out, std::string_view s)
    {
        for (size_t i = 0; i < s.size(); ++i) {
            const unsigned char c = static_cast<unsigned char>(s[i]);
            switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c < 0x20) {
                    char buffer[8];
                    std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
                    out += buffer;
                } else if (c < 0x80) {
                    out += static_cast<char>(c);
                } else if (const size_t n = utf8_detail::validSequenceLength(s, i)) {
                    out.append(s.data() + i, n);
                    i += n - 1;
                } else {
                    out += "\xEF\xBF\xBD";
                }
            }
        }
    }

private:
    JsonWriter& open(char c)
    {
        separator();
        m_out += c;
        m_first.push_back(true);
        return *this;
    }
    JsonWriter& close(char c)
    {
        const bool empty = m_first.back();
        m_first.pop_back();
        if (m_pretty && !empty)
            newline();
        m_out += c;
        return *this;
    }
    void separator()
    {
        if (m_afterKey) {
            m_afterKey = false;
            return;
        }
        if (m_first.empty())
            return;
        if (!m_first.back())
            m_out += ',';
        m_first.back() = false;
        if (m_pretty)
            newline();
    }
    void newline()
    {
        m_out += '\n';
        m_out.append(2 * m_first.size(), ' ');
    }
    void writeString(std::string_view s)
    {
        m_out += '"';
        escapeInto(m_out, s);
        m_out += '"';
    }

    std::string m_out;
    std::vector<bool> m_first;
    bool m_afterKey = false;
    bool m_pretty;
};

} // namespace tpuscope::model
