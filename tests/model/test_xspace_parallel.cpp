// SPDX-License-Identifier: GPL-3.0-or-later
// Load-performance changes that must not change results. The XSpace decoder splits planes over worker threads and
// merges them on the calling thread; the result must not depend on the number of threads. TPUSCOPE_DECODE_THREADS (read
// by the decoder) forces the count, so a parallel decode can be compared with a sequential one.
#include "testutil.h"

#include "loader/gzip.h"
#include "loader/inputsource.h"
#include "loader/loader.h"
#include "loader/xspacearrival.h"
#include "loader/xspaceloader.h"

#include "decodethreads.h"
#include "xplane.pb.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <random>

#include <zlib.h>

using namespace tpuscope::model;
using namespace tpuscope::test;
namespace tp = tensorflow::profiler;

namespace {

LoadResult loadWithThreads(const std::string& bytes, int threads)
{
    DecodeThreads scope(threads);
    return loadProfileFromBytes(bytes, "parallel.xplane.pb", {});
}

void addStat(tp::XEvent* e, int64_t metadataId, uint64_t value)
{
    auto* st = e->add_stats();
    st->set_metadata_id(metadataId);
    st->set_uint64_value(value);
}

// Planes of very different sizes (so workers finish out of order), shared op names across
// planes, display names, device timespans, aggregated events, unknown metadata ids, a host
// plane, a metadata plane with undecodable HLO (warnings) and plane peak stats.
std::string multiPlaneSpace()
{
    std::mt19937_64 rnd(7);
    tp::XSpace space;
    const int sizes[] = {20000, 300, 7000, 0, 15000};
    for (int core = 0; core < 5; ++core) {
        tp::XPlane* plane = space.add_planes();
        plane->set_id(core + 1);
        plane->set_name("/device:TPU:" + std::to_string(core));
        auto statMd = [&](int64_t id, const std::string& name) {
            auto& md = (*plane->mutable_stat_metadata())[id];
            md.set_id(id);
            md.set_name(name);
        };
        statMd(1, "device_offset_ps");
        statMd(2, "device_duration_ps");
        statMd(3, "hlo_category");
        statMd(4, "flops");
        statMd(5, "peak_teraflops_per_second");
        statMd(6, "group_id");
        auto* peak = plane->add_stats();
        peak->set_metadata_id(5);
        peak->set_double_value(100 + core);
        for (int i = 1; i <= 40; ++i) {
            auto& md = (*plane->mutable_event_metadata())[i];
            md.set_id(i);
            // Cores share most names (ops dedup across cores) but each has a few of its own.
            const std::string name
                = i % 7 == 0 ? "own" + std::to_string(core) + "." + std::to_string(i) : "fusion." + std::to_string(i);
            md.set_name("%" + name + " = f32[8] fusion(...)");
            if (i % 3)
                md.set_display_name(name);
            auto* cat = md.add_stats();
            cat->set_metadata_id(3);
            cat->set_str_value(i % 2 ? "convolution" : "loop fusion");
            auto* flops = md.add_stats();
            flops->set_metadata_id(4);
            flops->set_uint64_value(1000 * i);
        }
        for (int lineNo = 0; lineNo < 3; ++lineNo) {
            tp::XLine* line = plane->add_lines();
            line->set_id(lineNo + 1);
            line->set_name(lineNo == 0 ? "XLA Ops" : lineNo == 1 ? "Steps" : "XLA Modules");
            // Core 2's XLA Modules line has a timestamp no event time can be placed from (skipped and
            // counted as one malformed event).
            line->set_timestamp_ns(
                core == 2 && lineNo == 2 ? INT64_MAX : 1'700'000'000'000'000'000 + core * 1000 + lineNo * 7);
            int64_t offset = 0;
            const int count = lineNo == 0 ? sizes[core] : sizes[core] / 50;
            for (int j = 0; j < count; ++j) {
                tp::XEvent* e = line->add_events();
                // ids 41..43 have no metadata: counted once per plane and named.
                e->set_metadata_id(1 + static_cast<int64_t>(rnd() % 43));
                const int64_t duration = 1000 + static_cast<int64_t>(rnd() % 50000);
                if (j % 509 == 300) {
                    e->set_offset_ps(offset);
                    e->set_duration_ps(INT64_MAX); // malformed: skipped and counted
                    continue;
                }
                if (rnd() % 97 == 0) {
                    e->set_num_occurrences(1 + static_cast<int64_t>(rnd() % 5));
                    e->set_duration_ps(duration);
                    continue;
                }
                e->set_offset_ps(offset);
                e->set_duration_ps(duration);
                addStat(e, 6, j / 100);
                if (rnd() % 11 == 0) {
                    addStat(e, 1, static_cast<uint64_t>(offset + 5));
                    addStat(e, 2, static_cast<uint64_t>(duration / 2));
                }
                offset += duration + static_cast<int64_t>(rnd() % 3000);
            }
        }
    }
    tp::XPlane* host = space.add_planes();
    host->set_name("/host:CPU");
    (*host->mutable_event_metadata())[1].set_name("host_op");
    for (int t = 0; t < 4; ++t) {
        tp::XLine* line = host->add_lines();
        line->set_id(100 + t);
        line->set_name("thread " + std::to_string(t));
        line->set_timestamp_ns(1'699'999'999'999'999'000 + t);
        for (int j = 0; j < 500; ++j) {
            tp::XEvent* e = line->add_events();
            e->set_metadata_id(j % 2 ? 1 : 2);
            e->set_offset_ps(j * 10000);
            e->set_duration_ps(5000);
        }
    }
    tp::XPlane* metadata = space.add_planes();
    metadata->set_name("/host:metadata");
    auto& hloStat = (*metadata->mutable_stat_metadata())[1];
    hloStat.set_id(1);
    hloStat.set_name("Hlo Proto");
    for (int p = 0; p < 6; ++p) {
        auto& md = (*metadata->mutable_event_metadata())[1000 + p];
        md.set_id(1000 + p);
        md.set_name("jit_f" + std::to_string(p) + "(" + std::to_string(77 + p) + ")");
        auto* st = md.add_stats();
        st->set_metadata_id(1);
        st->set_bytes_value(std::string("\xff\xff\xff garbage") + std::to_string(p));
    }
    return space.SerializeAsString();
}

void expectSameProfile(const Profile& a, const Profile& b)
{
    EXPECT_EQ(a.originNs, b.originNs);
    EXPECT_EQ(a.spanBegin, b.spanBegin);
    EXPECT_EQ(a.spanEnd, b.spanEnd);
    EXPECT_EQ(a.eventCount(), b.eventCount());
    EXPECT_EQ(a.load.warnings, b.load.warnings);
    EXPECT_EQ(a.stats.unknownMetadataIds, b.stats.unknownMetadataIds);
    EXPECT_EQ(a.stats.malformedEvents, b.stats.malformedEvents);
    EXPECT_EQ(a.stats.aggregatedEvents, b.stats.aggregatedEvents);
    EXPECT_EQ(a.stats.hloDecodeFailures, b.stats.hloDecodeFailures);
    ASSERT_EQ(a.planes.size(), b.planes.size());
    for (size_t i = 0; i < a.planes.size(); ++i) {
        SCOPED_TRACE("plane " + a.str(a.planes[i].name));
        EXPECT_EQ(a.str(a.planes[i].name), b.str(b.planes[i].name));
        EXPECT_EQ(a.planes[i].kind, b.planes[i].kind);
        EXPECT_EQ(a.planes[i].tracks, b.planes[i].tracks);
        EXPECT_EQ(a.planes[i].deviceType, b.planes[i].deviceType);
        EXPECT_EQ(a.planes[i].peakTflops, b.planes[i].peakTflops);
    }
    ASSERT_EQ(a.ops.size(), b.ops.size());
    for (size_t i = 0; i < a.ops.size(); ++i) {
        const OpInfo& x = a.ops[i];
        const OpInfo& y = b.ops[i];
        SCOPED_TRACE("op " + a.str(x.name));
        EXPECT_EQ(a.str(x.name), b.str(y.name));
        EXPECT_EQ(a.str(x.longName), b.str(y.longName));
        EXPECT_EQ(a.str(x.category), b.str(y.category));
        EXPECT_EQ(x.isXlaOp, y.isXlaOp);
        EXPECT_EQ(x.programId, y.programId);
        EXPECT_EQ(x.flops, y.flops);
        EXPECT_EQ(x.hbmBytes, y.hbmBytes);
    }
    ASSERT_EQ(a.tracks.size(), b.tracks.size());
    for (size_t i = 0; i < a.tracks.size(); ++i) {
        const Track& x = a.tracks[i];
        const Track& y = b.tracks[i];
        SCOPED_TRACE("track " + a.str(x.name));
        EXPECT_EQ(a.str(x.name), b.str(y.name));
        EXPECT_EQ(x.plane, y.plane);
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.lineId, y.lineId);
        EXPECT_EQ(x.displayId, y.displayId);
        EXPECT_EQ(x.start, y.start);
        EXPECT_EQ(x.duration, y.duration);
        EXPECT_EQ(x.op, y.op); // same OpIds: ops are added in the same order
        EXPECT_EQ(x.depth, y.depth);
        ASSERT_EQ(x.aggregated.size(), y.aggregated.size());
        for (size_t k = 0; k < x.aggregated.size(); ++k) {
            EXPECT_EQ(x.aggregated[k].op, y.aggregated[k].op);
            EXPECT_EQ(x.aggregated[k].occurrences, y.aggregated[k].occurrences);
            EXPECT_EQ(x.aggregated[k].duration, y.aggregated[k].duration);
        }
    }
    ASSERT_EQ(a.programs.size(), b.programs.size());
    for (size_t i = 0; i < a.programs.size(); ++i) {
        EXPECT_EQ(a.programs[i].id, b.programs[i].id);
        EXPECT_EQ(a.programs[i].name, b.programs[i].name);
    }
}

} // namespace

