// SPDX-License-Identifier: GPL-3.0-or-later
// The input layer under the loaders: mapped files whose pages are handed back while decoding,
// gzip inflated on a second thread while the JSON parser reads behind it, and the load limits.
#include "testutil.h"

#include "analysis/opbreakdown.h"
#include "loader/inputsource.h"
#include "loader/loader.h"
#include "synth/synth.h"

#include <cstdlib>
#include <cstring>
#include <random>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

/// A Chrome trace of `events` X events over 4 cores with 500 op names and random args, larger
/// than the loaders' 16 MiB release step when `events` is above ~100k.
std::string chromeTrace(size_t events, unsigned seed = 7)
{
    std::mt19937 rng(seed);
    std::string out = R"({"displayTimeUnit":"ns","traceEvents":[)";
    for (int c = 0; c < 4; ++c)
        out += R"({"ph":"M","pid":)" + std::to_string(c + 1) + R"(,"name":"process_name","args":{"name":"/device:TPU:)"
            + std::to_string(c) + R"("}},{"ph":"M","pid":)" + std::to_string(c + 1)
            + R"(,"tid":1,"name":"thread_name","args":{"name":"XLA Ops"}},)";
    uint64_t t[4] = {1000000, 1000000, 1000000, 1000000};
    for (size_t i = 0; i < events; ++i) {
        const int c = static_cast<int>(i % 4);
        const unsigned op = rng() % 500;
        const uint64_t dur = 200 + rng() % 40000;
        out += R"({"ph":"X","pid":)" + std::to_string(c + 1) + R"(,"tid":1,"ts":)" + std::to_string(t[c] / 1000) + "."
            + std::to_string(100 + t[c] % 900) + R"(,"dur":)" + std::to_string(dur / 1000) + "."
            + std::to_string(100 + dur % 900) + R"(,"name":"fusion.)" + std::to_string(op)
            + R"(","args":{"long_name":"fusion.)" + std::to_string(op)
            + R"j( = f32[128,1024]{1,0} fusion(p0, p1)","flops":")j" + std::to_string(op * 1000003ull) + R"("}})";
        out += i + 1 < events ? "," : "";
        t[c] += dur + 1000 + rng() % 2000;
    }
    out += "]}\n";
    return out;
}

std::string opTable(const Profile& profile)
{
    std::string text;
    for (const OpRow& row : computeOpBreakdown(profile).rows)
        text += row.name + " " + std::to_string(row.occurrences) + " "
            + std::to_string(static_cast<int64_t>(row.totalTimePs)) + "\n";
    return text;
}

} // namespace

TEST(MappedFile, MapsReadOnlyAndReportsMissingFiles)
{
    const std::string dir = tempDir("mapped");
    writeFile(dir + "/a.bin", "hello");
    MappedFile file;
    std::string error;
    ASSERT_TRUE(file.open(dir + "/a.bin", error)) << error;
    EXPECT_EQ(file.bytes(), "hello");
    EXPECT_TRUE(file.mapped());
    MappedFile missing;
    EXPECT_FALSE(missing.open(dir + "/nope.bin", error));
    EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
    MappedFile directory;
    EXPECT_FALSE(directory.open(dir, error));
    MappedFile device;
    EXPECT_FALSE(device.open("/dev/zero", error)); // never read an endless device
    EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
}

// Released pages of a mapped file come back from the file when touched again, so the loaders'
// release-behind can never change what is decoded.
TEST(MappedFile, ReleasedPagesReadBackFromTheFile)
{
    const std::string dir = tempDir("mapped_release");
    std::string content(1 << 20, '\0');
    for (size_t i = 0; i < content.size(); ++i)
        content[i] = static_cast<char>(i * 131 % 251);
    writeFile(dir + "/b.bin", content);
    MappedFile file;
    std::string error;
    ASSERT_TRUE(file.open(dir + "/b.bin", error)) << error;
    const std::string_view bytes = file.bytes();
    file.release(bytes.data(), bytes.data() + bytes.size());
    EXPECT_EQ(bytes, content);
}

