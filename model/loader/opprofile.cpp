// SPDX-License-Identifier: GPL-3.0-or-later
//
// op_profile.json → per-op totals. The format has no timeline and no per-core split: every
// op's raw time (summed over cores and occurrences) goes into one Track::Aggregated entry on
// an `XLA Ops` track, so computeOpBreakdown builds the op table without knowing the format.
//
// Which nodes are ops: the tree is program/category/op (byProgram) or category/op
// (byCategory). A node with `xla` is an op, with two exceptions:
//  * "<op> and its duplicate(s)" groups are `xla` nodes whose children are ops with their own
//    metrics summing to the parent — we count the children, not the group;
//  * fused instructions sit under their fusion with no (or zero) metrics — they describe the
//    fusion and are never counted.
// Time a structural node has beyond the sum of its children (xprof leaves ~2 % of a program's
// time outside any category) becomes a "(not broken down) <node>" row, so the rows add up to the
// root time and each op's time fraction is raw_time / root raw_time exactly as in xprof.

#include "opprofile.h"

#include "../core/devicepeaks.h"
#include "../core/jsondom.h"
#include "formats.h"
#include "inputsource.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

namespace tpuscope::model {

namespace {

using json::Value;

// Times of the TF1 schema are fractions only; they are spread over this nominal total.
constexpr double kNominalTotalPs = 1e12;

const Value& camelOrSnake(const Value& v, std::string_view camel, std::string_view snake)
{
    if (const Value* m = v.find(camel))
        return *m;
    return v[snake];
}

struct Metrics
{
    bool present = false;
    double time = 0; // TF1 time fraction
    double flops = 0; // capped utilization × time fraction
    double memoryBandwidth = 0; // TF1 bandwidth utilization
    double rawTime = 0; // ps, over all cores and occurrences
    double rawFlops = 0;
    double rawBytes = -1;
    double bf16Flops = 0;
    double uncappedFlops = -1;
    int64_t occurrences = 0;
    std::vector<double> bytesArray; // [HBM, SRAM rd, SRAM wr]
    std::vector<double> bandwidthUtils;
};

Metrics readMetrics(const Value& node)
{
    Metrics m;
    const Value& v = node["metrics"];
    if (!v.isObject())
        return m;
    m.present = true;
    m.time = v["time"].number();
    m.flops = v["flops"].number();
    m.memoryBandwidth = camelOrSnake(v, "memoryBandwidth", "memory_bandwidth").number();
    m.rawTime = camelOrSnake(v, "rawTime", "raw_time").number();
    m.rawFlops = camelOrSnake(v, "rawFlops", "raw_flops").number();
    if (const Value& b = camelOrSnake(v, "rawBytesAccessed", "raw_bytes_accessed"); !b.isNull())
        m.rawBytes = b.number();
    m.bf16Flops = camelOrSnake(v, "bf16Flops", "bf16_flops").number();
    if (const Value& u = camelOrSnake(v, "uncappedFlops", "uncapped_flops"); !u.isNull())
        m.uncappedFlops = u.number();
    m.occurrences = static_cast<int64_t>(v["occurrences"].uint64(0));
    for (const Value& x : camelOrSnake(v, "rawBytesAccessedArray", "raw_bytes_accessed_array").array())
        m.bytesArray.push_back(x.number());
    for (const Value& x : camelOrSnake(v, "bandwidthUtils", "bandwidth_utils").array())
        m.bandwidthUtils.push_back(x.number());
    return m;
}

/// "jit_train_step(2041036616644817336)" → ("jit_train_step", id).
bool splitProgramName(std::string_view name, std::string& base, uint64_t& id)
{
    if (name.empty() || name.back() != ')')
        return false;
    const auto open = name.rfind('(');
    if (open == std::string_view::npos || open == 0)
        return false;
    const char* first = name.data() + open + 1;
    const char* last = name.data() + name.size() - 1;
    auto [ptr, ec] = std::from_chars(first, last, id);
    if (ec != std::errc() || ptr != last)
        return false;
    base = std::string(name.substr(0, open));
    return true;
}

/// A JSON number as int64: casting one out of range (2.7e21, found by fuzz_opprofile) or NaN
/// is undefined behaviour, so it is clamped first.
int64_t clampedInt(double v)
{
    if (std::isnan(v))
        return 0;
    if (v <= -9.2e18)
        return INT64_MIN;
    if (v >= 9.2e18)
        return INT64_MAX;
    return static_cast<int64_t>(v);
}

std::string formatNumber(double v, int precision = 4)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, v);
    return buffer;
}

