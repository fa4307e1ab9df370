// SPDX-License-Identifier: GPL-3.0-or-later
// The scenario generator's front door: the scenario names, parsing them, and writing one to a file
// or into memory. The scenarios and the writer they use are in synthinternal.h.
#include "synth.h"

#include "synthinternal.h"

#include "core/atomicfile.h"

#include <charconv>

namespace tpuscope::model {

namespace {

bool writeScenario(const SynthOptions& options, const synth_detail::Sink& sink, std::string& error)
{
    if (options.scenario == "origin-story")
        return synth_detail::writeOriginStory(options, sink, error);
    if (options.scenario == "bench")
        return synth_detail::writeBench(options, sink, error);
    error = "synth: unknown scenario '" + options.scenario + "' (use origin-story or bench:N)";
    return false;
}

} // namespace

std::vector<std::pair<std::string, std::string>> synthScenarios()
{
    return {{"origin-story", "U-Net training step on a TPU v3-8, global batch 128 (16 per core): the bundled demo"},
        {"bench:N", "N XLA Ops events over 8 TPU cores with a tiny HLO module (benchmarks; k/M suffixes)"}};
}

bool parseSynthScenario(std::string_view text, SynthOptions& options, std::string& error)
{
    if (text == "origin-story") {
        options.scenario = "origin-story";
        return true;
    }
    if (text.substr(0, 6) == "bench:") {
        std::string_view n = text.substr(6);
        uint64_t multiplier = 1;
        if (!n.empty() && (n.back() == 'k' || n.back() == 'K'))
            multiplier = 1000, n.remove_suffix(1);
        else if (!n.empty() && n.back() == 'M')
            multiplier = 1000000, n.remove_suffix(1);
        int64_t value = 0;
        auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), value);
        if (ec == std::errc() && ptr == n.data() + n.size() && value > 0 && value <= 2000000000 / int64_t(multiplier)) {
            options.scenario = "bench";
            options.benchEvents = value * static_cast<int64_t>(multiplier);
            return true;
        }
        error = "synth: bench:N needs a positive event count up to 2e9 (e.g. bench:1000000 or bench:10M), got '"
            + std::string(text) + "'";
        return false;
    }
    error = "synth: unknown scenario '" + std::string(text) + "'; scenarios: origin-story, bench:N";
    return false;
}

bool writeSyntheticXSpace(const SynthOptions& options, const std::string& path, std::string& error)
{
    AtomicFile out;
    if (!out.open(path, {}, error)) {
        error = "synth: " + error;
        return false;
    }
    std::string writeError;
    const synth_detail::Sink sink = [&](std::string_view bytes) { return out.write(bytes, writeError); };
    if (!writeScenario(options, sink, error) || !out.commit(writeError)) {
        if (!writeError.empty() || error.empty())
            error = "synth: " + (writeError.empty() ? "cannot write " + path : writeError);
        return false;
    }
    return true;
}

bool syntheticXSpaceBytes(const SynthOptions& options, std::string& out, std::string& error)
{
    out.clear();
    const synth_detail::Sink sink = [&](std::string_view bytes) {
        out.append(bytes);
        return true;
    };
    return writeScenario(options, sink, error);
}

} // namespace tpuscope::model
