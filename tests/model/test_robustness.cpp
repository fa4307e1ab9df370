// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 18: memory limits, lying headers, bombs, special files. Every reproducer is made on the
// fly in a temp dir. Memory tests run tpuscope-cli under `prlimit --as` and read its peak RSS
// from /usr/bin/time -f %M; the peaks are bounds (several times what the fixed code needs, far
// below what the old code took), not timings.
#include "loader/gzip.h"
#include "loader/inputsource.h"
#include "loader/loader.h"

#include "robustnessinputs.h"
#include "synth/synth.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tpuscope::model;
using namespace tpuscope::test;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kOneGiB = 1ull << 30;

} // namespace

// ---- 1. no allocation sized from untrusted data; bad_alloc is a message -----------------------

TEST(Robustness, GunzipDoesNotTrustTheTrailer)
{
    const std::string dir = tempDir("liar_unit");
    const std::string bytes = lyingTrailerGzip(synthXSpace(dir + "/x.xplane.pb"));
    std::string out, error;
    ASSERT_TRUE(gunzip(bytes, out, UINT64_MAX, error)) << error;
    EXPECT_EQ(out, readFile(dir + "/x.xplane.pb"));
    // The old inflater reserved the 4 GiB the trailer claimed (capped at 1032× the file).
    EXPECT_LT(out.capacity(), 64u << 20);
}

// ---- 2. one streaming inflate path; ratio guard; skipped bytes not resident -------------------

/// Peak resident memory a load of `path` adds, in a forked child (so that the analysis the CLI
/// runs afterwards, and this process's own history, do not count): VmHWM after the load minus
/// VmRSS before it. -1 when it cannot be measured.
long loadPeakKb(const std::string& path, std::string* error = nullptr)
{
    auto statusKb = [](const char* field) {
        std::ifstream in("/proc/self/status");
        std::string line;
        while (std::getline(in, line))
            if (line.rfind(field, 0) == 0)
                return std::atol(line.c_str() + std::strlen(field));
        return -1L;
    };
    int fds[2];
    if (::pipe(fds) != 0)
        return -1;
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(fds[0]);
        const long before = statusKb("VmRSS:");
        const LoadResult r = loadProfile(path);
        const long peak = statusKb("VmHWM:");
        const std::string report
            = std::to_string(r.ok() && before >= 0 && peak >= 0 ? peak - before : -1) + "\n" + r.error;
        [[maybe_unused]] const ssize_t n = ::write(fds[1], report.data(), report.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string report;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
        report.append(buffer, static_cast<size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (error)
        *error = report.substr(std::min(report.size(), report.find('\n') + 1));
    return report.empty() ? -1 : std::atol(report.c_str());
}

TEST(Robustness, ABigStringIsStoredOnceInEveryFormat)
{
    if (kSanitized)
        GTEST_SKIP() << "RSS bounds do not apply to a sanitizer build";
    const std::string dir = tempDir("big_strings");
    constexpr size_t kBig = 64u << 20;
    struct Case
    {
        std::string file;
        size_t big;
    };
    std::vector<Case> cases;
    {
        const std::string big(kBig, 'n');
        // XSpace: the name of an event's metadata, used by two events.
        writeFile(dir + "/big.xplane.pb", xspaceWithOneOpNamed(big));
        cases.push_back({"big.xplane.pb", kBig});
        // TF1 trace: the name of one event (a second one is short).
        const std::string resource
            = lengthField(3, varintField(1, 2) + lengthField(2, lengthField(1, "XLA Ops") + varintField(2, 2)));
        const std::string device = lengthField(
            1, varintField(1, 1) + lengthField(2, lengthField(1, "/device:TPU:0") + varintField(2, 1) + resource));
        auto traceEvent = [](const std::string& name, uint64_t ts) {
            return lengthField(4,
                varintField(1, 1) + varintField(2, 2) + lengthField(3, name) + varintField(9, ts)
                    + varintField(10, 10));
        };
        writeFile(dir + "/trace", device + traceEvent(big, 0) + traceEvent("short", 20));
        cases.push_back({"trace", kBig});
        // Chrome JSON: a thread name (the event-name case is ABigNameIsStoredOnce).
        writeFile(dir + "/thread.json",
            R"({"traceEvents":[{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":")" + big
                + R"("}},{"name":"a","ph":"X","pid":1,"tid":1,"ts":0,"dur":1}]})");
        cases.push_back({"thread.json", kBig});
        // op_profile: an op name (the document is at most 128 MiB).
        const std::string name(48u << 20, 'n');
        writeFile(dir + "/big.op_profile.json",
            R"x({"byProgram":{"name":"root","metrics":{"rawTime":100},"children":[{"name":"jit_f(1)","metrics":)x"
            R"x({"rawTime":100},"children":[{"name":")x"
                + name + R"(","metrics":{"rawTime":100,"occurrences":1},"xla":{"category":"loop fusion"}}]}]}})");
        cases.push_back({"big.op_profile.json", name.size()});
    }
    for (const Case& c : cases) {
        std::string error;
        const long peakKb = loadPeakKb(dir + "/" + c.file, &error);
        ASSERT_GE(peakKb, 0) << c.file << ": " << error;
        // The input (mapped or inflated) holds one copy while it is read, the profile one more:
        // 2x. A third copy (a decoder's own std::string, a document tree kept beside the text)
        // would be 3x. Strings of 64 and 48 MiB peak at 2x + 1 MiB; the bound of 2.5x + 8 MiB
        // still refuses 3x at these sizes, which cost a quarter of the 200 MiB ones' time.
        const long bigKb = static_cast<long>(c.big / 1024);
        EXPECT_LT(peakKb, bigKb * 5 / 2 + 8 * 1024)
            << c.file << ": " << peakKb / 1024 << " MiB for a " << bigKb / 1024 << " MiB string";
        std::cout << c.file << ": the load peaked at " << peakKb / 1024 << " MiB for a " << bigKb / 1024
                  << " MiB string\n";
    }
    fs::remove_all(dir);
}