struct Leaf
{
    const Value* node = nullptr; // null for a "(not broken down)" row
    std::string gapName;
    std::string_view fallbackCategory; // a node name in the document, which outlives the leaves
    uint64_t programId = 0;
    bool hasProgramId = false;
    Metrics metrics;
    double timePs = 0;
};

class OpProfileDecoder
{
public:
    OpProfileDecoder(ProfileBuilder& builder, const OpProfileDecodeOptions& options, uint64_t documentBytes)
        : m_builder(builder)
        , m_options(options)
        , m_documentBytes(documentBytes)
    {
    }

    std::string run(const Value& document)
    {
        if (!document.isObject())
            return "op_profile JSON must be an object with byProgram or byCategory";
        // byProgram first: it names programs; the *ExcludeIdle trees drop IDLE time.
        const Value* root = nullptr;
        for (auto [camel, snake] : {std::pair {"byProgram", "by_program"}, std::pair {"byCategory", "by_category"},
                 std::pair {"byProgramExcludeIdle", "by_program_exclude_idle"},
                 std::pair {"byCategoryExcludeIdle", "by_category_exclude_idle"}}) {
            const Value& candidate = camelOrSnake(document, camel, snake);
            if (candidate.isObject() && candidate["children"].size() > 0) {
                root = &candidate;
                m_rootKey = camel;
                break;
            }
        }
        if (!root)
            return "op_profile JSON has no non-empty byProgram or byCategory tree";
        m_deviceType = camelOrSnake(document, "deviceType", "device_type").string();

        const Metrics rootMetrics = readMetrics(*root);
        m_rawMode = rootMetrics.rawTime > 0;
        if (!m_rawMode && !(rootMetrics.time > 0))
            return "op_profile root has neither rawTime nor a time fraction; nothing to show";
        m_rootTime = nodeTime(rootMetrics);

        walk(*root, 0, false, {}, 0);
        if (m_leaves.empty())
            return "op_profile holds no XLA ops with time";
        for (const Leaf& leaf : m_leaves)
            m_bytesInSchema = m_bytesInSchema || leaf.metrics.rawBytes >= 0 || !leaf.metrics.bytesArray.empty()
                || leaf.metrics.memoryBandwidth > 0 || !leaf.metrics.bandwidthUtils.empty();
        m_builder.profile().bytesNotRecorded = !m_bytesInSchema;
        choosePeaks(rootMetrics);
        recordRootUtilization(rootMetrics);
        return emit();
    }

private:
    double nodeTime(const Metrics& m) const { return m_rawMode ? m.rawTime : m.time * kNominalTotalPs; }

    /// An `xla` node that only groups ops ("x and its duplicate(s)"): its children carry
    /// their own time and add up to it.
    bool isGroup(const Value& node, double ownTime) const
    {
        double sum = 0;
        bool any = false;
        for (const Value& child : node["children"].array()) {
            const double t = nodeTime(readMetrics(child));
            if (t > 0 && child.find("xla")) {
                sum += t;
                any = true;
            }
        }
        return any && std::fabs(sum - ownTime) <= 1e-6 * std::max(ownTime, 1.0);
    }

