// SPDX-License-Identifier: GPL-3.0-or-later
// TraceSession's preview of a load in progress (issue 24): the partial profile a loader hands over
// reaches the views while the load still runs, even when every other worker of the shared pool is
// busy, as it is while an XSpace decode's helpers hold them until the last plane.
#include "core/jobpool.h"
#include "qt/tracesession.h"

#include <QSignalSpy>

#include <gtest/gtest.h>

#include <future>

using namespace tpuscope;
using tpuscope::qt::TraceSession;

namespace {
const QString kDemo = QStringLiteral(TPUSCOPE_TEST_DATA_DIR "/../../resources/demo.xplane.pb");

/// Holds every worker of the shared pool but one until destroyed: the gate of the test, so the
/// load job gets the last worker and nothing else can run beside it.
class BusyWorkers
{
public:
    BusyWorkers()
    {
        const unsigned others = model::WorkerPool::shared().size() - 1;
        for (unsigned i = 0; i < others; ++i) {
            auto started = std::make_shared<std::promise<void>>();
            m_started.push_back(started->get_future());
            model::WorkerPool::shared().post([started, gate = m_gate] {
                started->set_value();
                gate->wait();
            });
        }
        for (auto& started : m_started)
            started.wait();
    }
    ~BusyWorkers() { m_release.set_value(); }

private:
    std::promise<void> m_release;
    std::shared_ptr<std::shared_future<void>> m_gate
        = std::make_shared<std::shared_future<void>>(m_release.get_future().share());
    std::vector<std::future<void>> m_started;
};
} // namespace

TEST(TraceSession, XSpacePreviewArrivesWhileTheLoadRunsOnTheLastFreeWorker)
{
    TraceSession session;
    model::LoadOptions options = session.loadOptions();
    options.previewAfterSeconds = 0; // due at once: handed over as soon as a plane is decoded
    session.setLoadOptions(options);
    QSignalSpy preview(&session, &TraceSession::previewReady);
    QSignalSpy loaded(&session, &TraceSession::loaded);
    QSignalSpy dropped(&session, &TraceSession::previewDropped);
    bool previewBeforeLoaded = false;
    QObject::connect(&session, &TraceSession::loaded, [&] { previewBeforeLoaded = preview.count() == 1; });
    {
        BusyWorkers busy;
        session.open(kDemo);
        ASSERT_TRUE(loaded.wait(60000));
    }
    ASSERT_EQ(preview.count(), 1);
    EXPECT_TRUE(previewBeforeLoaded);
    const auto partial = preview.at(0).at(0).value<model::ProfilePtr>();
    ASSERT_TRUE(partial);
    EXPECT_GT(partial->eventCount(), 0u);
    EXPECT_LE(partial->eventCount(), session.profile()->eventCount());
    EXPECT_TRUE(preview.at(0).at(1).value<std::shared_ptr<const model::OpBreakdown>>());
    EXPECT_TRUE(preview.at(0).at(2).value<std::shared_ptr<const model::DepthIndex>>());
    // The whole profile replaced the preview: nothing to drop.
    EXPECT_EQ(dropped.count(), 0);
    EXPECT_NE(session.profile(), partial);
}
