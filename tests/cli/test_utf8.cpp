// SPDX-License-Identifier: GPL-3.0-or-later
// Valid output, always (issue 18): names that are not UTF-8 leave every writer as U+FFFD, the op
// keeps one identity, and share files round-trip it. Outputs are decoded by python3 (strict UTF-8),
// not by our own validator.
#include "core/stringpool.h"
#include "core/utf8.h"
#include "loader/loader.h"
#include "report/jsonwriter.h"

#include "testutil.h"

#include "xplane.pb.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace tpuscope::model;
using namespace tpuscope::test;
namespace tp = tensorflow::profiler;

namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

/// An XSpace with two TPU ops whose names hold invalid UTF-8 (a lone 0xFF, an overlong '/').
std::string xspaceWithInvalidNames()
{
    tp::XSpace space;
    tp::XPlane* plane = space.add_planes();
    plane->set_id(1);
    plane->set_name("/device:TPU:0");
    // Placeholders of the same length are patched after serialization: protobuf itself refuses
    // to serialize a proto3 string that is not UTF-8.
    const char* names[] = {"fusion.@@1", "copy.##2"};
    for (int id = 1; id <= 2; ++id) {
        auto& md = (*plane->mutable_event_metadata())[id];
        md.set_id(id);
        md.set_name(names[id - 1]);
    }
    tp::XLine* line = plane->add_lines();
    line->set_id(1);
    line->set_name("XLA Ops");
    line->set_timestamp_ns(1000);
    for (int i = 0; i < 4; ++i) {
        tp::XEvent* e = line->add_events();
        e->set_metadata_id(1 + i % 2);
        e->set_offset_ps(i * 1000000);
        e->set_duration_ps(500000);
    }
    std::string bytes = space.SerializeAsString();
    for (auto [from, to] : {std::pair<std::string, std::string> {"@@", std::string("\xFF", 1) + "x"},
             {"##", std::string("\xC0\xAF", 2)}}) {
        const size_t at = bytes.find(from);
        EXPECT_NE(at, std::string::npos);
        bytes.replace(at, from.size(), to);
    }
    return bytes;
}

/// Exit code 0 when python3 decodes `path` as strict UTF-8 (and as JSON when asked).
int pythonDecodes(const std::string& path, bool json)
{
    const std::string code = json ? "import json,sys; json.load(open(sys.argv[1], encoding='utf-8', errors='strict'))"
                                  : "import sys; open(sys.argv[1], encoding='utf-8', errors='strict').read()";
    return runCommand("python3 -c \"" + code + "\" '" + path + "'", true).exitCode;
}

} // namespace

TEST(Utf8, EveryCliWriterEmitsValidUtf8AndShareFilesRoundTrip)
{
    const std::string cli = TPUSCOPE_CLI_PATH;
    if (!std::filesystem::exists(cli))
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string dir = tempDir("utf8_outputs");
    const std::string input = dir + "/bad\xFFname.xplane.pb";
    writeFile(input, xspaceWithInvalidNames());
    const std::string q = "'" + input + "'";
    struct Output
    {
        std::string command;
        std::string file;
        bool json;
    };
    const std::vector<Output> outputs = {
        {"ops " + q + " --format json", "ops.json", true},
        {"ops " + q + " --format csv", "ops.csv", false},
        {"ops " + q + " --format md", "ops.md", false},
        {"summary " + q + " --format json", "summary.json", true},
        {"advise " + q + " --format json", "advise.json", true},
        {"advise " + q + " --format md", "advise.md", false},
    };
    for (const Output& o : outputs) {
        const CommandResult r = runCommand(cli + " " + o.command + " > '" + dir + "/" + o.file + "'", true);
        ASSERT_EQ(r.exitCode, 0) << o.command << ": " << r.output;
        EXPECT_EQ(pythonDecodes(dir + "/" + o.file, o.json), 0) << o.command << " wrote invalid UTF-8";
    }
    const std::string ops = readFile(dir + "/ops.csv");
    EXPECT_NE(ops.find("fusion." + kReplacement + "x1"), std::string::npos) << ops;
    EXPECT_NE(ops.find("copy." + kReplacement + kReplacement + "2"), std::string::npos) << ops;

    // The share file holds the repaired names, and reading it back names the ops the same way.
    const CommandResult share = runCommand(cli + " share " + q + " -o '" + dir + "/s.tpuscope'", true);
    ASSERT_EQ(share.exitCode, 0) << share.output;
    const CommandResult text = runCommand(cli + " share " + q + " --text > '" + dir + "/s.txt'", true);
    ASSERT_EQ(text.exitCode, 0) << text.output;
    const CommandResult back = runCommand(cli + " ops '" + dir + "/s.tpuscope' --format csv");
    ASSERT_EQ(back.exitCode, 0);
    EXPECT_NE(back.output.find("fusion." + kReplacement + "x1"), std::string::npos) << back.output;
    EXPECT_NE(back.output.find("copy." + kReplacement + kReplacement + "2"), std::string::npos) << back.output;
    const CommandResult diff = runCommand(cli + " diff " + q + " '" + dir + "/s.tpuscope' --format csv");
    ASSERT_EQ(diff.exitCode, 0) << diff.output;
    EXPECT_EQ(pythonDecodes(dir + "/s.txt", false), 0);
    // One row per op: the original and the share file agree on each op's identity.
    size_t rows = 0;
    for (char c : diff.output)
        rows += c == '\n';
    EXPECT_EQ(rows, 3u) << diff.output;
}
