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

} // namespace

TEST(Utf8, InvalidSequencesBecomeReplacementCharacters)
{
    EXPECT_EQ(toValidUtf8("plain"), "plain");
    EXPECT_EQ(toValidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
    EXPECT_EQ(toValidUtf8("a\xFF"
                          "b"),
        "a" + kReplacement + "b");
    EXPECT_EQ(toValidUtf8("\xC0\xAF"), kReplacement + kReplacement); // overlong '/'
    EXPECT_EQ(toValidUtf8("\xED\xA0\x80"), kReplacement + kReplacement + kReplacement); // surrogate
    EXPECT_EQ(toValidUtf8("\xF4\x90\x80\x80").size(), 4 * kReplacement.size()); // above U+10FFFF
    EXPECT_EQ(toValidUtf8("x\xE2\x82"), "x" + kReplacement + kReplacement); // truncated at the end
    EXPECT_FALSE(isValidUtf8("\x80"));
    EXPECT_TRUE(isValidUtf8(""));
}

TEST(Utf8, JsonWriterAndStringPoolRepairNames)
{
    JsonWriter w(false);
    w.beginArray().value(std::string_view("op\xFE")).endArray();
    EXPECT_EQ(w.str(), "[\"op" + kReplacement + "\"]");

    StringPool pool;
    const StringId raw = pool.intern("fusion\xFF");
    EXPECT_EQ(pool.str(raw), "fusion" + kReplacement);
    EXPECT_EQ(pool.intern("fusion" + kReplacement), raw) << "the same op whichever form it arrives in";
    EXPECT_EQ(pool.find("fusion\xFF"), raw);
}
