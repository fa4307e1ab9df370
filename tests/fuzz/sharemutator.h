// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A grammar-aware mutator for share-file JSON: it changes what a stranger's file can lie about
// (counts, lengths, indices, times and names) and keeps the rest valid JSON, so mutations get past
// the parser into the reader's schema and the builders behind it. Byte flips almost never do.
// Used by fuzz_sharefile (LLVMFuzzerCustomMutator) and by a short deterministic run in ctest.

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace tpuscope::fuzz {

class ShareJsonMutator
{
public:
    /// One mutation of `json` (valid JSON in, valid JSON out when it went in valid), chosen by `seed`.
    static std::string mutate(std::string_view json, uint64_t seed)
    {
        ShareJsonMutator m(json);
        if (!m.scanValue())
            return std::string(json);
        std::mt19937_64 rng(seed);
        switch (rng() % 5) {
        case 0:
        case 1:
            if (!m.m_numbers.empty())
                return m.replaceNumber(rng);
            [[fallthrough]];
        case 2:
            if (!m.m_elements.empty())
                return m.repeatElement(rng);
            [[fallthrough]];
        case 3:
            if (!m.m_elements.empty())
                return m.dropElement(rng);
            [[fallthrough]];
        default:
            if (!m.m_strings.empty())
                return m.replaceString(rng);
            return std::string(json);
        }
    }

private:
    struct Span
    {
        size_t begin, end;
        std::string key; // the object key the value belongs to, "" in arrays
    };

    explicit ShareJsonMutator(std::string_view json)
        : m_text(json)
    {
    }

    // ---- a small scanner: spans of numbers, strings and array elements --------------------------

    void space()
    {
        while (m_pos < m_text.size()
            && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r' || m_text[m_pos] == '\t'))
            ++m_pos;
    }
    bool scanString()
    {
        if (m_pos >= m_text.size() || m_text[m_pos] != '"')
            return false;
        for (++m_pos; m_pos < m_text.size(); ++m_pos) {
            if (m_text[m_pos] == '\\')
                ++m_pos;
            else if (m_text[m_pos] == '"') {
                ++m_pos;
                return true;
            }
        }
        return false;
    }
    bool scanValue(const std::string& key = {}, int depth = 0)
    {
        if (depth > 64)
            return false;
        space();
        if (m_pos >= m_text.size())
            return false;
        const size_t begin = m_pos;
        const char c = m_text[m_pos];
        if (c == '"') {
            if (!scanString())
                return false;
            m_strings.push_back({begin, m_pos, key});
            return true;
        }
        if (c == '{' || c == '[') {
            ++m_pos;
            const bool object = c == '{';
            space();
            if (m_pos < m_text.size() && m_text[m_pos] == (object ? '}' : ']')) {
                ++m_pos;
                return true;
            }
            while (true) {
                std::string memberKey = object ? std::string() : key;
                if (object) {
                    space();
                    const size_t keyBegin = m_pos;
                    if (!scanString())
                        return false;
                    memberKey = std::string(m_text.substr(keyBegin + 1, m_pos - keyBegin - 2));
                    space();
                    if (m_pos >= m_text.size() || m_text[m_pos] != ':')
                        return false;
                    ++m_pos;
                }
                space();
                const size_t elementBegin = m_pos;
                if (!scanValue(memberKey, depth + 1))
                    return false;
                if (!object)
                    m_elements.push_back({elementBegin, m_pos, key});
                space();
                if (m_pos >= m_text.size())
                    return false;
                if (m_text[m_pos] == ',') {
                    ++m_pos;
                    continue;
                }
                if (m_text[m_pos] == (object ? '}' : ']')) {
                    ++m_pos;
                    return true;
                }
                return false;
            }
        }
        while (m_pos < m_text.size() && std::string_view(",]} \n\r\t").find(m_text[m_pos]) == std::string_view::npos)
            ++m_pos;
        if (c == '-' || (c >= '0' && c <= '9'))
            m_numbers.push_back({begin, m_pos, key});
        return m_pos > begin;
    }

    // ---- mutations ------------------------------------------------------------------------------

    std::string replaced(const Span& s, std::string_view with) const
    {
        return std::string(m_text.substr(0, s.begin)) + std::string(with) + std::string(m_text.substr(s.end));
    }
    /// Counts and indices first: they are what a hostile file lies about.
    const Span& pick(const std::vector<Span>& spans, std::mt19937_64& rng) const
    {
        static constexpr std::string_view kCounts[] = {"runs", "plane", "host", "occurrences", "cores", "ops", "n",
            "kind", "time_ps", "span_ps", "start_ps", "duration_ps", "id", "root", "c", "a", "entry"};
        if (rng() % 2 == 0)
            for (size_t tries = 0; tries < 16; ++tries) {
                const Span& s = spans[rng() % spans.size()];
                for (std::string_view key : kCounts)
                    if (s.key == key)
                        return s;
            }
        return spans[rng() % spans.size()];
    }
    std::string replaceNumber(std::mt19937_64& rng) const
    {
        static constexpr std::string_view kNumbers[] = {"0", "-1", "1", "2", "7", "1000000", "1000000000", "4294967296",
            "9223372036854775807", "18446744073709551616", "1e308", "-1e308", "0.5", "1e-300", "\"NaN\"",
            "\"Infinity\"", "100000", "65536", "16385", "20001"};
        return replaced(pick(m_numbers, rng), kNumbers[rng() % std::size(kNumbers)]);
    }
    std::string repeatElement(std::mt19937_64& rng) const
    {
        const Span& s = pick(m_elements, rng);
        const std::string element(m_text.substr(s.begin, s.end - s.begin));
        std::string copies;
        const size_t n = std::size_t(1) << (rng() % 12); // up to 2048 copies
        for (size_t i = 0; i < n; ++i)
            copies += "," + element;
        return std::string(m_text.substr(0, s.end)) + copies + std::string(m_text.substr(s.end));
    }
    std::string dropElement(std::mt19937_64& rng) const
    {
        const Span& s = pick(m_elements, rng);
        // Drop the element and the comma after it, or before it when it is the last one.
        size_t begin = s.begin, end = s.end;
        size_t after = end;
        while (after < m_text.size() && m_text[after] == ' ')
            ++after;
        if (after < m_text.size() && m_text[after] == ',')
            end = after + 1;
        else {
            size_t before = begin;
            while (before > 0 && m_text[before - 1] == ' ')
                --before;
            if (before > 0 && m_text[before - 1] == ',')
                begin = before - 1;
        }
        return std::string(m_text.substr(0, begin)) + std::string(m_text.substr(end));
    }
    std::string replaceString(std::mt19937_64& rng) const
    {
        static constexpr std::string_view kStrings[]
            = {"\"\"", "\"<table><table><table><img src=/etc/passwd>\"", "\"## heading [link](https://evil.example)\"",
                "\"\\u001b]52;c;eA==\\u0007\\u001b[2J\"", "\"=HYPERLINK(\\\"x\\\")\"", "\"\\u0000\"", "\"\\ud800\"",
                "\"/home/alice/secret.py\"", "\"planes\"", "\"replica_groups\"", "\"none\""};
        return replaced(pick(m_strings, rng), kStrings[rng() % std::size(kStrings)]);
    }

    std::string_view m_text;
    size_t m_pos = 0;
    std::vector<Span> m_numbers, m_strings, m_elements;
};

} // namespace tpuscope::fuzz
