// SPDX-License-Identifier: GPL-3.0-or-later
// The overview and the share card name a generated pod's straggler: the late host, how late per
// step, the cause and the gain, read from the advice item's numbers; and say nothing of one where
// no host is late.
#include "overviewview.h"
#include "sharecard.h"

#include "../testevents.h"
#include "../testpod.h"
#include "analysis/advice.h"
#include "analysis/hosts.h"
#include "core/format.h"

#include <gtest/gtest.h>

using namespace tpuscope;

namespace {

QString shownAdvice(const widgets::OverviewView& view)
{
    QString text;
    for (int i = 0; i < view.adviceItemCount(); ++i)
        text += view.adviceItemText(i) + QLatin1Char('\n');
    return text;
}

} // namespace

TEST(PodStraggler, OverviewAndCardNameTheLateHost)
{
    const test::SynthPodDir pod = test::writeSynthPod("pod:hosts=8,chips=4,late=3:input,steps=12");
    const model::ProfileAnalysisPtr analysis = test::loadPodAnalysis(pod);
    ASSERT_TRUE(analysis);
    const model::Advice* straggler = analysis->advice.find(model::AdviceRuleId::Straggler);
    ASSERT_TRUE(straggler);
    const QString host = QString::fromStdString(analysis->hosts.hosts[3].name);
    const model::AdviceValue* late = straggler->numbers.find("late_ps_per_step");
    ASSERT_TRUE(late);
    const QString lateText = QString::fromStdString(model::formatDurationPs(late->number));
    const QString gainText = QString::fromStdString(model::formatDurationPs(straggler->gainPs));

    widgets::OverviewView view(nullptr);
    view.setAnalysis(analysis);
    test::deliverQueuedEvents();
    const QString overview = shownAdvice(view);
    EXPECT_TRUE(overview.contains(QStringLiteral("Straggler:"))) << overview.toStdString();
    EXPECT_TRUE(overview.contains(QStringLiteral("host ") + host)) << overview.toStdString();
    EXPECT_TRUE(overview.contains(lateText + QStringLiteral(" late per step"))) << overview.toStdString();
    EXPECT_TRUE(overview.contains(QStringLiteral("cause: its input pipeline"))) << overview.toStdString();
    EXPECT_TRUE(overview.contains(QStringLiteral("gain up to ") + gainText)) << overview.toStdString();

    const QString card = widgets::shareCardStragglerLine(analysis->advice);
    EXPECT_TRUE(card.startsWith(QStringLiteral("Straggler: host ") + host)) << card.toStdString();
    EXPECT_TRUE(card.contains(lateText)) << card.toStdString();
    EXPECT_TRUE(card.contains(QStringLiteral("cause: its input pipeline"))) << card.toStdString();
    EXPECT_FALSE(widgets::renderShareCard(*analysis).isNull());
}

TEST(PodStraggler, ASlowChipIsTheCauseTheOverviewNames)
{
    const test::SynthPodDir pod = test::writeSynthPod("pod:hosts=8,chips=4,late=5:slowchip,steps=12");
    const model::ProfileAnalysisPtr analysis = test::loadPodAnalysis(pod);
    ASSERT_TRUE(analysis);
    ASSERT_TRUE(analysis->advice.find(model::AdviceRuleId::Straggler));
    widgets::OverviewView view(nullptr);
    view.setAnalysis(analysis);
    const QString overview = shownAdvice(view);
    EXPECT_TRUE(overview.contains(QStringLiteral("cause: a slow chip"))) << overview.toStdString();
    EXPECT_LE(view.adviceItemCount(), 3);
}

TEST(PodStraggler, NoLateHostNoStragglerLine)
{
    const test::SynthPodDir pod = test::writeSynthPod("pod:hosts=8,chips=4,late=none,steps=12");
    const model::ProfileAnalysisPtr analysis = test::loadPodAnalysis(pod);
    ASSERT_TRUE(analysis);
    EXPECT_FALSE(analysis->advice.find(model::AdviceRuleId::Straggler));
    widgets::OverviewView view(nullptr);
    view.setAnalysis(analysis);
    EXPECT_FALSE(shownAdvice(view).contains(QStringLiteral("Straggler")));
    EXPECT_TRUE(widgets::shareCardStragglerLine(analysis->advice).isEmpty());
}