TEST(XSpaceParallel, MultiPlaneDecodeMatchesSingleThreaded)
{
    const std::string bytes = multiPlaneSpace();
    const LoadResult single = loadWithThreads(bytes, 1);
    ASSERT_TRUE(single.ok()) << single.error;
    const Profile& p = *single.profile;
    // The fixture exercises what the merge has to carry over.
    EXPECT_GT(p.eventCount(), 40000u);
    // ids 41..43 on the four TPU planes with events, and id 2 on the host plane
    EXPECT_EQ(p.stats.unknownMetadataIds, 3 * 4 + 1);
    EXPECT_EQ(p.stats.hloDecodeFailures, 6);
    // The six of the metadata plane (the others are the XLA Modules runs that the fixture's ops,
    // which carry no program id, run in: named after random metadata, they are programs too).
    EXPECT_EQ(std::count_if(p.programs.begin(), p.programs.end(),
                  [](const Program& program) { return program.name.starts_with("jit_f"); }),
        6);
    EXPECT_EQ(p.planes[0].peakTflops, 100);
    bool anyAggregated = false, anyXla = false, anyOther = false;
    for (const Track& t : p.tracks)
        anyAggregated |= !t.aggregated.empty();
    for (const OpInfo& op : p.ops)
        (op.isXlaOp ? anyXla : anyOther) = true;
    EXPECT_TRUE(anyAggregated);
    EXPECT_TRUE(anyXla && anyOther);
    for (int threads : {2, 3, 8}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        const LoadResult parallel = loadWithThreads(bytes, threads);
        ASSERT_TRUE(parallel.ok()) << parallel.error;
        expectSameProfile(p, *parallel.profile);
    }
}

