// SPDX-License-Identifier: GPL-3.0-or-later
// Outputs never destroy (issue 18): the core's atomic-save helper and the CLI commands that use it.
#include "core/atomicfile.h"

#include "clitool.h"
#include "robustnessinputs.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

using namespace tpuscope::model;
using namespace tpuscope::test;
namespace fs = std::filesystem;

namespace {

/// A small synthetic profile at `path`, made by the CLI itself.
void synthProfile(const std::string& path)
{
    const CommandResult r = runCommand(cli() + " synth bench:2000 -o '" + path + "'", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
}

bool cliHasCard()
{
    const CommandResult r = runCommand(cli() + " card 2>&1");
    return r.output.find("no GUI libraries") == std::string::npos;
}

} // namespace

TEST(OutputsNeverDestroy, ShareOntoAHostOfTheInputLogDirIsRefused)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string dir = tempDir("share_logdir");
    const std::string run = dir + "/logdir/plugins/profile/2026_01_01_00_00_00";
    fs::create_directories(run);
    const std::string host = run + "/host.xplane.pb";
    synthProfile(host);
    const std::string before = readFile(host);
    const CommandResult r = runCommand(cli() + " share '" + dir + "/logdir' -o '" + host + "'", true);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("it is a file of the input directory"), std::string::npos) << r.output;
    EXPECT_EQ(readFile(host), before);
}

TEST(OutputsNeverDestroy, ShareOntoAFifoOrADeviceIsRefused)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string dir = tempDir("share_fifo");
    synthProfile(dir + "/in.xplane.pb");
    ASSERT_EQ(::mkfifo((dir + "/pipe").c_str(), 0600), 0);
    CommandResult r
        = runCommand("timeout 20 " + cli() + " share '" + dir + "/in.xplane.pb' -o '" + dir + "/pipe'", true);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("a FIFO, not a regular file"), std::string::npos) << r.output;
    EXPECT_TRUE(isFifo(dir + "/pipe"));
    r = runCommand(cli() + " share '" + dir + "/in.xplane.pb' -o /dev/null", true);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("a character device"), std::string::npos) << r.output;
    struct stat st
    {
    };
    ASSERT_EQ(::stat("/dev/null", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(OutputsNeverDestroy, AFailedWriteSaysWhy)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string dir = tempDir("share_errno");
    synthProfile(dir + "/in.xplane.pb");
    CommandResult r
        = runCommand(cli() + " share '" + dir + "/in.xplane.pb' -o '" + dir + "/missing/out.tpuscope'", true);
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("No such file or directory"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("Success"), std::string::npos) << r.output;
    r = runCommand(cli() + " synth bench:10 -o '" + dir + "/missing/x.xplane.pb'", true);
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("No such file or directory"), std::string::npos) << r.output;
}

TEST(OutputsNeverDestroy, CardNeverOverwritesAnInputNorFollowsAPlantedSymlink)
{
    if (!haveCli() || !cliHasCard())
        GTEST_SKIP() << "tpuscope-cli without card support";
    const std::string dir = tempDir("card_outputs");
    const std::string a = dir + "/a.xplane.pb", b = dir + "/b.xplane.pb";
    synthProfile(a);
    synthProfile(b);
    const std::string bBefore = readFile(b);
    CommandResult r = runCommand(cli() + " card '" + a + "' '" + b + "' -o '" + b + "'", true);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_EQ(readFile(b), bBefore) << "card A B -o B turned B into a PNG";

    // The old fixed temporary name: an input called x.png.part.png and a symlink planted there.
    const std::string part = dir + "/x.png.part.png";
    ASSERT_EQ(::rename(a.c_str(), part.c_str()), 0);
    const std::string partBefore = readFile(part);
    writeFile(dir + "/victim", "precious");
    fs::create_symlink(dir + "/victim", dir + "/y.png.part.png");
    r = runCommand(cli() + " card '" + part + "' -o '" + dir + "/x.png'", true);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(readFile(part), partBefore);
    r = runCommand(cli() + " card '" + part + "' -o '" + dir + "/y.png'", true);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(readFile(dir + "/victim"), "precious");
    EXPECT_EQ(readFile(dir + "/y.png").substr(1, 3), "PNG");
    // b, the renamed input, victim, the planted symlink and the two cards: no temporary file left.
    EXPECT_EQ(entriesIn(dir), 6u);
}

// Issue 27, failure 11: replacing a private (0600) file keeps it private; a new file gets the
// usual mode.
TEST(OutputsNeverDestroy, ReplacingAPrivateFileKeepsItsMode)
{
    if (!haveCli())
        GTEST_SKIP() << "tpuscope-cli not built";
    const std::string dir = tempDir("mode");
    const std::string input = dir + "/in.xplane.pb";
    synthProfile(input);
    const std::string out = dir + "/private.tpuscope";
    writeFile(out, "old");
    fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write);
    const CommandResult r = runCommand(cli() + " share '" + input + "' -o '" + out + "'", true);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(readFile(out), "old");
    EXPECT_EQ(fs::status(out).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}