    void walk(const Value& node, uint64_t programId, bool hasProgramId, std::string_view category, int depth)
    {
        const Metrics metrics = readMetrics(node);
        const double time = nodeTime(metrics);
        const std::string& name = node["name"].string();
        if (depth > 0 && node.find("xla")) {
            if (isGroup(node, time)) {
                for (const Value& child : node["children"].array())
                    walk(child, programId, hasProgramId, category, depth + 1);
                return;
            }
            if (time <= 0 && metrics.occurrences == 0)
                return; // a fused instruction or an op that never ran
            Leaf leaf;
            leaf.node = &node;
            leaf.fallbackCategory = category;
            leaf.programId = programId;
            leaf.hasProgramId = hasProgramId;
            leaf.metrics = metrics;
            leaf.timePs = time;
            m_leaves.push_back(std::move(leaf));
            return;
        }
        // Structural node: the root, a program or a category.
        // Views into the document: a category name is not copied into every leaf below it.
        std::string_view nextCategory = category;
        std::string_view displayName = depth == 0 ? std::string_view("profile") : std::string_view(name);
        std::string programName;
        if (depth > 0) {
            std::string base;
            uint64_t id = 0;
            if (splitProgramName(name, base, id)) {
                programName = std::move(base);
                m_builder.addProgram(id, programName, nullptr);
                displayName = programName;
                programId = id;
                hasProgramId = true;
            } else {
                nextCategory = name;
            }
        }
        double childSum = 0;
        for (const Value& child : node["children"].array()) {
            childSum += nodeTime(readMetrics(child));
            walk(child, programId, hasProgramId, nextCategory, depth + 1);
        }
        const double gap = time - childSum;
        if (gap > 1e-9 * m_rootTime && gap > 0) {
            Leaf leaf;
            leaf.gapName = "(not broken down) " + std::string(displayName);
            leaf.programId = programId;
            leaf.hasProgramId = hasProgramId;
            leaf.timePs = gap;
            m_gapPs += gap;
            m_leaves.push_back(std::move(leaf));
        }
    }

    /// Peak TFLOP/s per core implied by one node: its FLOPs over time × utilization.
    std::optional<double> impliedPeak(const Metrics& m) const
    {
        if (!m_rawMode || m.rawTime <= 0)
            return std::nullopt;
        const double flops = m.bf16Flops > 0 ? m.bf16Flops : m.rawFlops;
        if (flops <= 0)
            return std::nullopt;
        if (m.uncappedFlops > 0) // utilization = uncapped / (raw_time / root raw_time)
            return flops / (m.uncappedFlops * m_rootTime);
        // TF1: utilization = flops / time, usable only below the cap.
        if (m.time > 0 && m.flops > 0 && m.flops < 0.999 * m.time)
            return flops / (m.rawTime * (m.flops / m.time));
        return std::nullopt;
    }

    std::optional<double> impliedHbm(const Metrics& m) const
    {
        if (!m_rawMode || m.rawTime <= 0)
            return std::nullopt;
        double bytes = -1, util = 0;
        if (!m.bytesArray.empty() && !m.bandwidthUtils.empty()) {
            bytes = m.bytesArray[0];
            util = m.bandwidthUtils[0];
        } else if (m.rawBytes > 0) {
            bytes = m.rawBytes;
            util = m.memoryBandwidth;
        }
        // A utilization of exactly 1 was capped and says nothing about the peak.
        if (bytes <= 0 || util <= 0 || util >= 0.999)
            return std::nullopt;
        return bytes * 1000.0 / (m.rawTime * util);
    }