// A plane far larger than the others is cut into chunks of lines decoded on several workers
// straight into the line's columns; the ops are numbered afterwards in file order. Every chunk
// size (one event per chunk, sizes that cut aggregated, unknown and malformed events anywhere, one
// chunk per line) must give the sequential decode's profile, op ids included.
TEST(XSpaceParallel, ChunkedPlanesMatchTheSequentialDecode)
{
    const std::string bytes = multiPlaneSpace();
    const LoadResult single = loadWithThreads(bytes, 1);
    ASSERT_TRUE(single.ok()) << single.error;
    EXPECT_GT(single.profile->stats.malformedEvents, 40); // the fixture's skipped events and line
    for (size_t chunkEvents : {size_t(1), size_t(7), size_t(97), size_t(4096), size_t(100000)}) {
        for (int threads : {2, 3}) {
            SCOPED_TRACE("chunks of " + std::to_string(chunkEvents) + " events, threads " + std::to_string(threads));
            DecodeChunkEvents chunking(chunkEvents);
            const uint64_t chunksBefore = xspaceChunksDecoded();
            const LoadResult chunked = loadWithThreads(bytes, threads);
            ASSERT_TRUE(chunked.ok()) << chunked.error;
            // Planes of over two chunks are cut (none is, with chunks of 100000 events).
            if (chunkEvents < 10000)
                EXPECT_GT(xspaceChunksDecoded() - chunksBefore, 2u);
            else
                EXPECT_EQ(xspaceChunksDecoded() - chunksBefore, 0u);
            expectSameProfile(*single.profile, *chunked.profile);
        }
    }
}

