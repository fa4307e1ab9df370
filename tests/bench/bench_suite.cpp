// SPDX-License-Identifier: GPL-3.0-or-later
// Unified performance benchmark (PERFORMANCE.md §5–6): generates seeded profiles of N events
// (XSpace per Appendix B, Chrome JSON per Appendix A, plain and gzip -6) into a temp dir, warms
// the page cache, and for each case runs the real app's bench mode (`tpuscope --bench-load FILE`,
// app/benchmode.h) as a child process, R times, interleaved with a plain libprotobuf arena parse +
// walk of the same (decompressed) XSpace in a forked child. Prints one JSON line per case (medians
// over the repeats, with a `targets` object saying which goals are met), then one `scaling` line
// per format comparing the per-event cost of the largest size with the smaller ones.
//
//   bench_suite [--sizes 1e5,1e6,1e7] [--formats xspace,xspace.gz,json,json.gz] [--repeat 3]
//               [--steps 40] [--app PATH] [--keep] [--dir DIR] [--json-style appendixA|tsl]
//               [--gz-level 6] [--timeout SECONDS] [--no-libprotobuf]
//
// Run the GUI side under a display as the protocol asks, e.g.
//   xvfb-run -a -s "-screen 0 1920x1080x24" env QT_QPA_PLATFORM=xcb bench_suite --sizes 1e5,1e6 --repeat 1
// (without DISPLAY the app uses the offscreen platform). --keep leaves the inputs in the temp dir;
// --dir DIR uses DIR and reuses complete inputs already there. Times of the app (first_*_s) run
// from its main(); open_to_model_s from its openFile() call to the loaded profile and op breakdown;
// startup_s is this driver's fork → the app's main(). Keep the machine quiet (loadavg is recorded
// per case); absolute numbers are only comparable on the same machine.
#include "generators.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <poll.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace tpuscope::bench;

