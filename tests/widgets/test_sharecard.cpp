// SPDX-License-Identifier: GPL-3.0-or-later
#include "pagefont.h"
#include "sharecard.h"

#include "analysis/opbreakdown.h"
#include "analysis/profileanalysis.h"
#include "loader/loader.h"
#include "share/sharefile.h"
#include "synth/synth.h"

#include <gtest/gtest.h>

#include <QColor>
#include <QFontMetrics>

#include <fstream>

using namespace tpuscope;

namespace {

model::ProfilePtr demo()
{
    std::string bytes, error;
    EXPECT_TRUE(model::syntheticXSpaceBytes({}, bytes, error)) << error;
    model::LoadResult loaded = model::loadProfileFromBytes(bytes, "demo.xplane.pb");
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.profile;
}

/// The card of `profile` from its analysis, as the GUI and the CLI make it.
QImage cardOf(const model::ProfilePtr& profile, const widgets::ShareCardOptions& options = {})
{
    return widgets::renderShareCard(*model::buildProfileAnalysis(profile), options);
}

/// Share of pixels that are not the background.
double inkShare(const QImage& image)
{
    int64_t ink = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            ink += image.pixel(x, y) != qRgb(255, 255, 255) ? 1 : 0;
    return double(ink) / double((image.height() / 2) * (image.width() / 2));
}

} // namespace

TEST(ShareCard, RendersAtTheRequestedWidthOffscreen)
{
    const model::ProfilePtr profile = demo();
    const QImage card = cardOf(profile);
    ASSERT_FALSE(card.isNull());
    EXPECT_EQ(card.width(), 1200);
    EXPECT_GT(card.height(), 500);
    EXPECT_LT(card.height(), 2000);
    EXPECT_GT(inkShare(card), 0.05);
    widgets::ShareCardOptions narrow;
    narrow.width = 800;
    narrow.topOps = 3;
    const QImage small = cardOf(profile, narrow);
    EXPECT_EQ(small.width(), 800);
    EXPECT_LT(small.height(), card.height()); // fewer op rows
}

TEST(ShareCard, SameCardFromTheShareFile)
{
    const model::ProfilePtr profile = demo();
    const model::ShareResult share = model::buildShareFile(*model::buildProfileAnalysis(profile));
    ASSERT_TRUE(share.ok());
    model::LoadResult loaded = model::loadProfileFromBytes(share.bytes, "demo.tpuscope");
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const QImage a = cardOf(profile);
    const QImage b = cardOf(loaded.profile);
    EXPECT_EQ(a.height(), b.height()); // same rows, padding lines and advice
}

TEST(ShareCard, FlameColourScale)
{
    // FORMATS.md §4.3: red at 0, yellow at 25 % (sqrt = 0.5), green at 100 %; unknown is the
    // scale's lavender grey (issue 25.4: not the grey of events that are not ops).
    EXPECT_EQ(widgets::shareCardFlopsColor(0).green(), 0);
    EXPECT_GT(widgets::shareCardFlopsColor(0).red(), 150);
    const QColor yellow = widgets::shareCardFlopsColor(0.25);
    EXPECT_NEAR(yellow.red(), yellow.green(), 2);
    EXPECT_EQ(widgets::shareCardFlopsColor(1).red(), 0);
    const QColor unknown = widgets::shareCardFlopsColor(std::nan(""));
    EXPECT_GT(unknown.blue(), unknown.red());
    EXPECT_GT(unknown.red(), unknown.green());
}

TEST(ShareCard, EmptyProfileStillRenders)
{
    model::ProfileBuilder builder;
    builder.addPlane("/host:CPU");
    const model::ProfilePtr empty = builder.finish();
    const QImage card = cardOf(empty);
    EXPECT_EQ(card.width(), 1200);
    EXPECT_GT(card.height(), 100);
}

// The card carries the HBM peak, its padding share and the largest buffers; from a share file
// with hash redaction the same numbers come with hashed names.
TEST(ShareCard, CarriesTheHbmPeakAndItsLargestBuffers)
{
    const model::ProfilePtr profile = demo();
    const QStringList lines = widgets::shareCardMemoryLines(model::buildProfileAnalysis(profile)->memory);
    ASSERT_EQ(lines.size(), 4);
    EXPECT_EQ(
        lines[0], QStringLiteral("cluster_train_step: peak 645 MiB (3.9% of 16 GiB HBM), 89.6% of it tile padding"));
    EXPECT_TRUE(lines[1].startsWith(QStringLiteral("fusion.7"))) << lines[1].toStdString();
    EXPECT_TRUE(lines[1].contains(QStringLiteral("256 MiB for 32 MiB of data")));
    EXPECT_TRUE(lines[1].contains(QStringLiteral("dim 0 of size 16 padded to 128 by tile T(8,128)")));

    model::ShareOptions options;
    options.redaction.hashNames = true;
    const model::ShareResult share = model::buildShareFile(*model::buildProfileAnalysis(profile), options);
    ASSERT_TRUE(share.ok()) << share.error;
    model::LoadResult loaded = model::loadProfileFromBytes(share.bytes, "demo.tpuscope");
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const QStringList redacted = widgets::shareCardMemoryLines(model::buildProfileAnalysis(loaded.profile)->memory);
    ASSERT_EQ(redacted.size(), 4);
    EXPECT_FALSE(redacted.join(QLatin1Char('\n')).contains(QStringLiteral("fusion.7")));
    EXPECT_FALSE(redacted[0].contains(QStringLiteral("cluster_train_step")));
    EXPECT_TRUE(redacted[0].endsWith(QStringLiteral("peak 645 MiB (3.9% of 16 GiB HBM), 89.6% of it tile padding")));
    EXPECT_TRUE(redacted[1].contains(QStringLiteral("256 MiB for 32 MiB of data")));
}

