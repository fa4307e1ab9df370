// SPDX-License-Identifier: GPL-3.0-or-later
#include "shareschema.h"

#include "../core/format.h"
#include "sharehosttiming.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

namespace tpuscope::model {

namespace {

/// The arrays of a share document and the most entries each may have. Real files hold a few
/// hundred ops and a few thousand step windows; the limits are far above any real file and far
/// below what would take the budget.
struct ArrayLimit
{
    std::string_view path; // dotted: "device.core_planes"
    uint64_t maxEntries;
};
constexpr ArrayLimit kArrayLimits[] = {
    {"device.hosts", kMaxShareHosts},
    {"device.core_planes", kMaxShareCorePlanes},
    {"host_timing.cores", kMaxShareCorePlanes},
    {"ops", 100'000},
    {"brief_ops", 100'000},
    {"other", 100'000},
    {"programs", 100'000},
    {"program_runs", 1'000'000},
    {"idle", 65536},
    {"steps.duration_ps", kMaxShareStepWindows},
    {"advice", 10'000},
    {"source.limitations", 10'000},
    {"host_link.wait_ops", 100'000},
};

const json::Value& member(const json::Value& doc, std::string_view path)
{
    const json::Value* v = &doc;
    while (!path.empty()) {
        const size_t dot = path.find('.');
        v = &(*v)[path.substr(0, dot)];
        path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    }
    return *v;
}

/// A count or a time as the reader will take it: negative, NaN and fractions are not counts.
int64_t count(const json::Value& v)
{
    const double x = v.number(0);
    if (!std::isfinite(x) || x <= 0)
        return 0;
    return x >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(x);
}

uint64_t treeValues(const json::Value& v)
{
    uint64_t n = 1;
    for (const json::Value& e : v.array())
        n += treeValues(e);
    for (const auto& [key, e] : v.object())
        n += treeValues(e);
    return n;
}

std::string field(std::string_view array, size_t index, std::string_view name = {})
{
    return std::string(array) + "[" + std::to_string(index) + "]" + (name.empty() ? "" : "." + std::string(name));
}

/// "host_timing" (sharehosts.h): each listed core is a core plane with step windows, lists as many
/// steps in each series as it has windows or fewer, and every value is a time (-1 unknown). Returns
/// the steps listed in all, or an error naming the field.
std::string checkHostTiming(const json::Value& doc, uint64_t planes, uint64_t& stepsListed)
{
    const std::string damaged = "tpuscope share file is damaged: ";
    const json::Value& timing = doc["host_timing"];
    if (timing.isNull())
        return {};
    if (!timing.isObject())
        return damaged + "host_timing is not an object";
    const std::string scope = timing["other_wait_scope"].string();
    if (scope != "profile" && scope != "host")
        return damaged + "host_timing.other_wait_scope is '" + scope + "', neither 'profile' nor 'host'";
    std::vector<uint64_t> windowsOf(planes, 0);
    for (const json::Value& core : doc["step_windows"]["cores"].array())
        if (const double p = core["plane"].number(-1); p >= 0 && p < static_cast<double>(planes))
            windowsOf[static_cast<size_t>(p)] = core["start_ps"].size();
    std::set<int64_t> seen;
    const json::Value& cores = timing["cores"];
    for (size_t i = 0; i < cores.size(); ++i) {
        const json::Value& core = cores.at(i);
        const std::string name = field("host_timing.cores", i);
        const double plane = core["plane"].number(-1);
        if (!(plane >= 0) || plane != std::floor(plane) || plane >= static_cast<double>(planes))
            return damaged + name + ".plane names core " + formatDecimal(plane, 0) + ", but device.core_planes lists "
                + std::to_string(planes) + " core" + (planes == 1 ? "" : "s");
        if (!seen.insert(static_cast<int64_t>(plane)).second)
            return damaged + name + ".plane names core " + formatDecimal(plane, 0) + " a second time";
        const uint64_t windows = windowsOf[static_cast<size_t>(plane)];
        const uint64_t n = core["sync_start_ps"].size();
        if (n > windows)
            return damaged + name + ".sync_start_ps lists " + std::to_string(n) + " steps, but step_windows lists "
                + std::to_string(windows) + " for core " + formatDecimal(plane, 0);
        for (const char* key : {"sync_start_ps", "sync_ps", "last_op_end_ps", "other_wait_ps"}) {
            const json::Value& series = core[key];
            if (series.size() != n)
                return damaged + name + " has " + std::to_string(n) + " sync_start_ps but "
                    + std::to_string(series.size()) + " " + key;
            for (size_t s = 0; s < n; ++s) {
                const json::Value& v = series.at(s);
                const double x = v.number(std::nan(""));
                if (!v.isNumber() || !(x >= -1) || x > static_cast<double>(kMaxShareTimePs) || x != std::floor(x))
                    return damaged + name + "." + key + "[" + std::to_string(s)
                        + "] is not a time in ps (-1 for unknown)";
            }
        }
        stepsListed += n;
    }
    if (stepsListed > kMaxShareStepWindows)
        return damaged + "host_timing.cores list more than " + std::to_string(kMaxShareStepWindows)
            + " steps in all, the most a share file keeps";
    return {};
}

uint64_t saturatingAdd(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

} // namespace

json::ParseOptions shareParseOptions(const LoadLimits& limits, uint64_t jsonBytes)
{
    json::ParseOptions options;
    options.maxBytes = static_cast<size_t>(std::max<uint64_t>(jsonBytes, 1));
    options.maxValues = std::max<uint64_t>(1, limits.memoryBudgetBytes / json::kPeakBytesPerValue);
    return options;
}

std::string checkShareClaims(
    const json::Value& doc, uint64_t fileBytes, ProfileBuilder& builder, ShareClaims* claimsOut)
{
    const std::string damaged = "tpuscope share file is damaged: ";
    for (const ArrayLimit& limit : kArrayLimits) {
        const json::Value& v = member(doc, limit.path);
        if (v.size() > limit.maxEntries)
            return damaged + std::string(limit.path) + " has " + std::to_string(v.size()) + " entries, more than the "
                + std::to_string(limit.maxEntries) + " a share file may hold";
    }

    ShareClaims claims;
    const json::Value& device = doc["device"];
    const uint64_t planes = std::max<uint64_t>(1, device["core_planes"].size());
    const uint64_t hosts = std::max<uint64_t>(1, device["hosts"].size());
    claims.planes = planes;
    auto planeIndex = [&](const json::Value& entry, const std::string& name) -> std::string {
        const double plane = entry["plane"].number(0);
        if (!(plane >= 0) || plane != std::floor(plane) || plane >= static_cast<double>(planes))
            return damaged + name + " names core " + formatDecimal(plane, 0) + ", but device.core_planes lists "
                + std::to_string(planes) + " core" + (planes == 1 ? "" : "s");
        return {};
    };
    {
        size_t i = 0;
        for (const json::Value& p : device["core_planes"].array()) {
            const double host = p["host"].number(0);
            if (!(host >= 0) || host >= static_cast<double>(hosts))
                return damaged + field("device.core_planes", i, "host") + " names host " + formatDecimal(host, 0)
                    + ", but device.hosts lists " + std::to_string(hosts);
            ++i;
        }
    }

    // Events the reader rebuilds, with the field that claims the most of them (for the message).
    uint64_t largestClaim = 0;
    std::string largestField;
    auto claim = [&](uint64_t events, const std::string& name) {
        claims.events = saturatingAdd(claims.events, events);
        if (events > largestClaim) {
            largestClaim = events;
            largestField = name;
        }
    };

    const json::Value& windows = doc["step_windows"];
    if (windows.isObject()) {
        const json::Value& cores = windows["cores"];
        if (cores.size() > planes)
            return damaged + "step_windows.cores lists " + std::to_string(cores.size()) + " cores, more than the "
                + std::to_string(planes) + " core planes in device.core_planes";
        const bool runs = count(windows["kind"]) == static_cast<int64_t>(TrackKind::XlaModules);
        std::set<int64_t> seen;
        uint64_t total = 0;
        for (size_t i = 0; i < cores.size(); ++i) {
            const json::Value& core = cores.at(i);
            const std::string name = field("step_windows.cores", i);
            if (std::string e = planeIndex(core, name + ".plane"); !e.empty())
                return e;
            if (!seen.insert(count(core["plane"])).second)
                return damaged + name + ".plane names core " + std::to_string(count(core["plane"])) + " a second time";
            const size_t n = core["start_ps"].size();
            for (const char* key : {"duration_ps", "busy_ps"})
                if (core[key].size() != n)
                    return damaged + name + " has " + std::to_string(n) + " start_ps but "
                        + std::to_string(core[key].size()) + " " + key;
            total += n;
            if (total > kMaxShareStepWindows)
                return damaged + "step_windows.cores hold more than " + std::to_string(kMaxShareStepWindows)
                    + " windows in all, the most a share file keeps";
            claim(runs ? n : 2 * n, name + ".start_ps");
        }
    }

    // Program runs and (older files) idle-line runs: spaced evenly over their time, so each needs
    // at least kMinShareRunPs of it.
    for (const auto& [array, timeKey] : {std::pair {"program_runs", "time_ps"}, std::pair {"idle", "span_ps"}}) {
        const json::Value& entries = doc[array];
        for (size_t i = 0; i < entries.size(); ++i) {
            const json::Value& entry = entries.at(i);
            const std::string name = field(array, i);
            if (std::string e = planeIndex(entry, name + ".plane"); !e.empty())
                return e;
            const int64_t runs = count(entry["runs"]);
            const int64_t time = count(entry[timeKey]);
            if (runs > time / kMinShareRunPs)
                return damaged + name + ".runs: " + std::to_string(runs) + " runs cannot fit in its " + timeKey + " of "
                    + formatDurationPs(static_cast<double>(time)) + " (a run takes at least "
                    + formatDurationPs(static_cast<double>(kMinShareRunPs)) + ")";
            claim(static_cast<uint64_t>(runs), name + ".runs");
        }
    }
    claim(doc["steps"]["duration_ps"].size(), "steps.duration_ps");
    uint64_t hostTimingSteps = 0;
    if (std::string e = checkHostTiming(doc, planes, hostTimingSteps); !e.empty())
        return e;

    if (claims.events > kMaxShareEventsPerFileByte * std::max<uint64_t>(fileBytes, 1))
        return damaged + "it claims " + std::to_string(claims.events) + " events to rebuild (" + largestField
            + " alone " + std::to_string(largestClaim) + "), more than a file of " + std::to_string(fileBytes)
            + " bytes can hold (at most " + std::to_string(kMaxShareEventsPerFileByte) + " per byte)";

    const LoadLimits& limits = builder.limits();
    const json::Value& programs = doc["programs"];
    for (size_t i = 0; i < programs.size(); ++i) {
        uint64_t instructions = 0;
        for (const json::Value& c : programs.at(i)["hlo"]["computations"].array())
            instructions += c["instructions"].size();
        if (instructions > limits.maxHloInstructions)
            return damaged + field("programs", i, "hlo") + " holds " + std::to_string(instructions)
                + " instructions, more than the limit of " + std::to_string(limits.maxHloInstructions) + " per module"
                + (limits.hloHint.empty() ? "" : "; " + limits.hloHint);
        claims.hloInstructions += instructions;
    }

    claims.ops = doc["ops"].size() + doc["brief_ops"].size() + doc["other"].size();
    claims.documentBytes = treeValues(doc) * json::kPeakBytesPerValue;
    // Each core gets up to four lines (steps, program runs, an idle line, the ops of the first).
    const uint64_t structure = claims.documentBytes + planes * LoadLimits::kPeakBytesPerPlane
        + 4 * planes * LoadLimits::kPeakBytesPerLine + claims.ops * LoadLimits::kPeakBytesPerOp
        + programs.size() * LoadLimits::kPeakBytesPerProgram
        + claims.hloInstructions * LoadLimits::kPeakBytesPerHloInstruction + hostTimingSteps * sizeof(CoreSyncStep);
    if (std::string over = builder.checkBudget(builder.profile().eventCount() + claims.events, structure);
        !over.empty())
        return "the share file claims " + std::to_string(claims.events) + " events, " + std::to_string(claims.ops)
            + " op rows and " + std::to_string(claims.hloInstructions) + " HLO instructions: " + over;
    if (claimsOut)
        *claimsOut = claims;
    return {};
}

} // namespace tpuscope::model
