// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hlo.h"
#include "opclass.h"
#include "stringpool.h"
#include "timefacts.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tpuscope::model {

/// Picoseconds. Absolute times inside a Profile are relative to Profile::originNs so that
/// they fit 64 bits (ns since the epoch × 1000 would not).
/// Longer events (about 13 days) are damage, not measurements: loaders count them as malformed.
constexpr TimePs kMaxEventDurationPs = TimePs(1) << 60;
using TrackId = uint32_t;
using PlaneId = uint32_t;
constexpr uint32_t kNone = UINT32_MAX;

enum class PlaneKind : uint8_t { TpuCore, TpuNonCore, Gpu, Host, Metadata, Other };
const char* planeKindName(PlaneKind kind);
/// What a plane named `name` is, as ProfileBuilder::addPlane classifies it, and its core (or GPU)
/// index where the name gives one (-1 otherwise).
std::pair<PlaneKind, int> planeKindAndCore(std::string_view name);
PlaneKind planeKindFromName(std::string_view name);

/// What a track (an XLine or a Chrome-JSON thread) shows; lines are matched by name, never id.
enum class TrackKind : uint8_t { Steps, XlaModules, XlaOps, AsyncXlaOps, FrameworkOps, HostThread, Other };
const char* trackKindName(TrackKind kind);
TrackKind trackKindFromLineName(std::string_view name);

/// Where the per-core peak numbers came from; shown to users so they know what the
/// utilization denominators are.
enum class PeakSource : uint8_t { None, PlaneStats, GenerationTable, UserChoice };
const char* peakSourceName(PeakSource source);

/// Where the core count came from: the file's TPU core planes, a lower bound from the collectives'
/// replica groups (files that sum every core's time on one plane, such as op_profile.json), the
/// user, or nowhere.
enum class CoreCountSource : uint8_t { None, Planes, ReplicaGroups, UserChoice };
/// "planes", "replica groups", "user choice", "none".
const char* coreCountSourceName(CoreCountSource source);

/// One kind of event: an XEventMetadata (deduplicated across cores) or a JSON event name.
/// Per-occurrence costs; totals are computed by analysis.
struct OpInfo
{
    StringId name = 0; // display name (e.g. "fusion.3")
    StringId longName = 0; // HLO text when the producer kept it
    StringId category = 0; // hlo_category, or derived from the HLO opcode
    StringId shapeWithLayout = 0;
    StringId tfOp = 0;
    StringId source = 0;
    StringId deduplicatedName = 0;
    uint64_t programId = 0;
    bool hasProgramId = false;
    bool isXlaOp = false; // appeared on an `XLA Ops` line of a TPU core
    /// The first track (in track order) holding an event of this op, kNone when none does. Set
    /// when the profile is finished, so views learn what is drawn without a pass over the events.
    TrackId firstTrack = kNone;
    uint32_t program = kNone; // index into Profile::programs
    double flops = 0; // device-normalized (xprof flops_v2); model flops when only those exist
    double modelFlops = 0;
    double bytesAccessed = 0;
    double hbmBytes = -1; // HBM read+write from memory_access_breakdown; -1 = not recorded
    /// The file records the op's FLOP count (bytes), even when it is zero: a recorded zero is a known
    /// zero (an infeed computes nothing), an absent one is unknown.
    bool flopsRecorded = false;
    bool bytesRecorded = false;
    /// The op's class as the file recorded it (share files); analyses decide it otherwise.
    std::optional<RecordedOpKind> recordedKind;
};

/// A timeline row: columnar, sorted by start; nested events carry depth > 0.
struct Track
{
    StringId name = 0;
    PlaneId plane = 0;
    TrackKind kind = TrackKind::Other;
    int64_t lineId = 0;
    int64_t displayId = 0;
    int32_t sortIndex = 0;
    std::vector<TimePs> start;
    std::vector<TimePs> duration;
    std::vector<OpId> op;
    std::vector<uint16_t> depth;
    uint16_t maxDepth = 0;
    /// The latest end of its events (ProfileBuilder::finish; 0 without events), so a question
    /// about where a track's activity ends needs no pass over its events.
    TimePs lastEnd = 0;
    /// Events with `num_occurrences` instead of a start (XSpace aggregated events).
    struct Aggregated
    {
        OpId op;
        int64_t occurrences;
        TimePs duration;
    };
    std::vector<Aggregated> aggregated;

    size_t size() const { return start.size(); }
    TimePs end(size_t i) const { return start[i] + duration[i]; }
};

