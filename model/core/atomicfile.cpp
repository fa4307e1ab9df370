// SPDX-License-Identifier: GPL-3.0-or-later
#include "atomicfile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace tpuscope::model {

namespace fs = std::filesystem;

namespace {

std::string systemError(int error)
{
    return std::strerror(error);
}

const char* fileKind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

bool sameFile(const struct stat& a, const struct stat& b)
{
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// A log dir is small (a few runs of a few hosts); the cap only keeps a mistaken `-o` beside `/` from
// walking the whole disk before the write.
constexpr size_t kMaxInputEntries = 200000;

enum class InputMatch { None, TheInput, InsideTheInput };

/// Whether `target` is `input` or, for a directory input, any file below it.
InputMatch matchInput(const struct stat& target, const std::string& input)
{
    struct stat st
    {
    };
    if (::stat(input.c_str(), &st) != 0)
        return InputMatch::None;
    if (sameFile(st, target))
        return InputMatch::TheInput;
    if (!S_ISDIR(st.st_mode))
        return InputMatch::None;
    std::error_code ec;
    size_t entries = 0;
    for (fs::recursive_directory_iterator it(input,
             fs::directory_options::skip_permission_denied | fs::directory_options::follow_directory_symlink, ec),
         end;
         it != end && entries < kMaxInputEntries; it.increment(ec), ++entries) {
        if (ec)
            break;
        if (it.depth() > 8) {
            it.disable_recursion_pending();
            continue;
        }
        struct stat entry
        {
        };
        if (::stat(it->path().c_str(), &entry) == 0 && sameFile(entry, target))
            return InputMatch::InsideTheInput;
    }
    return InputMatch::None;
}

std::string randomSuffix()
{
    static thread_local std::mt19937_64 generator(std::random_device {}() ^ static_cast<uint64_t>(::getpid()));
    static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::string suffix(10, 'x');
    for (char& c : suffix)
        c = kAlphabet[generator() % (sizeof kAlphabet - 1)];
    return suffix;
}

std::string directoryOf(const std::string& path)
{
    const fs::path dir = fs::path(path).parent_path();
    return dir.empty() ? std::string(".") : dir.string();
}

std::string tempNameFor(const std::string& path)
{
    return (fs::path(directoryOf(path)) / ("." + fs::path(path).filename().string() + "." + randomSuffix() + ".tmp"))
        .string();
}

} // namespace

std::string outputPathProblem(const std::string& output, const std::vector<std::string>& inputs)
{
    struct stat target
    {
    };
    if (::stat(output.c_str(), &target) != 0)
        return {}; // absent (or unreachable: creating the temporary file reports why)
    if (!S_ISREG(target.st_mode))
        return "refusing to write " + output + ": it is " + fileKind(target.st_mode) + ", not a regular file";
    for (const std::string& input : inputs) {
        const InputMatch match = matchInput(target, input);
        if (match == InputMatch::None)
            continue;
        const std::string what = match == InputMatch::InsideTheInput ? "a file of the input directory " + input
            : input == output                                        ? std::string("the input")
                                                                     : "the same file as the input " + input;
        return "refusing to write " + output + ": it is " + what + "; choose another name";
    }
    return {};
}

AtomicFile::~AtomicFile()
{
    discard();
}

void AtomicFile::discard()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    if (!m_tempName.empty())
        ::unlink(m_tempName.c_str());
    m_tempName.clear();
}

bool AtomicFile::open(const std::string& path, const std::vector<std::string>& inputs, std::string& error)
{
    discard();
    m_path = path;
    if (std::string problem = outputPathProblem(path, inputs); !problem.empty()) {
        error = std::move(problem);
        return false;
    }
    const std::string dir = directoryOf(path);
#ifdef O_TMPFILE
    // An unnamed file: a kill before commit leaves nothing behind.
    m_fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (m_fd >= 0)
        return true;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
        error = "cannot write " + path + ": cannot create a temporary file in " + dir + ": " + systemError(errno);
        return false;
    }
#endif
    for (int attempt = 0; attempt < 100; ++attempt) {
        const std::string name = tempNameFor(path);
        m_fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (m_fd >= 0) {
            m_tempName = name;
            return true;
        }
        if (errno != EEXIST)
            break;
    }
    error = "cannot write " + path + ": cannot create a temporary file in " + dir + ": " + systemError(errno);
    return false;
}

bool AtomicFile::write(std::string_view bytes, std::string& error)
{
    if (m_fd < 0) {
        error = "cannot write " + m_path + ": the file is not open";
        return false;
    }
    while (!bytes.empty()) {
        const ssize_t n = ::write(m_fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            error = "cannot write " + m_path + ": " + systemError(n < 0 ? errno : EIO);
            discard();
            return false;
        }
        bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
}

bool AtomicFile::commit(std::string& error)
{
    if (m_fd < 0) {
        error = "cannot write " + m_path + ": the file is not open";
        return false;
    }
    auto fail = [&](const std::string& what, int code) {
        error = what + ": " + systemError(code);
        discard();
        return false;
    };
    if (::fsync(m_fd) != 0)
        return fail("cannot write " + m_path, errno);
    if (m_tempName.empty()) {
        // Give the O_TMPFILE file a unique hidden name beside the target, then rename it over.
        const std::string proc = "/proc/self/fd/" + std::to_string(m_fd);
        int code = 0;
        for (int attempt = 0; attempt < 100; ++attempt) {
            const std::string name = tempNameFor(m_path);
            if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
                m_tempName = name;
                break;
            }
            code = errno;
            if (code != EEXIST)
                break;
        }
        if (m_tempName.empty())
            return fail("cannot name the temporary file for " + m_path, code);
    }
    // Replacing a file keeps its permissions: a private (0600) file stays private. A new file
    // gets the usual 0666 less the umask.
    if (struct stat existing {}; ::stat(m_path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)
        && ::fchmod(m_fd, existing.st_mode & 07777) != 0)
        return fail("cannot keep the permissions of " + m_path, errno);
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0)
        return fail("cannot write " + m_path, errno);
    // Checked again right before the rename: the target may have been replaced while we wrote.
    if (std::string problem = outputPathProblem(m_path, {}); !problem.empty()) {
        error = std::move(problem);
        discard();
        return false;
    }
    if (::rename(m_tempName.c_str(), m_path.c_str()) != 0)
        return fail("cannot rename the temporary file to " + m_path, errno);
    m_tempName.clear();
    return true;
}

bool saveFileAtomically(
    const std::string& path, std::string_view bytes, std::string& error, const std::vector<std::string>& inputs)
{
    AtomicFile file;
    return file.open(path, inputs, error) && file.write(bytes, error) && file.commit(error);
}

} // namespace tpuscope::model
