// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 25 point 4: one utilization colour scale for the op table, Details, the timeline and the
// share card, with a legend; distinct category colours for the categories of one profile.
#include "costbardelegate.h"
#include "detailsdocument.h"
#include "detailspanel.h"
#include "optableview.h"
#include "sharecard.h"
#include "timelinelegend.h"
#include "timelineview.h"

#include "analysis/opbreakdown.h"
#include "analysis/profileanalysis.h"
#include "loader/loader.h"
#include "qt/colors.h"
#include "qt/optreemodel.h"

#include <QApplication>
#include <QFile>

#include <algorithm>
#include <cmath>
#include <set>

#include <gtest/gtest.h>

using namespace tpuscope;
namespace colors = tpuscope::qt::colors;

namespace {

const double kFractions[] = {0.0, 0.027, 0.12, 0.15, 0.5, 0.9, 1.0};

QPalette palettes(int which)
{
    return which == 0 ? QApplication::palette() : colors::darkPalette();
}

} // namespace

TEST(UtilizationScale, EveryViewMapsAUtilizationToTheSameColour)
{
    for (int which = 0; which < 2; ++which) {
        const QPalette pal = palettes(which);
        for (double f : kFractions) {
            const QColor solid = colors::utilizationColor(f);
            const QColor tint = colors::utilizationTint(f, pal);
            EXPECT_EQ(tint, colors::over(solid, colors::kUtilizationTintOpacity, pal));
            // The op table's bar and the Details chips (FLOPS and HBM) are the same tint.
            EXPECT_EQ(widgets::CostBarDelegate::barColor(f, widgets::CostBarDelegate::Scheme::Utilization, pal), tint)
                << f;
            EXPECT_EQ(widgets::flopsUtilColor(f, pal), tint) << f;
            EXPECT_EQ(widgets::hbmUtilColor(f, pal), tint) << f << ": HBM reads on the same scale, not inverted";
            // The share card and the timeline draw the solid colour.
            EXPECT_EQ(widgets::shareCardFlopsColor(f), solid) << f;
        }
    }
    // Low utilization is never green (Details once shaded 0 %, 2.7 % and 15 % HBM green).
    for (double f : {0.0, 0.027, 0.15}) {
        const QColor c = colors::utilizationColor(f);
        EXPECT_GT(c.red(), c.green()) << f;
    }
    // "no FLOPS data" is not the grey of events that are not XLA ops.
    const QColor unknown = colors::utilizationColor(std::nan(""));
    for (int which = 0; which < 2; ++which)
        EXPECT_NE(unknown, palettes(which).color(QPalette::Mid));
}

