// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 24 point 2: every gzip input (XSpace, Chrome JSON, op_profile, log-dir hosts) is inflated on
// its own thread by ISA-L and streamed into its decoder; TPUSCOPE_INFLATER=zlib streams with zlib.
// Several members, padding, damage, a lying trailer and bombs read the same with either, with the
// same messages and guards, and both give the plain file's profile.
#include "testutil.h"

#include "decodethreads.h"

#include "analysis/opbreakdown.h"
#include "loader/gzip.h"
#include "loader/inputsource.h"
#include "loader/loader.h"
#include "loader/logdir.h"
#include "loader/xspaceloader.h"
#include "synth/synth.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <zlib.h>

using namespace tpuscope::model;
using namespace tpuscope::test;
namespace fs = std::filesystem;

namespace {

/// Sets TPUSCOPE_INFLATER for one scope.
class ScopedInflater : public ScopedEnvironment
{
public:
    explicit ScopedInflater(const char* value)
        : ScopedEnvironment("TPUSCOPE_INFLATER", value)
    {
    }
};

std::string benchXSpace(const char* scenario)
{
    SynthOptions options;
    std::string error, xspace;
    EXPECT_TRUE(parseSynthScenario(scenario, options, error)) << error;
    EXPECT_TRUE(syntheticXSpaceBytes(options, xspace, error)) << error;
    return xspace;
}

/// Everything a view reads of the events, in order: equal strings mean equal profiles.
std::string eventsText(const Profile& profile)
{
    std::string text = std::to_string(profile.eventCount()) + " events\n";
    for (const OpRow& row : computeOpBreakdown(profile).rows)
        text += row.name + " " + std::to_string(row.occurrences) + " "
            + std::to_string(static_cast<int64_t>(row.totalTimePs)) + "\n";
    for (const Track& track : profile.tracks) {
        text += profile.str(track.name) + ":";
        for (size_t i = 0; i < track.size(); ++i)
            text += " " + std::to_string(track.start[i]) + "/" + std::to_string(track.duration[i]) + "/"
                + std::to_string(track.op[i]);
        text += "\n";
    }
    return text;
}

void setTrailerSize(std::string& gz, uint32_t size)
{
    for (int i = 0; i < 4; ++i)
        gz[gz.size() - 4 + i] = static_cast<char>((size >> (8 * i)) & 0xff);
}

} // namespace

// An XSpace .gz streams into the decoder, which decodes planes as they arrive (ISA-L, the default,
// or zlib with TPUSCOPE_INFLATER=zlib). Both give the plain file's profile. The inflate is held back so that planes do
// arrive while the rest is inflated, on any machine.
TEST(GzipInput, XSpaceGzipLoadsTheSameWithEitherInflater)
{
    ScopedEnvironment readAhead("TPUSCOPE_XSPACE_READ_AHEAD", std::to_string(64 << 10));
    const std::string dir = tempDir("whole_xspace");
    const std::string xspace = benchXSpace("bench:300000");
    writeFile(dir + "/s.xplane.pb", xspace);
    writeFile(dir + "/s.xplane.pb.gz", gzipBytes(xspace, 1));
    const LoadResult plain = loadProfile(dir + "/s.xplane.pb");
    ASSERT_TRUE(plain.ok()) << plain.error;
    const std::string expected = eventsText(*plain.profile);

    uint64_t arrived = xspacePlanesDecodedOnArrival();
    const LoadResult fast = loadProfile(dir + "/s.xplane.pb.gz");
    ASSERT_TRUE(fast.ok()) << fast.error;
    EXPECT_GE(xspacePlanesDecodedOnArrival(), arrived + 2) << "planes decoded while the rest inflated";
    EXPECT_EQ(eventsText(*fast.profile), expected);
    EXPECT_EQ(fast.profile->load.decodedBytes, xspace.size());
    EXPECT_EQ(fast.profile->load.format, "xspace.gz");

    ScopedInflater zlibOnly("zlib");
    arrived = xspacePlanesDecodedOnArrival();
    const LoadResult slow = loadProfile(dir + "/s.xplane.pb.gz");
    ASSERT_TRUE(slow.ok()) << slow.error;
    EXPECT_GE(xspacePlanesDecodedOnArrival(), arrived + 2);
    EXPECT_EQ(eventsText(*slow.profile), expected);
    EXPECT_EQ(slow.profile->load.decodedBytes, xspace.size());
}

