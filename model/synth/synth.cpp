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
    error = "synth: unknown scenario '" + options.scenario + "' (use origin-story or bench:N; pod writes a log dir)";
    return false;
}

bool parseInteger(std::string_view text, int64_t& value)
{
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && ptr == text.data() + text.size();
}

/// "hosts=8,chips=4,offset_us=500,late=3:input,late_pct=30,steps=20,seed=1" (every key optional).
bool parsePodOptions(std::string_view text, SynthOptions& options, std::string& error)
{
    options.scenario = "pod";
    options.steps = 20;
    while (!text.empty()) {
        const size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        const size_t eq = item.find('=');
        const std::string_view key = item.substr(0, eq);
        const std::string_view value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
        int64_t n = 0;
        bool ok = eq != std::string_view::npos;
        if (ok && key == "late") {
            const size_t colon = value.find(':');
            options.lateKind = std::string(colon == std::string_view::npos ? value : value.substr(colon + 1));
            if (options.lateKind == "none")
                options.lateHost = -1;
            else {
                ok = colon != std::string_view::npos && parseInteger(value.substr(0, colon), n) && n >= 0 && n < 100000;
                options.lateHost = ok ? static_cast<int>(n) : -1;
            }
        } else if (ok && parseInteger(value, n) && n >= 0 && n <= 2000000000) {
            if (key == "hosts")
                options.hosts = static_cast<int>(n);
            else if (key == "chips")
                options.chips = static_cast<int>(n);
            else if (key == "offset_us")
                options.podOffsetUs = n;
            else if (key == "steps")
                options.steps = static_cast<int>(n);
            else if (key == "late_pct")
                options.latePercent = static_cast<int>(n);
            else if (key == "seed")
                options.seed = static_cast<uint64_t>(n);
            else
                ok = false;
        } else
            ok = false;
        if (!ok) {
            error = "synth: pod takes hosts=H,chips=C,offset_us=U,late=HOST:input|slowchip|hosttransfer|none,"
                    "late_pct=P,steps=N,seed=S; cannot read '"
                + std::string(item) + "'";
            return false;
        }
    }
    return synth_detail::checkPodOptions(options, error);
}

/// "global_batch=1024,seed=7,steps=20,slowdown_pct=10" (every key optional).
bool parseOriginOptions(std::string_view text, SynthOptions& options, std::string& error)
{
    options.scenario = "origin-story";
    while (!text.empty()) {
        const size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        const size_t eq = item.find('=');
        const std::string_view key = item.substr(0, eq);
        int64_t n = 0;
        bool ok
            = eq != std::string_view::npos && parseInteger(item.substr(eq + 1), n) && n >= -1000000 && n <= 2000000000;
        if (ok && key == "global_batch")
            options.globalBatch = n;
        else if (ok && key == "seed" && n >= 0)
            options.seed = static_cast<uint64_t>(n);
        else if (ok && key == "steps")
            options.steps = static_cast<int>(n);
        else if (ok && key == "slowdown_pct")
            options.slowdownPct = static_cast<double>(n);
        else
            ok = false;
        if (!ok) {
            error = "synth: origin-story takes global_batch=N,seed=S,steps=N,slowdown_pct=P; cannot read '"
                + std::string(item) + "'";
            return false;
        }
    }
    return synth_detail::OriginRecompile::check(options, error);
}

} // namespace

std::vector<std::pair<std::string, std::string>> synthScenarios()
{
    return {{"origin-story", "U-Net training step on a TPU v3-8, global batch 128 (16 per core): the bundled demo"},
        {"origin-story:global_batch=N,seed=S,steps=N,slowdown_pct=P",
            "the same model recompiled for global batch N (new shapes, layouts, fusions and op numbers; 1024 is "
            "the demo's fix), another seed's jitter, or every op P % slower: the other side of a diff or gate"},
        {"bench:N", "N XLA Ops events over 8 TPU cores with a tiny HLO module (benchmarks; k/M suffixes)"},
        {"pod[:hosts=H,chips=C,offset_us=U,late=HOST:input|slowchip|hosttransfer|none,late_pct=P,steps=N,seed=S]",
            "a log dir of H hosts x C TPU v5e chips (default 8 x 4, 20 steps) with clock offsets and one late host"}};
}

bool parseSynthScenario(std::string_view text, SynthOptions& options, std::string& error)
{
    if (text == "origin-story") {
        options.scenario = "origin-story";
        return true;
    }
    if (text.substr(0, 13) == "origin-story:")
        return parseOriginOptions(text.substr(13), options, error);
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
    if (text == "pod" || text.substr(0, 4) == "pod:")
        return parsePodOptions(text.size() > 4 ? text.substr(4) : std::string_view(), options, error);
    error = "synth: unknown scenario '" + std::string(text) + "'; scenarios: origin-story[:...], bench:N, pod[:...]";
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

bool synthWritesLogdir(const SynthOptions& options)
{
    return options.scenario == "pod";
}

bool writeSyntheticLogdir(const SynthOptions& options, const std::string& directory, std::string& error)
{
    if (!synthWritesLogdir(options)) {
        error = "synth: " + options.scenario + " writes one file, not a log dir";
        return false;
    }
    return synth_detail::writePod(options, directory, error);
}

bool synthPodTruth(const SynthOptions& options, SynthPodTruth& truth, std::string& error)
{
    return synth_detail::podTruth(options, truth, error);
}

} // namespace tpuscope::model