// Issue 16: the card reads the analysis of the load and computes no breakdown of its own (it once
// ran the breakdown, the summary and the advice again, three more passes over the events).
TEST(ShareCard, ReadsTheAnalysisWithoutComputingABreakdown)
{
    const model::ProfilePtr profile = demo();
    const model::ProfileAnalysisPtr analysis = model::buildProfileAnalysis(profile);
    ASSERT_TRUE(analysis);
    ASSERT_FALSE(analysis->breakdown.rows.empty());
    const uint64_t before = model::opBreakdownComputations();
    const QImage card = widgets::renderShareCard(*analysis);
    EXPECT_EQ(model::opBreakdownComputations(), before);
    EXPECT_GT(card.height(), 400);
}

TEST(ShareCard, AStepTimeWithItsCountFitsItsColumnWhole)
{
    // Issue 25.11: the card read "784 ms (100 …". Five headline columns share the 1200-px card.
    const int statWidth = (1200 - 2 * 36) / 5 - 8;
    const QString value = QStringLiteral("784 ms  (100 steps)");
    const int size = tpuscope::widgets::fittedPagePixelSize(value, statWidth, 24, 14, true);
    EXPECT_GE(size, 14);
    EXPECT_LE(QFontMetrics(tpuscope::widgets::pageFont(size, true)).horizontalAdvance(value), statWidth);
    // A short value keeps the large font.
    EXPECT_EQ(tpuscope::widgets::fittedPagePixelSize(QStringLiteral("12.0%"), statWidth, 24, 14, true), 24);
}

// Issue 25: the load's warnings reach the card's footer as they reach the window's message bar,
// redacted as the card, and the share file carries them so its card says them too.
TEST(ShareCard, TheLoadWarningsAreInItsFooterAndTravelInTheShareFile)
{
    const std::string sample = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
    std::ifstream in(sample, std::ios::binary);
    if (!in)
        GTEST_SKIP() << "sample missing";
    std::string truncated(500'000, '\0'); // 500 KB of its 862 KB
    in.read(truncated.data(), std::streamsize(truncated.size()));
    ASSERT_EQ(in.gcount(), std::streamsize(truncated.size()));
    model::LoadResult loaded = model::loadProfileFromBytes(truncated, "v6e.xplane.pb");
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const model::ProfileAnalysisPtr analysis = model::buildProfileAnalysis(loaded.profile);
    const QStringList lines = widgets::shareCardWarningLines(*analysis, model::defaultShareRedaction());
    ASSERT_GE(lines.size(), 2);
    EXPECT_TRUE(lines.front().contains(QStringLiteral("Read before trusting"))) << lines.front().toStdString();
    EXPECT_TRUE(lines.join(QLatin1Char('\n')).contains(QStringLiteral("truncated XSpace")))
        << lines.join(QLatin1Char('\n')).toStdString();

    // The block takes room on the card: without the warnings the same card is shorter.
    auto quiet = std::make_shared<model::Profile>(*loaded.profile);
    quiet->load.warnings.clear();
    EXPECT_GT(cardOf(loaded.profile).height(), cardOf(quiet).height());

    // A path in a warning is redacted as the rest of the card.
    auto withPath = std::make_shared<model::Profile>(*loaded.profile);
    withPath->load.warnings = {"skipped host c: /home/alice/runs/c.xplane.pb is truncated"};
    const QString redacted
        = widgets::shareCardWarningLines(*model::buildProfileAnalysis(withPath), model::defaultShareRedaction())
              .join(QLatin1Char('\n'));
    EXPECT_FALSE(redacted.contains(QStringLiteral("alice"))) << redacted.toStdString();
    EXPECT_TRUE(redacted.contains(QStringLiteral("skipped host c"))) << redacted.toStdString();

    // The share file keeps the warning; its card says it.
    const model::ShareResult share = model::buildShareFile(*analysis);
    ASSERT_TRUE(share.ok());
    model::LoadResult reopened = model::loadProfileFromBytes(share.bytes, "v6e.tpuscope");
    ASSERT_TRUE(reopened.ok()) << reopened.error;
    const QString again
        = widgets::shareCardWarningLines(*model::buildProfileAnalysis(reopened.profile), model::defaultShareRedaction())
              .join(QLatin1Char('\n'));
    EXPECT_TRUE(again.contains(QStringLiteral("original: corrupt or truncated XSpace"))) << again.toStdString();
}
