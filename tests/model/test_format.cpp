// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format.h"
#include "core/naturalorder.h"
#include "report/report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace tpuscope::model;

// The one formatter set: expected texts are written out by hand from the rule in format.h
// (three significant digits, the largest unit that keeps the value at least 1).
TEST(Format, DurationsUseThreeSignificantDigitsInTheLargestUnit)
{
    EXPECT_EQ(formatDurationPs(0), "0 ps");
    EXPECT_EQ(formatDurationPs(250), "250 ps");
    EXPECT_EQ(formatDurationPs(1500), "1.5 ns");
    EXPECT_EQ(formatDurationPs(12'345'678), "12.3 µs");
    EXPECT_EQ(formatDurationPs(1.234e9), "1.23 ms");
    EXPECT_EQ(formatDurationPs(3e12), "3 s");
    EXPECT_EQ(formatDurationPs(-2.5e6), "-2.5 µs");
    EXPECT_EQ(formatDurationPs(7200e12), "7200 s"); // beyond the largest unit: whole seconds
}

TEST(Format, ValuesThatRoundUpMoveToTheNextUnit)
{
    // %.3g of 999.96 is "1e+03": the old formatter printed "1e+03 µs".
    EXPECT_EQ(formatDurationPs(999'960'000), "1 ms");
    EXPECT_EQ(formatDurationPs(999.7), "1 ns");
    EXPECT_EQ(formatDurationPs(999'400'000), "999 µs");
    EXPECT_EQ(formatBytes(1023.9 * 1024), "1 MiB");
    EXPECT_EQ(formatCount(999'960, "FLOP"), "1 MFLOP");
}

TEST(Format, PercentBytesCountsAndUnknown)
{
    EXPECT_EQ(formatPercent(0.125), "12.5%");
    EXPECT_EQ(formatPercent(0.125, 0), "12%");
    EXPECT_EQ(formatBytes(512), "512 B");
    EXPECT_EQ(formatBytes(1.5 * 1024 * 1024 * 1024), "1.5 GiB");
    EXPECT_EQ(formatCount(4.5e9, "FLOP"), "4.5 GFLOP");
    EXPECT_EQ(formatCount(12), "12");
    EXPECT_EQ(formatOptionalPercent(std::nullopt), kUnknownText);
    EXPECT_EQ(formatUtilization(3.28), "100% (328% uncapped)");
    EXPECT_EQ(formatUtilization(0.5), "50.0%");
    EXPECT_EQ(formatUtilization(std::nullopt), kUnknownText);
    EXPECT_EQ(costCoverageText(0.28), "cost data for 28.0% of op time");
    EXPECT_EQ(formatDecimal(7.64, 1), "7.6");
}

TEST(Format, AxisLabelsKeepTheirUnitAndDecimals)
{
    EXPECT_EQ(timeUnitFor(999), TimeUnit::Ps);
    EXPECT_EQ(timeUnitFor(2.5e9), TimeUnit::Ms);
    EXPECT_EQ(formatTimeLabel(1.2e9, TimeUnit::Ms, 1), "1.2 ms");
    EXPECT_EQ(formatTimeLabel(120e6, TimeUnit::Us, 0), "120 µs");
    EXPECT_EQ(formatTimeLabel(-1e-3, TimeUnit::Ns, 2), "0.00 ns"); // never "-0.00"
}

TEST(Format, RenderTableAlignsTextAndEscapesMarkdown)
{
    Table t;
    t.header = {"name", "time"};
    t.rightAligned = {false, true};
    t.rows = {{"fusion.1", "1.5 ms"}, {"a|b", "12 µs"}};
    const std::string text = renderTable(t, TableFormat::Text);
    EXPECT_NE(text.find("name"), std::string::npos);
    EXPECT_NE(text.find("fusion.1"), std::string::npos);
    const std::string md = renderTable(t, TableFormat::Markdown);
    EXPECT_NE(md.find("| name"), std::string::npos);
    EXPECT_NE(md.find("a\\|b"), std::string::npos) << md;
    const std::string csv = renderTable(t, TableFormat::Csv);
    EXPECT_EQ(csv.substr(0, csv.find('\n')), "name,time");
}

TEST(NaturalOrder, DigitRunsCompareByTheirValue)
{
    std::vector<std::string> hosts {"w-10", "w-2", "w-1", "w-0", "w-11", "w-02", "v-3", "w-", "w-1a", "w-1b"};
    std::stable_sort(hosts.begin(), hosts.end(),
        [](const std::string& a, const std::string& b) { return tpuscope::model::naturalLess(a, b); });
    EXPECT_EQ(
        hosts, (std::vector<std::string> {"v-3", "w-", "w-0", "w-1", "w-1a", "w-1b", "w-2", "w-02", "w-10", "w-11"}));
    // A strict weak order: irreflexive, and equal names are neither before the other.
    EXPECT_FALSE(tpuscope::model::naturalLess("w-7", "w-7"));
    EXPECT_TRUE(tpuscope::model::naturalLess("t1v-n-pod-w-9", "t1v-n-pod-w-40"));
    EXPECT_FALSE(tpuscope::model::naturalLess("t1v-n-pod-w-40", "t1v-n-pod-w-9"));
    EXPECT_TRUE(tpuscope::model::naturalLess("host 99999999999999999999", "host 100000000000000000000"));
}