namespace {

struct Config
{
    std::vector<uint64_t> sizes {100'000, 1'000'000, 10'000'000};
    std::vector<std::string> formats {"xspace", "xspace.gz", "json", "json.gz"};
    int repeat = 3;
    int steps = 40;
    std::string app;
    bool keep = false;
    std::string dir;
    JsonStyle style = JsonStyle::AppendixA;
    int gzLevel = 6;
    double timeout = 1800;
    bool libprotobuf = true;
};

// ---- a flat JSON object: the app's line in, our lines out ----

struct Value
{
    enum class Kind { Number, String, Bool, Null } kind = Kind::Null;
    double number = 0;
    std::string text;
    bool flag = false;
};
using Object = std::map<std::string, Value>;

/// Parses one flat JSON object (numbers, strings, booleans, null); nullopt for anything else.
std::optional<Object> parseFlatObject(const std::string& line)
{
    Object out;
    size_t i = 0;
    auto skip = [&] {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
            ++i;
    };
    auto readString = [&](std::string& s) {
        if (i >= line.size() || line[i] != '"')
            return false;
        for (++i; i < line.size() && line[i] != '"'; ++i) {
            if (line[i] == '\\' && i + 1 < line.size()) {
                ++i;
                if (line[i] == 'u' && i + 4 < line.size()) { // control characters only: keep as '?'
                    s += '?';
                    i += 4;
                    continue;
                }
                s += line[i] == 'n' ? '\n' : line[i] == 't' ? '\t' : line[i];
            } else {
                s += line[i];
            }
        }
        if (i >= line.size())
            return false;
        ++i;
        return true;
    };
    skip();
    if (i >= line.size() || line[i++] != '{')
        return std::nullopt;
    skip();
    if (i < line.size() && line[i] == '}')
        return out;
    for (;;) {
        skip();
        std::string key;
        if (!readString(key))
            return std::nullopt;
        skip();
        if (i >= line.size() || line[i++] != ':')
            return std::nullopt;
        skip();
        Value v;
        if (i < line.size() && line[i] == '"') {
            v.kind = Value::Kind::String;
            if (!readString(v.text))
                return std::nullopt;
        } else if (line.compare(i, 4, "true") == 0 || line.compare(i, 5, "false") == 0) {
            v.kind = Value::Kind::Bool;
            v.flag = line[i] == 't';
            i += v.flag ? 4 : 5;
        } else if (line.compare(i, 4, "null") == 0) {
            i += 4;
        } else {
            char* end = nullptr;
            v.number = std::strtod(line.c_str() + i, &end);
            if (end == line.c_str() + i)
                return std::nullopt;
            v.kind = Value::Kind::Number;
            i = static_cast<size_t>(end - line.c_str());
        }
        out[key] = v;
        skip();
        if (i < line.size() && line[i] == ',') {
            ++i;
            continue;
        }
        if (i < line.size() && line[i] == '}')
            return out;
        return std::nullopt;
    }
}

std::string quote(const std::string& s)
{
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (static_cast<unsigned char>(c) >= 0x20)
            out += c;
    }
    return out + '"';
}

class Line
{
public:
    Line& num(const std::string& key, double v, int decimals = 4)
    {
        char text[64];
        if (std::isfinite(v))
            std::snprintf(text, sizeof text, "%.*f", decimals, v);
        else
            std::snprintf(text, sizeof text, "null");
        return raw(key, text);
    }
    Line& integer(const std::string& key, double v)
    {
        return std::isfinite(v) ? raw(key, std::to_string(std::llround(v))) : raw(key, "null");
    }
    Line& str(const std::string& key, const std::string& v) { return raw(key, quote(v)); }
    Line& boolean(const std::string& key, bool v) { return raw(key, v ? "true" : "false"); }
    Line& list(const std::string& key, const std::vector<double>& values, int decimals = 4)
    {
        std::string text = "[";
        for (size_t i = 0; i < values.size(); ++i) {
            char item[64];
            std::snprintf(item, sizeof item, "%s%.*f", i ? "," : "", decimals, values[i]);
            text += item;
        }
        return raw(key, text + "]");
    }
    Line& raw(const std::string& key, const std::string& value)
    {
        if (!m_body.empty())
            m_body += ',';
        m_body += quote(key) + ':' + value;
        return *this;
    }
    std::string text() const { return "{" + m_body + "}"; }
    bool empty() const { return m_body.empty(); }

private:
    std::string m_body;
};

// ---- the app as a child process ----

struct ChildResult
{
    int status = -1;
    bool timedOut = false;
    std::string out, err;
    int64_t spawnNs = 0;
};

ChildResult runApp(const std::vector<std::string>& args, double timeoutSeconds)
{
    ChildResult r;
    int outPipe[2], errPipe[2];
    if (::pipe(outPipe) != 0 || ::pipe(errPipe) != 0) {
        r.err = std::string("pipe: ") + std::strerror(errno);
        return r;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    r.spawnNs = steadyNs();
    const pid_t pid = ::fork();
    if (pid < 0) {
        r.err = std::string("fork: ") + std::strerror(errno);
        return r;
    }
    if (pid == 0) {
        ::dup2(outPipe[1], 1);
        ::dup2(errPipe[1], 2);
        for (int fd : {outPipe[0], outPipe[1], errPipe[0], errPipe[1]})
            ::close(fd);
        std::vector<char*> argv;
        for (const std::string& a : args)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        std::fprintf(stderr, "cannot run %s: %s\n", argv[0], std::strerror(errno));
        ::_exit(127);
    }
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&r.out, &r.err};
    int open = 2;
    const int64_t deadline = r.spawnNs + static_cast<int64_t>(timeoutSeconds * 1e9);
    while (open > 0) {
        const int64_t leftMs = (deadline - steadyNs()) / 1'000'000;
        if (leftMs <= 0) {
            r.timedOut = true;
            ::kill(pid, SIGKILL); // our own child
            break;
        }
        const int ready = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(leftMs, 1000)));
        if (ready < 0 && errno != EINTR)
            break;
        for (int k = 0; k < 2; ++k) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buffer[4096];
            const ssize_t n = ::read(fds[k].fd, buffer, sizeof buffer);
            if (n > 0) {
                sinks[k]->append(buffer, static_cast<size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                ::close(fds[k].fd);
                fds[k].fd = -1;
                --open;
            }
        }
    }
    for (const pollfd& p : fds)
        if (p.fd >= 0)
            ::close(p.fd);
    int status = 0;
    ::waitpid(pid, &status, 0);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return r;
}