TEST(UtilizationScale, TheTimelineDrawsOpsAndItsLegendOnTheScale)
{
    const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
    if (!QFile::exists(QString::fromStdString(path)))
        GTEST_SKIP() << "sample missing";
    auto loaded = model::loadProfile(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    auto breakdown = std::make_shared<const model::OpBreakdown>(model::computeOpBreakdown(*loaded.profile));
    widgets::TimelineView timeline;
    timeline.setProfile(loaded.profile, breakdown);
    timeline.setColorMode(widgets::TimelineView::ColorMode::FlopsUtilization);
    int checked = 0;
    for (const model::OpRow& row : breakdown->rows) {
        if (!row.flopsUtilization || row.op == model::kNone)
            continue;
        EXPECT_EQ(timeline.opColor(row.op), colors::utilizationColor(*row.flopsUtilization).rgb()) << row.name;
        ++checked;
    }
    EXPECT_GT(checked, 0);
    // The legend lists the scale's stops in the scale's colours.
    const auto legend = timeline.legendEntries();
    for (const colors::UtilizationLegendStop& stop : colors::utilizationLegendStops()) {
        const bool listed = std::any_of(
            legend.begin(), legend.end(), [&](const auto& entry) { return entry.second == stop.color.rgb(); });
        EXPECT_TRUE(listed) << stop.fraction;
    }
}

TEST(CategoryColours, ConvolutionAndConvolutionFusionDiffer)
{
    EXPECT_NE(colors::categoryColor("convolution"), colors::categoryColor("convolution fusion"));
}

namespace {

model::ProfilePtr loadSample(const std::string& path)
{
    auto loaded = model::loadProfile(path);
    EXPECT_TRUE(loaded.ok()) << path << ": " << loaded.error;
    return loaded.profile;
}

} // namespace

TEST(CategoryColours, EverySampleGetsDistinctColoursAndEveryViewUsesThem)
{
    const std::string samples = TPUSCOPE_SAMPLES_DIR;
    const std::vector<std::string> paths
        = {samples + "/tpu_v6e_inference.xplane.pb", samples + "/tpu_vllm_serving.trace.json.gz",
            samples + "/tpu_v5_training.op_profile.json.gz", samples + "/demo_synthetic.op_profile.json",
            std::string(TPUSCOPE_TEST_DATA_DIR) + "/../../resources/demo.xplane.pb"};
    int checked = 0;
    for (const std::string& path : paths) {
        if (!QFile::exists(QString::fromStdString(path)))
            continue;
        const model::ProfilePtr profile = loadSample(path);
        ASSERT_TRUE(profile);
        const model::ProfileAnalysisPtr analysis = model::buildProfileAnalysis(profile);
        const auto chosen = colors::categoryColors(analysis->breakdown);
        std::set<std::string> categories;
        for (const model::OpRow& row : analysis->breakdown.rows)
            categories.insert(row.category);
        EXPECT_EQ(chosen.size(), categories.size()) << path;
        for (auto a = chosen.begin(); a != chosen.end(); ++a)
            for (auto b = std::next(a); b != chosen.end(); ++b)
                EXPECT_FALSE(colors::looksAlike(a->second, b->second))
                    << path << ": '" << a->first << "' " << a->second.name().toStdString() << " and '" << b->first
                    << "' " << b->second.name().toStdString();
        // The timeline and the op table's swatches draw those colours.
        widgets::TimelineView timeline;
        timeline.setProfile(profile, std::shared_ptr<const model::OpBreakdown>(analysis, &analysis->breakdown));
        qt::OpTreeModel table;
        table.setAnalysis(analysis);
        for (const auto& [category, color] : chosen) {
            EXPECT_EQ(timeline.categoryPaletteColor(category), color.rgb()) << category;
            for (int r = 0; r < table.rowCount(); ++r) {
                const QModelIndex group = table.index(r, qt::OpTreeModel::NameColumn);
                if (table.data(group, Qt::DisplayRole).toString().toStdString() != category)
                    continue;
                EXPECT_EQ(table.data(group, Qt::DecorationRole).value<QColor>(), color) << category;
            }
        }
        ++checked;
    }
    EXPECT_GE(checked, 1);
}

// Issue 25: the scale has a legend in the op table and in Details too, in the tint those views
// draw (light and dark), and the table's names the low-utilization row at the chosen threshold.
TEST(UtilizationScale, TheOpTableAndDetailsHaveTheScalesLegendInTheirTint)
{
    widgets::OpTableView table;
    widgets::DetailsPanel details;
    for (int which = 0; which < 2; ++which) {
        const QPalette pal = palettes(which);
        table.setPalette(pal);
        details.setPalette(pal);
        for (widgets::TimelineLegend* legend : {table.legend(), details.legend()}) {
            ASSERT_TRUE(legend);
            for (const colors::UtilizationLegendStop& stop : colors::utilizationLegendStops()) {
                const QRgb tint = colors::utilizationTint(stop.fraction, pal).rgb();
                const bool listed = std::any_of(legend->entries().begin(), legend->entries().end(),
                    [&](const widgets::TimelineLegendEntry& e) { return e.colors == std::vector<QRgb> {tint}; });
                EXPECT_TRUE(listed) << legend->objectName().toStdString() << " " << stop.fraction << " palette "
                                    << which;
            }
            EXPECT_TRUE(legend->text().contains(QStringLiteral("no FLOPS data"))) << legend->text().toStdString();
            EXPECT_TRUE(legend->text().contains(QStringLiteral("100%"))) << legend->text().toStdString();
        }
        const widgets::TimelineLegendEntry& low = table.legend()->entries().back();
        EXPECT_EQ(low.colors, std::vector<QRgb> {colors::lowUtilizationRowBackground(pal).rgb()});
    }
    table.setLowUtilizationThreshold(0.4);
    EXPECT_TRUE(table.legend()->text().contains(QStringLiteral("below 40% of its roofline")))
        << table.legend()->text().toStdString();
}
