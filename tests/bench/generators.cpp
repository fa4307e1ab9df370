// SPDX-License-Identifier: GPL-3.0-or-later
#include "generators.h"

#include "xplane.pb.h"

#include <google/protobuf/arena.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <string_view>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace tpuscope::bench {

namespace {

struct Record
{
    int64_t start, duration;
    uint32_t name;
    uint16_t track, pad;
};
static_assert(sizeof(Record) == 24 || sizeof(Record) == 32);

} // namespace

ProtobufWalk libprotobufArenaWalk(const std::string& path)
{
    ProtobufWalk r;
    const int64_t t0 = steadyNs();
    const long baseKb = statusKb("VmRSS:");
    resetPeakRss();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st
    {
    };
    if (fd < 0 || ::fstat(fd, &st) != 0) {
        r.error = "cannot open " + path + ": " + std::strerror(errno);
        if (fd >= 0)
            ::close(fd);
        return r;
    }
    r.bytes = static_cast<uint64_t>(st.st_size);
    if (st.st_size > std::numeric_limits<int>::max()) {
        ::close(fd);
        r.error = "libprotobuf cannot parse messages over 2 GiB";
        return r;
    }
    // new char[] leaves the buffer untouched: read() is its only first touch.
    std::unique_ptr<char[]> data(new char[r.bytes + 1]);
    size_t done = 0;
    while (done < r.bytes) {
        const ssize_t got = ::read(fd, data.get() + done, r.bytes - done);
        if (got <= 0)
            break;
        done += static_cast<size_t>(got);
    }
    ::close(fd);
    if (done != r.bytes) {
        r.error = "short read of " + path;
        return r;
    }
    const int64_t t1 = steadyNs();
    google::protobuf::Arena arena;
    auto* space = google::protobuf::Arena::CreateMessage<tensorflow::profiler::XSpace>(&arena);
    if (!space->ParseFromArray(data.get(), static_cast<int>(r.bytes))) {
        r.error = "libprotobuf parse failed";
        return r;
    }
    const int64_t t2 = steadyNs();
    size_t count = 0;
    for (const auto& plane : space->planes())
        for (const auto& line : plane.lines())
            count += static_cast<size_t>(line.events_size());
    std::vector<Record> records;
    records.reserve(count);
    uint16_t track = 0;
    for (const auto& plane : space->planes())
        for (const auto& line : plane.lines()) {
            for (const auto& e : line.events())
                records.push_back({line.timestamp_ns() * 1000 + e.offset_ps(), e.duration_ps(),
                    static_cast<uint32_t>(e.metadata_id()), track, 0});
            ++track;
        }
    const int64_t t3 = steadyNs();
    r.events = records.size();
    r.readSeconds = (t1 - t0) / 1e9;
    r.parseSeconds = (t2 - t1) / 1e9;
    r.walkSeconds = (t3 - t2) / 1e9;
    r.seconds = (t3 - t0) / 1e9;
    r.peakBytesPerEvent = r.events ? (statusKb("VmHWM:") - baseKb) * 1024.0 / static_cast<double>(r.events) : 0;
    r.ok = true;
    return r;
}

bool warmPageCache(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    static thread_local std::vector<char> sink(1 << 20);
    while (::read(fd, sink.data(), sink.size()) > 0) { }
    ::close(fd);
    return true;
}

bool gzipFile(const std::string& from, const std::string& to, int level)
{
    std::ifstream in(from, std::ios::binary);
    if (!in)
        return false;
    const std::string tmp = to + ".part";
    const std::string mode = "wb" + std::to_string(std::clamp(level, 1, 9));
    gzFile out = gzopen(tmp.c_str(), mode.c_str());
    if (!out)
        return false;
    std::vector<char> buffer(1 << 20);
    bool ok = true;
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
        ok = gzwrite(out, buffer.data(), static_cast<unsigned>(in.gcount())) == in.gcount() && ok;
    ok = gzclose(out) == Z_OK && ok;
    std::error_code ec;
    if (ok)
        std::filesystem::rename(tmp, to, ec);
    else
        std::remove(tmp.c_str());
    return ok && !ec;
}

long statusKb(const char* key)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    const size_t keyLength = std::strlen(key);
    while (std::getline(status, line))
        if (line.compare(0, keyLength, key) == 0)
            return std::atol(line.c_str() + keyLength);
    return 0;
}

bool resetPeakRss()
{
    const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = ::write(fd, "5", 1) == 1;
    ::close(fd);
    return ok;
}

std::vector<double> loadAverage()
{
    std::vector<double> result(3, 0.0);
    std::ifstream in("/proc/loadavg");
    in >> result[0] >> result[1] >> result[2];
    return result;
}

std::string runInChild(const std::function<std::string()>& fn)
{
    int fds[2];
    if (::pipe(fds) != 0)
        return {};
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return {};
    }
    if (pid == 0) {
        ::close(fds[0]);
        const std::string out = fn();
        size_t done = 0;
        while (done < out.size()) {
            const ssize_t n = ::write(fds[1], out.data() + done, out.size() - done);
            if (n <= 0)
                break;
            done += static_cast<size_t>(n);
        }
        ::close(fds[1]);
        std::fflush(stdout);
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string out;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n > 0)
            out.append(buffer, static_cast<size_t>(n));
        else if (n == 0 || errno != EINTR)
            break;
    }
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return {};
    return out;
}

uint64_t parseCount(const std::string& text)
{
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 1 || v > 1e12)
        return 0;
    return static_cast<uint64_t>(std::llround(v));
}

int64_t steadyNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

double secondsSince(int64_t sinceNs)
{
    return (steadyNs() - sinceNs) / 1e9;
}

} // namespace tpuscope::bench
