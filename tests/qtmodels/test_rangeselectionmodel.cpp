// SPDX-License-Identifier: GPL-3.0-or-later
#include "../testsession.h"
#include "analysis/rangesummary.h"
#include "loader/loader.h"
#include "qt/rangeselectionmodel.h"
#include "synth/synth.h"

#include <QAbstractItemModelTester>
#include <QTest>

#include <gtest/gtest.h>

using namespace tpuscope;
using model::TimePs;

namespace {

model::ProfilePtr demoProfile()
{
    std::string bytes, error;
    EXPECT_TRUE(model::syntheticXSpaceBytes({}, bytes, error)) << error;
    auto loaded = model::loadProfileFromBytes(bytes, "demo.xplane.pb");
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.profile;
}

/// The statistics of [begin, end) as the application gets them: a session range job.
std::shared_ptr<const model::RangeSummary> sessionSummary(qt::TraceSession& session, TimePs begin, TimePs end)
{
    std::shared_ptr<const model::RangeSummary> summary;
    QObject context;
    session.requestRangeSummary(
        begin, end, &context, [&](std::shared_ptr<const model::RangeSummary> s) { summary = std::move(s); });
    EXPECT_TRUE(QTest::qWaitFor([&] { return summary != nullptr; }, 10'000));
    return summary;
}

} // namespace

TEST(RangeSelection, ModelPassesTheItemModelTester)
{
    const model::ProfilePtr profile = demoProfile();
    qt::TraceSession session;
    ASSERT_TRUE(test::showInSession(session, profile));
    qt::RangeSelectionModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const TimePs span = profile->spanEnd - profile->spanBegin;
    model.setSummary(sessionSummary(session, profile->spanBegin, profile->spanBegin + span / 2));
    EXPECT_GT(model.rowCount(), 0);
    EXPECT_EQ(model.columnCount(), qt::RangeSelectionModel::ColumnCount);
    for (int c = 0; c < model.columnCount(); ++c) {
        EXPECT_FALSE(model.headerData(c, Qt::Horizontal).toString().isEmpty());
        EXPECT_TRUE(model.index(0, c).data(qt::RangeSelectionModel::SortRole).isValid());
    }
    model.clear();
    EXPECT_EQ(model.rowCount(), 0);
    model.setSummary(sessionSummary(session, profile->spanBegin, profile->spanEnd));
    EXPECT_GT(model.rowCount(), 0);
}