/// The last line of the app's stdout that parses as a JSON object.
std::optional<Object> appLine(const std::string& out)
{
    std::istringstream lines(out);
    std::string line;
    std::optional<Object> found;
    while (std::getline(lines, line))
        if (!line.empty() && line.front() == '{')
            if (auto parsed = parseFlatObject(line))
                found = std::move(parsed);
    return found;
}

// ---- cases ----

double median(std::vector<double> v)
{
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
    if (v.empty())
        return std::nan("");
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string sizeLabel(uint64_t n)
{
    for (int e = 1; e <= 12; ++e) {
        uint64_t p = 1;
        for (int k = 0; k < e; ++k)
            p *= 10;
        if (n == p)
            return "1e" + std::to_string(e);
    }
    return std::to_string(n);
}

bool isXSpace(const std::string& format)
{
    return format.rfind("xspace", 0) == 0;
}

struct CaseResult
{
    std::string format;
    uint64_t nominal = 0;
    std::map<std::string, double> med; // medians of the numeric fields
    bool ok = false;
};

struct Inputs
{
    std::string xspace, json; // plain files; the .gz sit beside them
};

/// Median of one numeric field over the runs.
double fieldMedian(const std::vector<Object>& runs, const std::string& key)
{
    std::vector<double> v;
    for (const Object& o : runs)
        if (auto it = o.find(key); it != o.end() && it->second.kind == Value::Kind::Number)
            v.push_back(it->second.number);
    return median(v);
}

CaseResult runCase(const Config& config, const std::string& format, uint64_t n, const std::string& file,
    const std::string& plainXSpace)
{
    CaseResult result;
    result.format = format;
    result.nominal = n;
    const std::vector<double> load = loadAverage();
    warmPageCache(file);
    if (isXSpace(format) && config.libprotobuf && plainXSpace != file)
        warmPageCache(plainXSpace);

    std::vector<Object> runs;
    std::vector<double> libprotobuf, libprotobufParse, libprotobufEvents, libprotobufPeak;
    std::string lastError;
    for (int r = 0; r < config.repeat; ++r) {
        ChildResult child = runApp({config.app, "--bench-load", file, "--bench-steps", std::to_string(config.steps),
                                       "--bench-timeout", std::to_string(config.timeout)},
            config.timeout + 30);
        std::optional<Object> line = child.status == 0 ? appLine(child.out) : std::nullopt;
        if (!line) {
            lastError = child.timedOut ? "timed out" : "exit status " + std::to_string(child.status);
            std::fprintf(stderr, "bench_suite: %s %s: the app failed (%s)\n%s", format.c_str(), sizeLabel(n).c_str(),
                lastError.c_str(), child.err.c_str());
            continue;
        }
        if (auto it = line->find("main_steady_ns"); it != line->end()) {
            Value startup;
            startup.kind = Value::Kind::Number;
            startup.number = (it->second.number - static_cast<double>(child.spawnNs)) / 1e9;
            (*line)["startup_s"] = startup;
        }
        runs.push_back(std::move(*line));
        if (isXSpace(format) && config.libprotobuf) {
            const std::string text = runInChild([&] {
                const ProtobufWalk w = libprotobufArenaWalk(plainXSpace);
                if (!w.ok)
                    return std::string("error ") + w.error;
                char buffer[256];
                std::snprintf(buffer, sizeof buffer, "ok %.6f %.6f %.0f %.3f", w.seconds, w.parseSeconds,
                    static_cast<double>(w.events), w.peakBytesPerEvent);
                return std::string(buffer);
            });
            double s = 0, parse = 0, events = 0, peak = 0;
            if (std::sscanf(text.c_str(), "ok %lf %lf %lf %lf", &s, &parse, &events, &peak) == 4) {
                libprotobuf.push_back(s);
                libprotobufParse.push_back(parse);
                libprotobufEvents.push_back(events);
                libprotobufPeak.push_back(peak);
            } else {
                std::fprintf(stderr, "bench_suite: libprotobuf reference failed: %s\n", text.c_str());
            }
        }
    }

    Line out;
    out.str("case", format + "-" + sizeLabel(n)).str("format", format).integer("nominal_events", double(n));
    if (runs.empty()) {
        out.str("error", "the app failed in every run: " + lastError);
        std::printf("%s\n", out.text().c_str());
        std::fflush(stdout);
        return result;
    }
    result.ok = true;
    for (const auto& [key, value] : runs.front())
        if (value.kind == Value::Kind::Number)
            result.med[key] = fieldMedian(runs, key);
    auto m = [&](const std::string& key) {
        auto it = result.med.find(key);
        return it == result.med.end() ? std::nan("") : it->second;
    };
    const double events = m("events");
    const double openToModel = m("open_to_model_s");
    const double decoded = m("decoded_bytes");
    const double mbPerS = decoded / openToModel / 1e6;
    const double eventsPerS = events / openToModel;
    const double lpb = median(libprotobuf);
    const double ratio = lpb > 0 ? openToModel / lpb : std::nan("");
    result.med["mb_per_s"] = mbPerS;
    result.med["events_per_s"] = eventsPerS;
    std::vector<double> openRuns, paintRuns;
    for (const Object& o : runs) {
        openRuns.push_back(o.at("open_to_model_s").number);
        paintRuns.push_back(o.at("first_paint_s").number);
    }

    out.integer("events", events)
        .integer("bytes", m("file_bytes"))
        .integer("decoded_bytes", decoded)
        .num("open_to_model_s", openToModel)
        .num("load_s", m("load_s"))
        .num("mb_per_s", mbPerS, 1)
        .integer("events_per_s", eventsPerS)
        .num("startup_s", m("startup_s"))
        .num("first_frame_s", m("first_frame_s"))
        .num("first_paint_s", m("first_paint_s"))
        .num("first_preview_s", m("first_preview_s"))
        .num("first_events_s", m("first_events_s"))
        .num("views_ready_s", m("views_ready_s"))
        .num("advice_ready_s", m("advice_ready_s"))
        .num("resident_b_per_event", m("resident_b_per_event"), 1)
        .num("peak_b_per_event", m("peak_b_per_event"), 1)
        .num("peak_minus_resident_mb", m("peak_minus_resident_mb"), 1)
        .num("resident_mb", m("resident_bytes") / 1048576.0, 1)
        .num("peak_mb", m("peak_bytes") / 1048576.0, 1)
        .num("frame_p50_ms", m("frame_p50_ms"), 2)
        .num("frame_p95_ms", m("frame_p95_ms"), 2)
        .num("frame_max_ms", m("frame_max_ms"), 2)
        .num("paint_p50_ms", m("paint_p50_ms"), 2)
        .num("paint_p95_ms", m("paint_p95_ms"), 2)
        .num("paint_max_ms", m("paint_max_ms"), 2)
        .num("input_p95_ms", m("input_p95_ms"), 2)
        .integer("frames", m("frames"))
        .num("op_table_s", m("op_table_s"))
        .num("breakdown_s", m("breakdown_s"))
        .num("advice_s", m("advice_s"))
        .num("op_model_s", m("op_model_s"));
    if (isXSpace(format) && config.libprotobuf) {
        const double lpbEvents = median(libprotobufEvents);
        out.num("libprotobuf_s", lpb)
            .num("libprotobuf_parse_s", median(libprotobufParse))
            .integer("libprotobuf_events_per_s", lpbEvents / lpb)
            .num("libprotobuf_peak_b_per_event", median(libprotobufPeak), 1)
            .num("ratio", ratio, 3)
            .num("load_ratio", m("load_s") / lpb, 3);
        result.med["ratio"] = ratio;
    }
    out.num("loadavg", load[0], 2)
        .list("loadavg_1_5_15", load, 2)
        .integer("repeats", double(runs.size()))
        .list("open_to_model_runs", openRuns)
        .list("first_paint_runs", paintRuns);
    const auto& first = runs.front();
    if (auto it = first.find("platform"); it != first.end())
        out.str("platform", it->second.text);
    out.integer("timeline_width", m("timeline_width")).integer("timeline_height", m("timeline_height"));

    // The goals of the performance issue; a key appears only where the goal applies.
    Line targets;
    const bool xspace = isXSpace(format);
    if (xspace) {
        targets.boolean("events_per_s_ge_10M", eventsPerS >= 10e6);
        if (std::isfinite(ratio))
            targets.boolean("ratio_le_0.5", ratio <= 0.5);
    } else if (format == "json") {
        targets.boolean("mb_per_s_ge_250", mbPerS >= 250);
    } else {
        targets.boolean("mb_per_s_ge_200", mbPerS >= 200);
    }
    targets.boolean("resident_le_32_b_per_event", m("resident_b_per_event") <= 32);
    targets.boolean("peak_le_resident_plus_256mb", m("peak_minus_resident_mb") <= 256);
    if (n == 1'000'000)
        targets.boolean(xspace ? "first_paint_le_0.5s" : "first_paint_le_1s", m("first_paint_s") <= (xspace ? 0.5 : 1));
    if (n == 10'000'000 && xspace)
        targets.boolean("first_paint_le_2s", m("first_paint_s") <= 2);
    targets.boolean("first_frame_le_1s", m("first_frame_s") <= 1);
    targets.boolean("first_events_le_1s", m("first_events_s") <= 1);
    targets.boolean("frame_p95_le_16ms", m("frame_p95_ms") <= 16);
    targets.boolean("op_table_le_200ms", m("op_table_s") <= 0.2);
    out.raw("targets", targets.text());
    std::printf("%s\n", out.text().c_str());
    std::fflush(stdout);
    return result;
}

/// Per format: the largest size's per-event cost over each smaller size's. About 1 (or below,
/// as fixed costs spread out) is linear; a quadratic step shows as a ratio near the size ratio.
void printScaling(const std::vector<CaseResult>& results, const std::vector<std::string>& formats)
{
    for (const std::string& format : formats) {
        std::vector<const CaseResult*> cases;
        for (const CaseResult& r : results)
            if (r.ok && r.format == format)
                cases.push_back(&r);
        if (cases.size() < 2)
            continue;
        std::sort(cases.begin(), cases.end(), [](auto* a, auto* b) { return a->nominal < b->nominal; });
        const CaseResult& big = *cases.back();
        auto perEvent = [](const CaseResult& r, const char* key) {
            const auto it = r.med.find(key);
            const auto ev = r.med.find("events");
            return it == r.med.end() || ev == r.med.end() || ev->second <= 0 ? std::nan("") : it->second / ev->second;
        };
        Line out;
        out.str("scaling", format).str("largest", sizeLabel(big.nominal));
        double worst = 0;
        for (size_t i = 0; i + 1 < cases.size(); ++i) {
            const CaseResult& small = *cases[i];
            const std::string tag = "_vs_" + sizeLabel(small.nominal);
            for (const char* key : {"open_to_model_s", "op_table_s", "first_paint_s"}) {
                const double ratio = perEvent(big, key) / perEvent(small, key);
                if (std::isfinite(ratio) && std::string(key) != "first_paint_s")
                    worst = std::max(worst, ratio);
                std::string name = key;
                name = name.substr(0, name.size() - 2) + "_per_event" + tag;
                out.num(name, ratio, 3);
            }
        }
        // Memory growth per added event between the two largest sizes: fixed costs cancel out.
        const CaseResult& below = *cases[cases.size() - 2];
        const auto mem = [](const CaseResult& r, const char* key) {
            const auto it = r.med.find(key);
            return it == r.med.end() ? std::nan("") : it->second;
        };
        const double addedEvents = mem(big, "events") - mem(below, "events");
        out.num("resident_marginal_b_per_event",
            (mem(big, "resident_bytes") - mem(below, "resident_bytes")) / addedEvents, 1);
        out.num("peak_marginal_b_per_event", (mem(big, "peak_bytes") - mem(below, "peak_bytes")) / addedEvents, 1);
        out.num("worst_per_event_ratio", worst, 3);
        out.boolean("superlinear_suspect", worst > 1.5);
        std::printf("%s\n", out.text().c_str());
        std::fflush(stdout);
    }
}

// ---- command line ----

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> out;
    std::string item;
    std::istringstream in(text);
    while (std::getline(in, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

int usage(const char* message)
{
    if (message)
        std::fprintf(stderr, "bench_suite: %s\n", message);
    std::fprintf(stderr,
        "usage: bench_suite [--sizes 1e5,1e6,1e7] [--formats xspace,xspace.gz,json,json.gz] [--repeat 3]\n"
        "                   [--steps 40] [--app PATH] [--keep] [--dir DIR] [--json-style appendixA|tsl]\n"
        "                   [--gz-level 6] [--timeout SECONDS] [--no-libprotobuf]\n");
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    Config config;
#ifdef TPUSCOPE_GUI_PATH
    config.app = TPUSCOPE_GUI_PATH;
#endif
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--sizes" && hasValue) {
            config.sizes.clear();
            for (const std::string& s : splitList(argv[++i])) {
                const uint64_t n = parseCount(s);
                if (n < 8)
                    return usage(("bad size \"" + s + "\" (at least 8 events)").c_str());
                config.sizes.push_back(n);
            }
            std::sort(config.sizes.begin(), config.sizes.end());
        } else if (arg == "--formats" && hasValue) {
            config.formats = splitList(argv[++i]);
            for (const std::string& f : config.formats)
                if (f != "xspace" && f != "xspace.gz" && f != "json" && f != "json.gz")
                    return usage(("unknown format \"" + f + "\"").c_str());
        } else if (arg == "--repeat" && hasValue) {
            config.repeat = std::atoi(argv[++i]);
            if (config.repeat < 1)
                return usage("--repeat needs a positive number");
        } else if (arg == "--steps" && hasValue) {
            config.steps = std::atoi(argv[++i]);
            if (config.steps < 1)
                return usage("--steps needs a positive number");
        } else if (arg == "--app" && hasValue) {
            config.app = argv[++i];
        } else if (arg == "--keep") {
            config.keep = true;
        } else if (arg == "--dir" && hasValue) {
            config.dir = argv[++i];
        } else if (arg == "--json-style" && hasValue) {
            const std::string style = argv[++i];
            if (style != "appendixA" && style != "tsl")
                return usage("--json-style is appendixA or tsl");
            config.style = style == "tsl" ? JsonStyle::Tsl : JsonStyle::AppendixA;
        } else if (arg == "--gz-level" && hasValue) {
            config.gzLevel = std::atoi(argv[++i]);
        } else if (arg == "--timeout" && hasValue) {
            config.timeout = std::atof(argv[++i]);
            if (!(config.timeout > 0))
                return usage("--timeout needs a positive number of seconds");
        } else if (arg == "--no-libprotobuf") {
            config.libprotobuf = false;
        } else if (arg == "-h" || arg == "--help") {
            usage(nullptr);
            return 0;
        } else {
            return usage(("unknown argument \"" + arg + "\"").c_str());
        }
    }
    if (config.app.empty())
        return usage("this build has no GUI; give the tpuscope binary with --app PATH");
    if (::access(config.app.c_str(), X_OK) != 0)
        return usage(("cannot run the app \"" + config.app + "\" (build the tpuscope target or pass --app)").c_str());

    fs::path dir;
    const bool ownDir = config.dir.empty();
    if (ownDir) {
        std::string pattern = (fs::temp_directory_path() / "tpuscope-bench-suite-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) {
            std::fprintf(stderr, "bench_suite: mkdtemp: %s\n", std::strerror(errno));
            return 1;
        }
        dir = pattern;
    } else {
        dir = config.dir;
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec) {
            std::fprintf(stderr, "bench_suite: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
            return 1;
        }
    }
    const bool removeInputs = ownDir && !config.keep;
    const std::vector<double> load = loadAverage();
    std::fprintf(stderr, "bench_suite: %ld cores, loadavg %.2f %.2f %.2f, inputs in %s, app %s\n",
        ::sysconf(_SC_NPROCESSORS_ONLN), load[0], load[1], load[2], dir.c_str(), config.app.c_str());

    auto wants = [&](const char* f) {
        return std::find(config.formats.begin(), config.formats.end(), f) != config.formats.end();
    };
    std::vector<CaseResult> results;
    int failures = 0;
    for (const uint64_t n : config.sizes) {
        const std::string label = sizeLabel(n);
        const bool xs = wants("xspace") || wants("xspace.gz");
        const bool js = wants("json") || wants("json.gz");
        const std::string xsPath = (dir / ("bench_" + label + ".xplane.pb")).string();
        const std::string jsPath = (dir / ("bench_" + label + ".json")).string();
        std::vector<std::string> made;
        auto generate = [&](bool needGz, const std::string& path, auto&& fn) {
            const std::string gz = needGz ? path + ".gz" : std::string();
            if (fs::exists(path) && (gz.empty() || fs::exists(gz)))
                return true; // a complete input from an earlier --dir run (files appear only when whole)
            const int64_t t0 = steadyNs();
            std::string error;
            if (!fn(gz, error)) {
                std::fprintf(stderr, "bench_suite: generating %s failed: %s\n", path.c_str(), error.c_str());
                return false;
            }
            made.push_back(path);
            if (!gz.empty())
                made.push_back(gz);
            std::fprintf(stderr, "bench_suite: generated %s%s (%.1f MB) in %.1f s\n", path.c_str(),
                gz.empty() ? "" : " and .gz", fs::file_size(path) / 1e6, secondsSince(t0));
            return true;
        };
        if (xs && !generate(wants("xspace.gz"), xsPath, [&](const std::string& gz, std::string& error) {
                return generateXSpace(n, xsPath, gz, config.gzLevel, &error);
            }))
            return 1;
        if (js && !generate(wants("json.gz"), jsPath, [&](const std::string& gz, std::string& error) {
                return generateChromeJson(n, config.style, jsPath, gz, config.gzLevel, &error);
            }))
            return 1;
        for (const std::string& format : config.formats) {
            const std::string file = isXSpace(format) ? (format == "xspace" ? xsPath : xsPath + ".gz")
                                                      : (format == "json" ? jsPath : jsPath + ".gz");
            results.push_back(runCase(config, format, n, file, xsPath));
            failures += results.back().ok ? 0 : 1;
        }
        if (removeInputs)
            for (const std::string& p : made)
                fs::remove(p);
    }
    printScaling(results, config.formats);
    if (removeInputs) {
        std::error_code ec;
        fs::remove_all(dir, ec);
    } else {
        std::fprintf(stderr, "bench_suite: inputs kept in %s\n", dir.c_str());
    }
    return failures == 0 ? 0 : 1;
}
