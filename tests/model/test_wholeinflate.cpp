// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 24 point 2: gzip of a format that needs every byte (XSpace, op_profile) is inflated in one
// pass by libdeflate at the size the gzip trailer gives; what libdeflate cannot read (several
// members, padding, damage, a lying or untrusted trailer) streams through zlib as before, with
// zlib's messages and guards. Both inflaters give the same profile.
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

TEST(GzipTrailer, SizeIsTheTrailersModulo4GiBWithinTheLimits)
{
    const std::string plain(100000, 'x');
    const std::string gz = gzipBytes(plain);
    EXPECT_EQ(gzipTrailerSize(gz, 1 << 30, 200), plain.size());
    EXPECT_FALSE(gzipTrailerSize(gz, plain.size() - 1, 200)) << "over the inflate limit: zlib refuses it as it goes";
    EXPECT_FALSE(gzipTrailerSize(gz.substr(0, 19), 1 << 30, 200));
    EXPECT_FALSE(gzipTrailerSize("not gzip at all, but long enough", 1 << 30, 200));

    // 100 KB of compressed data cannot inflate to 10 bytes: that ISIZE is of 4 GiB + 10.
    std::string claims(100000, '\0');
    claims[0] = '\x1f';
    claims[1] = '\x8b';
    setTrailerSize(claims, 10);
    EXPECT_EQ(gzipTrailerSize(claims, 8ull << 30, 0), (1ull << 32) + 10);
    EXPECT_FALSE(gzipTrailerSize(claims, 4ull << 30, 0)) << "over the limit";
    // The ratio guard applies past 256 MiB, as zlib's does.
    setTrailerSize(claims, 200u << 20);
    EXPECT_EQ(gzipTrailerSize(claims, 8ull << 30, 200), 200u << 20);
    setTrailerSize(claims, 300u << 20);
    EXPECT_FALSE(gzipTrailerSize(claims, 8ull << 30, 200)) << "3000:1 is a bomb";
    EXPECT_EQ(gzipTrailerSize(claims, 8ull << 30, 0), 300u << 20) << "no ratio guard";
}

TEST(GzipTrailer, LibdeflateReadsExactlyOneGoodMember)
{
    const std::string plain = benchXSpace("bench:20000");
    const std::string gz = gzipBytes(plain);
    std::string out(plain.size(), '\0');
    EXPECT_EQ(inflateWholeMember(gz, out.data(), out.size()), plain.size());
    EXPECT_EQ(out, plain);
    EXPECT_FALSE(inflateWholeMember(gz, out.data(), out.size() - 1)) << "a trailer that claims too little";
    EXPECT_FALSE(inflateWholeMember(gz + gz, out.data(), out.size())) << "a second member is zlib's";
    EXPECT_FALSE(inflateWholeMember(gz + std::string(64, '\0'), out.data(), out.size())) << "padding is zlib's";
    EXPECT_FALSE(inflateWholeMember(gz.substr(0, gz.size() / 2), out.data(), out.size())) << "truncated";
    std::string badCrc = gz;
    badCrc[badCrc.size() - 6] ^= 0x01;
    EXPECT_FALSE(inflateWholeMember(badCrc, out.data(), out.size())) << "bad CRC";
}

// An XSpace .gz streams into the decoder, which decodes planes as they arrive (ISA-L, the default,
// or zlib with TPUSCOPE_INFLATER=zlib); libdeflate's whole-buffer inflate is not used for it. Both
// give the plain file's profile. The inflate is held back so that planes do arrive while the rest
// is inflated, on any machine.
TEST(WholeInflate, XSpaceGzipLoadsTheSameWithEitherInflater)
{
    ScopedEnvironment readAhead("TPUSCOPE_XSPACE_READ_AHEAD", std::to_string(64 << 10));
    const std::string dir = tempDir("whole_xspace");
    const std::string xspace = benchXSpace("bench:300000");
    writeFile(dir + "/s.xplane.pb", xspace);
    writeFile(dir + "/s.xplane.pb.gz", gzipBytes(xspace, 1));
    const LoadResult plain = loadProfile(dir + "/s.xplane.pb");
    ASSERT_TRUE(plain.ok()) << plain.error;
    const std::string expected = eventsText(*plain.profile);

    const uint64_t before = wholeBufferInflates();
    uint64_t arrived = xspacePlanesDecodedOnArrival();
    const LoadResult fast = loadProfile(dir + "/s.xplane.pb.gz");
    ASSERT_TRUE(fast.ok()) << fast.error;
    EXPECT_EQ(wholeBufferInflates(), before) << "streamed, not inflated whole";
    EXPECT_GE(xspacePlanesDecodedOnArrival(), arrived + 2) << "planes decoded while the rest inflated";
    EXPECT_EQ(eventsText(*fast.profile), expected);
    EXPECT_EQ(fast.profile->load.decodedBytes, xspace.size());
    EXPECT_EQ(fast.profile->load.format, "xspace.gz");

    ScopedInflater zlibOnly("zlib");
    arrived = xspacePlanesDecodedOnArrival();
    const LoadResult slow = loadProfile(dir + "/s.xplane.pb.gz");
    ASSERT_TRUE(slow.ok()) << slow.error;
    EXPECT_EQ(wholeBufferInflates(), before);
    EXPECT_GE(xspacePlanesDecodedOnArrival(), arrived + 2);
    EXPECT_EQ(eventsText(*slow.profile), expected);
    EXPECT_EQ(slow.profile->load.decodedBytes, xspace.size());
}

