// SPDX-License-Identifier: GPL-3.0-or-later
//
// Run discovery and multi-host loading. Hosts are decoded in parallel, each into its own
// ProfileBuilder (the builder is not thread-safe), then merged in host order on the calling
// thread. Decoding is the expensive part (inflate + wire/JSON parsing); merging moves the
// columns and re-interns strings, which is cheap next to it.

#include "logdir.h"

#include "core/naturalorder.h"
#include "core/parallel.h"
#include "decoder.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>

namespace tpuscope::model {

namespace fs = std::filesystem;

namespace {

struct Classified
{
    FileFormat format = FileFormat::Unknown;
    std::string host;
    bool opProfile = false;
};

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.ends_with(suffix);
}

/// Host file kinds by name (FORMATS.md §0); Unknown for everything else in a run directory.
Classified classify(std::string_view file)
{
    auto strip = [&](std::string_view suffix) { return std::string(file.substr(0, file.size() - suffix.size())); };
    if (file == "perfetto_trace.json.gz" || file == "perfetto_trace.json")
        return {}; // the trace.json.gz again, without metadata
    for (std::string_view suffix : {".xplane.pb", ".xplane.pb.gz"})
        if (endsWith(file, suffix))
            return {FileFormat::XSpace, strip(suffix)};
    if (endsWith(file, ".xplane.riegeli"))
        return {FileFormat::Riegeli, strip(".xplane.riegeli")};
    for (std::string_view suffix : {".trace.json.gz", ".trace.json"})
        if (endsWith(file, suffix))
            return {FileFormat::ChromeJson, strip(suffix)};
    if (file == "trace.json.gz" || file == "trace.json")
        return {FileFormat::ChromeJson, {}};
    if (file == "trace")
        return {FileFormat::LegacyTrace, {}};
    if (endsWith(file, ".trace"))
        return {FileFormat::LegacyTrace, strip(".trace")};
    if (file == "op_profile.json")
        return {FileFormat::OpProfileJson, {}, true};
    if (endsWith(file, ".op_profile.json"))
        return {FileFormat::OpProfileJson, strip(".op_profile.json"), true};
    return {};
}

int timelineRank(FileFormat format)
{
    switch (format) {
    case FileFormat::XSpace:
        return 0;
    case FileFormat::LegacyTrace:
        return 1; // the TF1 trace.json.gz is made from it
    case FileFormat::ChromeJson:
        return 2;
    case FileFormat::Riegeli:
        return 3;
    default:
        return 9;
    }
}

int64_t toEpochSeconds(fs::file_time_type t)
{
    const auto sys = std::chrono::file_clock::to_sys(t);
    return std::chrono::duration_cast<std::chrono::seconds>(sys.time_since_epoch()).count();
}

/// Seconds of a "YYYY_MM_DD_HH_MM_SS" run name (as if UTC; only the order matters), or -1.
int64_t timestampFromName(std::string_view name)
{
    if (name.size() != 19)
        return -1;
    int v[6];
    for (int i = 0; i < 6; ++i) {
        const size_t pos = i == 0 ? 0 : 4 + 3 * (i - 1) + 1;
        const size_t len = i == 0 ? 4 : 2;
        if (i > 0 && name[pos - 1] != '_')
            return -1;
        int x = 0;
        for (size_t k = pos; k < pos + len; ++k) {
            if (name[k] < '0' || name[k] > '9')
                return -1;
            x = x * 10 + (name[k] - '0');
        }
        v[i] = x;
    }
    // days from civil (Howard Hinnant)
    const int y = v[1] <= 2 ? v[0] - 1 : v[0];
    const int era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (v[1] + (v[1] > 2 ? -3 : 9)) + 2) / 5 + v[2] - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const int64_t days = static_cast<int64_t>(era) * 146097 + static_cast<int64_t>(doe) - 719468;
    return days * 86400 + v[3] * 3600 + v[4] * 60 + v[5];
}

