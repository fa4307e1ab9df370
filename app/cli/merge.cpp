// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli merge: the reduce step for a pod too large for one machine. Each host's share file
// is written where its profile lives (`share HOST.xplane.pb -o HOST.tpuscope`); merge puts them
// into one share file with the pod's hosts table and straggler answer.
#include "cli.h"

#include "core/atomicfile.h"
#include "loader/decoder.h"
#include "loader/sharereader.h"
#include "loader/shareschema.h"
#include "share/sharemerge.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace tpuscope::cli {

using namespace tpuscope::model;

namespace {

/// The file's bytes, or false with a message. A share file is small: a larger file is refused
/// before it is read (the reader would refuse it anyway).
bool readShareInput(const std::string& path, std::string& bytes, std::string& error)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        error = path + ": not a file";
        return false;
    }
    if (std::filesystem::file_size(path, ec) > kMaxShareJsonBytes) {
        error = path + ": larger than any share file (" + std::to_string(kMaxShareJsonBytes >> 20) + " MiB)";
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
        error = path + ": cannot be read";
        return false;
    }
    return true;
}

} // namespace

int runMerge(const Arguments& args, std::ostream&, std::ostream& err)
{
    if (args.positional.size() < 2) {
        err << "tpuscope-cli merge: give two or more share files (HOST.tpuscope ...)\n";
        return 2;
    }
    if (args.output.empty()) {
        err << "tpuscope-cli merge: give -o POD.tpuscope\n";
        return 2;
    }
    if (args.positional.size() > kMaxShareHosts) {
        err << "tpuscope-cli merge: " << args.positional.size() << " files, more than the " << kMaxShareHosts
            << " hosts a share file may hold\n";
        return 2;
    }
    if (outputRefused("merge", args.output, args.positional, err))
        return 2;
    std::vector<ShareMergeInput> inputs;
    inputs.reserve(args.positional.size());
    for (const std::string& path : args.positional) {
        std::string error;
        ShareMergeInput& input = inputs.emplace_back();
        input.name = path;
        if (!readShareInput(path, input.bytes, error)) {
            err << "tpuscope-cli merge: " << error << "\n";
            return 1;
        }
        if (!looksLikeShareFile(input.bytes)) {
            err << "tpuscope-cli merge: " << path
                << ": not a tpuscope share file (write one with tpuscope-cli share)\n";
            return 2;
        }
    }
    const ShareMergeResult merged = mergeShareFiles(inputs, effectiveLimits({}));
    if (!merged.ok()) {
        // The inputs do not make one pod (or one is damaged): the user's input, exit code 2.
        err << "tpuscope-cli merge: " << merged.error << "\n";
        return 2;
    }
    std::string error;
    if (!saveFileAtomically(args.output, merged.bytes, error, args.positional)) {
        err << "tpuscope-cli merge: " << error << "\n";
        return 1;
    }
    err << args.output << ": " << kib(merged.bytes.size()) << ", " << merged.hosts << " hosts, " << merged.cores
        << " TPU cores, " << merged.stepsPerCore << " steps per core\n";
    return 0;
}

namespace {
constexpr const OptionGroup* kMergeGroups[] = {&kOutputFileOption};
} // namespace

constinit const Command kMergeCommand {
    .name = "merge",
    .operands = "A.tpuscope B.tpuscope ...",
    .about = "One share file from the share files of the hosts of one run (-o POD.tpuscope): the pod's hosts "
             "table and straggler advice, for pods too large for one machine.",
    .groups = kMergeGroups,
    .run = runMerge,
};

} // namespace tpuscope::cli
