// SPDX-License-Identifier: GPL-3.0-or-later
// Outputs never destroy (issue 18): the core's atomic-save helper and the CLI commands that use it.
#include "core/atomicfile.h"

#include "robustnessinputs.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

using namespace tpuscope::model;
using namespace tpuscope::test;
namespace fs = std::filesystem;

TEST(AtomicFile, ReplacesTheTargetWholeAndLeavesNoTemporaryFile)
{
    const std::string dir = tempDir("atomic_replace");
    const std::string path = dir + "/out.bin";
    writeFile(path, "old contents");
    std::string error;
    ASSERT_TRUE(saveFileAtomically(path, "new", error)) << error;
    EXPECT_EQ(readFile(path), "new");
    EXPECT_EQ(entriesIn(dir), 1u);
}

TEST(AtomicFile, AnUncommittedWriteLeavesNothing)
{
    const std::string dir = tempDir("atomic_discard");
    {
        AtomicFile file;
        std::string error;
        ASSERT_TRUE(file.open(dir + "/out.bin", {}, error)) << error;
        ASSERT_TRUE(file.write("partial", error)) << error;
    }
    EXPECT_EQ(entriesIn(dir), 0u);
}

TEST(AtomicFile, RefusesDevicesFifosAndDirectories)
{
    const std::string dir = tempDir("atomic_special");
    const std::string fifo = dir + "/pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string error;
    EXPECT_FALSE(saveFileAtomically(fifo, "x", error));
    EXPECT_NE(error.find("a FIFO, not a regular file"), std::string::npos) << error;
    EXPECT_TRUE(isFifo(fifo)) << "the FIFO was replaced";

    EXPECT_NE(outputPathProblem("/dev/null", {}).find("a character device"), std::string::npos);
    EXPECT_FALSE(saveFileAtomically(dir, "x", error));
    EXPECT_NE(error.find("a directory"), std::string::npos) << error;
    EXPECT_TRUE(fs::is_directory(dir));
    EXPECT_EQ(entriesIn(dir), 1u);
}

TEST(AtomicFile, RefusesAnInputThroughSymlinksHardLinksAndLogDirs)
{
    const std::string dir = tempDir("atomic_inputs");
    const std::string run = dir + "/logdir/plugins/profile/run";
    fs::create_directories(run);
    const std::string host = run + "/host.xplane.pb";
    writeFile(host, "profile");
    ASSERT_EQ(::link(host.c_str(), (dir + "/hardlink.pb").c_str()), 0);
    fs::create_symlink(host, dir + "/symlink.pb");

    EXPECT_NE(outputPathProblem(host, {host}), "");
    EXPECT_NE(outputPathProblem(dir + "/hardlink.pb", {host}), "");
    EXPECT_NE(outputPathProblem(dir + "/symlink.pb", {host}), "");
    EXPECT_NE(outputPathProblem(host, {dir + "/logdir"}), "") << "a file of an input log dir";
    EXPECT_NE(outputPathProblem(dir + "/hardlink.pb", {dir + "/logdir"}), "");
    EXPECT_EQ(outputPathProblem(dir + "/new.tpuscope", {dir + "/logdir"}), "");
    EXPECT_EQ(outputPathProblem(dir + "/hardlink.pb", {dir + "/other"}), "");

    std::string error;
    EXPECT_FALSE(saveFileAtomically(dir + "/symlink.pb", "x", error, {dir + "/logdir"}));
    EXPECT_NE(error.find("a file of the input directory"), std::string::npos) << error;
    EXPECT_FALSE(saveFileAtomically(dir + "/hardlink.pb", "x", error, {host}));
    EXPECT_NE(error.find("the same file as the input " + host), std::string::npos) << error;
    EXPECT_EQ(readFile(host), "profile");
}

TEST(AtomicFile, ASymlinkTargetIsReplacedNotFollowed)
{
    const std::string dir = tempDir("atomic_symlink");
    writeFile(dir + "/victim", "precious");
    fs::create_symlink(dir + "/victim", dir + "/out.png");
    std::string error;
    ASSERT_TRUE(saveFileAtomically(dir + "/out.png", "png", error)) << error;
    EXPECT_EQ(readFile(dir + "/victim"), "precious");
    EXPECT_FALSE(fs::is_symlink(dir + "/out.png"));
    EXPECT_EQ(readFile(dir + "/out.png"), "png");
}

TEST(AtomicFile, FailuresCarryTheSystemsReason)
{
    const std::string dir = tempDir("atomic_errno");
    std::string error;
    EXPECT_FALSE(saveFileAtomically(dir + "/no/such/dir/x", "x", error));
    EXPECT_NE(error.find("No such file or directory"), std::string::npos) << error;
    EXPECT_EQ(error.find("Success"), std::string::npos) << error;
}

// ---- the CLI commands -------------------------------------------------------------------------