/// The host files of a directory; empty when it is not a run.
std::vector<RunHost> scanRun(const fs::path& dir, int64_t& mtime)
{
    std::map<std::string, std::vector<std::pair<Classified, fs::path>>> byHost;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec)) {
        std::error_code fileEc;
        if (!entry.is_regular_file(fileEc))
            continue;
        const std::string file = entry.path().filename().string();
        Classified c = classify(file);
        if (c.format == FileFormat::Unknown)
            continue;
        if (auto t = entry.last_write_time(fileEc); !fileEc)
            mtime = std::max(mtime, toEpochSeconds(t));
        byHost[c.host].emplace_back(std::move(c), entry.path());
    }
    std::vector<RunHost> hosts;
    const bool anyXSpace = std::any_of(byHost.begin(), byHost.end(), [](const auto& h) {
        return std::any_of(
            h.second.begin(), h.second.end(), [](const auto& f) { return f.first.format == FileFormat::XSpace; });
    });
    for (auto& [name, files] : byHost) {
        RunHost host;
        host.name = name;
        std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
            if (timelineRank(a.first.format) != timelineRank(b.first.format))
                return timelineRank(a.first.format) < timelineRank(b.first.format);
            return a.second < b.second;
        });
        for (const auto& [c, path] : files) {
            if (c.opProfile) {
                if (host.opProfile.empty())
                    host.opProfile = path.string();
                else
                    host.ignored.push_back(path.string());
            } else if (host.timeline.empty()) {
                host.timeline = path.string();
                host.timelineFormat = c.format;
            } else {
                host.ignored.push_back(path.string());
            }
        }
        // An XSpace has its own op costs; an op_profile beside it would count every op twice.
        // A host-less op_profile.json in a run of XSpace hosts is set aside for the same reason.
        if (!host.opProfile.empty()
            && (host.timelineFormat == FileFormat::XSpace || (host.timeline.empty() && name.empty() && anyXSpace))) {
            host.ignored.push_back(host.opProfile);
            host.opProfile.clear();
        }
        if (host.timeline.empty() && host.opProfile.empty())
            continue;
        hosts.push_back(std::move(host));
    }
    // Natural order (w-2 before w-10): the timeline's host groups and the hosts table follow it.
    std::stable_sort(
        hosts.begin(), hosts.end(), [](const RunHost& a, const RunHost& b) { return naturalLess(a.name, b.name); });
    return hosts;
}

struct HostJob
{
    const RunHost* host = nullptr;
    /// The budget and event limit all hosts of the run share, and this host's slot in it.
    std::shared_ptr<SharedLoadBudget> budget;
    size_t slot = 0;
    ProfileBuilder builder;
    std::string error;
    std::vector<std::string> formats;
    uint64_t fileBytes = 0;
    uint64_t decodedBytes = 0;
    std::atomic<double> fraction {0};
};

/// Reads, inflates and decodes one file into the job's builder; returns an error or "". The
/// same path as a file opened on its own (decodeFileInto): streaming inflate, limits, first-MiB
/// format check.
std::string decodeFile(const std::string& path, HostJob& job, const LoadOptions& options, std::stop_token stop,
    bool opProfileOnly, PlaneId attachTo)
{
    ProgressFn progress = [&job](std::string_view phase, double f) {
        if (phase != "reading") // the file is open: decoding has not begun
            job.fraction.store(f, std::memory_order_relaxed);
    };
    const OpProfileTarget target {attachTo};
    const DecodeOutcome decoded = decodeFileInto(path, job.builder, options, progress, stop,
        opProfileOnly ? &target : nullptr, fs::path(path).filename().string() + ": ");
    job.fileBytes += decoded.fileBytes;
    job.decodedBytes += decoded.decodedBytes;
    if (decoded.error.empty())
        job.formats.push_back(decoded.formatLabel());
    return decoded.error;
}

