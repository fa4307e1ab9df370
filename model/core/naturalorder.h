// SPDX-License-Identifier: GPL-3.0-or-later
// Natural order of names: runs of digits compare by their value, so host "w-2" comes before
// "w-10" (text order puts w-10 … w-19 between w-1 and w-2, and a 64-host pod's late host below
// the fold).
#pragma once

#include <cstddef>
#include <string_view>

namespace tpuscope::model {

inline bool isAsciiDigit(char c)
{
    return c >= '0' && c <= '9';
}

/// Whether `a` comes before `b` in natural order: digit runs by value (then by length, so "01"
/// follows "1"), everything else byte by byte. A strict weak order.
inline bool naturalLess(std::string_view a, std::string_view b)
{
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (isAsciiDigit(a[i]) && isAsciiDigit(b[j])) {
            size_t ia = i, jb = j;
            while (ia < a.size() && a[ia] == '0')
                ++ia;
            while (jb < b.size() && b[jb] == '0')
                ++jb;
            size_t ea = ia, eb = jb;
            while (ea < a.size() && isAsciiDigit(a[ea]))
                ++ea;
            while (eb < b.size() && isAsciiDigit(b[eb]))
                ++eb;
            if (ea - ia != eb - jb)
                return ea - ia < eb - jb; // fewer significant digits: the smaller value
            if (const int c = a.substr(ia, ea - ia).compare(b.substr(jb, eb - jb)); c != 0)
                return c < 0;
            if (ea - i != eb - j)
                return ea - i < eb - j; // equal values: fewer leading zeros first
            i = ea;
            j = eb;
            continue;
        }
        if (a[i] != b[j])
            return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

} // namespace tpuscope::model