TEST(InflateStream, DeliversEverythingInStepsAndStopsAtTheLimit)
{
    std::string plain(5 << 20, '\0');
    for (size_t i = 0; i < plain.size(); ++i)
        plain[i] = static_cast<char>("abcdefgh"[(i * 7 + i / 1000) % 8]);
    const std::string compressed = gzipBytes(plain);
    {
        InflateStream stream(compressed, 64 << 20);
        std::string error;
        ASSERT_TRUE(stream.start(error)) << error;
        stream.setReadAhead(1 << 20); // the inflate thread waits for the reader
        const char* end = stream.waitFor(0).data();
        const char* begin = end;
        while (true) {
            const char* next = stream.extend(end);
            if (next == end)
                break;
            end = next;
        }
        EXPECT_EQ(std::string_view(begin, static_cast<size_t>(end - begin)), plain);
        EXPECT_EQ(stream.error(), "");
    }
    {
        InflateStream stream(compressed, 1 << 20);
        std::string error;
        ASSERT_TRUE(stream.start(error)) << error;
        EXPECT_EQ(stream.waitAll().size(), size_t(1 << 20));
        EXPECT_NE(stream.error().find("exceeds the limit of 1 MiB"), std::string::npos) << stream.error();
    }
    {
        // Destroying a stream whose thread is blocked on read-ahead must not hang.
        InflateStream stream(compressed, 64 << 20);
        std::string error;
        ASSERT_TRUE(stream.start(error)) << error;
        stream.setReadAhead(1 << 20);
        stream.waitFor(1);
    }
}

// A stream that may run ahead has a second thread fault its pages in ahead of the inflater
// (MADV_POPULATE_WRITE). That must never change a byte: 12 MiB that barely compress (so the input
// is large enough to get the thread), each 4 KiB page stamped with its number, read back whole
// after a start held to a read-ahead (as format detection does) and then released.
TEST(InflateStream, PagesFaultedInAheadKeepEveryByte)
{
    std::string plain(12 << 20, '\0');
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < plain.size(); i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        std::memcpy(plain.data() + i, &x, 8);
    }
    for (size_t page = 0; page < plain.size() / 4096; ++page)
        std::memcpy(plain.data() + page * 4096, &page, sizeof page);
    const std::string compressed = gzipBytes(plain, 1);
    ASSERT_GT(compressed.size(), size_t(4) << 20);
    InflateStream stream(compressed, 64 << 20);
    stream.setReadAhead(2 << 20);
    std::string error;
    ASSERT_TRUE(stream.start(error)) << error;
    stream.waitFor(64 << 10);
    stream.setReadAhead(0);
    EXPECT_EQ(stream.waitAll(), plain);
    EXPECT_EQ(stream.error(), "");
}

// The streamed (.gz, parsed while inflating) and the mapped (plain file, pages handed back)
// paths give exactly the profile the in-memory path gives.
TEST(InputPaths, StreamedAndMappedLoadsMatchInMemoryLoads)
{
    const std::string dir = tempDir("paths");
    const std::string json = chromeTrace(150000);
    ASSERT_GT(json.size(), size_t(20) << 20); // above the 16 MiB release step
    writeFile(dir + "/t.json", json);
    writeFile(dir + "/t.json.gz", gzipBytes(json));
    const LoadResult memory = loadProfileFromBytes(json, "t.json");
    ASSERT_TRUE(memory.ok()) << memory.error;
    EXPECT_EQ(memory.profile->eventCount(), 150000u);
    for (const char* name : {"/t.json", "/t.json.gz"}) {
        const LoadResult file = loadProfile(dir + name);
        ASSERT_TRUE(file.ok()) << file.error;
        EXPECT_EQ(file.profile->eventCount(), 150000u) << name;
        EXPECT_EQ(opTable(*file.profile), opTable(*memory.profile)) << name;
        EXPECT_TRUE(file.profile->load.warnings.empty()) << name << ": " << file.profile->load.warnings.front();
        EXPECT_EQ(file.profile->load.decodedBytes, json.size()) << name;
    }

    SynthOptions options;
    std::string error;
    ASSERT_TRUE(parseSynthScenario("bench:300000", options, error)) << error;
    std::string xspace;
    ASSERT_TRUE(syntheticXSpaceBytes(options, xspace, error)) << error;
    writeFile(dir + "/s.xplane.pb", xspace);
    writeFile(dir + "/s.xplane.pb.gz", gzipBytes(xspace, 1));
    const LoadResult mapped = loadProfile(dir + "/s.xplane.pb");
    const LoadResult inflated = loadProfile(dir + "/s.xplane.pb.gz"); // lines handed back after decoding
    const LoadResult inMemory = loadProfileFromBytes(xspace, "s.xplane.pb");
    ASSERT_TRUE(mapped.ok() && inflated.ok() && inMemory.ok()) << mapped.error << inflated.error << inMemory.error;
    EXPECT_GE(mapped.profile->eventCount(), 300000u);
    EXPECT_EQ(opTable(*mapped.profile), opTable(*inMemory.profile));
    EXPECT_EQ(opTable(*inflated.profile), opTable(*inMemory.profile));
    ASSERT_EQ(inflated.profile->tracks.size(), inMemory.profile->tracks.size());
    for (size_t t = 0; t < inMemory.profile->tracks.size(); ++t)
        EXPECT_EQ(inflated.profile->str(inflated.profile->tracks[t].name),
            inMemory.profile->str(inMemory.profile->tracks[t].name));
}