void runJob(HostJob& job, const LoadOptions& options, std::stop_token stop)
{
    const RunHost& host = *job.host;
    job.builder.addHost(host.name);
    LoadLimits limits = effectiveLimits(options);
    limits.shared = job.budget;
    limits.sharedSlot = job.slot;
    job.builder.setLimits(std::move(limits));
    Profile& profile = job.builder.profile();
    bool timelineOk = false;
    if (!host.timeline.empty()) {
        std::string error = decodeFile(host.timeline, job, options, stop, false, kNone);
        if (!error.empty()) {
            if (host.opProfile.empty()) {
                job.error = fs::path(host.timeline).filename().string() + ": " + error;
                return;
            }
            profile.load.warnings.push_back(fs::path(host.timeline).filename().string() + ": " + error);
        } else {
            timelineOk = true;
        }
    }
    if (host.opProfile.empty() || stop.stop_requested())
        return;
    // Timeline + op_profile (TF1 runs): the op table comes from op_profile, which has the costs.
    // The timeline's own XLA Ops tracks stay visible but are marked Other, so no op is counted twice;
    // the op_profile totals go on the first TPU core plane of the timeline.
    PlaneId attach = kNone;
    if (timelineOk) {
        for (PlaneId p = 0; p < profile.planes.size() && attach == kNone; ++p)
            if (profile.planes[p].kind == PlaneKind::TpuCore)
                attach = p;
        bool demoted = false;
        for (auto& track : profile.tracks)
            if (track.kind == TrackKind::XlaOps) {
                track.kind = TrackKind::Other;
                demoted = true;
            }
        if (demoted)
            profile.load.limitations.push_back("the op table comes from op_profile.json; the timeline's XLA Ops rows "
                                               "are shown but not counted, so no op is counted twice");
    }
    std::string error = decodeFile(host.opProfile, job, options, stop, true, attach);
    if (!error.empty()) {
        const std::string message = fs::path(host.opProfile).filename().string() + ": " + error;
        if (timelineOk)
            profile.load.warnings.push_back(message);
        else
            job.error = job.error.empty() ? message : job.error + "; " + message;
    }
}

std::string hostLabel(const RunHost& host)
{
    return host.name.empty() ? std::string("(unnamed host)") : host.name;
}

} // namespace

std::vector<ProfileRun> findRuns(const std::string& path)
{
    std::vector<ProfileRun> runs;
    std::error_code ec;
    const fs::path root = fs::path(path).lexically_normal();
    if (!fs::is_directory(root, ec))
        return runs;
    std::set<fs::path> seen;
    auto addRun = [&](const fs::path& dir) {
        const fs::path canonical = fs::weakly_canonical(dir, ec);
        if (!seen.insert(canonical).second)
            return;
        ProfileRun run;
        run.hosts = scanRun(dir, run.mtime);
        if (run.hosts.empty())
            return;
        run.path = dir.string();
        run.name = dir.filename().empty() ? dir.parent_path().filename().string() : dir.filename().string();
        const fs::path relative = dir.lexically_relative(root);
        run.label = relative.empty() || relative == "." ? run.name : relative.string();
        runs.push_back(std::move(run));
    };
    auto addRunsUnder = [&](const fs::path& dir) {
        for (const auto& entry : fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec))
            if (std::error_code e; entry.is_directory(e))
                addRun(entry.path());
    };

    addRun(root); // a run directory itself
    addRunsUnder(root); // a plugins/profile directory
    // A TensorBoard logdir: <dir>/plugins/profile, also below train/, eval/, … (depth-limited).
    std::vector<std::pair<fs::path, int>> stack {{root, 0}};
    while (!stack.empty()) {
        auto [dir, depth] = stack.back();
        stack.pop_back();
        const fs::path profileDir = dir / "plugins" / "profile";
        if (fs::is_directory(profileDir, ec))
            addRunsUnder(profileDir);
        if (depth >= 3)
            continue;
        for (const auto& entry : fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec))
            if (std::error_code e;
                entry.is_directory(e) && !entry.is_symlink(e) && entry.path().filename() != "plugins")
                stack.emplace_back(entry.path(), depth + 1);
    }

    std::stable_sort(runs.begin(), runs.end(), [](const ProfileRun& a, const ProfileRun& b) {
        const int64_t ta = timestampFromName(a.name), tb = timestampFromName(b.name);
        const int64_t ka = ta >= 0 ? ta : a.mtime, kb = tb >= 0 ? tb : b.mtime;
        if (ka != kb)
            return ka > kb;
        return a.label > b.label;
    });
    return runs;
}

