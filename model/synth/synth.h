// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Scenario generator: writes real XSpace files (tensorflow.profiler.XSpace with embedded
// xla.HloProto) through the same schema the loader reads. Used for the bundled demo
// (resources/demo.xplane.pb, see resources/demo_scenario.md) and for benchmark inputs.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpuscope::model {

struct SynthOptions
{
    /// "origin-story" (the bundled demo) or "bench" (see benchEvents).
    std::string scenario = "origin-story";
    uint64_t seed = 20240229; // fixed: the same options give the same bytes
    int cores = 8;
    int steps = 20; // origin-story only
    int64_t benchEvents = 0; // bench only: XLA Ops events over all cores
};

/// Parses "origin-story" or "bench:N" (N may use a k/M suffix: bench:10M). Returns false with a
/// message naming the accepted forms.
bool parseSynthScenario(std::string_view text, SynthOptions& options, std::string& error);

/// The scenario names with one line of description each (for --help and errors).
std::vector<std::pair<std::string, std::string>> synthScenarios();

/// Writes the scenario to `path`, one plane at a time, so memory stays bounded by the largest
/// line (a few bytes per event) rather than the whole file. Never throws.
bool writeSyntheticXSpace(const SynthOptions& options, const std::string& path, std::string& error);

/// Same, into memory (tests and small scenarios).
bool syntheticXSpaceBytes(const SynthOptions& options, std::string& out, std::string& error);

} // namespace tpuscope::model
