// SPDX-License-Identifier: GPL-3.0-or-later
#include "sharemerge.h"

#include "sharehosts.h"

#include "../core/jsondom.h"
#include "../core/parallel.h"
#include "../loader/gzip.h"
#include "../loader/sharehosttiming.h"
#include "../loader/sharereader.h"
#include "../loader/shareschema.h"
#include "../report/jsonwriter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <thread>
#include <unordered_map>
#include <vector>

namespace tpuscope::model {

namespace {

/// Host clocks differ by milliseconds; files recorded further apart than this are not one run.
constexpr int64_t kMaxOriginSpreadNs = 86'400'000'000'000; // a day

/// Copies a parsed subtree. Integers keep their exact value (64-bit program ids).
void writeJson(JsonWriter& w, const json::Value& v)
{
    switch (v.type()) {
    case json::Value::Type::Null:
        w.null();
        break;
    case json::Value::Type::Bool:
        w.value(v.boolean());
        break;
    case json::Value::Type::Number:
        if (const uint64_t u = v.uint64(std::numeric_limits<uint64_t>::max());
            u != std::numeric_limits<uint64_t>::max())
            w.value(u);
        else
            w.value(v.number());
        break;
    case json::Value::Type::String:
        w.value(v.string());
        break;
    case json::Value::Type::Array:
        w.beginArray();
        for (const json::Value& e : v.array())
            writeJson(w, e);
        w.endArray();
        break;
    case json::Value::Type::Object:
        w.beginObject();
        for (const auto& [key, e] : v.object()) {
            w.key(key);
            writeJson(w, e);
        }
        w.endObject();
        break;
    }
}

std::string jsonText(const json::Value& v)
{
    JsonWriter w(false);
    writeJson(w, v);
    return w.str();
}

/// A number the schema let through, as the reader would take it (finite, else 0).
double finite(const json::Value& v)
{
    const double x = v.number(0);
    return std::isfinite(x) ? x : 0.0;
}

int64_t integer(const json::Value& v)
{
    const double x = std::clamp(finite(v), -1.0, static_cast<double>(kMaxShareTimePs));
    return static_cast<int64_t>(x);
}

/// Exact for 64-bit integers (an origin in ns since the epoch needs 61 bits).
int64_t exactInteger(const json::Value& v)
{
    if (const uint64_t u = v.uint64(std::numeric_limits<uint64_t>::max());
        u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return static_cast<int64_t>(u);
    return static_cast<int64_t>(std::clamp(finite(v), -9.2e18, 9.2e18));
}

template <typename T> std::vector<T> series(const json::Value& v)
{
    std::vector<T> out;
    out.reserve(v.size());
    for (const json::Value& x : v.array())
        out.push_back(std::is_integral_v<T> ? static_cast<T>(integer(x)) : static_cast<T>(finite(x)));
    return out;
}

/// One core of the merged file: its plane and what its input listed for it.
struct MergedCore
{
    std::string name;
    uint32_t host = 0;
    bool aggregate = false;
    size_t input = 0;
    std::vector<int64_t> start, duration, busy;
    std::vector<double> compute, collective, hostTransfer, infeed;
    std::vector<int64_t> syncStart, syncDuration, lastOpEnd, otherWait;
};

/// An op row summed over the inputs: the first input's entry with the sums in place of its own.
struct MergedOp
{
    json::Value first;
    double occurrences = 0, time = 0, self = 0, pairSpan = 0, pairsTimed = 0;
};

struct MergedOtherChunk
{
    std::string category;
    double ops = 0, occurrences = 0, time = 0, flops = 0, modelFlops = 0, bytes = 0, hbm = 0;
    bool flopsRecorded = false, bytesRecorded = false;
};

/// Weighted means of the per-file figures that are averages (over cores or runs).
struct WeightedSums
{
    std::map<std::string, double> sum;
    double weight = 0;
    void add(const json::Value& object, double w)
    {
        for (const auto& [key, v] : object.object())
            if (v.isNumber())
                sum[key] += finite(v) * w;
        weight += w;
    }
    double mean(const std::string& key) const
    {
        auto it = sum.find(key);
        return it == sum.end() || weight <= 0 ? 0.0 : it->second / weight;
    }
};

/// What identifies the run a share file comes from: inputs that differ in it are refused.
struct RunIdentity
{
    std::string deviceType, generation, program, syncCollective, redaction;
};

RunIdentity identityOf(const json::Value& doc)
{
    const json::Value& r = doc["redaction"];
    return {doc["device"]["type"].string(), doc["device"]["generation"].string(),
        doc["step_windows"]["dominant"].string(), doc["host_timing"]["sync_collective"].string(),
        std::string(r["paths"].boolean() ? "paths " : "") + (r["names"].boolean() ? "names " : "")
            + (r["hash"].boolean() ? "hash" : "")};
}

/// Inflates, parses and checks one input against the schema and `limits`, as opening it would.
std::string readShare(const ShareMergeInput& input, const LoadLimits& limits, json::Value& doc);

class Merger
{
public:
    explicit Merger(const LoadLimits& limits)
        : m_limits(limits)
    {
    }

    /// Adds one input that readShare accepted; an error names the input and the mismatch.
    std::string add(const ShareMergeInput& input, const json::Value& doc);
    ShareMergeResult finish(size_t inputs);

private:
    void addOps(const json::Value& list, std::unordered_map<std::string, size_t>& index, std::vector<MergedOp>& ops);
    void addHostLink(const json::Value& link);
    void writeDevice(JsonWriter& w) const;
    void writeStepWindows(JsonWriter& w, const std::vector<int64_t>& shift, const std::vector<size_t>& kept) const;
    void writeHostTiming(JsonWriter& w, const std::vector<size_t>& kept) const;
    void writeHostLink(JsonWriter& w) const;
    void writeOps(JsonWriter& w, const char* key, const std::vector<MergedOp>& ops) const;

    const LoadLimits& m_limits;
    RunIdentity m_identity;
    std::string m_firstName;
    json::Value m_firstDevice, m_firstWindows, m_firstSource;
    std::vector<std::string> m_hosts;
    std::set<std::string> m_hostNames;
    std::vector<MergedCore> m_cores;
    std::vector<int64_t> m_originNs, m_spanBeginPs, m_spanPs; // per input
    bool m_allPlanesSourced = true, m_bytesNotRecorded = false;
    int64_t m_coresAtLeast = 0, m_fileBytes = 0;
    double m_opsInOriginal = 0, m_timePs = 0;
    bool m_otherWaitMeasured = false;
    WeightedSums m_warmup, m_tail, m_stepTime;
    double m_busyFractionSum = 0, m_busyFractionCores = 0; // weighted by cores
    std::string m_stepSource;
    int64_t m_stepsPerCore = std::numeric_limits<int64_t>::max();
    struct ProgramRun
    {
        size_t core;
        std::string program;
        double runs, timePs;
    };
    std::vector<ProgramRun> m_programRuns;
    std::map<uint64_t, std::string> m_programs; // id → the first input's entry, as JSON text
    std::vector<uint64_t> m_programOrder;
    std::unordered_map<std::string, size_t> m_opIndex, m_briefIndex;
    std::vector<MergedOp> m_ops, m_brief;
    std::vector<MergedOtherChunk> m_other;
    std::map<std::pair<std::string, int>, size_t> m_otherIndex;
    // Host link: sums, and per-run figures weighted by runs.
    bool m_hasHostLink = false;
    std::map<std::string, double> m_linkSums;
    WeightedSums m_linkPerRun;
    std::string m_linkProgram;
    std::vector<std::string> m_waitOps; // JSON text, each once
    std::set<std::string> m_waitOpSeen;
};

std::string opKey(const json::Value& o)
{
    const json::Value* id = o.find("program_id");
    return (id ? std::to_string(id->uint64(0)) : std::string("-")) + '\x1f' + o["name"].string() + '\x1f'
        + o["category"].string();
}

void Merger::addOps(const json::Value& list, std::unordered_map<std::string, size_t>& index, std::vector<MergedOp>& ops)
{
    for (const json::Value& o : list.array()) {
        auto [it, fresh] = index.emplace(opKey(o), ops.size());
        if (fresh)
            ops.push_back({o});
        MergedOp& m = ops[it->second];
        const double time = std::max(0.0, finite(o["time_ps"]));
        m.occurrences += std::max(1.0, finite(o["occurrences"]));
        m.time += time;
        const double self = o["self_time_ps"].number(-1);
        m.self += std::isfinite(self) && self >= 0 ? self : time;
        m.pairSpan += std::max(0.0, finite(o["pair_span_ps"]));
        m.pairsTimed += std::max(0.0, finite(o["pairs_timed"]));
    }
}

void Merger::addHostLink(const json::Value& link)
{
    if (!link.isObject())
        return;
    if (!m_hasHostLink)
        m_linkProgram = link["program"].string();
    m_hasHostLink = true;
    for (const char* direction : {"to_device", "to_host"})
        for (const char* key : {"transfers", "bytes", "busy_ps"})
            m_linkSums[std::string(direction) + "." + key] += std::max(0.0, finite(link[direction][key]));
    for (const char* key : {"either_busy_ps", "both_busy_ps", "runs"})
        m_linkSums[key] += std::max(0.0, finite(link[key]));
    m_linkPerRun.add(link, std::max(0.0, finite(link["runs"])));
    for (const json::Value& op : link["wait_ops"].array())
        if (std::string text = jsonText(op); m_waitOpSeen.insert(text).second)
            m_waitOps.push_back(std::move(text));
}

std::string readShare(const ShareMergeInput& input, const LoadLimits& limits, json::Value& doc)
{
    const std::string who = input.name + ": ";
    std::string text, error;
    if (!shareFileJson(input.bytes, text, error))
        return who + error;
    json::ParseError parseError;
    if (!json::parse(text, doc, parseError, shareParseOptions(limits, text.size())))
        return who + "tpuscope share file is damaged: " + parseError.describe();
    if (doc["format"].string() != "tpuscope-share")
        return who + "not a tpuscope-share document";
    // What opening it would refuse, the merge refuses: every count against its limit.
    ProfileBuilder builder;
    builder.setLimits(limits);
    if (std::string e = checkShareClaims(doc, input.bytes.size(), builder); !e.empty())
        return who + e;
    if (!doc["step_windows"].isObject() || !doc["host_timing"].isObject())
        return who
            + "it has no per-host step timing (no steps, or written by a tpuscope before `merge`): write it "
              "again with `tpuscope-cli share`";
    return {};
}

std::string Merger::add(const ShareMergeInput& input, const json::Value& doc)
{
    const std::string who = input.name + ": ";

    const RunIdentity id = identityOf(doc);
    const bool first = m_firstName.empty();
    if (first) {
        m_identity = id;
        m_firstName = input.name;
        m_firstDevice = doc["device"];
        m_firstWindows = doc["step_windows"];
        m_firstSource = doc["source"];
        m_stepSource = doc["step_time"]["source"].string();
    } else {
        auto differ = [&](const char* what, const std::string& mine, const std::string& theirs) {
            return who + what + " '" + theirs + "' differs from " + m_firstName + "'s '" + mine
                + "': the files are not hosts of one run";
        };
        if (id.deviceType != m_identity.deviceType || id.generation != m_identity.generation)
            return differ(
                "device", m_identity.deviceType + " " + m_identity.generation, id.deviceType + " " + id.generation);
        if (id.program != m_identity.program)
            return differ("step program", m_identity.program, id.program);
        if (id.syncCollective != m_identity.syncCollective)
            return differ("synchronizing collective", m_identity.syncCollective, id.syncCollective);
        if (id.redaction != m_identity.redaction)
            return who + "redaction '" + id.redaction + "' differs from " + m_firstName + "'s '" + m_identity.redaction
                + "': write every host's share file with the same --redact";
    }

    const json::Value& device = doc["device"];
    const uint32_t hostOffset = static_cast<uint32_t>(m_hosts.size());
    for (const json::Value& h : device["hosts"].array()) {
        if (!m_hostNames.insert(h.string()).second)
            return who + "host '" + h.string() + "' is already in another input"
                + (id.redaction.empty() ? ""
                                        : " (a redacted share file names its hosts host0, host1, ...: merge files "
                                          "written without --redact)");
        m_hosts.push_back(h.string());
    }
    if (m_hosts.size() > kMaxShareHosts)
        return who + "the merge would hold " + std::to_string(m_hosts.size()) + " hosts, more than the "
            + std::to_string(kMaxShareHosts) + " a share file may hold";
    const size_t coreOffset = m_cores.size();
    const size_t inputIndex = m_originNs.size();
    for (const json::Value& p : device["core_planes"].array()) {
        MergedCore& core = m_cores.emplace_back();
        core.name = p["name"].string();
        core.host = hostOffset + static_cast<uint32_t>(std::max(0.0, finite(p["host"])));
        core.aggregate = p["aggregate"].boolean();
        core.input = inputIndex;
    }
    if (m_cores.size() > kMaxShareCorePlanes)
        return who + "the merge would hold " + std::to_string(m_cores.size()) + " TPU cores, more than the "
            + std::to_string(kMaxShareCorePlanes) + " a share file may hold";
    const size_t planes = m_cores.size() - coreOffset;
    m_allPlanesSourced = m_allPlanesSourced && device["cores_source"].string() == "planes";
    m_coresAtLeast += integer(device["cores_at_least"]);
    m_bytesNotRecorded = m_bytesNotRecorded || device["bytes_not_recorded"].boolean();

    // The time base: the log-dir loader aligns hosts on their files' origins; so does the merge.
    const json::Value& timing = doc["host_timing"];
    m_originNs.push_back(exactInteger(timing["origin_ns"]));
    // The span may begin before the origin (an event before the capture's start): signed, bounded.
    m_spanBeginPs.push_back(static_cast<int64_t>(std::clamp(
        finite(timing["span_begin_ps"]), -static_cast<double>(kMaxShareTimePs), static_cast<double>(kMaxShareTimePs))));
    m_spanPs.push_back(std::max<int64_t>(0, integer(doc["totals"]["span_ps"])));
    if (const int64_t spread = m_originNs.back() - m_originNs.front();
        spread > kMaxOriginSpreadNs || spread < -kMaxOriginSpreadNs)
        return who + "it was recorded more than a day apart from " + m_firstName
            + ": the files are not hosts of one run";
    m_otherWaitMeasured = m_otherWaitMeasured || timing["other_wait_measured"].boolean();

    const json::Value& windows = doc["step_windows"];
    for (const json::Value& c : windows["cores"].array()) {
        MergedCore& core = m_cores[coreOffset + static_cast<size_t>(finite(c["plane"]))]; // the schema checked it
        core.start = series<int64_t>(c["start_ps"]);
        core.duration = series<int64_t>(c["duration_ps"]);
        core.busy = series<int64_t>(c["busy_ps"]);
        core.compute = series<double>(c["compute_ps"]);
        core.collective = series<double>(c["collective_ps"]);
        core.hostTransfer = series<double>(c["host_transfer_ps"]);
        core.infeed = series<double>(c["infeed_ps"]);
    }
    for (const json::Value& c : timing["cores"].array()) {
        MergedCore& core = m_cores[coreOffset + static_cast<size_t>(finite(c["plane"]))];
        core.syncStart = series<int64_t>(c["sync_start_ps"]);
        core.syncDuration = series<int64_t>(c["sync_ps"]);
        core.lastOpEnd = series<int64_t>(c["last_op_end_ps"]);
        core.otherWait = series<int64_t>(c["other_wait_ps"]);
    }
    m_warmup.add(windows["warmup"], static_cast<double>(planes));
    m_tail.add(windows["tail"], static_cast<double>(planes));
    if (const double busy = windows["busy_fraction"].number(-1); busy >= 0 && std::isfinite(busy)) {
        m_busyFractionSum += busy * static_cast<double>(planes);
        m_busyFractionCores += static_cast<double>(planes);
    }
    m_stepTime.add(doc["step_time"], static_cast<double>(planes));
    m_stepsPerCore = std::min<int64_t>(m_stepsPerCore, integer(doc["step_time"]["steps_per_core"]));
    for (const json::Value& r : doc["program_runs"].array())
        m_programRuns.push_back({coreOffset + static_cast<size_t>(finite(r["plane"])), r["program"].string(),
            finite(r["runs"]), finite(r["time_ps"])});

    const json::Value& totals = doc["totals"];
    m_opsInOriginal = std::max(m_opsInOriginal, finite(totals["ops"]));
    m_timePs += std::max(0.0, finite(totals["time_ps"]));
    m_fileBytes += integer(doc["source"]["file_bytes"]);
    for (const json::Value& p : doc["programs"].array())
        if (const uint64_t pid = p["id"].uint64(0); !m_programs.contains(pid)) {
            m_programs.emplace(pid, jsonText(p));
            m_programOrder.push_back(pid);
        }
    addOps(doc["ops"], m_opIndex, m_ops);
    addOps(doc["brief_ops"], m_briefIndex, m_brief);
    // "other" chunks: the k-th chunk of a category of each host, summed. Each host's chunk is below
    // 1 % of its op time, so their sum stays below 1 % of the pod's.
    std::map<std::string, int> rank;
    for (const json::Value& o : doc["other"].array()) {
        const std::string& category = o["category"].string();
        auto [it, fresh] = m_otherIndex.emplace(std::make_pair(category, rank[category]++), m_other.size());
        if (fresh)
            m_other.push_back({category});
        MergedOtherChunk& c = m_other[it->second];
        c.ops += finite(o["ops"]);
        c.occurrences += finite(o["occurrences"]);
        c.time += finite(o["time_ps"]);
        c.flops += finite(o["flops"]);
        c.modelFlops += finite(o["model_flops"]);
        c.bytes += finite(o["bytes"]);
        c.hbm += finite(o["hbm_bytes"]);
        c.flopsRecorded = c.flopsRecorded || o["flops_recorded"].boolean();
        c.bytesRecorded = c.bytesRecorded || o["bytes_recorded"].boolean();
    }
    addHostLink(doc["host_link"]);
    return {};
}

void Merger::writeDevice(JsonWriter& w) const
{
    const json::Value& d = m_firstDevice;
    w.key("device").beginObject();
    w.field("type", d["type"].string()).field("generation", d["generation"].string());
    w.field("cores", static_cast<uint64_t>(m_cores.size()));
    w.field("cores_source", m_allPlanesSourced ? std::string("planes") : d["cores_source"].string());
    w.field("cores_at_least", m_coresAtLeast).field("cores_note", d["cores_note"].string());
    for (const char* key :
        {"peak_tflops_per_core", "peak_hbm_gbps_per_core", "ici_gbps_per_core", "peak_source", "peak_note"})
        if (const json::Value* v = d.find(key)) {
            w.key(key);
            writeJson(w, *v);
        }
    if (m_bytesNotRecorded)
        w.field("bytes_not_recorded", true);
    w.key("hosts").beginArray();
    for (const std::string& h : m_hosts)
        w.value(h);
    w.endArray();
    w.key("core_planes").beginArray();
    for (const MergedCore& c : m_cores) {
        w.beginObject().field("host", static_cast<uint64_t>(c.host)).field("name", c.name);
        if (c.aggregate)
            w.field("aggregate", true);
        w.endObject();
    }
    w.endArray();
    w.endObject();
}

void Merger::writeStepWindows(JsonWriter& w, const std::vector<int64_t>& shift, const std::vector<size_t>& kept) const
{
    const json::Value& first = m_firstWindows;
    w.key("step_windows").beginObject();
    w.field("kind", integer(first["kind"])).field("line", first["line"].string());
    w.field("program", first["program"].string()).field("dominant", first["dominant"].string());
    w.key("cores").beginArray();
    for (size_t c = 0; c < m_cores.size(); ++c) {
        const MergedCore& core = m_cores[c];
        if (core.start.empty())
            continue;
        const size_t n = kept[c];
        w.beginObject().field("plane", static_cast<uint64_t>(c));
        auto list = [&](const char* key, const auto& values, int64_t offset) {
            w.key(key).beginArray();
            for (size_t i = 0; i < n && i < values.size(); ++i)
                w.value(values[i] + static_cast<std::decay_t<decltype(values[i])>>(offset));
            w.endArray();
        };
        list("start_ps", core.start, shift[core.input]);
        list("duration_ps", core.duration, 0);
        list("busy_ps", core.busy, 0);
        list("compute_ps", core.compute, 0);
        list("collective_ps", core.collective, 0);
        list("host_transfer_ps", core.hostTransfer, 0);
        list("infeed_ps", core.infeed, 0);
        w.endObject();
    }
    w.endArray();
    for (auto [key, sums] : {std::pair {"warmup", &m_warmup}, std::pair {"tail", &m_tail}}) {
        w.key(key).beginObject();
        for (const auto& [field, sum] : sums->sum)
            w.field(field, sums->mean(field));
        w.endObject();
    }
    if (m_busyFractionCores > 0)
        w.field("busy_fraction", m_busyFractionSum / m_busyFractionCores);
    w.endObject();

    w.key("program_runs").beginArray();
    for (const ProgramRun& r : m_programRuns) {
        w.beginObject().field("plane", static_cast<uint64_t>(r.core)).field("program", r.program);
        w.field("runs", r.runs).field("time_ps", r.timePs);
        w.endObject();
    }
    w.endArray();
    w.key("step_time").beginObject();
    w.field("source", m_stepSource);
    w.field("steps_per_core", m_stepsPerCore == std::numeric_limits<int64_t>::max() ? 0 : m_stepsPerCore);
    for (const auto& [field, sum] : m_stepTime.sum)
        if (field != "steps_per_core")
            w.field(field, m_stepTime.mean(field));
    w.endObject();
}

void Merger::writeHostTiming(JsonWriter& w, const std::vector<size_t>& kept) const
{
    w.key("host_timing").beginObject();
    w.field("sync_collective", m_identity.syncCollective).field("other_wait_measured", m_otherWaitMeasured);
    // Each input measured its other collectives' wait over its own cores.
    w.field("other_wait_scope", m_originNs.size() > 1 ? "host" : "profile");
    const int64_t origin = *std::min_element(m_originNs.begin(), m_originNs.end());
    int64_t base = std::numeric_limits<int64_t>::max();
    for (size_t i = 0; i < m_originNs.size(); ++i)
        base = std::min(base, (m_originNs[i] - origin) * 1000 + m_spanBeginPs[i]);
    w.field("origin_ns", origin).field("span_begin_ps", base);
    w.key("cores").beginArray();
    for (size_t c = 0; c < m_cores.size(); ++c) {
        const MergedCore& core = m_cores[c];
        if (core.syncStart.empty() || core.start.empty())
            continue;
        const size_t n = std::min(kept[c], core.syncStart.size());
        w.beginObject().field("plane", static_cast<uint64_t>(c));
        for (auto [key, values] :
            {std::pair {"sync_start_ps", &core.syncStart}, std::pair {"sync_ps", &core.syncDuration},
                std::pair {"last_op_end_ps", &core.lastOpEnd}, std::pair {"other_wait_ps", &core.otherWait}}) {
            w.key(key).beginArray();
            for (size_t i = 0; i < n; ++i)
                w.value(i < values->size() ? (*values)[i] : int64_t(-1));
            w.endArray();
        }
        w.endObject();
    }
    w.endArray();
    w.endObject();
}

void Merger::writeHostLink(JsonWriter& w) const
{
    if (!m_hasHostLink)
        return;
    auto sum = [&](const std::string& key) {
        auto it = m_linkSums.find(key);
        return it == m_linkSums.end() ? 0.0 : it->second;
    };
    w.key("host_link").beginObject();
    for (const char* direction : {"to_device", "to_host"}) {
        w.key(direction).beginObject();
        for (const char* key : {"transfers", "bytes", "busy_ps"})
            w.field(key, sum(std::string(direction) + "." + key));
        w.endObject();
    }
    w.field("either_busy_ps", sum("either_busy_ps")).field("both_busy_ps", sum("both_busy_ps"));
    w.field("program", m_linkProgram).field("runs", sum("runs"));
    for (const char* key :
        {"run_ps", "compute_ps_per_run", "wait_ps_per_run", "to_device_bytes_per_run", "to_host_bytes_per_run",
            "to_device_busy_ps_per_run", "to_host_busy_ps_per_run", "either_busy_ps_per_run", "both_busy_ps_per_run",
            "to_device_idle_while_waiting_ps_per_run", "to_host_idle_while_waiting_ps_per_run"})
        w.field(key, m_linkPerRun.mean(key));
    w.key("wait_ops").beginArray();
    for (const std::string& op : m_waitOps)
        w.rawValue(op);
    w.endArray();
    w.endObject();
}

void Merger::writeOps(JsonWriter& w, const char* key, const std::vector<MergedOp>& ops) const
{
    w.key(key).beginArray();
    for (const MergedOp& op : ops) {
        w.beginObject();
        for (const auto& [field, v] : op.first.object()) {
            if (field == "pair_span_ps" || field == "pairs_timed")
                continue;
            w.key(field);
            if (field == "occurrences")
                w.value(op.occurrences);
            else if (field == "time_ps")
                w.value(op.time);
            else if (field == "self_time_ps")
                w.value(op.self);
            else
                writeJson(w, v);
        }
        if (op.pairsTimed > 0)
            w.field("pair_span_ps", op.pairSpan).field("pairs_timed", op.pairsTimed);
        w.endObject();
    }
    w.endArray();
}

ShareMergeResult Merger::finish(size_t inputs)
{
    ShareMergeResult result;
    // An op kept on one host and brief on another is one row: the brief sums join the kept one.
    std::vector<MergedOp> brief;
    for (MergedOp& b : m_brief) {
        if (auto it = m_opIndex.find(opKey(b.first)); it != m_opIndex.end()) {
            MergedOp& k = m_ops[it->second];
            k.occurrences += b.occurrences, k.time += b.time, k.self += b.self;
            k.pairSpan += b.pairSpan, k.pairsTimed += b.pairsTimed;
        } else
            brief.push_back(std::move(b));
    }
    std::stable_sort(m_ops.begin(), m_ops.end(), [](const MergedOp& a, const MergedOp& b) { return a.time > b.time; });
    double keptTime = 0;
    for (const MergedOp& op : m_ops)
        keptTime += op.time;

    // One time base: each input's times move by its origin after the earliest.
    const int64_t origin = *std::min_element(m_originNs.begin(), m_originNs.end());
    std::vector<int64_t> base(m_originNs.size());
    for (size_t i = 0; i < base.size(); ++i)
        base[i] = (m_originNs[i] - origin) * 1000 + m_spanBeginPs[i];
    const int64_t earliest = *std::min_element(base.begin(), base.end());
    std::vector<int64_t> shift(base.size());
    int64_t span = 0;
    for (size_t i = 0; i < base.size(); ++i) {
        shift[i] = base[i] - earliest;
        span = std::max(span, shift[i] + m_spanPs[i]);
    }
    // Every core keeps the same first steps, kMaxShareStepWindows in all.
    const size_t perCore = shareStepWindowsPerCore(m_cores.size());
    std::vector<size_t> kept(m_cores.size());
    result.stepsPerCore = std::numeric_limits<size_t>::max();
    for (size_t c = 0; c < m_cores.size(); ++c) {
        const MergedCore& core = m_cores[c];
        kept[c] = std::min({perCore, core.start.size(), core.duration.size(), core.busy.size()});
        for (const auto* v : {&core.compute, &core.collective, &core.hostTransfer, &core.infeed})
            kept[c] = std::min(kept[c], v->size());
        result.stepsPerCore = std::min(result.stepsPerCore, kept[c]);
    }

    JsonWriter w(false);
    w.beginObject();
    w.field("format", "tpuscope-share").field("version", kShareVersion).field("generator", "tpuscope");
    w.key("source").beginObject();
    w.field("format", m_firstSource["format"].string()).field("file_bytes", m_fileBytes);
    w.key("limitations").beginArray();
    w.value("merged by tpuscope-cli merge from " + std::to_string(inputs) + " share files of one run");
    w.endArray();
    w.endObject();
    w.key("redaction").beginObject();
    w.field("paths", m_identity.redaction.find("paths") != std::string::npos)
        .field("names", m_identity.redaction.find("names") != std::string::npos)
        .field("hash", m_identity.redaction.find("hash") != std::string::npos);
    w.endObject();
    writeDevice(w);
    w.key("totals").beginObject();
    w.field("ops", m_opsInOriginal).field("kept", static_cast<uint64_t>(m_ops.size()));
    w.field("time_ps", m_timePs).field("kept_time_fraction", m_timePs > 0 ? keptTime / m_timePs : 0.0);
    w.field("span_ps", span);
    w.endObject();
    writeStepWindows(w, shift, kept);
    writeHostTiming(w, kept);
    writeHostLink(w);
    w.key("programs").beginArray();
    for (uint64_t id : m_programOrder)
        w.rawValue(m_programs.at(id));
    w.endArray();
    writeOps(w, "ops", m_ops);
    writeOps(w, "brief_ops", brief);
    w.key("other").beginArray();
    for (const MergedOtherChunk& o : m_other) {
        w.beginObject().field("category", o.category).field("ops", o.ops).field("occurrences", o.occurrences);
        w.field("time_ps", o.time).field("flops", o.flops).field("model_flops", o.modelFlops);
        w.field("bytes", o.bytes).field("hbm_bytes", o.hbm);
        w.field("flops_recorded", o.flopsRecorded).field("bytes_recorded", o.bytesRecorded);
        w.endObject();
    }
    w.endArray();
    // Each input's advice is about its own host; the reader computes the pod's from the data.
    w.key("advice").beginArray().endArray();
    w.endObject();

    result.json = w.str();
    std::string compressed;
    if (!gzipCompress(result.json, compressed, result.error))
        return result;
    result.bytes = std::string(kShareMagic) + " " + std::to_string(kShareVersion) + "\n" + compressed;
    result.hosts = m_hosts.size();
    result.cores = m_cores.size();
    if (m_cores.empty())
        result.stepsPerCore = 0;
    return result;
}

} // namespace

ShareMergeResult mergeShareFiles(std::span<const ShareMergeInput> inputs, const LoadLimits& limits)
{
    auto refused = [](std::string error) {
        ShareMergeResult r;
        r.error = std::move(error);
        return r;
    };
    if (inputs.empty())
        return refused("no share files to merge");
    Merger merger(limits);
    // Reading (inflate, parse, check) is most of the time: a few inputs at a time on the worker
    // pool, so at most that many parsed documents are held; adding them is in input order.
    const size_t batch = std::max(1u, std::thread::hardware_concurrency());
    std::vector<json::Value> docs(batch);
    std::vector<std::string> errors(batch);
    for (size_t first = 0; first < inputs.size(); first += batch) {
        const size_t n = std::min(batch, inputs.size() - first);
        std::vector<size_t> weight(n);
        for (size_t i = 0; i < n; ++i)
            weight[i] = inputs[first + i].bytes.size();
        parallelFor(
            weight, static_cast<unsigned>(n),
            [&](size_t i) {
                docs[i] = json::Value();
                errors[i] = readShare(inputs[first + i], limits, docs[i]);
            },
            [] {});
        for (size_t i = 0; i < n; ++i) {
            if (!errors[i].empty())
                return refused(errors[i]);
            if (std::string e = merger.add(inputs[first + i], docs[i]); !e.empty())
                return refused(e);
        }
    }
    return merger.finish(inputs.size());
}

} // namespace tpuscope::model