// Several members (concatenated gzip files) and trailing zeros load; a trailer that lies, a cut
// and a bad CRC are named.
TEST(GzipInput, MembersPaddingAndDamageOfAnXSpace)
{
    const std::string xspace = benchXSpace("bench:20000");
    const LoadResult plain = loadProfileFromBytes(xspace, "s.xplane.pb");
    ASSERT_TRUE(plain.ok()) << plain.error;
    const std::string expected = eventsText(*plain.profile);
    const std::string gz = gzipBytes(xspace);

    const size_t half = xspace.size() / 2;
    std::string lyingTrailer = gz;
    setTrailerSize(lyingTrailer, static_cast<uint32_t>(xspace.size() - 4096));
    for (const auto& [name, bytes] : {std::pair<std::string, std::string> {"members",
                                          gzipBytes(xspace.substr(0, half)) + gzipBytes(xspace.substr(half))},
             {"padding", gz + std::string(1000, '\0')}}) {
        const LoadResult r = loadProfileFromBytes(bytes, name + ".xplane.pb.gz");
        ASSERT_TRUE(r.ok()) << name << ": " << r.error;
        EXPECT_EQ(eventsText(*r.profile), expected) << name;
    }
    // A trailer claiming less than the data holds: the length check after the data names it.
    const LoadResult liar = loadProfileFromBytes(lyingTrailer, "liar.xplane.pb.gz");
    ASSERT_FALSE(liar.ok());
    EXPECT_NE(liar.error.find("corrupt gzip data at compressed offset"), std::string::npos) << liar.error;

    const LoadResult cut = loadProfileFromBytes(gz.substr(0, gz.size() * 2 / 3), "cut.xplane.pb.gz");
    ASSERT_FALSE(cut.ok());
    EXPECT_NE(cut.error.find("the gzip stream is truncated after"), std::string::npos) << cut.error;

    std::string badCrc = gz;
    badCrc[badCrc.size() - 6] ^= 0x01;
    const LoadResult crc = loadProfileFromBytes(badCrc, "crc.xplane.pb.gz");
    ASSERT_FALSE(crc.ok());
    EXPECT_NE(crc.error.find("corrupt gzip data at compressed offset"), std::string::npos) << crc.error;
    EXPECT_NE(crc.error.find("incorrect data check"), std::string::npos) << crc.error;
}

// A bomb is refused at the inflate limit as it streams, whatever its trailer claims.
TEST(GzipInput, ABombOverTheLimitIsRefused)
{
    const std::string xspace = benchXSpace("bench:20000");
    const std::string gz = gzipBytes(xspace);
    LoadOptions small;
    small.maxDecompressedBytes = xspace.size() / 2;
    const LoadResult bomb = loadProfileFromBytes(gz, "bomb.xplane.pb.gz", small);
    ASSERT_FALSE(bomb.ok());
    EXPECT_NE(bomb.error.find("exceeds the limit"), std::string::npos) << bomb.error;
    // A trailer claiming a size within the limit does not let more through: the size is never
    // taken from it, and the inflate stops at the limit.
    std::string liar = gz;
    setTrailerSize(liar, static_cast<uint32_t>(xspace.size() / 4));
    const LoadResult lied = loadProfileFromBytes(liar, "liar.xplane.pb.gz", small);
    ASSERT_FALSE(lied.ok());
    EXPECT_NE(lied.error.find("exceeds the limit"), std::string::npos) << lied.error;
}

