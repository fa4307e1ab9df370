// SPDX-License-Identifier: GPL-3.0-or-later
// Inputs found by the fuzz targets (tests/fuzz) that crashed, hung or hit undefined behaviour,
// embedded byte for byte. Most of these only fail loudly in the sanitizer build (build-asan in
// .ci/run); in the normal build they still check that the load ends with a profile or a message.
#include "analysis/profileanalysis.h"
#include "analysis/layout.h"
#include "loader/gzip.h"
#include "loader/hloconvert.h"
#include "loader/loader.h"
#include "share/sharefile.h"
#include "synth/synth.h"

#include "hlo.pb.h"
#include "xplane.pb.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

using namespace tpuscope::model;

namespace {

LoadResult loadBytes(const std::string& bytes, const std::string& name)
{
    LoadOptions options;
    options.maxDecompressedBytes = 64ull << 20;
    return loadProfileFromBytes(bytes, name, options);
}

} // namespace

// fuzz_chromejson: an event whose name is missing ("" key instead) hashed an empty string_view
// with a null data() through memcpy (UBSan: null pointer passed as argument 2).
TEST(FuzzRegressions, ChromeJsonEventWithoutName)
{
    const std::string bytes = R"([{"ph":"X","":0,"ts":0,"dur":1}])";
    const LoadResult result = loadBytes(bytes, "crash-1109b4e3.json");
    EXPECT_TRUE(result.ok() || !result.error.empty());
    if (result.ok()) {
        EXPECT_EQ(result.profile->load.format, "chrome-json");
    }
}

// fuzz_legacytrace (detected as XSpace) and fuzz_logdir: a line timestamp ~1e18 ns from the origin
// overflowed int64 when converted to picoseconds (UBSan: signed integer overflow in the XSpace
// loader). Such lines are now counted as malformed instead.
TEST(FuzzRegressions, XSpaceLineTimestampOverflow)
{
    const std::string bytes("\x0a\x23\x08\x09\x1a\x1f\x0a\x0a\x52\x50\x55\xe9\x53\x08\x02\x1a"
                            "\x0b\x0a\x19\x00\x1a\x0b\x0a\x00\x01\x3f\xf7\x07\x50\x90\xb5\x18"
                            "\x5e\x6f\x72\x79\x1a\x0b\x0a\x00\x01\x3f\x01\x3f\xf7\x07\x50\x90"
                            "\xb5\x18\x5e\x6f\x72\x79\x1a\x0b\x0a\x00\x01\x3f\xf7\x07\x50\x80"
                            "\xb5\x18\x5a\x6f\x72\x79",
        70);
    const LoadResult result = loadBytes(bytes, "crash-fddf5634.xplane.pb");
    EXPECT_TRUE(result.ok() || !result.error.empty());
}

// fuzz_layout: a zero-size dimension merged into the next one by a '*' tile divided by zero in
// the padding math.
TEST(FuzzRegressions, LayoutZeroSizeCombinedDim)
{
    const layout::ShapeParseResult parsed = layout::parseShape("bf16[16,0]{0,1:T(*,1)}");
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    const layout::PaddingInfo info = layout::computePadding(parsed.shape);
    EXPECT_EQ(info.logicalElements, 0);
}

