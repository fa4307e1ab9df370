// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputsource.h"

#include "core/prefault.h"
#include "gzip.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace tpuscope::model {

namespace {

// Output is published to the reader in steps of this size: small enough that the reader
// starts within a millisecond, large enough that waking it costs nothing measurable.
constexpr size_t kInflateStep = 1 << 20;

std::string inflateAddressSpaceMessage(size_t reserved)
{
    return "out of memory while inflating: the data needs more than the " + std::to_string(reserved >> 20)
        + " MiB of address space this process may still use (ulimit -v)";
}

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

namespace {

// A mapped file that another process truncates raises SIGBUS on the first access past its new
// end. The handler maps zero pages over the rest of that mapping and lets the access retry, so
// the decoder sees zeros (a truncated file) and the load ends with a message. Mappings register
// in a fixed table the handler can read without locks.
struct GuardedMapping
{
    std::atomic<uintptr_t> begin {0};
    std::atomic<uintptr_t> end {0};
    std::atomic<bool> shrank {false};
};
constexpr int kGuardSlots = 256;
GuardedMapping g_guarded[kGuardSlots];
struct sigaction g_previousBusAction
{
};

void onBusError(int signal, siginfo_t* info, void* context)
{
    const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
    for (GuardedMapping& slot : g_guarded) {
        const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
        const uintptr_t end = slot.end.load(std::memory_order_acquire);
        if (begin && address >= begin && address < end) {
            const uintptr_t page = address & ~(uintptr_t(pageSize()) - 1);
            // mmap is a plain system call here; MAP_FIXED replaces the file pages in place.
            if (mmap(reinterpret_cast<void*>(page), end - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                    0)
                != MAP_FAILED) {
                slot.shrank.store(true, std::memory_order_release);
                return;
            }
        }
    }
    // Not one of ours: what would have happened without us.
    if (g_previousBusAction.sa_flags & SA_SIGINFO) {
        if (g_previousBusAction.sa_sigaction) {
            g_previousBusAction.sa_sigaction(signal, info, context);
            return;
        }
    } else if (g_previousBusAction.sa_handler != SIG_DFL && g_previousBusAction.sa_handler != SIG_IGN) {
        g_previousBusAction.sa_handler(signal);
        return;
    }
    struct sigaction fallback
    {
    };
    fallback.sa_handler = SIG_DFL;
    sigaction(SIGBUS, &fallback, nullptr); // the access faults again and the default action runs
}

void installBusGuard()
{
    static std::once_flag once;
    std::call_once(once, [] {
        pageSize(); // initialised here, not inside the handler
        struct sigaction action
        {
        };
        action.sa_sigaction = onBusError;
        action.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        sigaction(SIGBUS, &action, &g_previousBusAction);
    });
}

int guardMapping(const char* data, size_t size)
{
    installBusGuard();
    for (int i = 0; i < kGuardSlots; ++i) {
        uintptr_t expected = 0;
        if (g_guarded[i].begin.compare_exchange_strong(expected, 1)) { // claimed, not yet active
            g_guarded[i].shrank.store(false);
            g_guarded[i].end.store(reinterpret_cast<uintptr_t>(data) + size, std::memory_order_release);
            g_guarded[i].begin.store(reinterpret_cast<uintptr_t>(data), std::memory_order_release);
            return i;
        }
    }
    return -1; // more mappings than slots: that one is unguarded
}

const char* fileKind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "is a directory";
    if (S_ISFIFO(mode))
        return "is a FIFO (named pipe), not a regular file";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "is a device, not a regular file";
    if (S_ISSOCK(mode))
        return "is a socket, not a regular file";
    return "is not a regular file";
}

} // namespace

MappedFile::~MappedFile()
{
    if (m_guardSlot >= 0) { // before the unmap: the range may be reused at once
        g_guarded[m_guardSlot].end.store(0, std::memory_order_release);
        g_guarded[m_guardSlot].begin.store(0, std::memory_order_release);
    }
    if (m_mapped)
        munmap(m_mapping, m_size);
}

bool MappedFile::shrank() const
{
    return m_guardSlot >= 0 && g_guarded[m_guardSlot].shrank.load(std::memory_order_acquire);
}