// The chunks of a mapped file and of an inflated .gz hand their pages back as they go; a chunk
// must never lose the bytes of its neighbour.
TEST(XSpaceParallel, ChunkedPlanesOfMappedAndGzipFilesMatch)
{
    const std::string bytes = multiPlaneSpace();
    const LoadResult single = loadWithThreads(bytes, 1);
    ASSERT_TRUE(single.ok()) << single.error;
    const std::string dir = tempDir("chunked");
    writeFile(dir + "/space.xplane.pb", bytes);
    writeFile(dir + "/space.xplane.pb.gz", gzipBytes(bytes));
    DecodeThreads threads(2);
    DecodeChunkEvents chunking(5);
    for (const char* name : {"space.xplane.pb", "space.xplane.pb.gz"}) {
        SCOPED_TRACE(name);
        const uint64_t chunksBefore = xspaceChunksDecoded();
        const uint64_t arrivedBefore = xspacePlanesDecodedOnArrival();
        const LoadResult chunked = loadProfile(dir + "/" + name);
        ASSERT_TRUE(chunked.ok()) << chunked.error;
        // A gzip plane that is whole while the rest still inflates is decoded then, in one piece;
        // which planes do depends on the two threads' speeds, not on the answer.
        EXPECT_TRUE(xspaceChunksDecoded() - chunksBefore > 1000u || xspacePlanesDecodedOnArrival() > arrivedBefore);
        expectSameProfile(*single.profile, *chunked.profile);
    }
    std::filesystem::remove_all(dir);
}

// Without the test knob, only a plane larger than its share of the workers is cut: a single-core
// profile is, the fixture (whose largest plane holds less than half the events) is not.
TEST(XSpaceParallel, OnlyAPlaneLargerThanItsShareIsCut)
{
    const std::string many = multiPlaneSpace();
    uint64_t before = xspaceChunksDecoded();
    ASSERT_TRUE(loadWithThreads(many, 2).ok());
    EXPECT_EQ(xspaceChunksDecoded(), before);

    tp::XSpace space;
    tp::XPlane* plane = space.add_planes();
    plane->set_name("/device:TPU:0");
    (*plane->mutable_event_metadata())[1].set_name("fusion.1");
    tp::XLine* line = plane->add_lines();
    line->set_name("XLA Ops");
    line->set_timestamp_ns(1'700'000'000'000'000'000);
    const int events = 600'000; // over two chunks of the default 2^18 events
    for (int j = 0; j < events; ++j) {
        tp::XEvent* e = line->add_events();
        e->set_metadata_id(1);
        e->set_offset_ps(j * 1000);
        e->set_duration_ps(900);
    }
    const std::string one = space.SerializeAsString();
    const LoadResult single = loadWithThreads(one, 1);
    before = xspaceChunksDecoded();
    const LoadResult chunked = loadWithThreads(one, 2);
    ASSERT_TRUE(single.ok() && chunked.ok()) << single.error << chunked.error;
    EXPECT_EQ(xspaceChunksDecoded() - before, 3u);
    expectSameProfile(*single.profile, *chunked.profile);
}

/// Decodes `gz` as the loader does, but with the inflate held `readAhead` bytes ahead of the
/// decoder, so planes arrive while the rest of the file is still being inflated.
std::shared_ptr<const Profile> decodeWhileInflating(const std::string& gz, size_t readAhead, bool& rereadWhole)
{
    InflateStream stream(gz, uint64_t(1) << 30);
    stream.setReadAhead(readAhead);
    std::string error;
    EXPECT_TRUE(stream.start(error)) << error;
    ProfileBuilder builder;
    builder.addHost({});
    error = decodeXSpace(stream.waitFor(1), builder, 0, {}, {}, &stream, &rereadWhole);
    EXPECT_EQ(error, "");
    if (rereadWhole) {
        // Nothing reached the builder: the caller can decode again into it.
        EXPECT_TRUE(builder.profile().planes.empty());
        EXPECT_TRUE(builder.profile().load.warnings.empty());
        return nullptr;
    }
    return builder.finish();
}