// ---- 3. special files ------------------------------------------------------------------------

TEST(Robustness, AFileThatShrinksWhileMappedIsATruncationNotSigbus)
{
    const std::string dir = tempDir("shrink");
    const std::string path = dir + "/x.xplane.pb";
    std::string xspace = emptyLinesXSpace(4'000'000); // 8 MB, many pages past the cut
    writeFile(path, xspace);
    {
        MappedFile file;
        std::string error;
        ASSERT_TRUE(file.open(path, error)) << error;
        ASSERT_EQ(::truncate(path.c_str(), 4096), 0);
        uint64_t nonZeroPastTheCut = 0;
        for (size_t i = 4096; i < file.bytes().size(); i += 4096) {
            const volatile char* byte = file.bytes().data() + i; // SIGBUS here without the guard
            nonZeroPastTheCut += *byte != 0;
        }
        EXPECT_EQ(nonZeroPastTheCut, 0u) << "the pages past the new end read as zeros";
        EXPECT_TRUE(file.shrank());
    }
    writeFile(path, xspace);
    LoadOptions options;
    const LoadResult r = loadProfile(path, options, [&](std::string_view phase, double) {
        if (phase == "reading") {
            ASSERT_EQ(::truncate(path.c_str(), 1 << 20), 0);
        }
    });
    const std::string text
        = r.ok() ? (r.profile->load.warnings.empty() ? "" : r.profile->load.warnings.front()) : r.error;
    EXPECT_NE(
        text.find("the file shrank while it was read (from " + std::to_string(xspace.size()) + " bytes to 1048576)"),
        std::string::npos)
        << text;
}

// ---- 6. the smaller ones ----------------------------------------------------------------------

TEST(Robustness, ShareFileLimitMessageDoesNotPointAtAFlagThatDoesNotApply)
{
    // A share-file header over a gzip body that inflates to 65 MiB.
    const std::string bytes = "TPUSCOPE-SHARE 1\n" + repeatedMembers(std::string(1 << 20, ' '), 65);
    const LoadResult r = loadProfileFromBytes(bytes, "big.tpuscope");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error.find("more than 64 MiB, the limit for share files"), std::string::npos) << r.error;
    EXPECT_EQ(r.error.find("--max-decompressed-mb"), std::string::npos) << r.error;
}

