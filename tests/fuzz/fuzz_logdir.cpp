// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: log-directory discovery. The input is split on "\n--\n" into up to 6 parts; each
// part's first byte picks a relative path from a fixed list (TensorBoard layouts, odd names,
// nested train/eval dirs) and the rest becomes that file's content. The tree is written into a
// fresh temp directory, then findRuns and loadRun of every run found are called on it.
#include "fuzzcommon.h"
#include "loader/logdir.h"

#include <filesystem>
#include <fstream>
#include <string_view>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace tpuscope::model;

namespace {

constexpr const char* kPaths[] = {
    "plugins/profile/2026_01_11_21_26_41/host-a.xplane.pb",
    "plugins/profile/2026_01_11_21_26_41/host-b.xplane.pb",
    "plugins/profile/2026_01_11_21_26_41/host-a.trace.json.gz",
    "plugins/profile/2026_01_11_21_26_41/op_profile.json",
    "plugins/profile/2026_01_11_21_26_41/trace",
    "plugins/profile/2026_01_11_21_26_41/host-a.xplane.riegeli",
    "plugins/profile/2026_01_11_21_26_41/host-c.op_profile.json",
    "plugins/profile/run1/w-0.xplane.pb",
    "plugins/profile/run1/w-1.trace.json.gz",
    "train/plugins/profile/2025_12_31_23_59_59/h.xplane.pb",
    "eval/plugins/profile/not_a_time/h.trace.json.gz",
    "plugins/profile/2026_01_11_21_26_41/.xplane.pb",
    "plugins/profile/2026_01_11_21_26_41/a.b.c.xplane.pb",
    "plugins/profile/x/y/z.xplane.pb",
    "plugins/profile/2026_13_45_99_99_99/host.xplane.pb",
    "plugins/profile/2026_01_11_21_26_41/host-a.xplane.pb.gz",
};

const fs::path& baseDir()
{
    static const fs::path base = [] {
        std::string pattern = (fs::temp_directory_path() / "tpuscope-fuzz-logdir-XXXXXX").string();
        const char* made = ::mkdtemp(pattern.data());
        return made ? fs::path(made) : fs::temp_directory_path() / "tpuscope-fuzz-logdir";
    }();
    return base;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const fs::path root = baseDir() / "logdir";
    std::error_code ec;
    fs::remove_all(root, ec);
    fs::create_directories(root, ec);

    std::string_view rest(reinterpret_cast<const char*>(data), size);
    for (int part = 0; part < 6 && !rest.empty(); ++part) {
        const size_t cut = rest.find("\n--\n");
        std::string_view chunk = rest.substr(0, cut);
        rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 4);
        if (chunk.empty())
            continue;
        const fs::path file = root / kPaths[static_cast<unsigned char>(chunk[0]) % std::size(kPaths)];
        fs::create_directories(file.parent_path(), ec);
        std::ofstream(file, std::ios::binary).write(chunk.data() + 1, static_cast<std::streamsize>(chunk.size() - 1));
    }

    for (const ProfileRun& run : findRuns(root.string())) {
        LoadResult result = loadRun(run, tpuscope::fuzz::fuzzLoadOptions());
        if (result.ok())
            tpuscope::fuzz::exerciseProfile(*result.profile);
    }
    return 0;
}
