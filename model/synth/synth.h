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
    /// "origin-story" (the bundled demo), "bench" (see benchEvents) or "pod" (a log dir, see hosts).
    std::string scenario = "origin-story";
    uint64_t seed = 20240229; // fixed: the same options give the same bytes
    int cores = 8;
    int steps = 20; // origin-story only
    // origin-story only: the global batch (128: the demo; another one is the same model recompiled
    // for it, with new shapes, layouts, fusions and op names) and a slowdown of every op (percent).
    int64_t globalBatch = 128;
    double slowdownPct = 0;
    int64_t benchEvents = 0; // bench only: XLA Ops events over all cores
    // pod only: hosts × chips (v5e, one core per chip), each host's clock off by up to ±podOffsetUs
    // (deterministic from the seed), and the late host (-1 none) with what makes it late:
    // "input", "slowchip", "hosttransfer" or "none".
    int hosts = 8;
    int chips = 4;
    int64_t podOffsetUs = 500;
    int lateHost = -1;
    std::string lateKind = "none";
    int latePercent
        = 100; // the late host is late in this share of the steps (spread evenly; an intermittent straggler)
};

/// What the pod scenario put in, per host and step, averaged over the host's chips (ps, true
/// time): what the hosts analysis must find. A step lasts from a module run's start to the next
/// one's; the all-reduce's wait is its time beyond the shortest all-reduce of the step.
struct SynthPodTruth
{
    std::vector<std::string> hostnames;
    std::vector<int64_t> clockOffsetPs; // per host: its written time − true time
    int lateHost = -1;
    std::string lateKind;
    int slowChip = -1; // the slowchip host's slow chip
    // [host][step]
    std::vector<std::vector<double>> stepPs, computePs, collectivePs, collectiveWaitPs, idlePs, hostTransferPs;
    std::vector<std::vector<int64_t>> arrivalPs; // the host's last chip reaching the all-reduce
};

/// Parses "origin-story", "bench:N" (N may use a k/M suffix: bench:10M) or
/// "pod[:hosts=H,chips=C,offset_us=U,late=HOST:KIND,late_pct=P,steps=N,seed=S]". Returns false with a
/// message naming the accepted forms.
bool parseSynthScenario(std::string_view text, SynthOptions& options, std::string& error);

/// The scenario names with one line of description each (for --help and errors).
std::vector<std::pair<std::string, std::string>> synthScenarios();

/// Writes the scenario to `path`, one plane at a time, so memory stays bounded by the largest
/// line (a few bytes per event) rather than the whole file. Never throws.
bool writeSyntheticXSpace(const SynthOptions& options, const std::string& path, std::string& error);

/// Same, into memory (tests and small scenarios).
bool syntheticXSpaceBytes(const SynthOptions& options, std::string& out, std::string& error);

/// Whether the scenario writes a TensorBoard log dir (pod) rather than one file.
bool synthWritesLogdir(const SynthOptions& options);
/// Writes the pod scenario as a log dir: DIR/plugins/profile/RUN/<hostname>.xplane.pb, one XSpace
/// per host with its name in XSpace.hostnames.
bool writeSyntheticLogdir(const SynthOptions& options, const std::string& directory, std::string& error);
/// What the pod scenario of `options` puts in (tests compare an analysis with it).
bool synthPodTruth(const SynthOptions& options, SynthPodTruth& truth, std::string& error);

} // namespace tpuscope::model
