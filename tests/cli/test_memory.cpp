// SPDX-License-Identifier: GPL-3.0-or-later
// The HBM memory view: buffer-assignment decode (HloProto field 3), xprof's peak heap, the
// buffers at the peak and their padding. Hand-made assignments are written as wire bytes so the
// decoder and the heap simulation are tested together.
#include "analysis/advice.h"
#include "analysis/memory.h"
#include "core/jsondom.h"
#include "core/profile.h"
#include "loader/bufferassignment.h"
#include "loader/hloconvert.h"
#include "loader/loader.h"
#include "report/memoryreport.h"
#include "share/sharefile.h"
#include "synth/synth.h"

#include "hlo.pb.h"

#include "testutil.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

enum Kind : uint64_t { kAlloc = 0, kFree = 1, kShare = 2 };

} // namespace

TEST(MemoryView, CliJsonHasTheIssueKeys)
{
    TPUSCOPE_REQUIRE_SAMPLE("tpu_v6e_inference.xplane.pb");
    const CommandResult r = runCommand(std::string(TPUSCOPE_CLI_PATH) + " memory '"
        + samplePath("tpu_v6e_inference.xplane.pb") + "' --module jit_f --format json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    json::Value doc;
    json::ParseError error;
    ASSERT_TRUE(json::parse(r.output, doc, error)) << error.describe();
    ASSERT_EQ(doc["modules"].size(), 1u);
    const json::Value& m = doc["modules"].at(0);
    std::vector<std::string> keys;
    for (const auto& [key, value] : m.object())
        keys.push_back(key);
    EXPECT_EQ(keys,
        (std::vector<std::string> {"name", "peak_heap_bytes", "peak_unpadded_bytes", "peak_padding_bytes",
            "entry_parameter_bytes", "maybe_live_out_bytes", "indefinite_bytes", "total_allocation_bytes",
            "buffers_at_peak", "timeline"}));
    EXPECT_EQ(m["name"].string(), "jit_f");
    EXPECT_EQ(m["peak_heap_bytes"].uint64(), 21474836512u);
    std::vector<std::string> bufferKeys;
    for (const auto& [key, value] : m["buffers_at_peak"].at(0).object())
        bufferKeys.push_back(key);
    EXPECT_EQ(bufferKeys,
        (std::vector<std::string> {
            "instruction", "framework_op", "shape", "kind", "size_bytes", "unpadded_bytes", "padded_dims"}));
    std::vector<std::string> pointKeys;
    for (const auto& [key, value] : m["timeline"].at(0).object())
        pointKeys.push_back(key);
    EXPECT_EQ(pointKeys, (std::vector<std::string> {"position", "heap_bytes", "unpadded_bytes"}));

    const CommandResult missing = runCommand(
        std::string(TPUSCOPE_CLI_PATH) + " memory '" + samplePath("tpu_v6e_inference.xplane.pb") + "' --module nope",
        true);
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.output.find("modules: jit_convert_element_type"), std::string::npos) << missing.output;
}
