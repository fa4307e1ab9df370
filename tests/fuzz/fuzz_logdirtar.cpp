// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: log directories of any shape, described tar-like by the input. Each entry is
//   [kind: 1 byte][path length: 1 byte][path][content length: 2 bytes LE][content]
// kind % 5: 0 regular file, 1 directory, 2 symlink (content = target, relative), 3 hard link to
// an earlier entry (content = its index), 4 FIFO. Paths are cut into components; empty, "." and
// ".." components are dropped, so every entry stays inside a fresh temp dir. findRuns and loadRun
// of every run found are then called on the tree: special files, links and loops must give
// messages, never a hang or a crash.
#include "fuzzcommon.h"
#include "loader/logdir.h"

#include <filesystem>
#include <fstream>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace tpuscope::model;

namespace {

const fs::path& baseDir()
{
    static const fs::path base = [] {
        std::string pattern = (fs::temp_directory_path() / "tpuscope-fuzz-logdirtar-XXXXXX").string();
        const char* made = ::mkdtemp(pattern.data());
        return made ? fs::path(made) : fs::temp_directory_path() / "tpuscope-fuzz-logdirtar";
    }();
    return base;
}

/// The entry's path below `root`, or empty when nothing is left of it.
fs::path safePath(const fs::path& root, std::string_view path)
{
    fs::path out;
    size_t depth = 0;
    while (!path.empty() && depth < 8) {
        const size_t slash = path.find('/');
        const std::string_view part = path.substr(0, slash);
        path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
        if (part.empty() || part == "." || part == ".." || part.find('\0') != std::string_view::npos)
            continue;
        out /= std::string(part);
        ++depth;
    }
    return out.empty() ? out : root / out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const fs::path root = baseDir() / "logdir";
    std::error_code ec;
    fs::remove_all(root, ec);
    fs::create_directories(root, ec);

    std::vector<fs::path> made;
    size_t at = 0;
    while (at + 2 <= size && made.size() < 24) {
        const unsigned kind = data[at] % 5;
        const size_t pathLength = data[at + 1];
        at += 2;
        if (at + pathLength + 2 > size)
            break;
        const fs::path path = safePath(root, std::string_view(reinterpret_cast<const char*>(data + at), pathLength));
        at += pathLength;
        const size_t contentLength = std::min<size_t>(data[at] | (data[at + 1] << 8), size - at - 2);
        at += 2;
        const std::string_view content(reinterpret_cast<const char*>(data + at), contentLength);
        at += contentLength;
        if (path.empty())
            continue;
        fs::create_directories(path.parent_path(), ec);
        switch (kind) {
        case 0:
            std::ofstream(path, std::ios::binary).write(content.data(), static_cast<std::streamsize>(content.size()));
            break;
        case 1:
            fs::create_directories(path, ec);
            break;
        case 2:
            fs::create_symlink(std::string(content.substr(0, 200)), path, ec);
            break;
        case 3:
            if (!made.empty() && !content.empty())
                fs::create_hard_link(made[static_cast<unsigned char>(content[0]) % made.size()], path, ec);
            break;
        case 4:
            ::mkfifo(path.c_str(), 0600);
            break;
        }
        made.push_back(path);
    }

    for (const ProfileRun& run : findRuns(root.string())) {
        LoadResult result = loadRun(run, tpuscope::fuzz::fuzzLoadOptions());
        if (result.ok())
            tpuscope::fuzz::exerciseProfile(*result.profile);
    }
    return 0;
}