/// Sampled values (Chrome JSON `C` events, utilization series).
struct CounterTrack
{
    StringId name = 0;
    PlaneId plane = 0;
    std::vector<TimePs> time;
    std::vector<double> value;
};

struct Plane
{
    StringId name = 0;
    PlaneKind kind = PlaneKind::Other;
    int32_t coreIndex = -1; // n of /device:TPU:n (or GPU:n)
    uint32_t host = 0; // index into Profile::hosts
    int32_t sortIndex = 0;
    std::vector<TrackId> tracks;
    std::vector<uint32_t> counters;
    /// The plane sums the op time of every core that ran (op_profile.json): it is no one core.
    bool aggregate = false;
    std::string deviceType; // device_type_string
    double peakTflops = 0; // plane stat peak_teraflops_per_second (0 = absent)
    double peakHbmGbps = 0; // plane stat peak_hbm_bw_gigabytes_per_second
};

struct Program
{
    uint64_t id = 0;
    std::string name;
    std::shared_ptr<const hlo::Module> hlo; // null when the file carries no HLO for it
};

struct DeviceInfo
{
    std::string type; // e.g. "TPU v6 Lite"; empty when unknown
    std::string generation; // canonical generation key ("v6e"), empty when unknown
    /// The TPU cores every per-core figure divides by: the TensorCore planes over all hosts, or where
    /// one plane sums all cores (op_profile.json) the count the user gave, else the replica groups'
    /// lower bound, else 1 (and `coresNote` says so).
    int cores = 0;
    CoreCountSource coresSource = CoreCountSource::None;
    int coresAtLeast = 0; // what the replica groups prove (0 = nothing)
    std::string coresNote; // how the count was chosen, when the file does not record it
    int hosts = 1;
    double peakTflopsPerCore = 0;
    double peakHbmGbpsPerCore = 0;
    /// Inter-chip interconnect bandwidth per core and direction (GB/s) of the generation; 0 unknown.
    double iciGbpsPerCore = 0;
    PeakSource peakSource = PeakSource::None;
    std::string peakNote; // how the peak was chosen, in words
};

/// Data-quality counters (Perfetto's stats idea): problems are counted, not fatal.
struct ImportStats
{
    int64_t negativeDurations = 0;
    int64_t unknownMetadataIds = 0;
    int64_t partialOverlaps = 0;
    int64_t depthLimitHits = 0;
    int64_t unmatchedEnds = 0;
    int64_t unmatchedBegins = 0;
    int64_t malformedEvents = 0;
    int64_t hloDecodeFailures = 0;
    int64_t aggregatedEvents = 0;
};

struct LoadInfo
{
    std::string path;
    std::string format; // "xspace", "xspace.gz", "chrome-json", ...
    uint64_t fileBytes = 0;
    uint64_t decodedBytes = 0; // after decompression
    double seconds = 0;
    std::vector<std::string> warnings;
    std::vector<std::string> limitations; // what this format cannot provide
    /// A device or core count the user chose that contradicts what the file records: refused, and
    /// this says why (naming the recorded device); empty when the choice applied or none was made.
    std::string deviceRefusal;
};

/// One dimension of an op_profile LayoutAnalysis (FORMATS.md §4.2), most-minor first.
struct LayoutDimensionHint
{
    int64_t size = 0;
    int64_t alignment = 0; // 0 = no constraint
    std::string semantics; // "feature", "batch", "spatial", ...
};

/// A host event that marks a step: a StepTraceAnnotation (an event with a `step_num` stat).
/// The event itself stays on its track; this records where it is and which step it names.
struct StepMarker
{
    TimePs start = 0;
    TimePs duration = 0;
    int64_t stepNumber = -1;
    StringId name = 0;
    PlaneId plane = 0;
};

/// A file's own program-level utilizations (op_profile.json's root node, FORMATS.md §4.2): the
/// headline reproduces them, and a test checks that it does.
struct RootUtilization
{
    std::optional<double> flops;
    std::optional<double> hbm;
};