    void choosePeaks(const Metrics& rootMetrics)
    {
        Profile& profile = m_builder.profile();
        const TpuGeneration* generation = m_deviceType.empty() ? nullptr : findTpuGeneration(m_deviceType);
        std::optional<double> tflops = impliedPeak(rootMetrics);
        std::optional<double> hbm = impliedHbm(rootMetrics);
        double lo = 0, hi = 0;
        for (const Leaf& leaf : m_leaves) {
            if (!leaf.node)
                continue;
            if (auto p = impliedPeak(leaf.metrics)) {
                lo = lo == 0 ? *p : std::min(lo, *p);
                hi = std::max(hi, *p);
                if (!tflops)
                    tflops = p;
            }
            if (!hbm)
                hbm = impliedHbm(leaf.metrics);
        }
        if (hi > 0 && hi > lo * 1.01)
            profile.load.warnings.push_back("the ops of this op_profile imply different peak FLOP rates ("
                + formatNumber(lo) + " to " + formatNumber(hi)
                + " TFLOP/s); per-op utilizations may differ from the file's");

        const std::string fileName = "op_profile";
        if (!m_rawMode) {
            // Fractions only: FLOP counts are rebuilt as utilization × time × peak, so any peak
            // reproduces the file's utilizations; without a known device it is nominal.
            m_peakTflops = generation ? generation->peakTflopsPerCore : 1.0;
            m_peakHbmGbps = generation ? generation->peakHbmGbpsPerCore : 1.0;
            if (!generation) {
                m_setDevicePeak = true;
                m_peakNote = "nominal: this op_profile (TF1 schema) holds only time fractions and utilizations, "
                             "no device type; FLOP counts, rates and times are relative, utilizations are the file's";
            }
            return;
        }
        if (!tflops)
            return; // the generation table (via deviceType) or the user's choice decides
        m_peakTflops = *tflops;
        m_peakHbmGbps = hbm ? *hbm : (generation ? generation->peakHbmGbpsPerCore : 0);
        if (generation && std::fabs(*tflops / generation->peakTflopsPerCore - 1) <= 0.01) {
            m_peakTflops = 0; // the table agrees; let finish() say so
            return;
        }
        m_setDevicePeak = true;
        m_peakNote = "implied by the file's own utilization metrics: " + formatNumber(*tflops, 6)
            + " TFLOP/s per core (bf16Flops ÷ rawTime ÷ FLOPS utilization)";
        if (hbm)
            m_peakNote += " and " + formatNumber(*hbm, 6) + " GB/s HBM (bytes ÷ rawTime ÷ bandwidth utilization)";
        if (generation) {
            m_peakNote += "; the generation table for " + std::string(generation->displayName) + " says "
                + formatNumber(generation->peakTflopsPerCore) + " TFLOP/s";
            profile.load.warnings.push_back("deviceType '" + m_deviceType + "' is " + generation->displayName
                + " (table peak " + formatNumber(generation->peakTflopsPerCore)
                + " TFLOP/s per core), but the file's utilizations imply " + formatNumber(*tflops, 6)
                + "; using the file's peak so utilizations match it");
        } else {
            m_peakNote += "; deviceType '" + m_deviceType + "' names no TPU generation";
        }
    }

    /// The file's own program-level utilizations (xprof's root node): what the headline must equal.
    void recordRootUtilization(const Metrics& root)
    {
        RootUtilization& out = m_builder.profile().fileRootUtilization;
        if (m_rawMode && root.rawTime > 0) {
            if (root.uncappedFlops >= 0)
                out.flops = root.uncappedFlops;
            else if (root.present)
                out.flops = root.flops;
            if (!root.bandwidthUtils.empty())
                out.hbm = root.bandwidthUtils[0];
        } else if (!m_rawMode && root.time > 0) {
            out.flops = root.flops / root.time; // TF1: utilization = flops / time
            if (root.memoryBandwidth > 0)
                out.hbm = root.memoryBandwidth;
        }
    }

