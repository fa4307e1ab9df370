// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: outputs never destroy. The input builds a small tree (input files, a log dir,
// symlinks, hard links, FIFOs, directories), picks the inputs and an output path in it, and calls
// saveFileAtomically. Afterwards every input keeps its bytes, every special file is still what it
// was, and no temporary file is left: a violation aborts (a crash for libFuzzer).
#include "core/atomicfile.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
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
        std::string pattern = (fs::temp_directory_path() / "tpuscope-fuzz-outputpath-XXXXXX").string();
        const char* made = ::mkdtemp(pattern.data());
        return made ? fs::path(made) : fs::temp_directory_path() / "tpuscope-fuzz-outputpath";
    }();
    return base;
}

// Names the input chooses from: beside the inputs, inside the log dir, nested, odd.
constexpr const char* kNames[] = {"a.xplane.pb", "b.json.gz", "logdir/plugins/profile/run/h.xplane.pb",
    "logdir/plugins/profile/run/h.trace.json.gz", "out.tpuscope", "card.png", "card.png.part.png", ".out.tpuscope",
    "sub/x.png", "logdir", "logdir/plugins", "pipe", "link", "hard", "dangling"};

std::string contents(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

mode_t kindOf(const fs::path& path)
{
    struct stat st
    {
    };
    return ::lstat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

void check(bool ok, const char* what)
{
    if (!ok) {
        std::fprintf(stderr, "fuzz_outputpath: %s\n", what);
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 4)
        return 0;
    const fs::path root = baseDir() / "tree";
    std::error_code ec;
    fs::remove_all(root, ec);
    fs::create_directories(root / "logdir/plugins/profile/run", ec);
    fs::create_directories(root / "sub", ec);
    const size_t names = std::size(kNames);
    // Regular files with content; then links and special files chosen by the first bytes.
    for (const char* name : {"a.xplane.pb", "b.json.gz", "logdir/plugins/profile/run/h.xplane.pb",
             "logdir/plugins/profile/run/h.trace.json.gz", "card.png.part.png"})
        std::ofstream(root / name, std::ios::binary) << "profile " << name;
    ::mkfifo((root / "pipe").c_str(), 0600);
    fs::create_symlink(root / kNames[data[0] % 4], root / "link", ec);
    fs::create_hard_link(root / kNames[data[1] % 4], root / "hard", ec);
    fs::create_symlink(root / "nowhere", root / "dangling", ec);

    std::vector<std::string> inputs;
    for (int bit = 0; bit < 4; ++bit)
        if (data[2] & (1 << bit))
            inputs.push_back((root / kNames[bit == 3 ? 9 : bit]).string()); // a.xplane.pb, b.json.gz, h, logdir
    const std::string output = (root / kNames[data[3] % names]).string();

    // What must survive: every regular file but the output name itself keeps its bytes (a rename
    // replaces a name, never the file a symlink or hard link at that name points to).
    // Symlinks are names, not files: one pointing at the output shows the new output, as it should.
    std::map<std::string, std::string> before;
    for (const auto& entry : fs::recursive_directory_iterator(root, ec))
        if (entry.symlink_status(ec).type() == fs::file_type::regular)
            before[entry.path().string()] = contents(entry.path());
    bool outputIsAnInput = false;
    for (const std::string& input : inputs) {
        if (fs::exists(output, ec) && fs::equivalent(output, input, ec))
            outputIsAnInput = true;
        if (fs::is_directory(input, ec))
            for (const auto& entry : fs::recursive_directory_iterator(input, ec))
                if (fs::exists(output, ec) && fs::equivalent(output, entry.path(), ec))
                    outputIsAnInput = true;
    }
    const mode_t outputKind = fs::exists(output, ec) ? kindOf(fs::canonical(output, ec)) : 0;
    const mode_t pipeKind = kindOf(root / "pipe");
    size_t entriesBefore = 0;
    for ([[maybe_unused]] const auto& entry : fs::recursive_directory_iterator(root, ec))
        ++entriesBefore;

    std::string error;
    const std::string_view payload(reinterpret_cast<const char*>(data + 4), size - 4);
    const bool saved = saveFileAtomically(output, payload, error, inputs);
    check(saved || !error.empty(), "a failed save gave no message");
    check(!(saved && outputIsAnInput), "an input was overwritten");
    check(!(saved && outputKind != 0 && outputKind != S_IFREG), "a directory or special file was replaced");

    for (const auto& [path, bytes] : before)
        if (!(saved && path == output))
            check(contents(path) == bytes, "a file other than the output changed");
    check(kindOf(root / "pipe") == pipeKind, "the FIFO was replaced");
    size_t entriesAfter = 0;
    for ([[maybe_unused]] const auto& entry : fs::recursive_directory_iterator(root, ec))
        ++entriesAfter;
    // A save adds at most the output itself; a refused or failed one adds nothing.
    check(entriesAfter <= entriesBefore + (saved ? 1 : 0), "a temporary file was left behind");
    if (saved)
        check(contents(output) == payload, "the output does not hold the bytes");
    return 0;
}