// fuzz_sharefile: numbers far outside the integer range (1.28667e+33 as a dimension) were cast
// from double to int64 (UBSan: outside the range of representable values). The share reader now
// clamps; the file still loads.
TEST(FuzzRegressions, ShareFileHugeNumbers)
{
    SynthOptions synth;
    std::string error, xspace;
    ASSERT_TRUE(parseSynthScenario("bench:40", synth, error)) << error;
    ASSERT_TRUE(syntheticXSpaceBytes(synth, xspace, error)) << error;
    const LoadResult source = loadBytes(xspace, "bench.xplane.pb");
    ASSERT_TRUE(source.ok()) << source.error;
    const ShareResult share = buildShareFile(*buildProfileAnalysis(source.profile));
    ASSERT_TRUE(share.ok()) << share.error;
    std::string json = std::regex_replace(share.json, std::regex(R"("d":\[)"), R"("d":[1.28667e+33,-1e300,)");
    json = std::regex_replace(json, std::regex(R"("occurrences":)"), R"("occurrences":1e300,"x":)");
    // fuzz_sharefile, second find: an idle span of ~1e111 ps overflowed the event times built from it.
    json = std::regex_replace(json, std::regex(R"("span_ps":)"), R"("span_ps":1.97e111,"x":)");
    json = std::regex_replace(json, std::regex(R"("offset_ps":)"), R"("offset_ps":9e18,"y":)");
    ASSERT_NE(json, share.json);

    std::string gz;
    ASSERT_TRUE(gzipCompress(json, gz, error, 6)) << error;
    const std::string file = std::string(kShareMagic) + " " + std::to_string(kShareVersion) + "\n" + gz;
    const LoadResult result = loadBytes(file, "crash-0829d17b.tpuscope");
    EXPECT_TRUE(result.ok() || !result.error.empty());
}

// Protobuf nesting: an HloProto whose instruction shape is a tuple nested 100 levels deep is
// refused by libprotobuf's recursion limit (64) with a message that names it, not a stack overflow.
TEST(HostileInput, DeeplyNestedHloProtoIsRefusedWithAClearMessage)
{
    xla::HloProto proto;
    xla::ShapeProto* shape = proto.mutable_hlo_module()->add_computations()->add_instructions()->mutable_shape();
    for (int i = 0; i < 100; ++i)
        shape = shape->add_tuple_shapes();
    std::string error;
    EXPECT_EQ(decodeHloProto(proto.SerializeAsString(), error), nullptr);
    EXPECT_NE(error.find("nested deeper than 64 levels"), std::string::npos) << error;

    xla::HloProto shallow;
    shallow.mutable_hlo_module()->set_name("m");
    error.clear();
    EXPECT_NE(decodeHloProto(shallow.SerializeAsString(), error), nullptr) << error;
}

// fuzz_chromejson_gz (2026-11-30): a sort_index of 1.1e34 was converted to int (UBSan:
// "outside the range of representable values of type 'int'").
TEST(FuzzRegressions, ChromeJsonHugeSortIndex)
{
    const std::string bytes = R"([{"ph":"M","pid":1,"name":"process_sort_index","args":{"sort_index":1.11111e34}},)"
                              R"({"ph":"M","pid":1,"tid":2,"name":"thread_sort_index","args":{"sort_index":-1e300}},)"
                              R"({"ph":"X","pid":1,"tid":2,"ts":1,"dur":2,"name":"a"}])";
    const LoadResult result = loadBytes(bytes, "crash-23851288.json");
    ASSERT_TRUE(result.ok()) << result.error;
    EXPECT_EQ(result.profile->planes.front().sortIndex, INT32_MAX);
}

// fuzz_xspace (2026-11-30): a device_offset_ps stat stored as the double -1.87e12 was converted
// to uint64 (UBSan: "outside the range of representable values of type 'unsigned long'").
TEST(FuzzRegressions, XSpaceNegativeDoubleStatReadAsUnsigned)
{
    tensorflow::profiler::XSpace space;
    auto* plane = space.add_planes();
    plane->set_id(1);
    plane->set_name("/device:TPU:0");
    auto& stat = (*plane->mutable_stat_metadata())[1];
    stat.set_id(1);
    stat.set_name("device_offset_ps");
    auto& meta = (*plane->mutable_event_metadata())[1];
    meta.set_id(1);
    meta.set_name("fusion.1");
    auto* line = plane->add_lines();
    line->set_name("XLA Ops");
    line->set_timestamp_ns(1000);
    auto* event = line->add_events();
    event->set_metadata_id(1);
    event->set_offset_ps(10);
    event->set_duration_ps(100);
    auto* value = event->add_stats();
    value->set_metadata_id(1);
    value->set_double_value(-1.87054e12);
    const LoadResult result = loadBytes(space.SerializeAsString(), "crash-aea499d0.xplane.pb");
    ASSERT_TRUE(result.ok()) << result.error;
    EXPECT_EQ(result.profile->eventCount(), 1u);
}