    /// Empty, or the budget message when the ops, their names and hints do not fit.
    std::string emit()
    {
        Profile& profile = m_builder.profile();
        PlaneId plane = m_options.attachToPlane;
        if (plane == kNone || plane >= profile.planes.size())
            plane = m_builder.addPlane("/device:TPU:0", m_options.host);
        Plane& p = profile.planes[plane];
        p.aggregate = plane != m_options.attachToPlane; // one plane holds the time of every core that ran
        if (p.deviceType.empty())
            p.deviceType = m_deviceType;
        if (m_peakTflops > 0 && m_setDevicePeak) {
            p.peakTflops = m_peakTflops;
            p.peakHbmGbps = m_peakHbmGbps;
            DeviceInfo& device = profile.device;
            device.peakTflopsPerCore = m_peakTflops;
            device.peakHbmGbpsPerCore = m_peakHbmGbps;
            device.peakSource = PeakSource::PlaneStats;
            device.peakNote = m_peakNote;
        }
        const TrackId track = m_builder.addTrack(plane, m_options.trackName, TrackKind::XlaOps);

        // The document and the leaves stay in memory while ops are added; ops, names and layout
        // hints grow: a growth of 1 MiB brings the budget check on.
        const uint64_t heldBytes = m_documentBytes + m_leaves.size() * sizeof(Leaf);
        uint64_t nextCheck = 0;
        for (size_t index = 0; index < m_leaves.size(); ++index) {
            const Leaf& leaf = m_leaves[index];
            if (const uint64_t grown = profile.strings.bytes() + m_builder.structureBytes(); grown >= nextCheck) {
                if (std::string over = m_builder.checkBudget(profile.eventCount(), heldBytes); !over.empty())
                    return "op_profile with " + std::to_string(m_leaves.size()) + " ops (stopped at op "
                        + std::to_string(index) + "): " + over;
                nextCheck = grown + (1u << 20);
            }
            OpInfo op;
            op.isXlaOp = true;
            op.programId = leaf.programId;
            op.hasProgramId = leaf.hasProgramId;
            const int64_t occurrences = std::max<int64_t>(1, leaf.metrics.occurrences);
            const double perOccurrence = 1.0 / static_cast<double>(occurrences);
            if (!leaf.node) {
                op.name = m_builder.intern(leaf.gapName);
                op.category = m_builder.intern("unattributed");
            } else {
                const Value& node = *leaf.node;
                const Value& xla = node["xla"];
                std::string_view name = node["name"].string();
                if (name.starts_with('%')) // TF1 names; HLO instruction names have no '%'
                    name.remove_prefix(1);
                op.name = m_builder.intern(name);
                op.longName = m_builder.intern(xla["expression"].string());
                const std::string& category = xla["category"].string();
                op.category = m_builder.intern(category.empty() ? leaf.fallbackCategory : std::string_view(category));
                op.tfOp = m_builder.intern(xla["provenance"].string());
                const Value& source = camelOrSnake(xla, "sourceInfo", "source_info");
                if (const std::string& file = camelOrSnake(source, "fileName", "file_name").string(); !file.empty()) {
                    const uint64_t line = camelOrSnake(source, "lineNumber", "line_number").uint64(0);
                    op.source = m_builder.intern(line ? file + ":" + std::to_string(line) : file);
                }
                if (const uint64_t id = camelOrSnake(xla, "programId", "program_id").uint64(0)) {
                    op.programId = id;
                    op.hasProgramId = true;
                }
                const Metrics& m = leaf.metrics;
                // A node with metrics records the op's FLOPs, zero included (proto3 JSON leaves zeros
                // out: an infeed computes nothing). Bytes only where the file's schema has them.
                op.flopsRecorded = m.present;
                op.bytesRecorded = m.present && m_bytesInSchema;
                if (m_rawMode) {
                    const double flops = m.bf16Flops > 0 ? m.bf16Flops : m.rawFlops;
                    op.flops = flops * perOccurrence;
                    op.modelFlops = (m.rawFlops > 0 ? m.rawFlops : flops) * perOccurrence;
                    // bytesAccessed: TF1 raw_bytes_accessed, else the HBM entry of the array
                    // (so arithmetic intensity is xprof's HBM operational intensity).
                    if (!m.bytesArray.empty()) {
                        op.hbmBytes = m.bytesArray[0] * perOccurrence;
                        op.bytesAccessed = (m.rawBytes >= 0 ? m.rawBytes : m.bytesArray[0]) * perOccurrence;
                    } else if (m.rawBytes >= 0) {
                        op.bytesAccessed = m.rawBytes * perOccurrence;
                    }
                } else if (m.time > 0) {
                    // utilization × time × peak reproduces the file's utilization (FORMATS.md §7, TF1).
                    const double util = m.flops / m.time;
                    op.flops = util * leaf.timePs * m_peakTflops * perOccurrence;
                    op.modelFlops = op.flops;
                    op.bytesAccessed = m.memoryBandwidth * leaf.timePs * m_peakHbmGbps / 1000.0 * perOccurrence;
                }
                ++m_opNodes;
            }
            const OpId id = m_builder.addOp(op);
            profile.tracks[track].aggregated.push_back(
                {id, occurrences, static_cast<TimePs>(std::llround(leaf.timePs))});
            if (leaf.node) {
                const Value& dims = (*leaf.node)["xla"]["layout"]["dimensions"];
                if (dims.size() > 0) {
                    std::vector<LayoutDimensionHint> hints;
                    for (const Value& d : dims.array())
                        hints.push_back({clampedInt(d["size"].number()), clampedInt(d["alignment"].number()),
                            d["semantics"].string()});
                    profile.layoutHints[id] = std::move(hints);
                }
            }
        }

        auto& limitations = profile.load.limitations;
        limitations.push_back("op_profile.json has no timeline and no per-core detail: the totals of every op over all "
                              "cores are attributed to one aggregate plane ("
            + profile.str(profile.planes[plane].name) + "), read from " + m_rootKey);
        if (!m_rawMode)
            limitations.push_back("this op_profile (TF1 schema) has only time fractions: times are shown on a nominal "
                                  "1 s total");
        if (m_gapPs > 0)
            limitations.push_back(formatNumber(100.0 * m_gapPs / m_rootTime, 3)
                + " % of the time is not broken down into ops in the file; it is shown as "
                  "'(not broken down) …' rows so fractions add up to the file's root time");
        if (m_setDevicePeak)
            limitations.push_back("peak used for utilizations: " + m_peakNote);
        return {};
    }