// A damaged .json.gz opens what was inflated before the damage, and says where it stopped.
TEST(InputPaths, TruncatedAndCorruptJsonGzipKeepTheEventsBefore)
{
    const std::string json = chromeTrace(60000);
    const std::string gz = gzipBytes(json);
    const LoadResult cut = loadProfileFromBytes(gz.substr(0, gz.size() / 2), "cut.json.gz");
    ASSERT_TRUE(cut.ok()) << cut.error;
    EXPECT_GT(cut.profile->eventCount(), 10000u);
    EXPECT_LT(cut.profile->eventCount(), 60000u);
    std::string warnings;
    for (const auto& w : cut.profile->load.warnings)
        warnings += w + "\n";
    EXPECT_NE(warnings.find("gzip stream is truncated"), std::string::npos) << warnings;
    EXPECT_NE(warnings.find("events read before"), std::string::npos) << warnings;

    std::string damaged = gz;
    for (size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i)
        damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
    const LoadResult corrupt = loadProfileFromBytes(damaged, "corrupt.json.gz");
    if (corrupt.ok()) {
        std::string all;
        for (const auto& w : corrupt.profile->load.warnings)
            all += w + "\n";
        // Inflate may emit garbage before zlib notices: either layer may report the damage.
        EXPECT_TRUE(all.find("gzip") != std::string::npos || all.find("damaged") != std::string::npos) << all;
        EXPECT_NE(all.find("byte"), std::string::npos) << all;
        EXPECT_LT(corrupt.profile->eventCount(), 60000u);
    } else {
        EXPECT_NE(corrupt.error.find("gzip"), std::string::npos) << corrupt.error;
    }

    // Not a profile inside the gzip: refused after the first megabyte, not after inflating it all.
    const LoadResult zeros = loadProfileFromBytes(gzipBytes(std::string(64 << 20, '\0')), "zeros.gz");
    EXPECT_FALSE(zeros.ok());
    EXPECT_NE(zeros.error.find("not a profile"), std::string::npos) << zeros.error;
}

