// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli hosts and the straggler advice on synthetic pods: JSON shape, exit codes, and the
// CSV/Markdown escaping of a hostile host name.
#include "clitool.h"
#include "core/jsondom.h"
#include "testutil.h"
#include "xplane.pb.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace tpuscope::model;
using namespace tpuscope::test;
namespace fs = std::filesystem;

namespace {

std::string makePod(const std::string& name, const std::string& spec)
{
    const std::string dir = tempDir("clipod_" + name);
    const CommandResult r = runCommand(cli() + " synth " + spec + " -o '" + dir + "'", true);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    return dir;
}

json::Value parseJson(const std::string& text)
{
    json::Value doc;
    json::ParseError error;
    EXPECT_TRUE(json::parse(text, doc, error)) << error.describe() << "\n" << text;
    return doc;
}

/// CSV records, honouring quoted fields (which may hold commas, quotes and newlines).
std::vector<std::vector<std::string>> parseCsv(const std::string& text)
{
    std::vector<std::vector<std::string>> rows(1);
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                field += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                field += c;
        } else if (c == '"')
            quoted = true;
        else if (c == ',')
            rows.back().push_back(field), field.clear();
        else if (c == '\n') {
            rows.back().push_back(field), field.clear();
            rows.emplace_back();
        } else if (c != '\r')
            field += c;
    }
    if (rows.back().empty())
        rows.pop_back();
    return rows;
}

} // namespace

TEST(HostsCli, JsonShapeAndTheLateHost)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string dir = makePod("json", "pod:hosts=4,chips=2,late=1:input,steps=8");
    const CommandResult r = runCommand(cli() + " hosts '" + dir + "' --format json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const json::Value doc = parseJson(r.output);
    ASSERT_EQ(doc["hosts"].size(), 4u);
    for (size_t i = 0; i < 4; ++i) {
        const json::Value& h = doc["hosts"].at(i);
        EXPECT_EQ(h["name"].string(), "t1v-n-pod-w-" + std::to_string(i));
        for (const char* key : {"cores", "steps", "avg_step_ps", "compute_ps", "collective_ps", "collective_wait_ps",
                 "idle_ps", "host_transfer_ps", "late_steps", "clock_offset_ps"}) {
            ASSERT_TRUE(h.find(key)) << key;
            EXPECT_FALSE(h[key].isNull()) << key;
        }
        EXPECT_EQ(h["cores"].number(), 2);
        EXPECT_EQ(h["steps"].number(), 8);
        EXPECT_EQ(h["late_steps"].number(), i == 1 ? 8 : 0);
    }
    EXPECT_EQ(doc["hosts"].at(0)["clock_offset_ps"].number(), 0);
    EXPECT_EQ(doc["sync_collective"].string(), "all-reduce.8");

    const CommandResult advice = runCommand(cli() + " advise '" + dir + "' --format json");
    ASSERT_EQ(advice.exitCode, 0) << advice.output;
    const json::Value a = parseJson(advice.output);
    const json::Value* straggler = nullptr;
    for (const json::Value& item : a["advice"].array())
        if (item["rule"].string() == "straggler")
            straggler = &item;
    ASSERT_TRUE(straggler) << advice.output;
    const json::Value& n = (*straggler)["numbers"];
    EXPECT_EQ(n["host"].string(), "t1v-n-pod-w-1");
    EXPECT_EQ(n["cause"].string(), "input");
    EXPECT_EQ(n["late_fraction"].number(), 1);
    EXPECT_GT(n["late_ps_per_step"].number(), 300e6);
    EXPECT_GT(n["others_wait_ps_per_step"].number(), 300e6);
    EXPECT_FALSE((*straggler)["fix"]["action"].string().empty());
}

TEST(HostsCli, ExitCodesAndOneHost)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    EXPECT_EQ(runCommand(cli() + " hosts").exitCode, 2); // no operand
    EXPECT_EQ(runCommand(cli() + " hosts /nonexistent/pod").exitCode, 1);
    const std::string one = makePod("one", "pod:hosts=1,chips=2,steps=3");
    EXPECT_EQ(runCommand(cli() + " hosts '" + one + "' --format tsvx").exitCode, 2);
    EXPECT_EQ(runCommand(cli() + " hosts '" + one + "' --program x").exitCode, 2); // another command's option
    const CommandResult r = runCommand(cli() + " hosts '" + one + "' --format json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(parseJson(r.output)["hosts"].size(), 1u);
    const CommandResult text = runCommand(cli() + " hosts '" + one + "'");
    EXPECT_EQ(text.exitCode, 0);
    EXPECT_NE(text.output.find("t1v-n-pod-w-0"), std::string::npos);
}

