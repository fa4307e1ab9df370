// SPDX-License-Identifier: GPL-3.0-or-later
// TF1 `trace` files, written with the generated protobuf code for the legacy schema.
#include "analysis/opbreakdown.h"
#include "legacy_trace.pb.h"
#include "loader/formats.h"
#include "loader/loader.h"
#include "testutil.h"
#include "xplane.pb.h"

#include <gtest/gtest.h>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

tpuscope::legacy::Trace sampleTrace(const std::string& deviceName = "TPU Core 0")
{
    tpuscope::legacy::Trace trace;
    auto& device = (*trace.mutable_devices())[1];
    device.set_name(deviceName);
    device.set_device_id(1);
    auto& ops = (*device.mutable_resources())[2];
    ops.set_name("XLA Ops");
    ops.set_resource_id(2);
    auto& steps = (*device.mutable_resources())[1];
    steps.set_name("Steps");
    steps.set_resource_id(1);
    auto& host = (*trace.mutable_devices())[7];
    host.set_name("/host:CPU");
    host.set_device_id(7);
    (*host.mutable_resources())[5].set_name("python");

    auto add = [&](uint32_t dev, uint32_t res, const char* name, uint64_t ts, uint64_t dur) {
        auto* e = trace.add_trace_events();
        e->set_device_id(dev);
        e->set_resource_id(res);
        e->set_name(name);
        e->set_timestamp_ps(ts);
        e->set_duration_ps(dur);
        return e;
    };
    add(1, 1, "step 0", 0, 1000000);
    auto* f = add(1, 2, "fusion.1", 1000, 400000);
    (*f->mutable_args())["hlo_category"] = "loop fusion";
    (*f->mutable_args())["flops"] = "2000";
    add(1, 2, "fusion.1", 500000, 300000)->mutable_args()->insert({"hlo_category", "loop fusion"});
    add(1, 2, "copy.2", 900000, 50000);
    add(7, 5, "Session::Run", 0, 990000);
    add(9, 3, "orphan", 10, 0); // device and resource not declared
    return trace;
}

} // namespace

TEST(LegacyTrace, LoadsDevicesResourcesAndEvents)
{
    const std::string bytes = sampleTrace().SerializeAsString();
    EXPECT_EQ(detectFormat(bytes), FileFormat::LegacyTrace);
    LoadResult result = loadProfileFromBytes(bytes, "trace");
    ASSERT_TRUE(result.ok()) << result.error;
    const Profile& p = *result.profile;
    EXPECT_EQ(p.load.format, "legacy-trace");
    ASSERT_EQ(p.planes.size(), 3u);
    EXPECT_EQ(p.str(p.planes[0].name), "TPU Core 0");
    EXPECT_EQ(p.planes[0].kind, PlaneKind::TpuCore);
    EXPECT_EQ(p.planes[1].kind, PlaneKind::Host);
    EXPECT_EQ(p.str(p.planes[2].name), "device 9");
    EXPECT_EQ(p.device.cores, 1);
    EXPECT_EQ(p.eventCount(), 6u);
    EXPECT_EQ(p.spanEnd, 1000000);

    const OpBreakdown b = computeOpBreakdown(p);
    ASSERT_EQ(b.rows.size(), 2u);
    EXPECT_EQ(b.rows[0].name, "fusion.1");
    EXPECT_EQ(b.rows[0].category, "loop fusion");
    EXPECT_EQ(b.rows[0].occurrences, 2);
    EXPECT_EQ(b.rows[0].totalTimePs, 700000);
    EXPECT_EQ(b.rows[1].name, "copy.2");
    EXPECT_EQ(b.totalTimePs, 750000);
    bool steps = false;
    for (const auto& t : p.tracks)
        steps = steps || (t.kind == TrackKind::Steps && t.size() == 1);
    EXPECT_TRUE(steps);
}

TEST(LegacyTrace, JobDeviceNamesBecomeTpuPlanes)
{
    tpuscope::legacy::Trace trace = sampleTrace("/job:tpu_worker/replica:0/task:0/device:TPU:3");
    LoadResult result = loadProfileFromBytes(trace.SerializeAsString(), "host.trace");
    ASSERT_TRUE(result.ok()) << result.error;
    const Profile& p = *result.profile;
    EXPECT_EQ(p.str(p.planes[0].name), "/device:TPU:3");
    EXPECT_EQ(p.planes[0].coreIndex, 3);
}

TEST(LegacyTrace, StartingWithEventsIsDetected)
{
    tpuscope::legacy::Trace trace;
    auto* e = trace.add_trace_events();
    e->set_name("x");
    e->set_timestamp_ps(5);
    const std::string bytes = trace.SerializeAsString();
    ASSERT_EQ(static_cast<unsigned char>(bytes[0]), 0x22);
    EXPECT_EQ(detectFormat(bytes), FileFormat::LegacyTrace);
    LoadResult result = loadProfileFromBytes(bytes, "trace");
    ASSERT_TRUE(result.ok()) << result.error;
    EXPECT_EQ(result.profile->eventCount(), 1u);
}

TEST(LegacyTrace, XSpaceIsNotMistakenForATrace)
{
    tensorflow::profiler::XSpace space;
    auto* plane = space.add_planes();
    plane->set_id(1);
    plane->set_name("/device:TPU:0");
    plane->add_lines()->set_name("XLA Ops");
    const std::string bytes = space.SerializeAsString();
    EXPECT_FALSE(looksLikeLegacyTrace(bytes));
    EXPECT_EQ(detectFormat(bytes), FileFormat::XSpace);
    // A plane without id starts with its name, also a field-1 LEN at the top.
    plane->set_id(0);
    EXPECT_EQ(detectFormat(space.SerializeAsString()), FileFormat::XSpace);
    if (haveSample("tpu_v6e_inference.xplane.pb")) {
        EXPECT_EQ(detectFormat(readFile(samplePath("tpu_v6e_inference.xplane.pb"))), FileFormat::XSpace);
    }
    // And a trace with an empty first device is still a trace.
    tpuscope::legacy::Trace trace;
    (*trace.mutable_devices())[0];
    trace.add_trace_events()->set_name("y");
    EXPECT_EQ(detectFormat(trace.SerializeAsString()), FileFormat::LegacyTrace);
}

TEST(LegacyTrace, CorruptInputGivesErrorsNotCrashes)
{
    const std::string bytes = sampleTrace().SerializeAsString();
    ProfileBuilder builder;
    builder.addHost({});
    // Truncations at every length: either a clean error or a partial profile with a warning.
    for (size_t cut = 1; cut < bytes.size(); ++cut) {
        ProfileBuilder b;
        b.addHost({});
        const std::string error = decodeLegacyTrace(std::string_view(bytes).substr(0, cut), b, 0, {}, {});
        if (!error.empty()) {
            EXPECT_NE(error.find("TF1 trace"), std::string::npos) << error;
        }
    }
    std::string flipped = bytes;
    for (size_t i = 0; i < flipped.size(); i += 3) {
        flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
        loadProfileFromBytes(flipped, "trace"); // must not crash or hang
    }
}
