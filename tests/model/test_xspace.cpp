// SPDX-License-Identifier: GPL-3.0-or-later
// XSpace loader and op breakdown: real samples against independently computed figures,
// hand-built XSpaces for each stat type and edge, and bad input.
#include "decodethreads.h"
#include "testutil.h"

#include "analysis/opbreakdown.h"
#include "analysis/summary.h"
#include "loader/loader.h"
#include "report/report.h"

#include "hlo.pb.h"
#include "xplane.pb.h"

#include <zlib.h>

#include <map>

using namespace tpuscope::model;
using namespace tpuscope::test;
namespace tp = tensorflow::profiler;

namespace {

constexpr const char* kV6e = "tpu_v6e_inference.xplane.pb";
constexpr const char* kGpu = "gpu_multiworker.xplane.pb";

// Builds small XSpaces through the generated schema (the same field numbers the loader walks).
struct PlaneBuilder
{
    tp::XPlane* plane;
    std::map<std::string, int64_t> statIds {};

    int64_t stat(const std::string& name)
    {
        auto it = statIds.find(name);
        if (it != statIds.end())
            return it->second;
        const int64_t id = static_cast<int64_t>(statIds.size()) + 100;
        auto& md = (*plane->mutable_stat_metadata())[id];
        md.set_id(id);
        md.set_name(name);
        statIds[name] = id;
        return id;
    }
    tp::XEventMetadata& metadata(int64_t id, const std::string& name, const std::string& display = {})
    {
        auto& md = (*plane->mutable_event_metadata())[id];
        md.set_id(id);
        md.set_name(name);
        if (!display.empty())
            md.set_display_name(display);
        return md;
    }
    tp::XLine* line(int64_t id, const std::string& name, int64_t timestampNs)
    {
        auto* line = plane->add_lines();
        line->set_id(id);
        line->set_name(name);
        line->set_timestamp_ns(timestampNs);
        return line;
    }
    static tp::XEvent* event(tp::XLine* line, int64_t metadataId, int64_t offsetPs, int64_t durationPs)
    {
        auto* e = line->add_events();
        e->set_metadata_id(metadataId);
        e->set_offset_ps(offsetPs);
        e->set_duration_ps(durationPs);
        return e;
    }
};

LoadResult loadSpace(const tp::XSpace& space, const LoadOptions& options = {})
{
    return loadProfileFromBytes(space.SerializeAsString(), "test.xplane.pb", options);
}

const OpRow* findRow(const OpBreakdown& b, const std::string& name)
{
    for (const auto& row : b.rows)
        if (row.name == name)
            return &row;
    return nullptr;
}

} // namespace

TEST(XSpaceSample, V6eLoadsPlanesLinesEventsAndPeaks)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    LoadResult result = loadProfile(samplePath(kV6e));
    ASSERT_TRUE(result.ok()) << result.error;
    const Profile& p = *result.profile;
    // Plane names and event count as printed by `protoc --decode` (grep -c "events {").
    std::vector<std::string> names;
    for (const auto& plane : p.planes)
        names.push_back(p.str(plane.name));
    EXPECT_EQ(names, (std::vector<std::string>{"/device:TPU:0", "/device:TPU:1", "/device:TPU:2", "/device:TPU:3",
                                               "/host:metadata", "/host:CPU", "Task Environment"}));
    EXPECT_EQ(p.eventCount(), 26723u);
    EXPECT_EQ(p.device.cores, 4);
    EXPECT_EQ(p.device.type, "TPU v6 Lite");
    EXPECT_EQ(p.device.generation, "v6e");
    EXPECT_EQ(p.device.peakSource, PeakSource::PlaneStats);
    EXPECT_DOUBLE_EQ(p.device.peakTflopsPerCore, 918.0);
    EXPECT_NEAR(p.device.peakHbmGbpsPerCore, 1638.0, 1.0);
    EXPECT_EQ(p.programs.size(), 4u);
    for (const auto& program : p.programs)
        EXPECT_NE(program.hlo, nullptr) << program.name;
    // TPU:0 has the runtime's lines, matched by name.
    std::vector<std::string> lines;
    for (TrackId t : p.planes[0].tracks)
        lines.push_back(p.str(p.tracks[t].name));
    for (const char* expected : {"XLA Modules", "XLA Ops", "Async XLA Ops"})
        EXPECT_NE(std::find(lines.begin(), lines.end(), expected), lines.end()) << expected;
    EXPECT_TRUE(p.load.warnings.empty());
}

