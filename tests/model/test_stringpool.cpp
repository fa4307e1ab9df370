// SPDX-License-Identifier: GPL-3.0-or-later
// A copied pool (ProfileBuilder::snapshot copies whole profiles) must look strings up in its own
// storage: the index holds views, which a memberwise copy would leave on the original.
#include "core/stringpool.h"

#include <gtest/gtest.h>

#include <memory>

using namespace tpuscope::model;

TEST(StringPool, CopiesKeepIdsAndOwnTheirIndex)
{
    auto original = std::make_unique<StringPool>();
    const StringId a = original->intern("fusion.1");
    const StringId b = original->intern("copy.2");
    StringPool copy(*original);
    StringPool assigned;
    assigned.intern("something else");
    assigned = *original;
    original.reset(); // the copies must not depend on it any more

    for (StringPool* pool : {&copy, &assigned}) {
        EXPECT_EQ(pool->size(), 3u);
        EXPECT_EQ(pool->str(a), "fusion.1");
        EXPECT_EQ(pool->find("copy.2"), b);
        EXPECT_EQ(pool->intern("fusion.1"), a); // found, not added again
        EXPECT_EQ(pool->intern("new"), 3u);
    }
}