/// The loaded profile. Immutable once built (shared as std::shared_ptr<const Profile>).
class Profile
{
public:
    StringPool strings;
    std::vector<std::string> hosts;
    std::vector<Plane> planes;
    std::vector<Track> tracks;
    std::vector<CounterTrack> counters;
    std::vector<OpInfo> ops;
    std::vector<Program> programs;
    /// Layout hints a producer recorded per op (op_profile.json `xla.layout`); empty for most formats.
    std::unordered_map<OpId, std::vector<LayoutDimensionHint>> layoutHints;
    DeviceInfo device; // what every analysis uses
    DeviceInfo fileDevice; // as the file gives it, before any user choice
    /// Host step markers, by start; empty when the producer recorded none.
    std::vector<StepMarker> stepMarkers;
    RootUtilization fileRootUtilization; // empty for formats that record none
    /// The file's schema records no bytes for any op (a TF1 op_profile without bandwidth figures):
    /// HBM rates are unknown, not zero.
    bool bytesNotRecorded = false;
    /// What a file without a timeline recorded about its original's (share files); null otherwise.
    std::shared_ptr<const RecordedTimeline> recorded;
    ImportStats stats;
    LoadInfo load;
    int64_t originNs = 0; // absolute time (ns since epoch, or file time base) of TimePs 0
    TimePs spanBegin = 0;
    TimePs spanEnd = 0;

    const std::string& str(StringId id) const { return strings.str(id); }
    size_t eventCount() const;
    const Program* program(uint64_t programId) const;
    const hlo::Module* hloFor(const OpInfo& op) const;
    /// The HLO instruction an op stands for (looked up by display name in its program).
    const hlo::Instruction* instructionFor(const OpInfo& op) const;
    /// TPU core planes in core order.
    std::vector<PlaneId> tpuCorePlanes() const;
    bool hasTpuOps() const;

private:
    std::unordered_map<uint64_t, size_t> m_programIndex;
    friend class ProfileBuilder;
};

using ProfilePtr = std::shared_ptr<const Profile>;

/// The device as the file gives it: cores from its TPU planes (or the replica groups where one plane
/// sums all cores), peaks a loader set, else the plane stats, else the generation the planes name.
DeviceInfo deviceFromFile(const Profile& profile);

/// A user's choice of device applied to the file's. What the file records wins: a generation (or
/// core count) that contradicts its recorded device type, peaks or TPU planes is refused, and
/// `refusal` names what the file records; a choice applies where the file records nothing, and a
/// generation that agrees with recorded peaks only names them.
struct DeviceChoice
{
    DeviceInfo device;
    std::string refusal;
};
/// `deviceOverride`: a generation key or device type, empty for none; `coresOverride`: 0 for none.
DeviceChoice chooseDevice(const DeviceInfo& fileDevice, std::string_view deviceOverride, int coresOverride = 0);
/// A copy of the profile with its device chosen again, for a device picked after the load: the
/// events are not read again, and every analysis is recomputed from the copy. A refused choice
/// leaves the file's device and sets load.deviceRefusal.
std::shared_ptr<const Profile> withDevice(
    const Profile& profile, std::string_view deviceOverride, int coresOverride = 0);

/// How many devices the collectives' replica groups span ("replica_groups=[1,4]<=[4]" gives 4,
/// "replica_groups={{0,1,2,3}}" gives 4); 0 when no op names any. A lower bound of the devices that
/// ran the program.
int devicesFromReplicaGroups(const Profile& profile);

/// Where one op ran: per track (indexed by TrackId), the ascending indices of its events.
using OpOccurrences = std::vector<std::vector<uint32_t>>;
/// The occurrences of `op`, or an empty result when `stop` was requested on the way. A pass over
/// every event (the tracks from the op's first track on): run it as a job, not on the GUI thread.
OpOccurrences findOccurrences(const Profile& profile, OpId op, std::stop_token stop = {});

/// What the loads of several files that share one budget have taken so far (the hosts of a log
/// dir decode at the same time, each into its own builder): each load's last figures by slot,
/// and their sums, kept with atomics so that a check costs a few instructions.
class SharedLoadBudget
{
public:
    explicit SharedLoadBudget(size_t loads);
    /// Records load `slot`'s figures and returns the sums over every load.
    struct Totals
    {
        uint64_t events = 0, stringBytes = 0, structureBytes = 0;
    };
    Totals update(size_t slot, uint64_t events, uint64_t stringBytes, uint64_t structureBytes);
    /// Load `slot` failed or was merged: it takes nothing any more.
    void release(size_t slot) { update(slot, 0, 0, 0); }
    size_t loads() const { return m_slots.size(); }

private:
    struct Slot
    {
        std::atomic<uint64_t> events {0}, stringBytes {0}, structureBytes {0};
    };
    std::vector<Slot> m_slots;
    std::atomic<uint64_t> m_events {0}, m_stringBytes {0}, m_structureBytes {0};
};