    ProfileBuilder& m_builder;
    const OpProfileDecodeOptions& m_options;
    uint64_t m_documentBytes; // what the parsed document takes, charged while ops are built from it
    std::string m_rootKey;
    std::string m_deviceType;
    bool m_rawMode = false;
    bool m_bytesInSchema = false; // some node records bytes or bandwidth: the schema has them
    double m_rootTime = 0;
    double m_gapPs = 0;
    std::vector<Leaf> m_leaves;
    size_t m_opNodes = 0;
    double m_peakTflops = 0;
    double m_peakHbmGbps = 0;
    bool m_setDevicePeak = false;
    std::string m_peakNote;
};

} // namespace

bool looksLikeOpProfileJson(std::string_view text)
{
    const auto head = text.substr(0, 4096);
    for (std::string_view key : {"\"byCategory\"", "\"byProgram\"", "\"by_category\"", "\"by_program\""})
        if (head.find(key) != std::string_view::npos)
            return true;
    return false;
}

std::string decodeOpProfile(std::string_view bytes, ProfileBuilder& builder, const OpProfileDecodeOptions& options,
    const ProgressFn& progress, std::stop_token stop, ByteSource* source)
{
    if (progress)
        progress("parsing op_profile", 0.0);
    // The document tree costs several times its text; charged before it is built.
    const uint64_t documentBytes = bytes.size() * kPeakBytesPerOpProfileByte;
    if (std::string over = builder.checkBudget(builder.profile().eventCount(), documentBytes + bytes.size());
        !over.empty())
        return "op_profile JSON of " + std::to_string(bytes.size() >> 20) + " MiB: " + over;
    json::Value document;
    json::ParseError error;
    json::ParseOptions parseOptions;
    parseOptions.maxBytes = 128u << 20; // the DOM takes ~10× the text; real files are tens of MB
    if (!json::parse(bytes, document, error, parseOptions))
        return "not valid op_profile JSON: " + error.describe();
    // Only the tree is read from here on: the text's pages go back (a mapped file rereads them
    // if touched), so a big name costs the tree's copy and the stored one, not the text's too.
    if (source)
        source->release(bytes.data(), bytes.data() + bytes.size());
    if (stop.stop_requested())
        return "cancelled";
    if (progress)
        progress("parsing op_profile", 1.0);
    OpProfileDecoder decoder(builder, options, documentBytes);
    return decoder.run(document);
}

std::string decodeOpProfileJson(
    std::string_view bytes, ProfileBuilder& builder, const ProgressFn& progress, std::stop_token stop)
{
    return decodeOpProfile(bytes, builder, OpProfileDecodeOptions {}, progress, stop, nullptr);
}

} // namespace tpuscope::model
