// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace tpuscope::cli {

struct Arguments
{
    std::string command;
    std::vector<std::string> positional;
    std::string format;
    std::string by = "op";
    std::string device;
    std::string output;
    int core = -1;
    size_t top = 0;
    uint64_t maxDecompressedMb = 0;
    std::string redact; // share: paths,names,hash
    bool text = false;  // share: write the pasteable text form
    bool help = false;
    std::string error;
};

bool parseArguments(int argc, char** argv, Arguments& args);
/// Runs one command; returns the process exit code (0 ok, 1 load/analysis failure, 2 usage).
int runCommand(const Arguments& args, std::ostream& out, std::ostream& err);

} // namespace tpuscope::cli

namespace tpuscope::cli {
constexpr int kUnknownCommand = -1;
/// Commands implemented in other files (advise, fusion, synth, ...); returns kUnknownCommand
/// when the command is not one of them.
int runExtraCommand(const Arguments& args, std::ostream& out, std::ostream& err);
bool findTpuGenerationKey(const std::string& key);
} // namespace tpuscope::cli