std::shared_ptr<const Profile> decodeWhole(const std::string& bytes)
{
    ProfileBuilder builder;
    builder.addHost({});
    EXPECT_EQ(decodeXSpace(bytes, builder, 0, {}, {}), "");
    return builder.finish();
}

// A gzip XSpace is decoded plane by plane as it is inflated (issue 24, point 2). Planes decoded
// before the rest arrived use the origin of what had arrived; the host plane, last but one,
// starts earlier, so they are moved to the final origin. The result is the whole decode's, to
// the picosecond, op ids and malformed counts included (core 2 has a line no time can be
// placed from, events with INT64_MAX durations, aggregated and unknown events).
TEST(XSpaceArrival, PlanesDecodedWhileTheFileInflatesMatchTheWholeDecode)
{
    const std::string bytes = multiPlaneSpace();
    const std::shared_ptr<const Profile> whole = decodeWhole(bytes);
    const std::string gz = gzipBytes(bytes);
    for (int threads : {1, 2}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        DecodeThreads scope(threads);
        const uint64_t before = xspacePlanesDecodedOnArrival();
        bool rereadWhole = true;
        const std::shared_ptr<const Profile> arriving = decodeWhileInflating(gz, 16 << 10, rereadWhole);
        EXPECT_FALSE(rereadWhole);
        ASSERT_TRUE(arriving);
        // Seven planes; the last ones are whole only when the inflate has ended.
        EXPECT_GE(xspacePlanesDecodedOnArrival() - before, 5u);
        expectSameProfile(*whole, *arriving);
    }
}

// Times within reach of the int64 limits could fit one origin and not another, so a plane
// decoded early with such a time is not moved: the decoder gives up before touching the builder
// and the loader inflates the file again and decodes it whole. The user gets the plain file's
// profile either way.
TEST(XSpaceArrival, TimesNearTheInt64LimitsAreDecodedAgainFromTheWholeFile)
{
    tp::XSpace space;
    space.ParseFromString(multiPlaneSpace());
    // An event 2^62 ps (53 days) after its line start on the first plane: valid, and within
    // reach of the limit once the host plane moves the origin earlier.
    tp::XEvent* far = space.mutable_planes(0)->mutable_lines(0)->add_events();
    far->set_metadata_id(1);
    far->set_offset_ps(int64_t(1) << 62);
    far->set_duration_ps(1000);
    const std::string bytes = space.SerializeAsString();
    const std::string gz = gzipBytes(bytes);
    const uint64_t rereadsBefore = xspaceWholeRereads();
    bool rereadWhole = false;
    EXPECT_FALSE(decodeWhileInflating(gz, 16 << 10, rereadWhole));
    EXPECT_TRUE(rereadWhole);
    EXPECT_EQ(xspaceWholeRereads(), rereadsBefore + 1);

    // Through the loader, with the inflate held back the same way: decoded again, same answer.
    const LoadResult plain = loadProfileFromBytes(bytes, "far.xplane.pb");
    ASSERT_TRUE(plain.ok()) << plain.error;
    ScopedEnvironment readAhead("TPUSCOPE_XSPACE_READ_AHEAD", std::to_string(16 << 10));
    const LoadResult again = loadProfileFromBytes(gz, "far.xplane.pb.gz");
    ASSERT_TRUE(again.ok()) << again.error;
    EXPECT_EQ(xspaceWholeRereads(), rereadsBefore + 2);
    expectSameProfile(*plain.profile, *again.profile);
}

// Damage while the planes arrive: the gzip error fails the load as it did when the file was
// inflated first, and a budget exceeded by the planes so far stops the early decoding so the
// whole-file check says what the plain file says.
TEST(XSpaceArrival, DamageAndBudgetReadAsForTheWholeFile)
{
    const std::string bytes = multiPlaneSpace();
    const std::string gz = gzipBytes(bytes);
    ScopedEnvironment readAhead("TPUSCOPE_XSPACE_READ_AHEAD", std::to_string(16 << 10));
    const LoadResult cut = loadProfileFromBytes(gz.substr(0, gz.size() * 2 / 3), "cut.xplane.pb.gz");
    ASSERT_FALSE(cut.ok());
    EXPECT_NE(cut.error.find("the gzip stream is truncated after"), std::string::npos) << cut.error;

    LoadOptions tight;
    tight.maxEvents = 10000;
    const LoadResult plainOver = loadProfileFromBytes(bytes, "over.xplane.pb", tight);
    const LoadResult gzOver = loadProfileFromBytes(gz, "over.xplane.pb.gz", tight);
    ASSERT_FALSE(plainOver.ok());
    ASSERT_FALSE(gzOver.ok());
    const auto withoutName = [](const std::string& error) { return error.substr(error.find(": ")); };
    EXPECT_EQ(withoutName(plainOver.error), withoutName(gzOver.error));
    EXPECT_NE(gzOver.error.find("the XSpace holds 45992 events in 7 planes"), std::string::npos) << gzOver.error;
}