/// Limits a load honours, so that an oversized or hostile file stops with a clear message
/// instead of exhausting the machine's memory. The loader fills them from LoadOptions.
struct LoadLimits
{
    /// Peak bytes per event while a profile is built (columns, their growth, per-plane staging);
    /// measured 47–54 B/event for XSpace, so the budget check errs on the safe side.
    static constexpr uint64_t kPeakBytesPerEvent = 56;
    /// The same for the containers a load builds before or besides events (XSpace: measured with
    /// files of nothing but empty lines or planes; see tests/model/test_memory.cpp).
    static constexpr uint64_t kPeakBytesPerLine = 560;
    static constexpr uint64_t kPeakBytesPerPlane = 1024;
    static constexpr uint64_t kPeakBytesPerMetadataEntry = 256;
    static constexpr uint64_t kPeakBytesPerMetadataByte = 4; // decoded names and HLO modules
    /// An op kind: its OpInfo, its entry in the builder's dedup index, and what the analysis keeps
    /// per op after the load (breakdown rows, op model, program split). Measured over a whole
    /// `tpuscope-cli summary` of XSpaces of 100k-400k unique op names: 1.59-1.64 KB per op (it was
    /// charged 512 B, so 500k names estimated at 224 MiB took 629 MB).
    static constexpr uint64_t kPeakBytesPerOp = 1664;
    /// A program, a host step marker or a layout hint (their own text is counted apart).
    static constexpr uint64_t kPeakBytesPerProgram = 512;
    static constexpr uint64_t kPeakBytesPerStepMarker = 96;
    /// An HLO instruction: the decoded Instruction (~450 B measured with empty instructions: its
    /// strings, shape and index entries) and, while it is converted, the protobuf arena's copy.
    static constexpr uint64_t kPeakBytesPerHloInstruction = 1024;
    /// Instructions one HLO module may have (the largest real ones have a few hundred thousand).
    static constexpr uint64_t kDefaultMaxHloInstructions = 2'000'000;

    uint64_t maxEvents = UINT64_MAX;
    uint64_t maxHloInstructions = kDefaultMaxHloInstructions;
    /// How the user raises the instruction limit, appended to its messages.
    std::string hloHint;
    /// Set when this load shares the budget and the event limit with others (`sharedSlot` is
    /// its own): check() then counts what they all take together.
    std::shared_ptr<SharedLoadBudget> shared;
    size_t sharedSlot = 0;
    uint64_t memoryBudgetBytes = UINT64_MAX;
    /// How the user raises the limits, appended to messages ("--max-events N (tpuscope-cli) ...").
    std::string eventsHint;
    std::string budgetHint;

    /// Empty while `events` events, `stringBytes` of interned text and `structureBytes` of planes,
    /// lines, stats and metadata fit; otherwise a message that names the limit that was hit, the
    /// figures and how to raise it.
    std::string check(uint64_t events, uint64_t stringBytes, uint64_t structureBytes = 0) const;
};

/// Builds a Profile; every loader goes through it so that sorting, nesting, op dedup and
/// device peaks are decided in one place.
class ProfileBuilder
{
public:
    ProfileBuilder();

    Profile& profile() { return *m_profile; }
    StringId intern(std::string_view s) { return m_profile->strings.intern(s); }

    uint32_t addHost(std::string name);
    PlaneId addPlane(std::string_view name, uint32_t host = 0);
    TrackId addTrack(PlaneId plane, std::string_view name, TrackKind kind, int64_t lineId = 0);
    uint32_t addCounter(PlaneId plane, std::string_view name);
    /// Adds an op kind; ops with equal (program id, name, long name, category) share one entry,
    /// so the same HLO op on eight cores is one row.
    OpId addOp(const OpInfo& op);
    /// Records a host step marker (StepTraceAnnotation); `finish` sorts them by start.
    void addStepMarker(const StepMarker& marker) { m_profile->stepMarkers.push_back(marker); }
    /// Registers an HLO module; returns its index in Profile::programs.
    uint32_t addProgram(uint64_t id, std::string name, std::shared_ptr<const hlo::Module> hlo);

    void addEvent(TrackId track, TimePs start, TimePs duration, OpId op)
    {
        // A damaged or hostile duration (INT64_MAX) would make op time exceed the span: counted
        // as malformed instead.
        if (TimePs end; duration > kMaxEventDurationPs || __builtin_add_overflow(start, duration, &end)) {
            ++m_profile->stats.malformedEvents;
            return;
        }
        Track& t = m_profile->tracks[track];
        t.start.push_back(start);
        t.duration.push_back(duration);
        t.op.push_back(op);
    }

