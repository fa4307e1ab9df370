// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the parts of the scenario generator share; synth.h is its front door. The XSpace writer
// (synthwriter.cpp: wire format, planes, stats, op metadata), the HLO module builder and the cost
// model that reads its shapes (synthhlo.cpp), and the scenarios (synthorigin.cpp and its recompile for
// another global batch, synthrecompile.cpp; synthbench.cpp, synthpod.cpp)
// each keep to one job and meet here. Only model/synth includes it.

#include "synth.h"

#include "hlo.pb.h"
#include "xplane.pb.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpuscope::model::synth_detail {

/// Where the bytes go: the output file one plane at a time, or a string (syntheticXSpaceBytes).
using Sink = std::function<bool(std::string_view)>;

// Fixed time base (2024-11-29 UTC) so files are reproducible.
constexpr int64_t kTimeBaseNs = 1732900000000000000;

// Deterministic PRNG that is identical on every platform (std distributions are not).
class SplitMix
{
public:
    explicit SplitMix(uint64_t seed)
        : m_state(seed)
    {
    }
    uint64_t next()
    {
        uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [-1, 1).
    double symmetric() { return static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0; }

private:
    uint64_t m_state;
};

// ---------------------------------------------------------------------------------------------
// HLO (synthhlo.cpp): modules are described as text-ish specs and converted to xla.HloProto, so
// that the HLO text in the op events and the proto agree by construction.

struct InstSpec
{
    std::string name;
    std::string opcode;
    std::string shape; // HLO text shape with layout
    std::vector<std::string> operands;
    std::string attributes; // printed after the operands, e.g. "dimensions={3}"
    std::string fusionKind;
    std::string calls; // called computation name (fusion, reduce, all-reduce)
    bool hasConv = false;
    // b, f, spatial... for input / kernel(i, o, spatial) / output
    int64_t inB = 0, inF = 0, kI = 0, kO = 0, outB = 0, outF = 0;
    std::vector<int64_t> inS, kS, outS;
    int64_t parameterNumber = -1;
    std::string opType, opName, sourceFile;
    int sourceLine = 0;
};

struct CompSpec
{
    std::string name;
    bool isFusion = false;
    std::vector<InstSpec> instructions; // the last one is the root
};

struct BuiltModule
{
    xla::HloProto proto;
    std::map<std::string, std::string> hloText; // entry instruction name -> HLO text line
    std::optional<xla::BufferAssignmentProto> bufferAssignment; // written as HloProto field 3
};

/// The HloProto bytes, with the buffer assignment appended as field 3 (proto/hlo.proto leaves it out).
std::string serializeModule(const BuiltModule& module);

/// Converts the specs into one xla.HloProto module (the last computation is the entry) and keeps
/// each instruction's HLO text line; false with `error` when the specs do not hold together
/// (a bad shape, an unknown operand or computation, an empty computation).
bool buildModule(const std::string& moduleName, int64_t moduleId, const std::vector<CompSpec>& computations,
    BuiltModule& built, std::string& error);

// ---------------------------------------------------------------------------------------------
// Costs from HLO shapes (synthhlo.cpp), so that an op's FLOPs and bytes are what its own HLO says
// it does.

struct OpCost
{
    double flops = 0;
    double readBytes = 0; // operands, from HBM
    double writeBytes = 0; // result, to HBM
};

/// The cost of an entry instruction: its FLOPs (a fusion's are those of its fused
/// instructions) and the bytes of its operands and result.
OpCost opCostFromShapes(const std::vector<CompSpec>& computations, const std::string& entryName, const std::string& op);

// ---------------------------------------------------------------------------------------------
// The XSpace writer (synthwriter.cpp): planes are written record by record, so a big scenario
// never exists as one message.

/// The message's bytes with map entries in key order, so the same scenario gives the same bytes.
std::string serializeDeterministic(const google::protobuf::MessageLite& message);

/// One line whose events are already serialized (so big lines never exist as message objects).
struct LineData
{
    tensorflow::profiler::XLine header; // without events
    std::string events; // concatenated field-4 records
};

void appendEvent(LineData& line, int64_t metadataId, int64_t offsetPs, int64_t durationPs);

/// Writes one XSpace.planes record: the plane header, then each line with its serialized events.
bool writePlane(const Sink& sink, const tensorflow::profiler::XPlane& header, const std::vector<LineData>& lines);

// Stat helpers: stat metadata ids are per plane, looked up by name like the real runtime does.

class StatTable
{
public:
    explicit StatTable(tensorflow::profiler::XPlane& plane)
        : m_plane(plane)
    {
    }
    int64_t id(const std::string& name)
    {
        auto it = m_ids.find(name);
        if (it != m_ids.end())
            return it->second;
        const int64_t id = static_cast<int64_t>(m_ids.size()) + 1;
        m_ids.emplace(name, id);
        auto& meta = (*m_plane.mutable_stat_metadata())[id];
        meta.set_id(id);
        meta.set_name(name);
        return id;
    }
    tensorflow::profiler::XStat* add(
        google::protobuf::RepeatedPtrField<tensorflow::profiler::XStat>* stats, const std::string& name)
    {
        auto* stat = stats->Add();
        stat->set_metadata_id(id(name));
        return stat;
    }

private:
    tensorflow::profiler::XPlane& m_plane;
    std::map<std::string, int64_t> m_ids;
};

void addDevicePlaneStats(tensorflow::profiler::XPlane& plane, StatTable& stats, const std::string& deviceType,
    double peakTflops, double peakHbmGbps);

/// Adds the XEventMetadata of one XLA op (stats in the order the v6e runtime writes them).
void addOpMetadata(tensorflow::profiler::XPlane& plane, StatTable& stats, int64_t id, const std::string& hloText,
    const std::string& displayName, const std::string& category, uint64_t programId, uint64_t symbolId, double flops,
    double hbmReadBytes, double hbmWriteBytes, const std::string& shapeWithLayout, const std::string& tfOp,
    const std::string& source);

/// Writes one XSpace.hostnames record (field 4).
bool writeSpaceHostname(const Sink& sink, const std::string& hostname);

/// Writes the /host:metadata plane: one event metadata per program, its HloProto under the stat "Hlo Proto".
bool writeMetadataPlane(
    const Sink& sink, int64_t planeId, const std::vector<std::pair<uint64_t, const BuiltModule*>>& modules);

// ---------------------------------------------------------------------------------------------
// Scenarios (synthorigin.cpp, synthbench.cpp, synthpod.cpp): each checks its options and writes its planes to
// the sink, false with `error` when it cannot.

/// The device the scenarios run on; its peaks are the device planes' stats.
struct DeviceSpec
{
    std::string deviceType = "TPU v3";
    double peakTflops = 61.5; // per TensorCore (FORMATS.md §6.1: 123 per chip, 2 cores)
    double peakHbmGbps = 450; // per TensorCore (900 GB/s per chip)
};

bool writeOriginStory(const SynthOptions& options, const Sink& sink, std::string& error);
/// The origin story recompiled for another global batch (synthrecompile.cpp; `origin-story:global_batch=N`),
/// and a uniform slowdown of its ops (`slowdown_pct=P`). writeOriginStory passes its parts through
/// these hooks; at the demo's own options (global batch 128, no slowdown) each one changes nothing.
class OriginRecompile
{
public:
    explicit OriginRecompile(const SynthOptions& options);
    /// False with `error` for a global batch the cores cannot split or a slowdown out of range.
    static bool check(const SynthOptions& options, std::string& error);
    /// Whether this is another compilation than the demo's (another per-core batch).
    bool recompiled() const;
    /// The computations at the new per-core batch: new shapes, the input's new tiles and XLA's new
    /// fusion boundary. Keeps the original names (the buffer assignment looks them up); renumber()
    /// renames the built module afterwards.
    std::vector<CompSpec> reshape(std::vector<CompSpec> computations);
    /// XLA's new numbering applied to a module built from reshape()'s computations: its
    /// instructions and computations, its HLO text and its heap-simulator trace.
    void renumber(BuiltModule& module) const;
    /// An instruction's name in the recompiled module (the original when not renumbered).
    std::string name(const std::string& original) const;
    /// A new compilation gets a new program id.
    uint64_t programId(uint64_t original) const;
    /// Each op's duration at the new shapes, from its duration at the demo's (`before`): scaled by its
    /// padded bytes, at most kMaxRooflineShare of its roofline bound, then slowed down.
    void scaleDurations(std::vector<double>& durationsPs, const std::vector<CompSpec>& before,
        const std::vector<CompSpec>& after, const std::vector<std::string>& ops, const DeviceSpec& device) const;

private:
    int64_t m_perCoreBatch;
    double m_slowdown;
    uint64_t m_seed;
    std::map<std::string, std::string> m_names; // old name -> new name, once reshape() ran
};

bool writeBench(const SynthOptions& options, const Sink& sink, std::string& error);
// The pod (synthpod.cpp) writes one file per host into a log dir.
std::string podHostname(int host);
bool checkPodOptions(const SynthOptions& options, std::string& error);
bool writePod(const SynthOptions& options, const std::string& directory, std::string& error);
bool podTruth(const SynthOptions& options, SynthPodTruth& truth, std::string& error);

} // namespace tpuscope::model::synth_detail