// A plane is decoded on arrival while the inflate has about as much left to do as the plane's
// decode; a plane that is most of what is left (a one-chip profile's) waits for the parallel
// passes. A reader that holds the inflate back decodes every plane on arrival.
TEST(XSpaceArrival, APlaneIsDecodedOnArrivalOnlyWhileTheInflateHasAsMuchLeft)
{
    using xspace::decodingNowPays;
    // Half the input consumed, 100 MB inflated: about 100 MB left.
    EXPECT_TRUE(decodingNowPays(30'000'000, 100'000'000, 0.5, false));
    EXPECT_TRUE(decodingNowPays(100'000'000, 100'000'000, 0.5, false));
    EXPECT_FALSE(decodingNowPays(101'000'000, 100'000'000, 0.5, false));
    // One plane of 240 MB whole with 95 % consumed: 12.6 MB left, so it waits.
    EXPECT_FALSE(decodingNowPays(240'000'000, 240'000'000, 0.95, false));
    EXPECT_FALSE(decodingNowPays(1, 240'000'000, 1.0, false));
    EXPECT_TRUE(decodingNowPays(240'000'000, 240'000'000, 0.95, true)) << "held back by its reader";
}

TEST(XSpaceParallel, RealSampleMatchesSingleThreaded)
{
    for (const char* name : {"tpu_v6e_inference.xplane.pb", "gpu_multiworker.xplane.pb"}) {
        if (!haveSample(name))
            continue;
        SCOPED_TRACE(name);
        const std::string bytes = readFile(samplePath(name));
        const LoadResult single = loadWithThreads(bytes, 1);
        const LoadResult parallel = loadWithThreads(bytes, 2);
        ASSERT_TRUE(single.ok() && parallel.ok()) << single.error << parallel.error;
        expectSameProfile(*single.profile, *parallel.profile);
    }
}

TEST(XSpaceParallel, CancelledDecodeStops)
{
    const std::string bytes = multiPlaneSpace();
    DecodeThreads scope(2);
    std::stop_source source;
    source.request_stop();
    const LoadResult r = loadProfileFromBytes(bytes, "parallel.xplane.pb", {}, {}, source.get_token());
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("cancelled"), std::string::npos) << r.error;
}

// gunzip grows its buffer with the data and never trusts the gzip ISIZE trailer (issue 18: a
// trailer claiming 4 GiB made it allocate that much); members and damage are still handled.
TEST(Gunzip, BufferIgnoresTheTrailerAndHandlesMembersAndDamage)
{
    auto gz = [](const std::string& plain) { return gzipBytes(plain); };
    std::string big, small = "tail member";
    std::mt19937 rnd(3);
    for (int i = 0; i < 200000; ++i)
        big += static_cast<char>('a' + rnd() % 20);
    std::string out, error;
    ASSERT_TRUE(gunzip(gz(big), out, 1ull << 30, error)) << error;
    EXPECT_EQ(out, big);

    ASSERT_TRUE(gunzip(gz(big) + gz(small), out, 1ull << 30, error)) << error;
    EXPECT_EQ(out, big + small);

    std::string damaged = gz(big);
    damaged.replace(damaged.size() - 4, 4, "\xff\xff\xff\x7f"); // ISIZE claims ~2 GiB
    EXPECT_FALSE(gunzip(damaged, out, 1ull << 30, error)); // the CRC/length check fails
    EXPECT_FALSE(error.empty());
    EXPECT_LT(out.size(), 1u << 20); // and nothing near the claimed size was kept
    EXPECT_LT(out.capacity(), 4u << 20); // nor allocated
}
