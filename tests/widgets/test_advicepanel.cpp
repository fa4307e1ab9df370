// SPDX-License-Identifier: GPL-3.0-or-later
#include "../testanalysis.h"
#include "advicepanel.h"

#include "loader/loader.h"

#include <QApplication>
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTextBrowser>
#include <QUrl>

#include <gtest/gtest.h>

using namespace tpuscope;

namespace {

model::ProfilePtr demo()
{
    static model::ProfilePtr profile = [] {
        const std::string path = std::string(TPUSCOPE_TEST_DATA_DIR) + "/../../resources/demo.xplane.pb";
        model::LoadResult result = model::loadProfile(path);
        EXPECT_TRUE(result.ok()) << result.error;
        return result.profile;
    }();
    return profile;
}

bool waitFor(const std::function<bool()>& condition, int ms = 10000)
{
    return QTest::qWaitFor(condition, ms);
}

model::OpId opNamed(const model::Profile& profile, std::string_view name)
{
    for (model::OpId i = 0; i < profile.ops.size(); ++i)
        if (profile.str(profile.ops[i].name) == name)
            return i;
    return model::kNone;
}

} // namespace

TEST(AdvicePanel, ShowsTheDemoDiagnosisAndSelectsEvidence)
{
    model::ProfilePtr profile = demo();
    ASSERT_TRUE(profile);
    widgets::AdvicePanel panel;
    panel.resize(520, 820);
    panel.show();
    QSignalSpy selected(&panel, &widgets::AdvicePanel::opsSelected);
    panel.setAnalysis(tpuscope::test::analysisOf(profile));
    ASSERT_TRUE(waitFor([&] { return !panel.isComputing(); }));
    ASSERT_GE(panel.adviceCount(), 3);

    auto* list = panel.findChild<QListWidget*>(QStringLiteral("adviceList"));
    auto* details = panel.findChild<QTextBrowser*>(QStringLiteral("adviceDetails"));
    auto* header = panel.findChild<QLabel*>(QStringLiteral("adviceHeader"));
    ASSERT_TRUE(list && details && header);
    EXPECT_TRUE(list->item(0)->text().contains(QStringLiteral("global batch 1024")));
    EXPECT_TRUE(header->text().contains(QStringLiteral("Per-core batch <b>16</b>")));
    EXPECT_TRUE(details->toPlainText().contains(QStringLiteral("suggested_global_batch")));

    // The first advice was selected on arrival: its evidence (fusion.3 first) was emitted.
    const model::OpId fusion3 = opNamed(*profile, "fusion.3");
    ASSERT_GE(selected.count(), 1);
    const auto ids = selected.last().at(0).value<QList<quint32>>();
    ASSERT_FALSE(ids.isEmpty());
    EXPECT_EQ(ids.front(), fusion3);

    // An evidence link selects one op.
    selected.clear();
    emit details->anchorClicked(QUrl(QStringLiteral("op:%1").arg(fusion3)));
    ASSERT_EQ(selected.count(), 1);
    EXPECT_EQ(selected.at(0).at(0).value<QList<quint32>>(), QList<quint32> {fusion3});

    // Selecting another advice emits its evidence.
    selected.clear();
    list->setCurrentRow(1);
    EXPECT_EQ(selected.count(), 1);

    if (const char* dir = std::getenv("TPUSCOPE_SCREENSHOT_DIR")) {
        list->setCurrentRow(0);
        QApplication::processEvents();
        panel.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/advicepanel.png"));
    }
}

TEST(AdvicePanel, WhatIfShowsTheEfficiencyAtAnotherBatch)
{
    widgets::AdvicePanel panel;
    panel.setAnalysis(tpuscope::test::analysisOf(demo()));
    ASSERT_TRUE(waitFor([&] { return !panel.isComputing(); }));
    auto* spin = panel.findChild<QSpinBox*>(QStringLiteral("whatIfGlobalBatch"));
    auto* perCore = panel.findChild<QLabel*>(QStringLiteral("whatIfPerCore"));
    auto* result = panel.findChild<QTextBrowser*>(QStringLiteral("whatIfResult"));
    ASSERT_TRUE(spin && perCore && result);
    EXPECT_TRUE(spin->isEnabled());
    EXPECT_EQ(spin->value(), 1024); // starts at the suggestion
    EXPECT_TRUE(perCore->text().contains(QStringLiteral("128 per core")));
    // fusion.3: 1.56 % now, 12.5 % with 128 per core (the feature tile stays 1 of 8).
    EXPECT_TRUE(result->toPlainText().contains(QStringLiteral("12.50%"))) << result->toPlainText().toStdString();
    spin->setValue(128);
    EXPECT_TRUE(perCore->text().contains(QStringLiteral("16 per core")));
    EXPECT_TRUE(result->toPlainText().contains(QStringLiteral("1.56%")));
    spin->setValue(100);
    EXPECT_TRUE(perCore->text().contains(QStringLiteral("not a multiple")));
}