// What libdeflate cannot read goes to zlib: several members (concatenated gzip files), trailing
// zeros, a trailer that lies; damage keeps zlib's messages.
TEST(WholeInflate, WhatLibdeflateCannotReadStreamsThroughZlib)
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
        const uint64_t before = wholeBufferInflates();
        const LoadResult r = loadProfileFromBytes(bytes, name + ".xplane.pb.gz");
        ASSERT_TRUE(r.ok()) << name << ": " << r.error;
        EXPECT_EQ(eventsText(*r.profile), expected) << name;
        EXPECT_EQ(wholeBufferInflates(), before) << name;
    }
    // A trailer claiming less than the data holds: libdeflate stops at that size, zlib's CRC and
    // length check names the damage.
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

// A bomb is refused by the inflate limit before libdeflate maps its size: the trailer's size is
// over the limit, so zlib streams it and stops at the limit, as it always has.
TEST(WholeInflate, ABombOverTheLimitIsRefusedBeforeItIsMapped)
{
    const std::string xspace = benchXSpace("bench:20000");
    const std::string gz = gzipBytes(xspace);
    LoadOptions small;
    small.maxDecompressedBytes = xspace.size() / 2;
    const uint64_t before = wholeBufferInflates();
    const LoadResult bomb = loadProfileFromBytes(gz, "bomb.xplane.pb.gz", small);
    ASSERT_FALSE(bomb.ok());
    EXPECT_NE(bomb.error.find("exceeds the limit"), std::string::npos) << bomb.error;
    // A trailer claiming a size within the limit does not let more through: libdeflate stops at
    // that size and zlib refuses at the limit.
    std::string liar = gz;
    setTrailerSize(liar, static_cast<uint32_t>(xspace.size() / 4));
    const LoadResult lied = loadProfileFromBytes(liar, "liar.xplane.pb.gz", small);
    ASSERT_FALSE(lied.ok());
    EXPECT_NE(lied.error.find("exceeds the limit"), std::string::npos) << lied.error;
    EXPECT_EQ(wholeBufferInflates(), before);
}

// Chrome JSON .gz keeps streaming with zlib (parsed while it inflates, memory bounded by the
// read-ahead), and every host of a log dir goes through the same decode path as a single file.
TEST(WholeInflate, TraceJsonStreamsAndLogDirHostsTakeTheSamePath)
{
    const std::string dir = tempDir("whole_paths");
    const std::string json
        = R"({"traceEvents":[{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:TPU:0"}},)"
          R"({"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"fusion.1"}]})";
    writeFile(dir + "/t.trace.json.gz", gzipBytes(json));
    uint64_t before = wholeBufferInflates();
    const LoadResult trace = loadProfile(dir + "/t.trace.json.gz");
    ASSERT_TRUE(trace.ok()) << trace.error;
    EXPECT_EQ(trace.profile->eventCount(), 1u);
    EXPECT_EQ(wholeBufferInflates(), before) << "JSON streams with zlib";

    const std::string logdir = dir + "/logdir";
    const std::string run = logdir + "/plugins/profile/2026_01_01_00_00_00";
    fs::create_directories(run);
    const std::string xspace = benchXSpace("bench:20000");
    writeFile(run + "/host-a.xplane.pb.gz", gzipBytes(xspace));
    writeFile(run + "/host-b.xplane.pb.gz", gzipBytes(xspace));
    const std::vector<ProfileRun> runs = findRuns(logdir);
    ASSERT_EQ(runs.size(), 1u);
    before = wholeBufferInflates();
    ScopedEnvironment readAhead("TPUSCOPE_XSPACE_READ_AHEAD", std::to_string(64 << 10));
    const uint64_t arrived = xspacePlanesDecodedOnArrival();
    const LoadResult fast = loadRun(runs.front());
    ASSERT_TRUE(fast.ok()) << fast.error;
    EXPECT_EQ(wholeBufferInflates(), before) << "each host streams into its decoder";
    EXPECT_GE(xspacePlanesDecodedOnArrival(), arrived + 4) << "planes of both hosts decoded as they arrived";
    ScopedInflater zlibOnly("zlib");
    const LoadResult slow = loadRun(runs.front());
    ASSERT_TRUE(slow.ok()) << slow.error;
    EXPECT_EQ(wholeBufferInflates(), before);
    EXPECT_EQ(eventsText(*fast.profile), eventsText(*slow.profile));
    EXPECT_GT(fast.profile->eventCount(), 0u);
}

// A buffer of 64 MiB or more is faulted in ahead of the inflater by a second thread
// (PrefaultAhead); that thread must never change a byte the inflater has written.
TEST(WholeInflate, ALargeBufferFaultedInAheadKeepsEveryByte)
{
    // 72 MiB in which every 4 KiB page carries its own number, so a page zeroed or faulted in
    // again behind the inflater would show; the rest of each page is a pattern that compresses fast.
    std::string plain(size_t(72) << 20, '\0');
    for (size_t page = 0; page * 4096 < plain.size(); ++page) {
        char* p = plain.data() + page * 4096;
        std::memcpy(p, &page, sizeof page);
        for (size_t i = sizeof page; i < 4096; ++i)
            p[i] = static_cast<char>('a' + i % 23);
    }
    const std::string gz = gzipBytes(plain, 1);
    WholeInflate whole;
    ASSERT_TRUE(whole.inflate(gz, 1ull << 30, 200));
    ASSERT_EQ(whole.bytes().size(), plain.size());
    EXPECT_TRUE(whole.bytes() == plain);
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