TEST(XSpaceSample, V6eOpsJoinTheirHloInstruction)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    LoadResult result = loadProfile(samplePath(kV6e));
    ASSERT_TRUE(result.ok()) << result.error;
    const Profile& p = *result.profile;
    int joined = 0, xlaOps = 0;
    for (const auto& op : p.ops) {
        if (!op.isXlaOp)
            continue;
        ++xlaOps;
        if (const auto* instruction = p.instructionFor(op)) {
            ++joined;
            EXPECT_EQ(instruction->name, p.str(op.name));
        }
    }
    EXPECT_GT(xlaOps, 0);
    EXPECT_EQ(joined, xlaOps) << "every XLA op of the sample has its instruction in the embedded HLO";
    // A fusion's long name is the HLO text.
    const auto it = std::find_if(p.ops.begin(), p.ops.end(),
                                 [&](const OpInfo& op) { return p.str(op.name) == "broadcast_add_fusion"; });
    ASSERT_NE(it, p.ops.end());
    EXPECT_NE(p.str(it->longName).find("fusion("), std::string::npos);
    EXPECT_EQ(p.str(it->category), "loop fusion");
}

// tests/data/v6e_ops.golden.csv comes from tests/tools/xspace_golden.py over `protoc --decode`
// text with the tools' own schema: no tpuscope code is involved in the expected numbers (ctest
// golden_tool.v6e_ops keeps the file equal to the tool's output).
TEST(XSpaceSample, V6eOpBreakdownMatchesIndependentComputation)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    LoadResult result = loadProfile(samplePath(kV6e));
    ASSERT_TRUE(result.ok()) << result.error;
    const OpBreakdown breakdown = computeOpBreakdown(*result.profile);
    std::istringstream golden(readFile(dataPath("v6e_ops.golden.csv")));
    std::string line;
    std::getline(golden, line); // header
    size_t rows = 0;
    double totalTime = 0;
    while (std::getline(golden, line)) {
        std::vector<std::string> cells;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ','))
            cells.push_back(cell);
        ASSERT_EQ(cells.size(), 8u) << line;
        ASSERT_LT(rows, breakdown.rows.size());
        const OpRow& row = breakdown.rows[rows];
        EXPECT_EQ(row.program, cells[0]) << line;
        EXPECT_EQ(row.name, cells[1]) << line;
        EXPECT_EQ(row.category, cells[2]) << line;
        EXPECT_EQ(row.occurrences, std::stoll(cells[3])) << line;
        EXPECT_DOUBLE_EQ(row.totalTimePs, std::stod(cells[4])) << line;
        EXPECT_DOUBLE_EQ(row.flops, std::stod(cells[5])) << line;
        EXPECT_DOUBLE_EQ(row.bytesAccessed, std::stod(cells[6])) << line;
        EXPECT_DOUBLE_EQ(row.hbmBytes, std::stod(cells[7])) << line;
        totalTime += std::stod(cells[4]);
        ++rows;
    }
    EXPECT_EQ(rows, breakdown.rows.size());
    // No op nests inside another on the sample's XLA Ops lines, so busy time is the sum.
    EXPECT_DOUBLE_EQ(breakdown.totalTimePs, totalTime);
    double fractions = 0;
    for (const auto& row : breakdown.rows) {
        fractions += row.timeFraction;
        // Rates are over the op's own time, or an async pair's start→done span.
        const double expectedFlops = std::min(1.0, row.flops / (row.rateTimePs * 918.0));
        if (row.asyncPartner.empty() || row.flops == 0) {
            EXPECT_NEAR(row.flopsUtilization.value_or(-1), expectedFlops, 1e-12) << row.name;
        }
        if (row.wastedFraction) {
            EXPECT_NEAR(*row.wastedFraction, row.timeFraction * (1 - row.rooflineEfficiency.value_or(-1)), 1e-12);
        }
    }
    EXPECT_NEAR(fractions, 1.0, 1e-9);
}

