// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli synth: writes a synthetic profile (demo, benchmarks).
#include "cli.h"

#include "synth/synth.h"

namespace tpuscope::cli {

using namespace tpuscope::model;

int runSynth(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (args.positional.empty() || args.output.empty()) {
        err << "tpuscope-cli synth: usage: synth SCENARIO -o OUT.xplane.pb (pod: -o LOGDIR)\nscenarios:\n";
        for (const auto& [name, text] : synthScenarios())
            err << "  " << name << "  " << text << "\n";
        return 2;
    }
    SynthOptions options;
    std::string error;
    if (!parseSynthScenario(args.positional.front(), options, error)) {
        err << "tpuscope-cli " << error << "\n";
        return 2;
    }
    if (synthWritesLogdir(options)) {
        if (!writeSyntheticLogdir(options, args.output, error)) {
            err << "tpuscope-cli " << error << "\n";
            return 1;
        }
        out << "wrote log dir " << args.output << " (" << args.positional.front() << ": " << options.hosts
            << " hosts)\n";
        return 0;
    }
    if (!writeSyntheticXSpace(options, args.output, error)) {
        err << "tpuscope-cli " << error << "\n";
        return 1;
    }
    out << "wrote " << args.output << " (" << args.positional.front() << ")\n";
    return 0;
}

namespace {
constexpr const OptionGroup* kSynthGroups[] = {&kOutputFileOption};

std::string synthDetails()
{
    std::string out = "scenarios:\n";
    for (const auto& [name, text] : synthScenarios())
        out += "  " + name + "\n      " + text + "\n";
    return out
        + "A before/after pair for diff and gate: synth origin-story -o before.xplane.pb, then\n"
          "synth origin-story:global_batch=1024 -o after.xplane.pb.\n";
}
} // namespace

constinit const Command kSynthCommand {
    .name = "synth",
    .operands = "SCENARIO",
    .about = "Writes a synthetic profile to -o OUT.xplane.pb (scenarios: origin-story[:...], bench:N), or pod:... to "
             "-o LOGDIR.",
    .groups = kSynthGroups,
    .run = runSynth,
    .details = synthDetails,
};

} // namespace tpuscope::cli