void mergeProfile(Profile& source, ProfileBuilder& target, TimePs shiftPs)
{
    Profile& dst = target.profile();
    auto re = [&](StringId id) -> StringId { return id ? target.intern(source.str(id)) : 0; };

    std::vector<uint32_t> hostMap;
    for (auto& host : source.hosts)
        hostMap.push_back(target.addHost(host));
    if (hostMap.empty())
        hostMap.push_back(target.addHost({}));

    std::vector<uint32_t> programMap;
    for (auto& program : source.programs)
        programMap.push_back(target.addProgram(program.id, program.name, program.hlo));

    std::vector<OpId> opMap(source.ops.size());
    for (size_t i = 0; i < source.ops.size(); ++i) {
        OpInfo op = source.ops[i];
        op.name = re(op.name);
        op.longName = re(op.longName);
        op.category = re(op.category);
        op.shapeWithLayout = re(op.shapeWithLayout);
        op.tfOp = re(op.tfOp);
        op.source = re(op.source);
        op.deduplicatedName = re(op.deduplicatedName);
        op.program = op.program != kNone && op.program < programMap.size() ? programMap[op.program] : kNone;
        opMap[i] = target.addOp(op);
    }
    for (auto& [op, hints] : source.layoutHints)
        if (op < opMap.size())
            dst.layoutHints[opMap[op]] = hints;

    std::vector<PlaneId> planeMap;
    for (const Plane& plane : source.planes) {
        const uint32_t host = plane.host < hostMap.size() ? hostMap[plane.host] : hostMap.front();
        const PlaneId id = target.addPlane(source.str(plane.name), host);
        Plane& p = dst.planes[id];
        p.kind = plane.kind;
        p.coreIndex = plane.coreIndex;
        p.sortIndex = plane.sortIndex;
        p.deviceType = plane.deviceType;
        p.peakTflops = plane.peakTflops;
        p.peakHbmGbps = plane.peakHbmGbps;
        planeMap.push_back(id);
    }
    for (Track& track : source.tracks) {
        const TrackId id = target.addTrack(planeMap[track.plane], source.str(track.name), track.kind, track.lineId);
        Track& t = dst.tracks[id];
        t.displayId = track.displayId;
        t.sortIndex = track.sortIndex;
        t.start = std::move(track.start);
        if (shiftPs)
            for (auto& s : t.start)
                s += shiftPs;
        t.duration = std::move(track.duration);
        t.op = std::move(track.op);
        for (auto& op : t.op)
            op = opMap[op];
        t.aggregated = std::move(track.aggregated);
        for (auto& a : t.aggregated)
            a.op = opMap[a.op];
    }
    for (CounterTrack& counter : source.counters) {
        const uint32_t id = target.addCounter(planeMap[counter.plane], source.str(counter.name));
        CounterTrack& c = dst.counters[id];
        c.time = std::move(counter.time);
        if (shiftPs)
            for (auto& t : c.time)
                t += shiftPs;
        c.value = std::move(counter.value);
    }

    ImportStats& s = dst.stats;
    const ImportStats& o = source.stats;
    s.negativeDurations += o.negativeDurations;
    s.unknownMetadataIds += o.unknownMetadataIds;
    s.partialOverlaps += o.partialOverlaps;
    s.depthLimitHits += o.depthLimitHits;
    s.unmatchedEnds += o.unmatchedEnds;
    s.unmatchedBegins += o.unmatchedBegins;
    s.malformedEvents += o.malformedEvents;
    s.hloDecodeFailures += o.hloDecodeFailures;
    s.aggregatedEvents += o.aggregatedEvents;

    const std::string prefix
        = source.hosts.empty() || source.hosts.front().empty() ? std::string() : source.hosts.front() + ": ";
    for (auto& w : source.load.warnings)
        dst.load.warnings.push_back(prefix + w);
    for (auto& l : source.load.limitations)
        if (std::find(dst.load.limitations.begin(), dst.load.limitations.end(), l) == dst.load.limitations.end())
            dst.load.limitations.push_back(l);
    // A peak a decoder chose (op_profile's implied peak) travels with the profile.
    if (dst.device.peakSource == PeakSource::None && source.device.peakSource != PeakSource::None)
        dst.device = source.device;
}

