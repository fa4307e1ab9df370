// SPDX-License-Identifier: GPL-3.0-or-later
#include "screenshot.h"

#include <gtest/gtest.h>

using namespace tpuscope;

TEST(ScreenshotRange, ParsesMicrosecondPairs)
{
    std::optional<std::pair<double, double>> range;
    EXPECT_TRUE(app::parseScreenshotRange(QStringLiteral("1000,2500.5"), &range));
    ASSERT_TRUE(range);
    EXPECT_DOUBLE_EQ(range->first, 1000);
    EXPECT_DOUBLE_EQ(range->second, 2500.5);
    for (const char* bad : {"", "1000", "2500,1000", "a,b", "1,2,3", "-5,10", "7,7"})
        EXPECT_FALSE(app::parseScreenshotRange(QString::fromLatin1(bad), &range)) << bad;
}