TEST(XSpaceSample, V6eCategoryAndProgramGroupingsAddUp)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    LoadResult result = loadProfile(samplePath(kV6e));
    ASSERT_TRUE(result.ok());
    const auto byOp = computeOpBreakdown(*result.profile);
    for (GroupBy g : {GroupBy::Category, GroupBy::Program}) {
        const auto grouped = computeOpBreakdown(*result.profile, {}, g);
        double time = 0, occurrences = 0;
        for (const auto& row : grouped.rows) {
            time += row.totalTimePs;
            occurrences += static_cast<double>(row.occurrences);
        }
        double opTime = 0, opOccurrences = 0;
        for (const auto& row : byOp.rows) {
            opTime += row.totalTimePs;
            opOccurrences += static_cast<double>(row.occurrences);
        }
        EXPECT_DOUBLE_EQ(time, opTime);
        EXPECT_DOUBLE_EQ(occurrences, opOccurrences);
    }
    const auto categories = computeOpBreakdown(*result.profile, {}, GroupBy::Category);
    ASSERT_FALSE(categories.rows.empty());
    EXPECT_EQ(categories.rows.front().name, "copy-done");
}

TEST(XSpaceSample, V6eSingleCoreFilter)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    LoadResult result = loadProfile(samplePath(kV6e));
    ASSERT_TRUE(result.ok());
    double perCore = 0;
    for (int core = 0; core < 4; ++core) {
        OpFilter filter;
        filter.core = core;
        const auto b = computeOpBreakdown(*result.profile, filter);
        EXPECT_EQ(b.coresCounted, 1);
        perCore += b.totalTimePs;
    }
    EXPECT_DOUBLE_EQ(perCore, computeOpBreakdown(*result.profile).totalTimePs);
}

TEST(XSpaceSample, GpuFileOpensWithoutTpuOps)
{
    TPUSCOPE_REQUIRE_SAMPLE(kGpu);
    LoadResult result = loadProfile(samplePath(kGpu));
    ASSERT_TRUE(result.ok()) << result.error;
    const Profile& p = *result.profile;
    EXPECT_EQ(p.eventCount(), 23128u); // grep -c "events {" over protoc --decode
    EXPECT_EQ(p.planes.size(), 9u);
    EXPECT_FALSE(p.hasTpuOps());
    EXPECT_EQ(p.device.cores, 0);
    const auto summary = computeSummary(p);
    EXPECT_FALSE(summary.hasTpuOps);
    EXPECT_NE(summary.message.find("no TPU op data"), std::string::npos);
    EXPECT_NE(summary.message.find("8 GPU"), std::string::npos);
    EXPECT_TRUE(computeOpBreakdown(p).rows.empty());
}

TEST(XSpaceSample, GzipCompressedLoadsTheSame)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    const std::string dir = tempDir("gz");
    writeFile(dir + "/v6e.xplane.pb.gz", gzipBytes(readFile(samplePath(kV6e))));
    LoadResult gz = loadProfile(dir + "/v6e.xplane.pb.gz");
    ASSERT_TRUE(gz.ok()) << gz.error;
    EXPECT_EQ(gz.profile->load.format, "xspace.gz");
    EXPECT_EQ(gz.profile->eventCount(), 26723u);
    EXPECT_DOUBLE_EQ(computeOpBreakdown(*gz.profile).totalTimePs,
                     computeOpBreakdown(*loadProfile(samplePath(kV6e)).profile).totalTimePs);
}

TEST(XSpaceBadInput, TruncatedFileGivesClearError)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    const std::string bytes = readFile(samplePath(kV6e));
    for (size_t cut : {size_t(10), bytes.size() / 3, bytes.size() - 7}) {
        LoadResult r = loadProfileFromBytes(bytes.substr(0, cut), "cut.xplane.pb");
        if (r.ok()) {
            // What was read before the damage is shown, with a warning that says where it stopped.
            ASSERT_FALSE(r.profile->load.warnings.empty()) << "cut at " << cut;
            EXPECT_NE(r.profile->load.warnings.front().find("truncated"), std::string::npos);
        } else {
            EXPECT_NE(r.error.find("truncated"), std::string::npos) << r.error;
            EXPECT_NE(r.error.find("offset"), std::string::npos) << r.error;
        }
    }
}

