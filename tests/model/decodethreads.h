// SPDX-License-Identifier: GPL-3.0-or-later
// Sets one of the loader's environment knobs for one scope and restores it: TPUSCOPE_INFLATER,
// TPUSCOPE_DECODE_THREADS (the thread count) and TPUSCOPE_DECODE_CHUNK_EVENTS (the events per chunk
// of a plane cut over workers, which then cuts every device plane of over two chunks).
#pragma once

#include <cstdlib>
#include <string>

namespace tpuscope::test {

class ScopedEnvironment
{
public:
    ScopedEnvironment(const char* name, const std::string& value)
        : m_name(name)
    {
        if (const char* old = std::getenv(name)) {
            m_hadOld = true;
            m_old = old;
        }
        setenv(name, value.c_str(), 1);
    }
    ~ScopedEnvironment()
    {
        if (m_hadOld)
            setenv(m_name, m_old.c_str(), 1);
        else
            unsetenv(m_name);
    }
    ScopedEnvironment(const ScopedEnvironment&) = delete;
    ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

private:
    const char* m_name;
    bool m_hadOld = false;
    std::string m_old;
};

class DecodeThreads : public ScopedEnvironment
{
public:
    explicit DecodeThreads(int n)
        : ScopedEnvironment("TPUSCOPE_DECODE_THREADS", std::to_string(n))
    {
    }
};

class DecodeChunkEvents : public ScopedEnvironment
{
public:
    explicit DecodeChunkEvents(size_t n)
        : ScopedEnvironment("TPUSCOPE_DECODE_CHUNK_EVENTS", std::to_string(n))
    {
    }
};

} // namespace tpuscope::test
