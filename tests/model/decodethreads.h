// SPDX-License-Identifier: GPL-3.0-or-later
// Sets the XSpace decoder's thread count (TPUSCOPE_DECODE_THREADS) for one scope and restores it.
#pragma once

#include <cstdlib>
#include <string>

namespace tpuscope::test {

class DecodeThreads
{
public:
    explicit DecodeThreads(int n)
    {
        if (const char* old = std::getenv("TPUSCOPE_DECODE_THREADS"))
            m_old = old;
        setenv("TPUSCOPE_DECODE_THREADS", std::to_string(n).c_str(), 1);
    }
    ~DecodeThreads()
    {
        if (m_old.empty())
            unsetenv("TPUSCOPE_DECODE_THREADS");
        else
            setenv("TPUSCOPE_DECODE_THREADS", m_old.c_str(), 1);
    }
    DecodeThreads(const DecodeThreads&) = delete;
    DecodeThreads& operator=(const DecodeThreads&) = delete;

private:
    std::string m_old;
};

} // namespace tpuscope::test