TEST(XSpaceBadInput, EveryPrefixIsHandled)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    const std::string bytes = readFile(samplePath(kV6e)).substr(0, 20000);
    for (size_t cut = 0; cut < bytes.size(); cut += 97) {
        LoadResult r = loadProfileFromBytes(bytes.substr(0, cut), "prefix.xplane.pb");
        EXPECT_TRUE(r.ok() || !r.error.empty());
    }
}

TEST(XSpaceBadInput, NonProfileAndEmptyFiles)
{
    const std::string dir = tempDir("bad");
    writeFile(dir + "/notes.txt", "hello, this is not a profile\n");
    LoadResult text = loadProfile(dir + "/notes.txt");
    EXPECT_FALSE(text.ok());
    EXPECT_NE(text.error.find("not a profile"), std::string::npos) << text.error;
    writeFile(dir + "/empty.pb", "");
    EXPECT_NE(loadProfile(dir + "/empty.pb").error.find("empty"), std::string::npos);
    EXPECT_NE(loadProfile(dir + "/missing.pb").error.find("cannot open"), std::string::npos);
    EXPECT_FALSE(loadProfile(dir).ok());
    std::string noise(4096, '\0');
    for (size_t i = 0; i < noise.size(); ++i)
        noise[i] = static_cast<char>((i * 2654435761u) >> 13);
    EXPECT_FALSE(loadProfileFromBytes(noise, "noise.pb").ok());
}

TEST(XSpaceBadInput, CorruptAndOversizedGzip)
{
    TPUSCOPE_REQUIRE_SAMPLE(kV6e);
    std::string gz = gzipBytes(readFile(samplePath(kV6e)));
    LoadOptions small;
    small.maxDecompressedBytes = 100000;
    LoadResult bomb = loadProfileFromBytes(gz, "bomb.xplane.pb.gz", small);
    EXPECT_FALSE(bomb.ok());
    EXPECT_NE(bomb.error.find("exceeds the limit"), std::string::npos) << bomb.error;
    LoadResult truncated = loadProfileFromBytes(gz.substr(0, gz.size() / 2), "half.xplane.pb.gz");
    EXPECT_FALSE(truncated.ok());
    EXPECT_NE(truncated.error.find("truncated"), std::string::npos) << truncated.error;
    gz[gz.size() / 2] ^= 0x5a;
    gz[gz.size() / 2 + 1] ^= 0x33;
    LoadResult corrupt = loadProfileFromBytes(gz, "corrupt.xplane.pb.gz");
    EXPECT_FALSE(corrupt.ok());
}