// Chrome JSON .gz is parsed while it inflates (memory bounded by the read-ahead), and every host
// of a log dir goes through the same decode path as a single file.
TEST(GzipInput, TraceJsonStreamsAndLogDirHostsTakeTheSamePath)
{
    const std::string dir = tempDir("whole_paths");
    const std::string json
        = R"({"traceEvents":[{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:TPU:0"}},)"
          R"({"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"fusion.1"}]})";
    writeFile(dir + "/t.trace.json.gz", gzipBytes(json));
    const LoadResult trace = loadProfile(dir + "/t.trace.json.gz");
    ASSERT_TRUE(trace.ok()) << trace.error;
    EXPECT_EQ(trace.profile->eventCount(), 1u);

    const std::string logdir = dir + "/logdir";
    const std::string run = logdir + "/plugins/profile/2026_01_01_00_00_00";
    fs::create_directories(run);
    const std::string xspace = benchXSpace("bench:20000");
    writeFile(run + "/host-a.xplane.pb.gz", gzipBytes(xspace));
    writeFile(run + "/host-b.xplane.pb.gz", gzipBytes(xspace));
    const std::vector<ProfileRun> runs = findRuns(logdir);
    ASSERT_EQ(runs.size(), 1u);
    ScopedEnvironment readAhead("TPUSCOPE_XSPACE_READ_AHEAD", std::to_string(64 << 10));
    const uint64_t arrived = xspacePlanesDecodedOnArrival();
    const LoadResult fast = loadRun(runs.front());
    ASSERT_TRUE(fast.ok()) << fast.error;
    EXPECT_GE(xspacePlanesDecodedOnArrival(), arrived + 4) << "planes of both hosts decoded as they arrived";
    ScopedInflater zlibOnly("zlib");
    const LoadResult slow = loadRun(runs.front());
    ASSERT_TRUE(slow.ok()) << slow.error;
    EXPECT_EQ(eventsText(*fast.profile), eventsText(*slow.profile));
    EXPECT_GT(fast.profile->eventCount(), 0u);
}

namespace {

/// A gzip member written by hand, with the optional header fields gzip(1) and other tools set:
/// FEXTRA, FNAME, FCOMMENT and FHCRC.
std::string gzipWithHeaderFields(const std::string& plain)
{
    std::string out("\x1f\x8b\x08\x1e\0\0\0\0\0\x03", 10); // FEXTRA | FNAME | FCOMMENT | FHCRC
    out += std::string("\x04\0ab\x01\x02", 6); // XLEN 4, one subfield
    out += std::string("trace.xplane.pb\0", 16);
    out += std::string("a comment\0", 10);
    const uLong headerCrc = crc32(0, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size()));
    out += static_cast<char>(headerCrc & 0xff);
    out += static_cast<char>((headerCrc >> 8) & 0xff);
    z_stream z {};
    EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY), Z_OK);
    std::string raw(deflateBound(&z, static_cast<uLong>(plain.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
    z.avail_in = static_cast<uInt>(plain.size());
    z.next_out = reinterpret_cast<Bytef*>(raw.data());
    z.avail_out = static_cast<uInt>(raw.size());
    EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    raw.resize(z.total_out);
    deflateEnd(&z);
    out += raw;
    const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(plain.data()), static_cast<uInt>(plain.size()));
    for (uLong v : {crc, static_cast<uLong>(plain.size())})
        for (int i = 0; i < 4; ++i)
            out += static_cast<char>((v >> (8 * i)) & 0xff);
    return out;
}

} // namespace

// ISA-L (the default) and zlib read every form of gzip the same: header fields, several members,
// zero padding; and they word damage the same way (truncation, a bad CRC, a corrupt block).
TEST(GzipReader, IsalAndZlibReadTheSameAndWordDamageAlike)
{
    std::string text;
    for (uint64_t i = 0; i < 300000; ++i)
        text += "line " + std::to_string(i * 7919 % 1000) + "\n";
    const std::string gz = gzipBytes(text);
    std::string badCrc = gz;
    badCrc[badCrc.size() - 6] ^= 0x01;
    std::string badBlock = gz;
    for (size_t i = 40; i < 60; ++i)
        badBlock[i] = '\xff';
    struct Case
    {
        const char* name;
        std::string bytes;
        std::string expected; // inflated bytes, or a phrase of the error
        bool ok;
    };
    const std::vector<Case> cases = {
        {"header fields", gzipWithHeaderFields(text), text, true},
        {"members", gzipBytes(text.substr(0, 1000)) + gzipBytes(text.substr(1000)), text, true},
        {"padding", gz + std::string(512, '\0'), text, true},
        {"truncated", gz.substr(0, gz.size() / 2), "the gzip stream is truncated after", false},
        {"bad CRC", badCrc, "incorrect data check", false},
        {"corrupt block", badBlock, "corrupt gzip data at compressed offset", false},
    };
    for (const char* inflater : {"isal", "zlib"}) {
        ScopedInflater choice(inflater);
        for (const Case& c : cases) {
            SCOPED_TRACE(std::string(inflater) + ": " + c.name);
            std::string out, error;
            EXPECT_EQ(gunzip(c.bytes, out, 1ull << 30, error), c.ok) << error;
            if (c.ok)
                EXPECT_EQ(out, c.expected);
            else
                EXPECT_NE(error.find(c.expected), std::string::npos) << error;
        }
    }
}