bool MappedFile::open(const std::string& path, std::string& error)
{
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        error = std::string("cannot open the file for reading (") + std::strerror(errno) + ")";
        return false;
    }
    struct stat st
    {
    };
    if (fstat(fd, &st) != 0) {
        error = std::string("cannot read the file's status (") + std::strerror(errno) + ")";
        ::close(fd);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        error = fileKind(st.st_mode);
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
        m_mapping = mapping;
        m_data = static_cast<const char*>(mapping);
        m_mapped = true;
        m_guardSlot = guardMapping(m_data, m_size);
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

InflateStream::InflateStream(std::string_view compressed, uint64_t limit, uint64_t maxRatio)
    : m_compressed(compressed)
    , m_limit(std::max<uint64_t>(limit, 1))
    , m_maxRatio(maxRatio)
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
    // Address space only: pages are committed as the inflate thread writes them. Under ulimit -v
    // the whole limit may not fit; a smaller range still streams (down to 64 MiB).
    void* p = MAP_FAILED;
    for (;;) {
        p = mmap(nullptr, m_reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED || m_reserved <= (64u << 20))
            break;
        m_reserved = m_reserved / 2 / page * page;
    }
    if (p != MAP_FAILED && m_reserved < m_limit && m_reserved > (64u << 20)) {
        // Only half of what fits: the decoder needs address space for the profile, too.
        munmap(p, m_reserved);
        m_reserved = m_reserved / 2 / page * page;
        p = mmap(nullptr, m_reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    }
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

void InflateStream::prefault(std::stop_token stop)
{
#ifdef MADV_POPULATE_WRITE
    // The kernel zeroes each fresh page the inflater first writes: a sixth of the inflate's time
    // on its own thread. This thread faults the next pages in ahead of it instead, writable and
    // zeroed but never written (MADV_POPULATE_WRITE), on the other core while the decoder waits
    // for bytes or between its planes. At most kPrefaultWindow ahead, so memory stays flat.
    // Only while the stream may run ahead: one held to a read-ahead (a JSON reader, or format
    // detection) waits for its reader anyway.
    const size_t page = pageSize();
    size_t at = 0;
    for (;;) {
        size_t produced = 0;
        {
            std::unique_lock lock(m_mutex);
            m_cv.wait(lock, [&] {
                produced = m_produced.load();
                return stop.stop_requested() || m_done.load()
                    || (m_readAhead.load() == 0 && at < produced + kPrefaultWindow);
            });
        }
        if (stop.stop_requested() || m_done.load())
            return;
        at = std::max(at, produced / page * page);
        const size_t end = std::min(m_reserved, produced + kPrefaultWindow);
        if (at >= end)
            return; // the end of the reserved range
        const size_t length = std::min(kPrefaultStep, end - at);
        if (madvise(m_base + at, length, MADV_POPULATE_WRITE) != 0)
            return; // an older kernel, or no memory left: the inflater faults its own pages
        at += length;
    }
#else
    (void)stop;
#endif
}

void InflateStream::run(std::stop_token stop)
{
    std::string error;
    GzipReader reader(m_compressed);
    size_t produced = 0;
    std::jthread prefaulter;
    if (m_compressed.size() >= kPrefaultMinimumInput)
        prefaulter = std::jthread([this](std::stop_token own) { prefault(own); });
    for (;;) {
        if (produced == m_reserved) {
            error = m_reserved < m_limit ? inflateAddressSpaceMessage(m_reserved) : inflateLimitMessage(m_limit);
            m_stoppedByLimit.store(true);
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
        // One step at most, and no further past the reader than the read-ahead allows.
        size_t step = std::min(kInflateStep, m_reserved - produced);
        if (const size_t ahead = m_readAhead.load(); ahead != 0) {
            const size_t allowed = m_requested.load() + ahead;
            step = std::min(step, std::max<size_t>(allowed > produced ? allowed - produced : 0, 4096));
        }
        const GzipReader::Status status = reader.inflateInto(m_base + produced, step, produced);
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
        if (std::string problem = inflateRatioProblem(reader.consumed(), produced, m_maxRatio); !problem.empty()) {
            error = std::move(problem);
            m_stoppedByLimit.store(true);
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