TEST(XSpaceStats, ValuesAreReadByNameWhateverTheirType)
{
    tp::XSpace space;
    PlaneBuilder tpu{space.add_planes()};
    tpu.plane->set_id(2);
    tpu.plane->set_name("/device:TPU:0");
    auto* s = tpu.plane->add_stats();
    s->set_metadata_id(tpu.stat("peak_teraflops_per_second"));
    s->set_double_value(197);
    s = tpu.plane->add_stats();
    s->set_metadata_id(tpu.stat("peak_hbm_bw_gigabytes_per_second"));
    s->set_uint64_value(819); // not a double: must still be read
    s = tpu.plane->add_stats();
    s->set_metadata_id(tpu.stat("device_type_string"));
    s->set_str_value("TPU v5 lite");

    auto& fusion = tpu.metadata(1, "%fusion.1 = f32[8,128]{1,0:T(8,128)} fusion(...)", "fusion.1");
    auto* st = fusion.add_stats();
    st->set_metadata_id(tpu.stat("flops"));
    st->set_int64_value(1'000'000);
    st = fusion.add_stats();
    st->set_metadata_id(tpu.stat("bytes_accessed"));
    st->set_uint64_value(4096);
    st = fusion.add_stats();
    st->set_metadata_id(tpu.stat("hlo_category"));
    // A ref value names another stat metadata whose name is the string.
    st->set_ref_value(tpu.stat("output fusion"));
    st = fusion.add_stats();
    st->set_metadata_id(tpu.stat("program_id"));
    st->set_str_value("42");
    tp::MemoryAccessBreakdown breakdown;
    auto* hbmRead = breakdown.add_memory_accessed();
    hbmRead->set_operation_type(1);
    hbmRead->set_memory_space(1);
    hbmRead->set_bytes_accessed(3000);
    auto* vmem = breakdown.add_memory_accessed();
    vmem->set_memory_space(3);
    vmem->set_bytes_accessed(999);
    st = fusion.add_stats();
    st->set_metadata_id(tpu.stat("memory_access_breakdown"));
    st->set_bytes_value(breakdown.SerializeAsString());

    auto* ops = tpu.line(3, "XLA Ops", 1'000'000);
    PlaneBuilder::event(ops, 1, 0, 2'000'000);
    PlaneBuilder::event(ops, 1, 5'000'000, 3'000'000);
    LoadResult r = loadSpace(space);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    EXPECT_EQ(p.device.generation, "v5e");
    EXPECT_DOUBLE_EQ(p.device.peakTflopsPerCore, 197);
    EXPECT_DOUBLE_EQ(p.device.peakHbmGbpsPerCore, 819);
    const auto b = computeOpBreakdown(p);
    ASSERT_EQ(b.rows.size(), 1u);
    const OpRow& row = b.rows[0];
    EXPECT_EQ(row.name, "fusion.1");
    EXPECT_EQ(row.category, "output fusion");
    EXPECT_EQ(row.program, "program 42");
    EXPECT_EQ(row.occurrences, 2);
    EXPECT_DOUBLE_EQ(row.totalTimePs, 5e6);
    EXPECT_DOUBLE_EQ(row.flops, 2'000'000);
    EXPECT_DOUBLE_EQ(row.bytesAccessed, 8192);
    EXPECT_DOUBLE_EQ(row.hbmBytes, 6000); // only memory_space 1 counts as HBM
    EXPECT_TRUE(row.hbmFromBreakdown);
    EXPECT_NEAR(row.flopsUtilization.value_or(-1), 2e6 / (5e6 * 197.0), 1e-15);
    EXPECT_NEAR(row.hbmUtilization.value_or(-1), 6000 * 1000.0 / (5e6 * 819.0), 1e-15);
}

