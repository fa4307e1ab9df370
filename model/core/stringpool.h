// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "utf8.h"

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tpuscope::model {

using StringId = uint32_t;

/// Interns strings once per profile; id 0 is always the empty string. Views into the pool
/// stay valid for the pool's lifetime (storage is a deque, never reallocated). Text that is not
/// valid UTF-8 is stored with U+FFFD in place of the bad bytes, so every output of the profile
/// (JSON, CSV, share files) names an op the same way and a share file round-trips it.
class StringPool
{
public:
    StringPool() { intern({}); }
    /// A copy keeps every id; its index is rebuilt over its own strings (the index holds views
    /// into the storage, which a memberwise copy would leave pointing at the original).
    StringPool(const StringPool& other)
        : m_strings(other.m_strings)
        , m_bytes(other.m_bytes)
    {
        reindex();
    }
    StringPool& operator=(const StringPool& other)
    {
        if (this != &other) {
            m_strings = other.m_strings;
            m_bytes = other.m_bytes;
            reindex();
        }
        return *this;
    }
    StringPool(StringPool&&) = default; // a moved deque keeps its elements where they are
    StringPool& operator=(StringPool&&) = default;

    StringId intern(std::string_view text)
    {
        auto it = m_index.find(text);
        if (it != m_index.end())
            return it->second;
        if (!isValidUtf8(text)) // checked on a miss only: stored strings are valid
            return intern(toValidUtf8(text));
        const auto id = static_cast<StringId>(m_strings.size());
        m_strings.emplace_back(text);
        m_bytes += footprint(m_strings.back());
        m_index.emplace(std::string_view(m_strings.back()), id);
        return id;
    }

    /// Returns the id of an already interned string, or 0 when it was never interned.
    StringId find(std::string_view text) const
    {
        auto it = m_index.find(text);
        if (it == m_index.end())
            return isValidUtf8(text) ? 0 : find(toValidUtf8(text));
        return it->second;
    }

    const std::string& str(StringId id) const { return m_strings[id]; }
    size_t size() const { return m_strings.size(); }
    /// Memory the strings take (kept as a running total: loaders check it after every event).
    size_t bytes() const { return m_bytes; }

private:
    static size_t footprint(const std::string& s) { return s.capacity() + sizeof(std::string) + 2 * sizeof(void*); }

    void reindex()
    {
        m_index.clear();
        m_index.reserve(m_strings.size());
        for (size_t id = 0; id < m_strings.size(); ++id)
            m_index.emplace(std::string_view(m_strings[id]), static_cast<StringId>(id));
    }

    std::deque<std::string> m_strings;
    std::unordered_map<std::string_view, StringId> m_index;
    size_t m_bytes = 0;
};

} // namespace tpuscope::model