TEST(Robustness, DamageInTheLastPlaneKeepsThePlanesBeforeIt)
{
    const std::string dir = tempDir("last_plane");
    const std::string good = synthXSpace(dir + "/x.xplane.pb");
    // A last plane whose line claims more bytes than the plane holds.
    const std::string damagedPlane = lengthField(2, "/host:CPU") + varint(3 << 3 | 2) + varint(1000) + "xx";
    const LoadResult r = loadProfileFromBytes(good + lengthField(1, damagedPlane), "x.xplane.pb");
    ASSERT_TRUE(r.ok()) << r.error;
    const LoadResult whole = loadProfileFromBytes(good, "x.xplane.pb");
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(r.profile->planes.size(), whole.profile->planes.size());
    ASSERT_FALSE(r.profile->load.warnings.empty());
    EXPECT_NE(r.profile->load.warnings.back().find("planes read before the damage"), std::string::npos)
        << r.profile->load.warnings.back();
}

TEST(Robustness, IntMaxDurationsAreMalformedNotOpTime)
{
    // Chrome JSON: 9e12 µs is 9e18 ps, inside int64 but far beyond any profile.
    const std::string json = R"({"traceEvents":[{"name":"a","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},)"
                             R"({"name":"b","ph":"X","pid":1,"tid":1,"ts":20,"dur":9000000000000}]})";
    LoadResult r = loadProfileFromBytes(json, "t.json");
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.profile->stats.malformedEvents, 1);
    EXPECT_EQ(r.profile->eventCount(), 1u);

    // XSpace: an XLA op of INT64_MAX ps beside a normal one.
    auto event = [](int64_t metadata, int64_t offset, int64_t duration) {
        return lengthField(4,
            varint(1 << 3) + varint(static_cast<uint64_t>(metadata)) + varint(2 << 3)
                + varint(static_cast<uint64_t>(offset)) + varint(3 << 3) + varint(static_cast<uint64_t>(duration)));
    };
    const std::string line = lengthField(3,
        varint(1 << 3) + varint(1) + lengthField(2, "XLA Ops") + varint(3 << 3) + varint(1000) + event(1, 0, 100)
            + event(1, 200, INT64_MAX));
    const std::string metadata = lengthField(
        4, varint(1 << 3) + varint(1) + lengthField(2, varint(1 << 3) + varint(1) + lengthField(2, "fusion.1")));
    const std::string plane = varint(1 << 3) + varint(1) + lengthField(2, "/device:TPU:0") + line + metadata;
    r = loadProfileFromBytes(lengthField(1, plane), "t.xplane.pb");
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.profile->stats.malformedEvents, 1);
    EXPECT_EQ(r.profile->eventCount(), 1u);
}

TEST(Robustness, AShortTruncatedTf1TraceIsReportedAsTruncated)
{
    // A TF1 Trace: field 1 = devices map entry {1: key, 2: Device {1: name, 2: device_id}}, then
    // field 4 = TraceEvent, cut in the middle.
    const std::string device = lengthField(1, "TPU Core 0") + varint(2 << 3) + varint(1);
    const std::string entry = varint(1 << 3) + varint(1) + lengthField(2, device);
    const std::string event = varint(1 << 3) + varint(1) + lengthField(3, "fusion.1") + varint(9 << 3) + varint(5);
    const std::string trace = lengthField(1, entry) + lengthField(4, event);
    const std::string cut = trace.substr(0, trace.size() - 4);
    const LoadResult r = loadProfileFromBytes(cut, "trace");
    const std::string text
        = r.ok() ? (r.profile->load.warnings.empty() ? "" : r.profile->load.warnings.front()) : r.error;
    EXPECT_EQ(text.find("not a profile"), std::string::npos) << text;
    EXPECT_NE(text.find("TF1 trace"), std::string::npos) << text;
}
