// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli share on a pod and on one host of it, and tpuscope-cli merge (the map/reduce path
// for pods too large for one machine): the same hosts table and straggler as the run folder, and
// mismatched inputs refused with exit code 2 and a message.
#include "clitool.h"
#include "core/jsondom.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

using namespace tpuscope::model;
using namespace tpuscope::test;
namespace fs = std::filesystem;

namespace {

json::Value parseJson(const std::string& text)
{
    json::Value doc;
    json::ParseError error;
    EXPECT_TRUE(json::parse(text, doc, error)) << error.describe() << "\n" << text;
    return doc;
}

/// The pod's host files and, next to the pod, one share file per host written from it alone.
struct CliPod
{
    std::string dir;
    std::vector<std::string> shares;
};

CliPod makePodAndShares(const std::string& name, const std::string& spec)
{
    CliPod pod {tempDir("climerge_" + name), {}};
    const CommandResult made = runCommand(cli() + " synth " + spec + " -o '" + pod.dir + "/logs'", true);
    EXPECT_EQ(made.exitCode, 0) << made.output;
    std::vector<std::string> hosts;
    for (const auto& e : fs::recursive_directory_iterator(pod.dir + "/logs"))
        if (e.path().string().ends_with(".xplane.pb"))
            hosts.push_back(e.path().string());
    std::sort(hosts.begin(), hosts.end());
    for (const std::string& host : hosts) {
        const std::string out = pod.dir + "/" + fs::path(host).stem().stem().string() + ".tpuscope";
        const CommandResult r = runCommand(cli() + " share '" + host + "' --redact none -o '" + out + "'", true);
        EXPECT_EQ(r.exitCode, 0) << r.output;
        pod.shares.push_back(out);
    }
    return pod;
}

std::string quoted(const std::vector<std::string>& files)
{
    std::string out;
    for (const std::string& f : files)
        out += " '" + f + "'";
    return out;
}

const json::Value* straggler(const json::Value& advice)
{
    for (const json::Value& item : advice["advice"].array())
        if (item["rule"].string() == "straggler")
            return &item;
    return nullptr;
}

} // namespace

TEST(MergeCli, MergedHostShareFilesAnswerLikeTheRunFolder)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const CliPod pod = makePodAndShares("same", "pod:hosts=8,chips=4,late=3:slowchip,steps=10");
    ASSERT_EQ(pod.shares.size(), 8u);
    const std::string merged = pod.dir + "/pod.tpuscope";
    const CommandResult m = runCommand(cli() + " merge" + quoted(pod.shares) + " -o '" + merged + "'", true);
    ASSERT_EQ(m.exitCode, 0) << m.output;
    EXPECT_NE(m.output.find("8 hosts, 32 TPU cores, 10 steps per core"), std::string::npos) << m.output;
    const std::string whole = pod.dir + "/whole.tpuscope";
    ASSERT_EQ(runCommand(cli() + " share '" + pod.dir + "/logs' --redact none -o '" + whole + "'", true).exitCode, 0);

    const json::Value raw = parseJson(runCommand(cli() + " hosts '" + pod.dir + "/logs' --format json").output);
    const json::Value rawAdvice = parseJson(runCommand(cli() + " advise '" + pod.dir + "/logs' --format json").output);
    ASSERT_TRUE(straggler(rawAdvice));
    for (const std::string& file : {merged, whole}) {
        SCOPED_TRACE(file);
        const json::Value hosts = parseJson(runCommand(cli() + " hosts '" + file + "' --format json").output);
        ASSERT_EQ(hosts["hosts"].size(), 8u);
        for (size_t i = 0; i < 8; ++i) {
            const json::Value& a = raw["hosts"].at(i);
            const json::Value& b = hosts["hosts"].at(i);
            EXPECT_EQ(a["name"].string(), b["name"].string());
            EXPECT_EQ(a["late_steps"].number(), b["late_steps"].number());
            // 1 ns: the share file keeps integer picoseconds (see tests/model/test_podshare.cpp).
            for (const char* key : {"avg_step_ps", "compute_ps", "collective_wait_ps", "idle_ps", "clock_offset_ps"})
                EXPECT_NEAR(a[key].number(), b[key].number(), 1000) << key;
        }
        const json::Value advice = parseJson(runCommand(cli() + " advise '" + file + "' --format json").output);
        const json::Value* s = straggler(advice);
        ASSERT_TRUE(s);
        EXPECT_EQ((*s)["numbers"]["host"].string(), "t1v-n-pod-w-3");
        EXPECT_EQ((*s)["numbers"]["cause"].string(), (*straggler(rawAdvice))["numbers"]["cause"].string());
        EXPECT_EQ((*s)["numbers"]["late_fraction"].number(), 1);
    }
}

TEST(MergeCli, RefusesMismatchedInputsWithExitCode2AndAMessage)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const CliPod pod = makePodAndShares("refuse", "pod:hosts=2,chips=2,steps=4");
    ASSERT_EQ(pod.shares.size(), 2u);
    const std::string out = pod.dir + "/out.tpuscope";

    CommandResult r
        = runCommand(cli() + " merge '" + pod.shares[0] + "' '" + pod.shares[0] + "' -o '" + out + "'", true);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("host 't1v-n-pod-w-0' is already in another input"), std::string::npos) << r.output;

    // Another program: the synthetic single-file scenario is not a host of this pod.
    const std::string other = pod.dir + "/other.xplane.pb";
    ASSERT_EQ(runCommand(cli() + " synth origin-story -o '" + other + "'", true).exitCode, 0);
    ASSERT_EQ(
        runCommand(cli() + " share '" + other + "' --redact none -o '" + pod.dir + "/other.tpuscope'", true).exitCode,
        0);
    r = runCommand(cli() + " merge '" + pod.shares[0] + "' '" + pod.dir + "/other.tpuscope' -o '" + out + "'", true);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("other.tpuscope"), std::string::npos) << r.output;

    r = runCommand(cli() + " merge '" + pod.shares[0] + "' '" + other + "' -o '" + out + "'", true);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("not a tpuscope share file"), std::string::npos) << r.output;

    EXPECT_EQ(runCommand(cli() + " merge '" + pod.shares[0] + "' -o '" + out + "'").exitCode, 2); // one file
    EXPECT_EQ(runCommand(cli() + " merge" + quoted(pod.shares)).exitCode, 2); // no -o
    // -o naming an input is refused before anything is read.
    EXPECT_EQ(runCommand(cli() + " merge" + quoted(pod.shares) + " -o '" + pod.shares[1] + "'").exitCode, 2);
    EXPECT_FALSE(fs::exists(out));
    EXPECT_EQ(runCommand(cli() + " merge" + quoted(pod.shares) + " -o '" + out + "'").exitCode, 0);
}
