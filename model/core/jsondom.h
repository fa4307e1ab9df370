// SPDX-License-Identifier: GPL-3.0-or-later
//
// A small JSON document model for small files (op_profile.json, settings, golden data).
// Not for traces: every value is a node, so memory is ~10× the text. Input is untrusted:
// nesting depth and size are limited and errors name the byte offset, line and column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpuscope::model::json {

class Value
{
public:
    enum class Type : uint8_t { Null, Bool, Number, String, Array, Object };

    Type type() const { return m_type; }
    bool isNull() const { return m_type == Type::Null; }
    bool isBool() const { return m_type == Type::Bool; }
    bool isNumber() const { return m_type == Type::Number; }
    bool isString() const { return m_type == Type::String; }
    bool isArray() const { return m_type == Type::Array; }
    bool isObject() const { return m_type == Type::Object; }

    /// Object member, nullptr when absent or when this is not an object. Linear search:
    /// objects in the files we read have a handful of keys.
    const Value* find(std::string_view key) const;
    /// Object member or a shared null value, so lookups chain: v["xla"]["layout"].
    const Value& operator[](std::string_view key) const;
    /// Array element or the shared null value.
    const Value& at(size_t index) const;
    size_t size() const; // array or object element count, 0 otherwise

    const std::vector<Value>& array() const { return m_array; }
    const std::vector<std::pair<std::string, Value>>& object() const { return m_object; }

    bool boolean(bool fallback = false) const { return m_type == Type::Bool ? m_bool : fallback; }
    /// Numbers, and numeric strings (proto3 JSON writes 64-bit integers and NaN/Infinity as strings).
    double number(double fallback = 0) const;
    /// Exact unsigned 64-bit value of an integer number or a decimal string; `fallback` otherwise.
    uint64_t uint64(uint64_t fallback = 0) const;
    /// The string, or empty for other types.
    const std::string& string() const;

    static Value makeNull() { return Value(); }

private:
    friend class Parser;
    Type m_type = Type::Null;
    bool m_bool = false;
    double m_number = 0;
    std::string m_string; // String, and the literal text of a Number (for exact uint64)
    std::vector<Value> m_array;
    std::vector<std::pair<std::string, Value>> m_object;
};

struct ParseOptions
{
    size_t maxBytes = 256u << 20; // refuse larger documents
    int maxDepth = 256; // nesting of arrays/objects
    /// Refuse documents with more values than this: "[0,0,0,...]" costs ~48 times its text in the
    /// tree, so the text size alone does not bound the memory a document takes.
    uint64_t maxValues = UINT64_MAX;
};

/// What one value of the tree costs at its peak: an object member (its key string and the Value)
/// in a vector that may be growing (old and new storage at once).
inline constexpr uint64_t kPeakBytesPerValue = 3 * (sizeof(std::string) + sizeof(Value));

struct ParseError
{
    std::string message; // "expected ':' after an object key"
    bool tooManyValues = false; // the document holds more than ParseOptions::maxValues values
    uint64_t offset = 0; // byte offset of the problem
    uint64_t line = 0; // 1-based
    uint64_t column = 0; // 1-based, in bytes
    /// "JSON error at byte 1234 (line 5, column 7): expected ':' after an object key"
    std::string describe() const;
};

/// Parses a whole document (one value, optionally surrounded by whitespace and a UTF-8 BOM).
/// Returns false and fills `error` on bad input; never throws for bad input.
bool parse(std::string_view text, Value& out, ParseError& error, const ParseOptions& options = {});

} // namespace tpuscope::model::json
