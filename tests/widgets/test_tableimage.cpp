// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 25 point 11: the op table's PNG export read "conv…ion.33": a name that fits its column
// must be drawn whole.
#include "pagefont.h"
#include "tableimage.h"

#include "analysis/opbreakdown.h"
#include "loader/loader.h"

#include <QFile>
#include <QFontMetrics>
#include <QFontMetricsF>

#include <gtest/gtest.h>

using namespace tpuscope;

TEST(TableImage, NamesThatFitTheirColumnAreNotElided)
{
    // Every op name of the real samples, as the first column of an exported table; the group
    // rows (categories) are bold.
    model::Table table;
    table.header = {"Name", "Time %"};
    table.rightAligned = {false, true};
    widgets::TableImageOptions options;
    for (const char* sample : {"tpu_v6e_inference.xplane.pb", "tpu_vllm_serving.trace.json.gz"}) {
        const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/" + sample;
        if (!QFile::exists(QString::fromStdString(path)))
            continue;
        auto loaded = model::loadProfile(path);
        ASSERT_TRUE(loaded.ok()) << loaded.error;
        const model::OpBreakdown breakdown = model::computeOpBreakdown(*loaded.profile);
        for (const model::OpRow& row : breakdown.rows) {
            options.boldRows.push_back(table.rows.size());
            table.rows.push_back({row.category, "1.0%"});
            table.rows.push_back({row.name, "1.0%"});
        }
    }
    table.rows.push_back({"convolution.33", "1.0%"});
    table.rows.push_back({"dynamic-update-slice.33", "1.0%"});
    options.maxRows = table.rows.size(); // every row drawn (past maxRows a table is cut, not measured)
    const std::vector<int> widths = widgets::tableImageColumnWidths(table, options);
    ASSERT_EQ(widths.size(), 2u);
    const QFontMetrics cell(widgets::pageFont(13));
    const QFontMetrics bold(widgets::pageFont(13, true));
    int checked = 0;
    for (size_t r = 0; r < table.rows.size(); ++r) {
        const bool isBold = std::find(options.boldRows.begin(), options.boldRows.end(), r) != options.boldRows.end();
        const QFontMetrics& metrics = isBold ? bold : cell;
        const QString name = QString::fromStdString(table.rows[r][0]);
        const QFontMetricsF exact(widgets::pageFont(13, isBold));
        if (exact.horizontalAdvance(name) + 2 > options.maxNameWidth)
            continue; // a name as wide as the cap is elided on purpose
        // What renderTableImage draws in the first column: elidedText at the column's width.
        EXPECT_EQ(metrics.elidedText(name, Qt::ElideMiddle, widths[0]), name)
            << name.toStdString() << ": " << exact.horizontalAdvance(name) << " px in " << widths[0];
        // Each one alone in a table: its column is exactly as wide as it needs.
        model::Table alone;
        alone.header = {"N"};
        alone.rows = {{table.rows[r][0]}};
        widgets::TableImageOptions aloneOptions;
        if (isBold)
            aloneOptions.boldRows = {0};
        const int width = widgets::tableImageColumnWidths(alone, aloneOptions)[0];
        EXPECT_EQ(metrics.elidedText(name, Qt::ElideMiddle, width), name) << name.toStdString() << " in " << width;
        ++checked;
    }
    EXPECT_GT(checked, 10);
}