LoadResult loadRun(const ProfileRun& run, const LoadOptions& options, const ProgressFn& progress, std::stop_token stop)
{
    const auto started = std::chrono::steady_clock::now();
    if (run.hosts.empty())
        return LoadResult {nullptr, run.path + ": the run has no host files"};
    if (const std::string error = environmentLimitsError(); !error.empty())
        return LoadResult {nullptr, error};

    // One budget for the run: the hosts decode at once, so a limit per host would let N hosts
    // take N times the budget (and N times --max-events).
    const auto budget = std::make_shared<SharedLoadBudget>(run.hosts.size());
    std::vector<std::unique_ptr<HostJob>> jobs;
    for (const RunHost& host : run.hosts) {
        jobs.push_back(std::make_unique<HostJob>());
        jobs.back()->host = &host;
        jobs.back()->budget = budget;
        jobs.back()->slot = jobs.size() - 1;
    }
    // Hosts decode in file order (equal weights), one per hardware thread.
    auto decodeHost = [&](size_t i) {
        try {
            runJob(*jobs[i], options, stop);
        } catch (const std::bad_alloc&) {
            // One host too big for memory: the others may still fit.
            jobs[i]->builder = ProfileBuilder();
            const RunHost& host = *jobs[i]->host;
            jobs[i]->error = outOfMemoryMessage(
                fs::path(host.timeline.empty() ? host.opProfile : host.timeline).filename().string(), options);
        }
        if (!jobs[i]->error.empty()) {
            jobs[i]->builder = ProfileBuilder(); // a host that failed holds nothing
            budget->release(jobs[i]->slot);
        }
        jobs[i]->fraction.store(1.0);
    };
    // Progress is reported from this thread only: callers need not be thread-safe.
    auto reportProgress = [&] {
        if (!progress)
            return;
        double sum = 0;
        for (const auto& job : jobs)
            sum += job->fraction.load(std::memory_order_relaxed);
        progress("loading hosts", sum / jobs.size());
    };
    parallelFor(std::vector<size_t>(jobs.size(), 1), std::max(1u, std::thread::hardware_concurrency()), decodeHost,
        reportProgress, std::chrono::milliseconds(50));
    if (stop.stop_requested())
        return LoadResult {nullptr, run.path + ": cancelled"};

    // Align hosts on the earliest absolute origin (TF1 traces have none and stay at 0).
    int64_t origin = 0;
    bool haveOrigin = false;
    std::vector<std::string> failures;
    for (const auto& job : jobs) {
        if (!job->error.empty())
            continue;
        const int64_t o = job->builder.profile().originNs;
        if (o != 0) {
            origin = haveOrigin ? std::min(origin, o) : o;
            haveOrigin = true;
        }
    }

    ProfileBuilder builder;
    builder.setLoadStart(started);
    std::vector<std::string> formats;
    uint64_t fileBytes = 0, decodedBytes = 0;
    size_t loaded = 0;
    for (const auto& job : jobs) {
        fileBytes += job->fileBytes;
        decodedBytes += job->decodedBytes;
        if (!job->error.empty()) {
            failures.push_back("host " + hostLabel(*job->host) + ": " + job->error);
            continue;
        }
        Profile& p = job->builder.profile();
        const TimePs shift = p.originNs != 0 ? (p.originNs - origin) * 1000 : 0;
        mergeProfile(p, builder, shift);
        for (auto& f : job->formats)
            if (std::find(formats.begin(), formats.end(), f) == formats.end())
                formats.push_back(f);
        ++loaded;
    }
    if (loaded == 0) {
        std::string message = run.path + ": no host file of the run could be read";
        for (auto& f : failures)
            message += "; " + f;
        return LoadResult {nullptr, message};
    }
    Profile& profile = builder.profile();
    for (auto& f : failures)
        profile.load.warnings.push_back("skipped " + f);
    profile.originNs = origin;
    profile.load.path = run.path;
    profile.load.format = "run";
    for (size_t i = 0; i < formats.size(); ++i)
        profile.load.format += (i ? "," : " of ") + formats[i];
    profile.load.fileBytes = fileBytes;
    profile.load.decodedBytes = decodedBytes;
    if (progress)
        progress("indexing", 1.0);
    return LoadResult {builder.finish(options.deviceOverride, options.coresOverride), {}};
}

LoadResult loadNewestRun(
    const std::string& directory, const LoadOptions& options, const ProgressFn& progress, std::stop_token stop)
{
    const std::vector<ProfileRun> runs = findRuns(directory);
    if (runs.empty())
        return LoadResult {nullptr,
            directory
                + ": no profile run found in this directory (expected <logdir>/plugins/profile/"
                  "<run>/ with *.xplane.pb, *.trace.json.gz, trace or op_profile.json files)"};
    return loadRun(runs.front(), options, progress, stop);
}

} // namespace tpuscope::model
