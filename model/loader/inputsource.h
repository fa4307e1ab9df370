// SPDX-License-Identifier: GPL-3.0-or-later
// Where a decoder's bytes come from. Files are mapped read-only instead of being copied into a
// heap buffer, and pages a decoder has finished with are handed back, so a multi-gigabyte
// profile does not cost its own size in memory on top of the model. gzip input is inflated on
// a second thread into a reserved address range while the decoder reads behind it; addresses
// never move, so views into the input stay valid while more arrives.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>

namespace tpuscope::model {

/// Input a decoder reads front to back. The whole input is not necessarily there yet.
class ByteSource
{
public:
    virtual ~ByteSource() = default;
    /// Blocks until bytes past `end` exist or the input is complete; returns the new end of the
    /// readable bytes (equal to `end` once nothing more will come).
    virtual const char* extend(const char* end) = 0;
    /// The decoder will not read [begin, end) again: the pages wholly inside may be returned to
    /// the system. Safe to call from several threads.
    virtual void release(const char* begin, const char* end) = 0;
    /// How much of the input has been consumed, 0..1, for progress bars.
    virtual double fraction(const char* position) const = 0;
    /// Released pages read back the same bytes (a file mapping); otherwise they read as zeros.
    virtual bool rereadable() const = 0;
    /// Every byte is there: extend() will give nothing more. False while an inflate still runs.
    virtual bool complete() const = 0;
    /// The bytes are produced no further ahead of the reader than a read-ahead (a streamed JSON).
    virtual bool heldBack() const { return false; }
};

/// A file opened read-only: mapped when possible, read into memory otherwise.
class MappedFile final : public ByteSource
{
public:
    MappedFile() = default;
    ~MappedFile() override;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    /// False with a user-facing `error` (missing, unreadable, not a regular file). Opened without
    /// blocking, so a FIFO or a device is refused at once instead of waiting for a writer.
    bool open(const std::string& path, std::string& error);
    std::string_view bytes() const { return {m_data, m_size}; }
    bool mapped() const { return m_mapped; }
    /// The file got shorter while it was mapped: the pages past its new end read as zeros (a
    /// SIGBUS handler maps them) and the load reports a truncated file instead of crashing.
    bool shrank() const;

    const char* extend(const char* end) override { return end; }
    void release(const char* begin, const char* end) override;
    double fraction(const char* position) const override;
    bool rereadable() const override { return true; }
    bool complete() const override { return true; }

private:
    const char* m_data = nullptr;
    void* m_mapping = nullptr; // what mmap returned, for munmap
    size_t m_size = 0;
    bool m_mapped = false;
    std::string m_copy; // when mapping is not possible
    int m_guardSlot = -1; // slot in the SIGBUS guard's table of mappings
};

/// gzip inflated on its own thread, so decompression and parsing overlap on two cores.
class InflateStream final : public ByteSource
{
public:
    /// `limit` caps the inflated size (gzip bombs): it is reserved as address space, never
    /// committed up front. `maxRatio` is the compression-ratio guard (0 = none). `compressed`
    /// must outlive the stream.
    InflateStream(std::string_view compressed, uint64_t limit, uint64_t maxRatio = 0);
    ~InflateStream() override;
    InflateStream(const InflateStream&) = delete;
    InflateStream& operator=(const InflateStream&) = delete;

    /// Reserves the output range and starts the inflate thread; false with `error` when the
    /// address space cannot be reserved (the caller then inflates in one go). Under an
    /// address-space limit (ulimit -v) less than `limit` may be reserved: running out of it is
    /// then an out-of-memory error, not the gzip-bomb one.
    bool start(std::string& error);
    /// The bytes inflated so far, waiting until there are at least `bytes` or the end.
    std::string_view waitFor(size_t bytes);
    /// Everything, after the inflate thread is done.
    std::string_view waitAll() { return waitFor(SIZE_MAX); }
    /// Limits how far the inflate thread runs ahead of the reader (bytes past the last position
    /// the reader asked for); 0 = unlimited. Keeps peak memory flat for a streaming reader.
    void setReadAhead(size_t bytes);
    /// After the inflate thread ended: empty, or why it stopped early (corrupt, truncated,
    /// over the limit).
    std::string error() const;
    /// The error is one of the limits (size, ratio, address space), not damage: a load stops
    /// with it instead of keeping what was read before.
    bool stoppedByLimit() const { return m_stoppedByLimit.load(); }
    uint64_t compressedSize() const { return m_compressed.size(); }

    const char* extend(const char* end) override;
    void release(const char* begin, const char* end) override;
    double fraction(const char* position) const override;
    bool rereadable() const override { return false; }
    bool complete() const override { return m_done.load(); }
    bool heldBack() const override { return m_readAhead.load() != 0; }

private:
    void run(std::stop_token stop);
    void prefault(std::stop_token stop);

    static constexpr size_t kPrefaultWindow = size_t(32) << 20;
    static constexpr size_t kPrefaultStep = size_t(4) << 20;
    static constexpr size_t kPrefaultMinimumInput = size_t(4) << 20; // a small file's faults cost less

    std::string_view m_compressed;
    uint64_t m_limit;
    uint64_t m_maxRatio;
    char* m_base = nullptr;
    size_t m_reserved = 0;
    std::atomic<size_t> m_produced {0};
    std::atomic<size_t> m_consumedInput {0};
    std::atomic<size_t> m_readAhead {0};
    std::atomic<size_t> m_requested {0};
    std::atomic<bool> m_done {false};
    std::atomic<bool> m_stoppedByLimit {false};
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::string m_error;
    std::jthread m_thread;
};

/// Returns the pages wholly inside [begin, end) to the system (MADV_DONTNEED). For a private
/// read-only file mapping they are read back from the file if touched again.
void releasePages(const char* begin, const char* end);

} // namespace tpuscope::model
