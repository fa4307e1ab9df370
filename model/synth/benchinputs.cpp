// SPDX-License-Identifier: GPL-3.0-or-later
#include "benchinputs.h"

#include "core/atomicfile.h"
#include "core/profile.h"
#include "hlo.pb.h"

#include "xplane.pb.h"

#define ZLIB_CONST // next_in is const: no cast away of the caller's bytes
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <string_view>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace tpuscope::model {

namespace {

constexpr size_t kChunk = 4u << 20;

void setError(std::string* error, std::string text)
{
    if (error)
        *error = std::move(text);
}

/// Buffered output to a plain file and, optionally, a gzip file. Compression runs on its own
/// thread (a bounded queue of 4 MB chunks), so writing a 1.8 GB trace plus its .gz costs about
/// the time of the compression alone rather than the sum. Both files go through AtomicFile (the
/// one output path of the project): they appear under their final names only when complete, and
/// a failed or abandoned write leaves nothing behind.
class Sink
{
public:
    ~Sink()
    {
        stopCompressor();
        if (m_deflating)
            deflateEnd(&m_zs);
    }

    bool open(const std::string& plainPath, const std::string& gzPath, int gzLevel, std::string* error)
    {
        std::string message;
        if (!m_plain.open(plainPath, {}, message)) {
            setError(error, message);
            return false;
        }
        if (!gzPath.empty()) {
            if (!m_gz.open(gzPath, {}, message)) {
                setError(error, message);
                return false;
            }
            // windowBits 15 + 16: a gzip wrapper, as gzopen would write.
            if (deflateInit2(&m_zs, std::clamp(gzLevel, 1, 9), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
                setError(error, "cannot start gzip for " + gzPath);
                return false;
            }
            m_deflating = true;
            m_compressor = std::thread([this] { compressLoop(); });
        }
        m_buffer.reserve(kChunk + 4096);
        return true;
    }

    void append(std::string_view s)
    {
        m_buffer.append(s);
        if (m_buffer.size() >= kChunk)
            flush();
    }
    void append(char c) { m_buffer.push_back(c); }
    void appendInt(int64_t v)
    {
        char text[24];
        const auto end = std::to_chars(text, text + sizeof text, v).ptr;
        m_buffer.append(text, end);
    }
    /// Nanoseconds as exact microsecond text ("%d.%03d").
    void appendUs(int64_t ns)
    {
        appendInt(ns / 1000);
        const int frac = static_cast<int>(ns % 1000);
        const char digits[4] = {'.', char('0' + frac / 100), char('0' + frac / 10 % 10), char('0' + frac % 10)};
        m_buffer.append(digits, 4);
    }

    bool close(std::string* error)
    {
        flush();
        stopCompressor();
        if (m_deflating && m_gzError.empty())
            deflateChunk({}, Z_FINISH);
        std::string message = m_plainError.empty() ? m_gzError : m_plainError;
        if (message.empty())
            m_plain.commit(message);
        if (message.empty() && m_deflating)
            m_gz.commit(message);
        if (!message.empty()) {
            setError(error, message);
            return false;
        }
        return true;
    }

private:
    void flush()
    {
        if (m_buffer.empty())
            return;
        if (m_plainError.empty())
            m_plain.write(m_buffer, m_plainError);
        if (m_deflating) {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [this] { return m_queue.size() < 8; });
            m_queue.push_back(std::move(m_buffer));
            m_changed.notify_all();
            m_buffer = std::string();
            m_buffer.reserve(kChunk + 4096);
        } else {
            m_buffer.clear();
        }
    }

    /// Deflates `chunk` (Z_NO_FLUSH) or the end of the stream (Z_FINISH) into the gzip file.
    void deflateChunk(std::string_view chunk, int flush)
    {
        m_zs.next_in = reinterpret_cast<const Bytef*>(chunk.data());
        m_zs.avail_in = static_cast<uInt>(chunk.size());
        int rc = Z_OK;
        do {
            m_zs.next_out = reinterpret_cast<Bytef*>(m_out.data());
            m_zs.avail_out = static_cast<uInt>(m_out.size());
            rc = deflate(&m_zs, flush);
            const size_t produced = m_out.size() - m_zs.avail_out;
            if (produced && !m_gz.write(std::string_view(m_out.data(), produced), m_gzError))
                return;
        } while (m_zs.avail_out == 0 || (flush == Z_FINISH && rc == Z_OK));
    }

    void compressLoop()
    {
        m_out.resize(1u << 20);
        for (;;) {
            std::string chunk;
            {
                std::unique_lock lock(m_mutex);
                m_changed.wait(lock, [this] { return !m_queue.empty() || m_done; });
                if (m_queue.empty())
                    return;
                chunk = std::move(m_queue.front());
                m_queue.pop_front();
                m_changed.notify_all();
            }
            if (m_gzError.empty())
                deflateChunk(chunk, Z_NO_FLUSH);
        }
    }

    void stopCompressor()
    {
        if (!m_compressor.joinable())
            return;
        {
            std::lock_guard lock(m_mutex);
            m_done = true;
        }
        m_changed.notify_all();
        m_compressor.join();
    }

    AtomicFile m_plain, m_gz;
    std::string m_plainError, m_gzError;
    z_stream m_zs {};
    bool m_deflating = false;
    std::vector<char> m_out;
    std::string m_buffer;
    std::thread m_compressor;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<std::string> m_queue;
    bool m_done = false;
};

/// Minimal protobuf writer: the generator must make 1e7-event files without building 1e7 message
/// objects itself. Writers are reused (clear() keeps the capacity), so an event costs no allocation.
struct Writer
{
    std::string out;
    void clear() { out.clear(); }
    void varint(uint64_t v)
    {
        char bytes[10];
        int n = 0;
        while (v >= 0x80) {
            bytes[n++] = static_cast<char>(v | 0x80);
            v >>= 7;
        }
        bytes[n++] = static_cast<char>(v);
        out.append(bytes, static_cast<size_t>(n));
    }
    void tag(uint32_t field, uint32_t type) { varint((uint64_t(field) << 3) | type); }
    void field(uint32_t f, uint64_t v)
    {
        tag(f, 0);
        varint(v);
    }
    void bytes(uint32_t f, std::string_view b)
    {
        tag(f, 2);
        varint(b.size());
        out.append(b);
    }
};

size_t varintSize(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

void statBytes(Writer& w, int64_t metadataId, int64_t value)
{
    w.clear();
    w.field(1, static_cast<uint64_t>(metadataId));
    w.field(4, static_cast<uint64_t>(value));
}

const char* const kKinds[] = {"fusion", "convolution", "all-reduce", "copy", "dot", "reduce", "transpose", "broadcast",
    "select", "dynamic-update-slice"};

} // namespace

bool generateXSpace(
    uint64_t n, const std::string& plainPath, const std::string& gzPath, int gzLevel, std::string* error, int cores)
{
    cores = std::max(1, cores);
    Sink sink;
    if (!sink.open(plainPath, gzPath, gzLevel, error))
        return false;
    std::mt19937_64 rnd(42);
    const uint64_t perCore = n / static_cast<uint64_t>(cores);
    Writer head, steps, ops, tail, event, stat, md, entry, frame;
    for (int core = 0; core < cores; ++core) {
        head.clear();
        head.field(1, static_cast<uint64_t>(core + 1));
        head.bytes(2, "/device:TPU:" + std::to_string(core));
        const uint64_t count = core < cores - 1 ? perCore : n - static_cast<uint64_t>(cores - 1) * perCore;
        steps.clear();
        ops.clear();
        ops.out.reserve(count * 26 + 64);
        steps.field(1, 1);
        steps.bytes(2, "Steps");
        steps.field(3, 1'000'000'000);
        ops.field(1, 2);
        ops.bytes(2, "XLA Ops");
        ops.field(3, 1'000'000'000);
        int64_t offset = 0, step = 0;
        for (uint64_t j = 0; j < count; ++j) {
            if (j % 1000 == 0) {
                event.clear();
                event.field(1, 3001);
                event.field(2, static_cast<uint64_t>(offset));
                event.field(3, 21'000'000'000);
                statBytes(stat, 3, step++);
                event.bytes(4, stat.out);
                steps.bytes(4, event.out);
            }
            const int64_t duration = static_cast<int64_t>(200 + rnd() % 39800) * 1000;
            event.clear();
            event.field(1, 1 + rnd() % 3000);
            event.field(2, static_cast<uint64_t>(offset));
            event.field(3, static_cast<uint64_t>(duration));
            statBytes(stat, 1, step);
            event.bytes(4, stat.out);
            ops.bytes(4, event.out);
            offset += duration + static_cast<int64_t>(10 + rnd() % 1990) * 1000;
        }
        tail.clear();
        for (int i = 0; i < 3000; ++i) {
            md.clear();
            md.field(1, static_cast<uint64_t>(i + 1));
            const std::string name = std::string(kKinds[i % 10]) + "." + std::to_string(i);
            md.bytes(2, "%" + name + " = f32[128,1024]{1,0:T(8,128)} " + kKinds[i % 10] + "(...)");
            md.bytes(4, name);
            statBytes(stat, 2, static_cast<int64_t>(rnd() % (1u << 30)));
            md.bytes(5, stat.out);
            entry.clear();
            entry.field(1, static_cast<uint64_t>(i + 1));
            entry.bytes(2, md.out);
            tail.bytes(4, entry.out);
        }
        md.clear();
        md.field(1, 3001);
        md.bytes(2, "train_step");
        entry.clear();
        entry.field(1, 3001);
        entry.bytes(2, md.out);
        tail.bytes(4, entry.out);
        const char* statNames[] = {"group_id", "flops", "step_num"};
        for (int s = 0; s < 3; ++s) {
            md.clear();
            md.field(1, static_cast<uint64_t>(s + 1));
            md.bytes(2, statNames[s]);
            entry.clear();
            entry.field(1, static_cast<uint64_t>(s + 1));
            entry.bytes(2, md.out);
            tail.bytes(5, entry.out);
        }
        // XSpace.planes[i] (field 1), written piecewise so the large ops line is never copied.
        const auto lineSize = [](const Writer& w) { return 1 + varintSize(w.out.size()) + w.out.size(); };
        const uint64_t planeSize = head.out.size() + lineSize(steps) + lineSize(ops) + tail.out.size();
        frame.clear();
        frame.tag(1, 2);
        frame.varint(planeSize);
        frame.out += head.out;
        frame.tag(3, 2);
        frame.varint(steps.out.size());
        frame.out += steps.out;
        frame.tag(3, 2);
        frame.varint(ops.out.size());
        sink.append(frame.out);
        sink.append(ops.out);
        sink.append(tail.out);
    }
    return sink.close(error);
}

bool generateChromeJson(uint64_t n, JsonStyle style, const std::string& plainPath, const std::string& gzPath,
    int gzLevel, std::string* error)
{
    constexpr int kCores = 8, kOpsPerStep = 1000;
    const bool tsl = style == JsonStyle::Tsl;
    std::mt19937_64 rnd(42);
    auto uniform = [&](int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rnd() % uint64_t(hi - lo + 1)); };
    const char* categories[] = {"loop fusion", "convolution fusion", "all-reduce", "data formatting", "convolution",
        "reduce", "data formatting", "broadcast", "non-fusion elementwise", "dynamic-update-slice"};
    std::vector<std::string> vocab, args;
    for (int i = 0; i < 3000; ++i) {
        const std::string kind = kKinds[i % 10];
        const std::string name = kind + "." + std::to_string(i);
        vocab.push_back(",\"name\":\"" + name + "\",\"args\":");
        const uint64_t flops = rnd() % (1u << 30);
        if (!tsl) {
            args.push_back("{\"long_name\":\"" + name + " = f32[128,1024]{1,0} " + kind + "(p0, p1)\",\"flops\":\""
                + std::to_string(flops) + "\"}");
        } else {
            args.push_back("{\"bytes_accessed\":\"" + std::to_string(flops / 7) + "\",\"hlo_category\":\""
                + categories[i % 10] + "\",\"long_name\":\"%" + name + " = bf16[8,128,1024]{2,1,0:T(8,128)(2,1)} "
                + kind + "(bf16[8,128,1024]{2,1,0:T(8,128)(2,1)} %param.1, bf16[1024]{0:T(1024)} %param.2)"
                + "\",\"model_flops\":\"" + std::to_string(flops)
                + "\",\"shape_with_layout\":\"bf16[8,128,1024]{2,1,0:T(8,128)(2,1)}\",\"source\":"
                + "\"/src/model/layers.py:" + std::to_string(100 + i % 400) + "\",\"tf_op\":\"jit(step)/" + kind
                + ":\"");
        }
    }
    Sink w;
    if (!w.open(plainPath, gzPath, gzLevel, error))
        return false;
    w.append("{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},\"traceEvents\":[\n");
    for (int c = 0; c < kCores; ++c) {
        w.append("{\"ph\":\"M\",\"pid\":" + std::to_string(c + 1)
            + ",\"name\":\"process_name\",\"args\":{\"name\":\"/device:TPU:" + std::to_string(c) + "\"}},\n");
        w.append("{\"ph\":\"M\",\"pid\":" + std::to_string(c + 1)
            + ",\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"XLA Ops\"}},\n");
    }
    const uint64_t perCore = n / kCores;
    uint64_t emitted = 0;
    bool first = true;
    std::vector<int64_t> durs, gaps;
    for (int c = 0; c < kCores; ++c) {
        const int pid = c + 1;
        int64_t t = 1'000'000'000;
        uint64_t i = 0;
        const uint64_t count = c < kCores - 1 ? perCore : n - emitted;
        while (i < count) {
            const uint64_t k = std::min<uint64_t>(kOpsPerStep - 1, count - i - 1);
            durs.resize(k);
            gaps.resize(k);
            int64_t stepDur = 1000;
            for (uint64_t j = 0; j < k; ++j) {
                durs[j] = uniform(200, 40000);
                gaps[j] = uniform(10, 2000);
                stepDur += durs[j] + gaps[j];
            }
            const int64_t step = static_cast<int64_t>(i / kOpsPerStep);
            if (!first)
                w.append(",\n");
            w.append("{\"ph\":\"X\",\"pid\":");
            w.appendInt(pid);
            w.append(",\"tid\":1,\"ts\":");
            w.appendUs(t);
            w.append(",\"dur\":");
            w.appendUs(stepDur);
            w.append(",\"name\":\"step ");
            w.appendInt(step);
            w.append("\",\"args\":{\"step_num\":\"");
            w.appendInt(step);
            w.append("\"}}");
            first = false;
            ++i;
            int64_t tt = t + 500;
            for (uint64_t j = 0; j < k; ++j) {
                const size_t v = rnd() % vocab.size();
                w.append(",\n{\"ph\":\"X\",\"pid\":");
                w.appendInt(pid);
                w.append(",\"tid\":1,\"ts\":");
                w.appendUs(tt);
                w.append(",\"dur\":");
                w.appendUs(durs[j]);
                w.append(vocab[v]);
                w.append(args[v]);
                if (tsl) { // per-occurrence stats close the args object
                    w.append(",\"device_duration_ps\":\"");
                    w.appendInt(durs[j] * 1000);
                    w.append("\",\"device_offset_ps\":\"");
                    w.appendInt((tt - 1'000'000'000) * 1000);
                    w.append("\"}");
                }
                w.append('}');
                tt += durs[j] + gaps[j];
                ++i;
            }
            t += stepDur + 5000;
        }
        emitted += count;
    }
    w.append("\n]}\n");
    return w.close(error);
}

// ---- in-memory inputs of bench_timeline and bench_memory ----------------------------------------

namespace {

void varint(std::string& out, uint64_t v)
{
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
}
void fieldVarint(std::string& out, uint32_t field, uint64_t v)
{
    varint(out, static_cast<uint64_t>(field) << 3);
    varint(out, v);
}
void fieldBytes(std::string& out, uint32_t field, const std::string& payload)
{
    varint(out, (static_cast<uint64_t>(field) << 3) | 2);
    varint(out, payload.size());
    out += payload;
}

} // namespace

std::string benchHloProto(int64_t n)
{
    xla::HloProto proto;
    auto* module = proto.mutable_hlo_module();
    module->set_name("jit_bench_memory");
    auto* computation = module->add_computations();
    computation->set_name("main");
    for (int64_t i = 0; i < n; ++i) {
        auto* in = computation->add_instructions();
        in->set_id(i + 1);
        in->set_name("fusion." + std::to_string(i));
        in->set_opcode("fusion");
        auto* shape = in->mutable_shape();
        shape->set_element_type(xla::PrimitiveType::BF16);
        shape->add_dimensions(16);
        shape->add_dimensions(64 + i % 512);
        shape->mutable_layout()->add_minor_to_major(0);
        shape->mutable_layout()->add_minor_to_major(1);
        shape->mutable_layout()->add_tiles()->add_dimensions(8);
        shape->mutable_layout()->mutable_tiles(0)->add_dimensions(128);
        in->mutable_metadata()->set_op_name("jit(step)/layer" + std::to_string(i % 97) + "/dot_general");
    }
    std::string assignment, temporary, events;
    for (int64_t i = 0; i < n; ++i) {
        std::string at, buffer;
        fieldVarint(at, 4, static_cast<uint64_t>(i + 1));
        fieldVarint(buffer, 1, static_cast<uint64_t>(i));
        fieldVarint(buffer, 2, static_cast<uint64_t>(4096 * (1 + i % 64)));
        fieldBytes(buffer, 3, at);
        fieldBytes(assignment, 1, buffer);
    }
    std::string parameter, assigned;
    fieldVarint(parameter, 1, 0);
    fieldVarint(parameter, 2, 4096);
    fieldVarint(parameter, 5, 1);
    fieldVarint(assigned, 1, 0);
    fieldBytes(parameter, 9, assigned);
    fieldBytes(assignment, 3, parameter);
    fieldVarint(temporary, 1, 1);
    fieldVarint(temporary, 2, static_cast<uint64_t>(n) * 4096 * 64);
    for (int64_t i = 1; i < n; ++i) {
        std::string a;
        fieldVarint(a, 1, static_cast<uint64_t>(i));
        fieldVarint(a, 2, static_cast<uint64_t>(4096 * i));
        fieldBytes(temporary, 9, a);
    }
    fieldBytes(assignment, 3, temporary);
    auto event = [&](uint64_t kind, int64_t buffer, int64_t canonical) {
        std::string e;
        fieldVarint(e, 1, kind);
        fieldVarint(e, 2, static_cast<uint64_t>(buffer));
        fieldBytes(e, 4, "fusion." + std::to_string(buffer));
        if (kind == 2)
            fieldVarint(e, 5, static_cast<uint64_t>(canonical));
        fieldBytes(events, 1, e);
    };
    // A sliding window of 64 live buffers: ALLOC (or SHARE_WITH the previous one), FREE 64 later.
    for (int64_t i = 1; i < n; ++i) {
        if (i % 4 == 0)
            event(2, i, i - 1);
        else
            event(0, i, 0);
        if (i > 64)
            event(1, i - 64, 0);
    }
    for (int64_t i = std::max<int64_t>(1, n - 64); i < n; ++i)
        event(1, i, 0);
    fieldVarint(events, 2, 1);
    fieldBytes(assignment, 4, events);
    std::string out = proto.SerializeAsString();
    fieldBytes(out, 3, assignment);
    return out;
}

ProfilePtr benchTimelineProfile(size_t events, int cores)
{
    ProfileBuilder b;
    static const char* categories[] = {"convolution fusion", "loop fusion", "output fusion", "data formatting",
        "custom fusion", "all-reduce", "non-fusion elementwise", "input fusion"};
    std::mt19937_64 rng(42);
    std::vector<OpId> ops;
    for (int i = 0; i < 400; ++i) {
        OpInfo info;
        const char* category = categories[i % 8];
        info.name = b.intern((std::string(i % 8 == 0 ? "convolution."
                                      : i % 8 == 3   ? "copy."
                                                     : "fusion.")
            + std::to_string(i)));
        info.category = b.intern(category);
        info.isXlaOp = true;
        info.programId = 1;
        info.hasProgramId = true;
        // Per-occurrence FLOPs for a ~1 µs op at 0–100 % of 918 TFLOP/s.
        info.flops = std::uniform_real_distribution<double>(0, 1)(rng) * 918e12 * 1e-6;
        info.bytesAccessed = std::uniform_real_distribution<double>(1e3, 1e6)(rng);
        ops.push_back(b.addOp(info));
    }
    OpInfo stepInfo;
    stepInfo.name = b.intern("train_step");
    const OpId stepOp = b.addOp(stepInfo);
    OpInfo moduleInfo;
    moduleInfo.name = b.intern("jit_train_step(1)");
    const OpId moduleOp = b.addOp(moduleInfo);

    const size_t perCore = events / size_t(cores);
    std::uniform_int_distribution<int> pick(0, int(ops.size()) - 1);
    std::exponential_distribution<double> length(1.0 / 800'000.0); // mean 0.8 µs
    std::uniform_int_distribution<int> gap(0, 200'000);
    for (int c = 0; c < cores; ++c) {
        const auto plane = b.addPlane("/device:TPU:" + std::to_string(c));
        b.profile().planes[plane].peakTflops = 918;
        b.profile().planes[plane].peakHbmGbps = 1640;
        b.profile().planes[plane].deviceType = "TPU v6 Lite";
        const auto steps = b.addTrack(plane, "Steps", TrackKind::Steps);
        const auto modules = b.addTrack(plane, "XLA Modules", TrackKind::XlaModules);
        const auto xla = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
        auto& track = b.profile().tracks[xla];
        track.start.reserve(perCore);
        track.duration.reserve(perCore);
        track.op.reserve(perCore);
        TimePs t = 0;
        const size_t perStep = std::max<size_t>(1, perCore / 20);
        TimePs stepStart = 0;
        for (size_t i = 0; i < perCore; ++i) {
            const TimePs d = 10'000 + TimePs(length(rng));
            b.addEvent(xla, t, d, ops[size_t(pick(rng))]);
            t += d + gap(rng);
            if ((i + 1) % perStep == 0 || i + 1 == perCore) {
                b.addEvent(steps, stepStart, t - stepStart, stepOp);
                b.addEvent(modules, stepStart, t - stepStart, moduleOp);
                t += 2'000'000;
                stepStart = t;
            }
        }
    }
    return b.finish();
}

} // namespace tpuscope::model