TEST(HostsCli, HostileHostNameIsEscapedInCsvAndMarkdown)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string dir = makePod("hostile", "pod:hosts=2,chips=1,steps=3");
    const std::string hostile = "evil,\"host\" | <b>x</b>\n# heading";
    // Rename host 0 in its own XSpace: the loader takes XSpace hostnames over the file name.
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        if (!entry.path().string().ends_with("t1v-n-pod-w-0.xplane.pb"))
            continue;
        tensorflow::profiler::XSpace space;
        ASSERT_TRUE(space.ParseFromString(readFile(entry.path().string())));
        ASSERT_EQ(space.hostnames_size(), 1);
        space.set_hostnames(0, hostile);
        writeFile(entry.path().string(), space.SerializeAsString());
    }
    const CommandResult csv = runCommand(cli() + " hosts '" + dir + "' --format csv");
    ASSERT_EQ(csv.exitCode, 0) << csv.output;
    const auto rows = parseCsv(csv.output);
    ASSERT_EQ(rows.size(), 3u) << csv.output; // header + 2 hosts: the name's newline stays inside its field
    EXPECT_EQ(rows[1][0], hostile);
    EXPECT_EQ(rows[1].size(), rows[0].size());

    const CommandResult md = runCommand(cli() + " hosts '" + dir + "' --format md");
    ASSERT_EQ(md.exitCode, 0) << md.output;
    size_t tableLines = 0;
    std::string line;
    for (char c : md.output + "\n") {
        if (c != '\n') {
            line += c;
            continue;
        }
        if (line.starts_with("|"))
            ++tableLines;
        EXPECT_FALSE(line.starts_with("# heading")) << "the name's newline started a heading";
        line.clear();
    }
    EXPECT_EQ(tableLines, 4u) << md.output; // header, rule, 2 hosts
    EXPECT_EQ(md.output.find("<b>"), std::string::npos) << md.output;
}

TEST(HostsCli, LateStepsAndOffsetsAgreeWithTheIndependentPythonTool)
{
    // tests/tools/pod_golden.py decodes the host files with the tools' own schema and recomputes
    // each host's steps, clock offset and late steps from the raw events (hosts.h's definitions).
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string tool = std::string(TPUSCOPE_TEST_DATA_DIR) + "/../tools/pod_golden.py";
    if (runCommand("python3 -c 'import sys' && (command -v \"${TPUSCOPE_PROTOC:-protoc}\")").exitCode != 0)
        GTEST_SKIP() << "python3 and protoc are needed (Debian: python3, protobuf-compiler)";
    for (const char* spec : {"pod:hosts=8,chips=4,late=6:slowchip,offset_us=2000", "pod:hosts=8,chips=2,late=none",
             "pod:hosts=5,chips=4,late=0:hosttransfer,steps=9"}) {
        SCOPED_TRACE(spec);
        const std::string dir = makePod("golden", spec);
        const std::string run
            = dir + "/plugins/profile/" + fs::directory_iterator(dir + "/plugins/profile")->path().filename().string();
        const CommandResult golden = runCommand("python3 '" + tool + "' '" + run + "'", true);
        ASSERT_EQ(golden.exitCode, 0) << golden.output;
        const CommandResult ours = runCommand(cli() + " hosts '" + dir + "' --format json");
        ASSERT_EQ(ours.exitCode, 0) << ours.output;
        const json::Value doc = parseJson(ours.output);
        std::string mine = "name,steps,clock_offset_ps,late_steps\n";
        for (const json::Value& h : doc["hosts"].array())
            mine += h["name"].string() + "," + std::to_string(static_cast<int64_t>(h["steps"].number())) + ","
                + std::to_string(static_cast<int64_t>(h["clock_offset_ps"].number())) + ","
                + std::to_string(static_cast<int64_t>(h["late_steps"].number())) + "\n";
        EXPECT_EQ(mine, golden.output);
    }
}