TEST(AdvicePanel, NullAndReplacedProfilesAreSafe)
{
    auto panel = std::make_unique<widgets::AdvicePanel>();
    panel->setAnalysis(nullptr);
    EXPECT_EQ(panel->adviceCount(), 0);
    EXPECT_FALSE(panel->isComputing());
    panel->setAnalysis(tpuscope::test::analysisOf(demo()));
    panel->setAnalysis(tpuscope::test::analysisOf(demo())); // replaces the first one
    ASSERT_TRUE(waitFor([&] { return !panel->isComputing(); }));
    const int count = panel->adviceCount();
    EXPECT_GE(count, 3);
    // Destroying the panel right after an analysis arrived must not crash.
    panel->setAnalysis(tpuscope::test::analysisOf(demo()));
    panel.reset();
    QApplication::processEvents();
}

// Issue 25, point 5: a second file opened in the same window does not keep the first one's
// "what if the global batch were" value when its own batch is not known.
TEST(AdvicePanel, TheWhatIfBatchDoesNotCarryOverToAFileWithoutOne)
{
    const std::string v6e = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
    model::LoadResult other = model::loadProfile(v6e);
    if (!other.ok())
        GTEST_SKIP() << "sample missing: " << other.error;
    widgets::AdvicePanel panel;
    auto* spin = panel.findChild<QSpinBox*>(QStringLiteral("whatIfGlobalBatch"));
    ASSERT_TRUE(spin);
    panel.setAnalysis(tpuscope::test::analysisOf(demo()));
    ASSERT_TRUE(waitFor([&] { return !panel.isComputing(); }));
    ASSERT_EQ(spin->value(), 1024);
    panel.setAnalysis(tpuscope::test::analysisOf(other.profile)); // no batch inferred
    ASSERT_TRUE(waitFor([&] { return !panel.isComputing(); }));
    EXPECT_FALSE(spin->isEnabled());
    EXPECT_EQ(spin->text(), QStringLiteral("\u2013")) << spin->text().toStdString();
    // And back: the demo's suggestion again.
    panel.setAnalysis(tpuscope::test::analysisOf(demo()));
    ASSERT_TRUE(waitFor([&] { return !panel.isComputing(); }));
    EXPECT_TRUE(spin->isEnabled());
    EXPECT_EQ(spin->value(), 1024);
}

// A GPU profile's header says what the file holds, as the CLI does, not "Unknown TPU, 0 TPU
// cores"; the batch line gives its reason.
TEST(AdvicePanel, AProfileWithoutTpuOpsIsNotCalledAnUnknownTpu)
{
    const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/gpu_multiworker.xplane.pb";
    model::LoadResult result = model::loadProfile(path);
    if (!result.ok())
        GTEST_SKIP() << "sample missing: " << path;
    widgets::AdvicePanel panel;
    panel.resize(520, 820);
    panel.show();
    panel.setAnalysis(tpuscope::test::analysisOf(result.profile));
    ASSERT_TRUE(waitFor([&] { return !panel.isComputing(); }));
    auto* header = panel.findChild<QLabel*>(QStringLiteral("adviceHeader"));
    ASSERT_TRUE(header);
    const QString text = header->text();
    EXPECT_FALSE(text.contains(QStringLiteral("Unknown TPU"))) << text.toStdString();
    EXPECT_FALSE(text.contains(QStringLiteral("0 TPU cores"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("This profile has no TPU op data"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("Per-core batch not inferred: the profile has no XLA ops on TPU cores.")))
        << text.toStdString();
}