TEST(LoadLimits, EventLimitKeepsTheEventsBeforeAndSaysHowToRaiseIt)
{
    const std::string json = chromeTrace(200000);
    LoadOptions options;
    options.maxEvents = 100000;
    const LoadResult limited = loadProfileFromBytes(json, "big.json", options);
    ASSERT_TRUE(limited.ok()) << limited.error;
    // The limit counts JSON events, the 8 metadata events (process/thread names) too.
    EXPECT_EQ(limited.profile->eventCount(), 100000u - 8u);
    std::string warnings;
    for (const auto& w : limited.profile->load.warnings)
        warnings += w + "\n";
    EXPECT_NE(warnings.find("event limit"), std::string::npos) << warnings;
    EXPECT_NE(warnings.find("stopped reading at byte"), std::string::npos) << warnings;
    EXPECT_NE(warnings.find("--max-events"), std::string::npos) << warnings;

    SynthOptions synth;
    std::string error, xspace;
    ASSERT_TRUE(parseSynthScenario("bench:200000", synth, error)) << error;
    ASSERT_TRUE(syntheticXSpaceBytes(synth, xspace, error)) << error;
    // A document with exactly the limit's events is whole: no warning.
    LoadOptions exact;
    exact.maxEvents = 200000 + 8;
    const LoadResult whole = loadProfileFromBytes(json, "big.json", exact);
    ASSERT_TRUE(whole.ok()) << whole.error;
    EXPECT_EQ(whole.profile->eventCount(), 200000u);
    EXPECT_TRUE(whole.profile->load.warnings.empty()) << whole.profile->load.warnings.front();

    const LoadResult refused = loadProfileFromBytes(xspace, "big.xplane.pb", options);
    EXPECT_FALSE(refused.ok());
    EXPECT_NE(refused.error.find("event limit"), std::string::npos) << refused.error;
    EXPECT_NE(refused.error.find("TPUSCOPE_MAX_EVENTS"), std::string::npos) << refused.error;

    LoadOptions budget;
    budget.memoryBudgetBytes = 4 << 20; // 4 MiB: far below 200k events at 56 B each
    const LoadResult overBudget = loadProfileFromBytes(xspace, "big.xplane.pb", budget);
    EXPECT_FALSE(overBudget.ok());
    EXPECT_NE(overBudget.error.find("over the memory budget of 4 MiB"), std::string::npos) << overBudget.error;
    EXPECT_NE(overBudget.error.find("--memory-budget-mb"), std::string::npos) << overBudget.error;
}

TEST(LoadLimits, DefaultsComeFromTheEnvironmentOrTheMachine)
{
    unsetenv("TPUSCOPE_MEMORY_BUDGET_MB");
    unsetenv("TPUSCOPE_MAX_EVENTS");
    const LoadLimits machine = effectiveLimits({});
    EXPECT_GT(machine.memoryBudgetBytes, uint64_t(256) << 20);
    EXPECT_EQ(machine.maxEvents, UINT64_MAX);
    EXPECT_NE(machine.budgetHint.find("3/4 of this machine's RAM"), std::string::npos);
    setenv("TPUSCOPE_MEMORY_BUDGET_MB", "1234", 1);
    setenv("TPUSCOPE_MAX_EVENTS", "5000", 1);
    const LoadLimits fromEnvironment = effectiveLimits({});
    EXPECT_EQ(fromEnvironment.memoryBudgetBytes, uint64_t(1234) << 20);
    EXPECT_EQ(fromEnvironment.maxEvents, 5000u);
    LoadOptions explicitOptions;
    explicitOptions.maxEvents = 7;
    EXPECT_EQ(effectiveLimits(explicitOptions).maxEvents, 7u);
    unsetenv("TPUSCOPE_MEMORY_BUDGET_MB");
    unsetenv("TPUSCOPE_MAX_EVENTS");
}

TEST(LoadPreview, JsonLoadsHandOverOnePartialProfile)
{
    const std::string json = chromeTrace(300000);
    LoadOptions options;
    int calls = 0;
    ProfilePtr partial;
    options.preview = [&](ProfilePtr p) {
        ++calls;
        partial = std::move(p);
    };
    options.previewAfterSeconds = 0;
    const LoadResult whole = loadProfileFromBytes(json, "t.json", options);
    ASSERT_TRUE(whole.ok()) << whole.error;
    EXPECT_EQ(calls, 1);
    ASSERT_TRUE(partial);
    EXPECT_GT(partial->eventCount(), 60000u);
    EXPECT_LT(partial->eventCount(), whole.profile->eventCount());
    // A prefix of the same trace: the same tracks, names resolved through its own string pool.
    ASSERT_EQ(partial->tracks.size(), whole.profile->tracks.size());
    for (size_t t = 0; t < partial->tracks.size(); ++t) {
        ASSERT_GT(partial->tracks[t].size(), 0u);
        EXPECT_EQ(partial->tracks[t].start.front(), whole.profile->tracks[t].start.front());
        EXPECT_EQ(partial->str(partial->ops[partial->tracks[t].op.front()].name),
            whole.profile->str(whole.profile->ops[whole.profile->tracks[t].op.front()].name));
    }

    // Not before it is due, and never for a load that ends first.
    calls = 0;
    options.previewAfterSeconds = 3600;
    ASSERT_TRUE(loadProfileFromBytes(json, "t.json", options).ok());
    EXPECT_EQ(calls, 0);
}