    /// Sorts tracks, computes nesting depth, resolves program links (an op without a program id
    /// of its own gets the program of the XLA Modules run it runs in, one OpInfo per program),
    /// counts cores and picks
    /// device peaks (plane stats first, then the generation table, then the user's choice).
    /// `deviceOverride` is a generation key ("v5e") or empty.
    std::shared_ptr<const Profile> finish(std::string_view deviceOverride = {}, int coresOverride = 0);
    /// When the load began: finish() then sets Profile::load.seconds to the time up to its end,
    /// so no one has to write into the profile once it is shared.
    void setLoadStart(std::chrono::steady_clock::time_point started) { m_loadStart = started; }

    void setLimits(LoadLimits limits) { m_limits = std::move(limits); }
    const LoadLimits& limits() const { return m_limits; }
    /// What the containers built so far cost at their peak (planes, tracks, counter series, ops,
    /// programs, step markers; not their events or strings), from their counts: cheap enough to
    /// ask after every event.
    uint64_t structureBytes() const
    {
        const Profile& p = *m_profile;
        return p.planes.size() * LoadLimits::kPeakBytesPerPlane
            + (p.tracks.size() + p.counters.size()) * LoadLimits::kPeakBytesPerLine
            + p.ops.size() * LoadLimits::kPeakBytesPerOp
            + (p.programs.size() + p.layoutHints.size()) * LoadLimits::kPeakBytesPerProgram
            + p.stepMarkers.size() * LoadLimits::kPeakBytesPerStepMarker;
    }
    /// The budget check of a decoder: `events` events (those added plus ones it still holds),
    /// the interned strings, the containers above and `pendingBytes` the decoder holds itself.
    /// Empty while they fit; otherwise the message LoadLimits::check gives.
    std::string checkBudget(uint64_t events, uint64_t pendingBytes = 0) const
    {
        return m_limits.check(events, m_profile->strings.bytes(), structureBytes() + pendingBytes);
    }

    /// A finished copy of what has been built so far (the builder is left as it is).
    std::shared_ptr<const Profile> snapshot(std::string_view deviceOverride = {}, int coresOverride = 0) const;

    using PreviewFn = std::function<void(std::shared_ptr<const Profile>)>;
    /// Asks for one snapshot of the partial profile once `seconds` have passed (from this call),
    /// so a viewer can draw something while a large file is still being read.
    void setPreview(PreviewFn preview, double seconds, std::string deviceOverride = {});
    /// Decoders call this between events, cheaply and often; it hands over the snapshot when
    /// it is due.
    void offerPreview()
    {
        if (previewDue())
            sendPreview();
    }
    /// True while a preview is asked for and its time has come (offerPreview would send it now).
    bool previewDue() const { return m_preview && std::chrono::steady_clock::now() >= m_previewDue; }
    /// Sends the preview once, built by `fill` on a copy of what this builder holds: for a decoder
    /// that keeps its events outside the builder until the end (XSpace), so only what `fill` adds is
    /// copied, not every event read so far.
    void sendPreview(const std::function<void(ProfileBuilder&)>& fill);

private:
    void sendPreview();
    /// Gives every op without a program id of its own the program of the module run it runs in
    /// (see the definition); called by finish().
    void linkOpsToModuleRuns();

    LoadLimits m_limits;
    PreviewFn m_preview;
    std::chrono::steady_clock::time_point m_previewDue;
    std::optional<std::chrono::steady_clock::time_point> m_loadStart;
    std::string m_previewDevice;
    std::unique_ptr<Profile> m_profile;
    /// What makes two ops one (addOp): the program id, the name, long name and category, and
    /// whether it is an XLA op. Interned ids, so a lookup hashes five integers (the string key
    /// this was, built with four to_string, was most of the op merge).
    struct OpKey
    {
        uint64_t programId = 0;
        StringId name = 0;
        StringId longName = 0;
        StringId category = 0;
        bool isXlaOp = false;
        bool operator==(const OpKey&) const = default;
    };
    struct OpKeyHash
    {
        size_t operator()(const OpKey& k) const;
    };
    std::unordered_map<OpKey, OpId, OpKeyHash> m_opIndex;
};

} // namespace tpuscope::model
