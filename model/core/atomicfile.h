// SPDX-License-Identifier: GPL-3.0-or-later
// The one way the core writes an output file: never over one of the inputs, never through a device,
// FIFO or directory, and never half. Bytes go to a fresh unique temporary file in the target folder
// (O_TMPFILE when the file system has it, so a killed process leaves nothing behind; otherwise a
// hidden name opened with O_CREAT|O_EXCL|O_NOFOLLOW), which is renamed over the target at the end.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tpuscope::model {

/// Empty when `output` may be written; otherwise why not: it exists and is not a regular file
/// (device, FIFO, directory, socket), or it is the same file as one of `inputs` (compared by device
/// and inode, so symlinks and hard links are seen through; a directory input stands for every file
/// below it, e.g. all hosts of a log dir).
std::string outputPathProblem(const std::string& output, const std::vector<std::string>& inputs);

/// An output file being written. Nothing is visible at the target until commit() succeeds; the
/// destructor removes the temporary file of an uncommitted write.
class AtomicFile
{
public:
    AtomicFile() = default;
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    /// Checks the target (outputPathProblem) and creates the temporary file; false with a message
    /// that carries the system's reason.
    bool open(const std::string& path, const std::vector<std::string>& inputs, std::string& error);
    /// Appends bytes; false with a message (disk full, …). After a failure only the destructor is left.
    bool write(std::string_view bytes, std::string& error);
    /// Flushes to disk and renames the temporary file over the target.
    bool commit(std::string& error);

private:
    void discard();

    std::string m_path;
    std::string m_tempName; // named temporary file (fallback when O_TMPFILE is not available)
    int m_fd = -1;
};

/// open + write + commit in one call.
bool saveFileAtomically(
    const std::string& path, std::string_view bytes, std::string& error, const std::vector<std::string>& inputs = {});

} // namespace tpuscope::model