TEST(XSpaceTime, NestingGivesSelfTimeAndDeviceTimespanWins)
{
    tp::XSpace space;
    PlaneBuilder tpu{space.add_planes()};
    tpu.plane->set_name("/device:TPU:0");
    tpu.metadata(1, "while.1");
    tpu.metadata(2, "fusion.2");
    auto* ops = tpu.line(3, "XLA Ops", 2'000'000'000);
    // Children listed before the parent: the loader sorts and nests.
    PlaneBuilder::event(ops, 2, 1000, 2000);
    PlaneBuilder::event(ops, 2, 4000, 1000);
    PlaneBuilder::event(ops, 1, 0, 10000);
    auto* e = PlaneBuilder::event(ops, 2, 20000, 999);
    auto* st = e->add_stats();
    st->set_metadata_id(tpu.stat("device_offset_ps"));
    st->set_uint64_value(21000);
    st = e->add_stats();
    st->set_metadata_id(tpu.stat("device_duration_ps"));
    st->set_uint64_value(500);
    LoadResult r = loadSpace(space);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    const Track& track = p.tracks[p.planes[0].tracks[0]];
    ASSERT_EQ(track.size(), 4u);
    EXPECT_EQ(track.depth, (std::vector<uint16_t>{0, 1, 1, 0}));
    EXPECT_EQ(track.start[3], 21000); // device timespan replaces offset and duration
    EXPECT_EQ(track.duration[3], 500);
    const auto b = computeOpBreakdown(p);
    const OpRow* loop = findRow(b, "while.1");
    const OpRow* fusion = findRow(b, "fusion.2");
    ASSERT_TRUE(loop && fusion);
    EXPECT_DOUBLE_EQ(loop->totalTimePs, 10000);
    EXPECT_DOUBLE_EQ(loop->selfTimePs, 7000);
    EXPECT_DOUBLE_EQ(fusion->totalTimePs, 3500);
    EXPECT_EQ(fusion->occurrences, 3);
    EXPECT_DOUBLE_EQ(b.totalTimePs, 7000 + 3500);
    EXPECT_EQ(p.originNs, 2'000'000'000);
}

// Event stats are read only on planes whose stat metadata gives one a meaning for the timeline
// (a device offset or duration): ids are per plane, so the ids that are a device span on one
// plane are plain stats on another, and the span of its events stays their own.
TEST(XSpaceTime, TheDeviceSpanOfOnePlaneLeavesAnotherPlanesEventsAlone)
{
    tp::XSpace space;
    PlaneBuilder withSpan {space.add_planes()};
    withSpan.plane->set_name("/device:TPU:0");
    withSpan.metadata(1, "fusion.1");
    PlaneBuilder without {space.add_planes()};
    without.plane->set_name("/device:TPU:1");
    without.metadata(1, "fusion.1");
    const int64_t offsetId = withSpan.stat("device_offset_ps");
    const int64_t durationId = withSpan.stat("device_duration_ps");
    ASSERT_EQ(without.stat("flops"), offsetId); // the same ids, other meanings
    ASSERT_EQ(without.stat("group_id"), durationId);
    for (PlaneBuilder* plane : {&withSpan, &without}) {
        auto* ops = plane->line(1, "XLA Ops", 1'000'000);
        auto* e = PlaneBuilder::event(ops, 1, 1000, 2000);
        auto* st = e->add_stats();
        st->set_metadata_id(offsetId);
        st->set_uint64_value(5000);
        st = e->add_stats();
        st->set_metadata_id(durationId);
        st->set_int64_value(700);
        PlaneBuilder::event(ops, 1, 10'000, 300)->add_stats()->set_metadata_id(offsetId); // zero value
    }
    for (const int threads : {1, 2}) {
        const tpuscope::test::DecodeThreads decodeThreads(threads);
        LoadResult r = loadSpace(space);
        ASSERT_TRUE(r.ok()) << r.error;
        const Profile& p = *r.profile;
        ASSERT_EQ(p.planes.size(), 2u);
        const Track& spanned = p.tracks[p.planes[0].tracks[0]];
        const Track& own = p.tracks[p.planes[1].tracks[0]];
        ASSERT_EQ(spanned.size(), 2u);
        ASSERT_EQ(own.size(), 2u);
        EXPECT_EQ(spanned.start[0], 5000); // the device span, as xprof takes it
        EXPECT_EQ(spanned.duration[0], 700);
        EXPECT_EQ(own.start[0], 1000);
        EXPECT_EQ(own.duration[0], 2000);
        EXPECT_EQ(own.start[1], 10'000);
        EXPECT_EQ(own.duration[1], 300);
    }
}

TEST(XSpaceTime, AggregatedEventsAndLinesOfDifferentStarts)
{
    tp::XSpace space;
    PlaneBuilder tpu{space.add_planes()};
    tpu.plane->set_name("/device:TPU:0");
    tpu.metadata(1, "convolution.3");
    auto* ops = tpu.line(3, "XLA Ops", 1'700'000'000'000'000'000); // ns since epoch
    auto* aggregated = ops->add_events();
    aggregated->set_metadata_id(1);
    aggregated->set_num_occurrences(7);
    aggregated->set_duration_ps(7000);
    PlaneBuilder::event(ops, 1, 0, 100);
    auto* steps = tpu.line(1, "Steps", 1'700'000'000'000'000'005);
    tpu.metadata(9, "step 0");
    PlaneBuilder::event(steps, 9, 0, 50);
    LoadResult r = loadSpace(space);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    EXPECT_EQ(p.stats.aggregatedEvents, 1);
    const auto b = computeOpBreakdown(p);
    ASSERT_EQ(b.rows.size(), 1u);
    EXPECT_EQ(b.rows[0].occurrences, 8);
    EXPECT_DOUBLE_EQ(b.rows[0].totalTimePs, 7100);
    // Times are relative to the earliest line: no 64-bit overflow from ns-since-epoch × 1000.
    const Track& stepTrack = p.tracks[p.planes[0].tracks[1]];
    EXPECT_EQ(stepTrack.start[0], 5000);
    EXPECT_EQ(p.spanBegin, 0);
    EXPECT_EQ(p.spanEnd, 5050);
}

TEST(XSpaceSchema, UnknownFieldsAreSkipped)
{
    tp::XSpace space;
    PlaneBuilder tpu{space.add_planes()};
    tpu.plane->set_name("/device:TPU:0");
    tpu.metadata(1, "fusion.9");
    auto* ops = tpu.line(3, "XLA Ops", 1);
    PlaneBuilder::event(ops, 1, 0, 10);
    // Fields from newer schemas: unknown varint, fixed64, fixed32 and nested message fields.
    auto* unknown = tpu.plane->GetReflection()->MutableUnknownFields(tpu.plane);
    unknown->AddVarint(77, 123);
    unknown->AddFixed64(78, 42);
    unknown->AddFixed32(79, 7);
    unknown->AddLengthDelimited(80, "nested bytes");
    ops->mutable_events(0)->GetReflection()->MutableUnknownFields(ops->mutable_events(0))->AddVarint(99, 5);
    space.GetReflection()->MutableUnknownFields(&space)->AddLengthDelimited(55, "top-level extra");
    LoadResult r = loadSpace(space);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(computeOpBreakdown(*r.profile).rows.size(), 1u);
}

TEST(XSpaceHlo, ProgramsJoinByIdAndInstructionName)
{
    tp::XSpace space;
    PlaneBuilder tpu{space.add_planes()};
    tpu.plane->set_name("/device:TPU:0");
    const uint64_t programId = 12190760917235803885ull; // > INT64_MAX, stored as a negative key
    auto& md = tpu.metadata(1, "fusion.3");
    auto* st = md.add_stats();
    st->set_metadata_id(tpu.stat("program_id"));
    st->set_uint64_value(programId);
    PlaneBuilder::event(tpu.line(3, "XLA Ops", 1), 1, 0, 10);

    xla::HloProto hlo;
    auto* module = hlo.mutable_hlo_module();
    module->set_name("jit_train_step");
    auto* fused = module->add_computations();
    fused->set_id(1);
    fused->set_name("fused_computation.3");
    auto* conv = fused->add_instructions();
    conv->set_id(10);
    conv->set_name("convolution.1");
    conv->set_opcode("convolution");
    auto* entry = module->add_computations();
    entry->set_id(2);
    entry->set_name("main");
    auto* fusionInstruction = entry->add_instructions();
    fusionInstruction->set_id(20);
    fusionInstruction->set_name("fusion.3");
    fusionInstruction->set_opcode("fusion");
    fusionInstruction->set_fusion_kind("kOutput");
    fusionInstruction->add_called_computation_ids(1);
    auto* shape = fusionInstruction->mutable_shape();
    shape->set_element_type(xla::F32);
    shape->add_dimensions(16);
    shape->add_dimensions(1);
    shape->mutable_layout()->add_minor_to_major(0);
    shape->mutable_layout()->add_minor_to_major(1);
    auto* tile = shape->mutable_layout()->add_tiles();
    tile->add_dimensions(8);
    tile->add_dimensions(128);

    PlaneBuilder meta{space.add_planes()};
    meta.plane->set_name("/host:metadata");
    auto& program = meta.metadata(static_cast<int64_t>(programId), "jit_train_step(12190760917235803885)");
    st = program.add_stats();
    st->set_metadata_id(meta.stat("HLO Proto")); // the legacy stat name
    st->set_bytes_value(hlo.SerializeAsString());
    meta.metadata(5, "XLA_HLO_MODULE_ID_MAP:5"); // entries without HLO are skipped

    LoadResult r = loadSpace(space);
    ASSERT_TRUE(r.ok()) << r.error;
    const Profile& p = *r.profile;
    ASSERT_EQ(p.programs.size(), 1u);
    EXPECT_EQ(p.programs[0].id, programId);
    const OpInfo& op = p.ops[p.tracks[p.planes[0].tracks[0]].op[0]];
    const auto* instruction = p.instructionFor(op);
    ASSERT_NE(instruction, nullptr);
    EXPECT_EQ(instruction->fusionKind, "kOutput");
    EXPECT_EQ(hlo::shapeToString(instruction->shape), "f32[16,1]{0,1:T(8,128)}");
    // No hlo_category stat: the category comes from the HLO (xprof's base rule).
    EXPECT_EQ(p.str(op.category), "output fusion");
    EXPECT_EQ(computeOpBreakdown(p).rows[0].program, "jit_train_step");
}

TEST(XSpaceHlo, UndecodableHloIsAWarningNotAFailure)
{
    tp::XSpace space;
    PlaneBuilder tpu{space.add_planes()};
    tpu.plane->set_name("/device:TPU:0");
    tpu.metadata(1, "fusion.1");
    PlaneBuilder::event(tpu.line(3, "XLA Ops", 1), 1, 0, 10);
    PlaneBuilder meta{space.add_planes()};
    meta.plane->set_name("/host:metadata");
    auto* st = meta.metadata(7, "jit_f(7)").add_stats();
    st->set_metadata_id(meta.stat("Hlo Proto"));
    st->set_bytes_value(std::string("\xff\xff\xff\xff garbage", 12));
    LoadResult r = loadSpace(space);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.profile->stats.hloDecodeFailures, 1);
    ASSERT_FALSE(r.profile->load.warnings.empty());
}

TEST(XSpaceDevice, UserChoiceAndGenerationTable)
{
    tp::XSpace space;
    PlaneBuilder tpu{space.add_planes()};
    tpu.plane->set_name("/device:TPU:0");
    tpu.metadata(1, "fusion.1");
    PlaneBuilder::event(tpu.line(3, "XLA Ops", 1), 1, 0, 10);
    LoadResult unknown = loadSpace(space);
    ASSERT_TRUE(unknown.ok());
    EXPECT_EQ(unknown.profile->device.peakSource, PeakSource::None);
    EXPECT_NE(unknown.profile->device.peakNote.find("--device"), std::string::npos);
    LoadOptions options;
    options.deviceOverride = "v4";
    LoadResult chosen = loadSpace(space, options);
    EXPECT_EQ(chosen.profile->device.peakSource, PeakSource::UserChoice);
    EXPECT_DOUBLE_EQ(chosen.profile->device.peakTflopsPerCore, 137.5);
    auto* s = tpu.plane->add_stats();
    s->set_metadata_id(tpu.stat("device_type_string"));
    s->set_str_value("TPU v4");
    LoadResult table = loadSpace(space);
    EXPECT_EQ(table.profile->device.peakSource, PeakSource::GenerationTable);
    EXPECT_DOUBLE_EQ(table.profile->device.peakHbmGbpsPerCore, 600);
}

TEST(XSpacePlanes, KindsFromNames)
{
    tp::XSpace space;
    for (const char* name : {"/device:TPU:3", "/device:TPU:0 SparseCore 1", "#Chip TPU Non-Core HBM", "/host:CPU",
                             "/device:GPU:2", "/host:metadata", "Task Environment"})
        space.add_planes()->set_name(name);
    LoadResult r = loadSpace(space);
    ASSERT_TRUE(r.ok()) << r.error;
    const auto& planes = r.profile->planes;
    EXPECT_EQ(planes[0].kind, PlaneKind::TpuCore);
    EXPECT_EQ(planes[0].coreIndex, 3);
    EXPECT_EQ(planes[1].kind, PlaneKind::TpuNonCore);
    EXPECT_EQ(planes[2].kind, PlaneKind::TpuNonCore);
    EXPECT_EQ(planes[3].kind, PlaneKind::Host);
    EXPECT_EQ(planes[4].kind, PlaneKind::Gpu);
    EXPECT_EQ(planes[5].kind, PlaneKind::Metadata);
    EXPECT_EQ(planes[6].kind, PlaneKind::Other);
    EXPECT_EQ(r.profile->device.cores, 1);
}
