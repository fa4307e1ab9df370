// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputsource.h"

#include "gzip.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tpuscope::model {

namespace {

size_t pageSize()
{
    static const size_t size = [] {
        const long p = sysconf(_SC_PAGE_SIZE);
        return p > 0 ? static_cast<size_t>(p) : size_t(4096);
    }();
    return size;
}

// Output is published to the reader in steps of this size: small enough that the reader
// starts within a millisecond, large enough that waking it costs nothing measurable.
constexpr size_t kInflateStep = 1 << 20;

} // namespace

void releasePages(const char* begin, const char* end)
{
    const uintptr_t page = pageSize();
    const uintptr_t first = (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
    const uintptr_t last = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
    if (last > first)
        madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

// ---- MappedFile ------------------------------------------------------------------------

MappedFile::~MappedFile()
{
    if (m_mapped)
        munmap(const_cast<char*>(m_data), m_size);
}

bool MappedFile::open(const std::string& path, std::string& error)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = std::string("cannot open the file for reading (") + std::strerror(errno) + ")";
        return false;
    }
    struct stat st
    {
    };
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        error = S_ISDIR(st.st_mode) ? "is a directory" : "cannot open: not a regular file";
        ::close(fd);
        return false;
    }
    m_size = static_cast<size_t>(st.st_size);
    if (m_size == 0) {
        m_data = "";
        ::close(fd);
        return true;
    }
    void* mapping = mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping != MAP_FAILED) {
        m_data = static_cast<const char*>(mapping);
        m_mapped = true;
        // Starts read-ahead into the page cache when it is cold; a no-op when it is warm.
        madvise(mapping, m_size, MADV_WILLNEED);
        ::close(fd);
        return true;
    }
    // Some file systems cannot map: read instead.
    m_copy.resize(m_size);
    size_t done = 0;
    while (done < m_size) {
        const ssize_t n = ::read(fd, m_copy.data() + done, m_size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            error = n < 0 ? std::string("read error (") + std::strerror(errno) + ")" : "read error (file shrank)";
            ::close(fd);
            return false;
        }
        done += static_cast<size_t>(n);
    }
    ::close(fd);
    m_data = m_copy.data();
    return true;
}

void MappedFile::release(const char* begin, const char* end)
{
    if (m_mapped)
        releasePages(std::max(begin, m_data), std::min(end, m_data + m_size));
}

double MappedFile::fraction(const char* position) const
{
    return m_size ? static_cast<double>(position - m_data) / static_cast<double>(m_size) : 1.0;
}

// ---- InflateStream ---------------------------------------------------------------------

InflateStream::InflateStream(std::string_view compressed, uint64_t limit)
    : m_compressed(compressed)
    , m_limit(std::max<uint64_t>(limit, 1))
{
}

InflateStream::~InflateStream()
{
    if (m_thread.joinable()) {
        m_thread.request_stop();
        {
            std::lock_guard lock(m_mutex);
        }
        m_cv.notify_all();
        m_thread.join();
    }
    if (m_base)
        munmap(m_base, m_reserved);
}

bool InflateStream::start(std::string& error)
{
    const size_t page = pageSize();
    m_reserved = static_cast<size_t>((m_limit + page - 1) / page * page);
    // Address space only: pages are committed as the inflate thread writes them.
    void* p = mmap(nullptr, m_reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        error = std::string("cannot reserve address space for inflating (") + std::strerror(errno) + ")";
        m_reserved = 0;
        return false;
    }
    m_base = static_cast<char*>(p);
    m_thread = std::jthread([this](std::stop_token stop) { run(stop); });
    return true;
}

void InflateStream::setReadAhead(size_t bytes)
{
    m_readAhead.store(bytes);
    {
        std::lock_guard lock(m_mutex);
    }
    m_cv.notify_all();
}

std::string InflateStream::error() const
{
    std::lock_guard lock(m_mutex);
    return m_error;
}

std::string_view InflateStream::waitFor(size_t bytes)
{
    size_t requested = m_requested.load();
    while (bytes > requested && !m_requested.compare_exchange_weak(requested, bytes)) { }
    std::unique_lock lock(m_mutex);
    m_cv.notify_all(); // the inflate thread may be waiting for the reader to ask for more
    m_cv.wait(lock, [&] { return m_done.load() || m_produced.load() >= bytes; });
    return {m_base, m_produced.load()};
}

const char* InflateStream::extend(const char* end)
{
    const size_t have = static_cast<size_t>(end - m_base);
    return m_base + waitFor(have + 1).size();
}

void InflateStream::release(const char* begin, const char* end)
{
    releasePages(std::max<const char*>(begin, m_base), std::min<const char*>(end, m_base + m_produced.load()));
}

double InflateStream::fraction(const char*) const
{
    return m_compressed.empty()
        ? 1.0
        : static_cast<double>(m_consumedInput.load()) / static_cast<double>(m_compressed.size());
}

void InflateStream::run(std::stop_token stop)
{
    std::string error;
    GzipReader reader(m_compressed);
    size_t produced = 0;
    for (;;) {
        if (produced == m_reserved) {
            error = inflateLimitMessage(m_limit);
            break;
        }
        // Running further ahead of the reader than asked would only hold inflated bytes in memory.
        auto mayProduce = [&] {
            const size_t ahead = m_readAhead.load();
            const size_t requested = m_requested.load();
            return ahead == 0 || produced < requested || produced - requested < ahead;
        };
        if (!mayProduce()) {
            std::unique_lock lock(m_mutex);
            m_cv.wait(lock, [&] { return stop.stop_requested() || mayProduce(); });
        }
        if (stop.stop_requested()) {
            error = "cancelled";
            break;
        }
        const GzipReader::Status status
            = reader.inflateInto(m_base + produced, std::min(kInflateStep, m_reserved - produced), produced);
        m_consumedInput.store(reader.consumed());
        m_produced.store(produced);
        {
            std::lock_guard lock(m_mutex);
        }
        m_cv.notify_all();
        if (status == GzipReader::Status::Done)
            break;
        if (status == GzipReader::Status::Error) {
            error = reader.error();
            break;
        }
    }
    {
        std::lock_guard lock(m_mutex);
        m_error = std::move(error);
        m_done.store(true);
    }
    m_cv.notify_all();
}

} // namespace tpuscope::model
