// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 17 point 4 ("one look"): colours, sizes, wrapping, labels, sort arrows and contrast.
#include "advicepanel.h"
#include "detailsdocument.h"
#include "detailspanel.h"
#include "elidedlabel.h"
#include "memoryview.h"
#include "optableview.h"
#include "overviewview.h"
#include "qt/qstrings.h"
#include "rooflinechart.h"
#include "sortarrows.h"
#include "timelineview.h"
#include "utilizationchart.h"

#include "analysis/opbreakdown.h"
#include "loader/loader.h"
#include "qt/colors.h"
#include "qt/optreemodel.h"
#include "qt/tracesession.h"

#include <QApplication>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>
#include <QTreeWidget>

#include <qcustomplot.h>

#include "../testanalysis.h"
#include "../testevents.h"

#include <gtest/gtest.h>

using namespace tpuscope;
using model::OpId;
namespace colors = tpuscope::qt::colors;

namespace tpuscope_test {
model::ProfilePtr makeFusionProfile(); // test_details.cpp
model::OpId opNamed(const model::Profile& p, const std::string& name);
} // namespace tpuscope_test

namespace {

std::string samplePath()
{
    return std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
}

model::ProfilePtr loadSample()
{
    if (!QFile::exists(QString::fromStdString(samplePath())))
        return {};
    auto result = model::loadProfile(samplePath());
    EXPECT_TRUE(result.ok()) << result.error;
    return result.profile;
}

/// The sample's ops with a category, largest total time first, one per category.
std::vector<std::pair<OpId, std::string>> opsOfEachCategory(const model::Profile& profile)
{
    const model::OpBreakdown breakdown = model::computeOpBreakdown(profile);
    const std::vector<size_t> rowOf = model::rowOfEachOp(profile, breakdown);
    std::vector<std::pair<OpId, std::string>> out;
    std::set<std::string> seen;
    for (OpId op = 0; op < profile.ops.size(); ++op) {
        if (rowOf[op] == SIZE_MAX || !profile.ops[op].isXlaOp)
            continue;
        const std::string& category = breakdown.rows[rowOf[op]].category;
        if (!category.empty() && seen.insert(category).second)
            out.emplace_back(op, category);
    }
    return out;
}

/// Horizontal runs of arrow pixels in a header section: for a down arrow the top row is the widest.
bool arrowPointsDown(const QImage& image, const QRect& area, const QColor& background)
{
    int firstRow = -1, lastRow = -1, firstWidth = 0, lastWidth = 0;
    for (int y = area.top(); y <= area.bottom(); ++y) {
        int width = 0;
        for (int x = area.left(); x <= area.right(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (colors::contrastRatio(c, background) > 1.6)
                ++width;
        }
        if (width == 0)
            continue;
        if (firstRow < 0) {
            firstRow = y;
            firstWidth = width;
        }
        lastRow = y;
        lastWidth = width;
    }
    EXPECT_GT(lastRow, firstRow) << "no arrow found";
    return firstWidth > lastWidth;
}

QColor htmlColorAfter(const QString& html, const QString& marker)
{
    const QRegularExpression re(marker + QStringLiteral("[^>]*color:(#[0-9a-fA-F]{6})"));
    const auto m = re.match(html);
    return m.hasMatch() ? QColor(m.captured(1)) : QColor();
}

} // namespace

// --- One colour module ---------------------------------------------------------------------

TEST(Look, SameCategoryColourInTimelineRooflineAndTable)
{
    const model::ProfilePtr profile = loadSample();
    if (!profile)
        GTEST_SKIP() << "sample missing";
    const auto ops = opsOfEachCategory(*profile);
    ASSERT_GE(ops.size(), 3u);

    const auto analysis = test::analysisOf(profile);
    widgets::TimelineView timeline;
    timeline.setProfile(profile, std::shared_ptr<const model::OpBreakdown>(analysis, &analysis->breakdown));
    ASSERT_EQ(timeline.colorMode(), widgets::TimelineView::ColorMode::Category);
    // A category is coloured by the op class of most of its time (the op model's): a start half and
    // its done half differ, collectives share a family.
    const auto chosenColours = colors::categoryColors(analysis->breakdown);

    widgets::RooflineChart roofline;
    roofline.setAnalysis(test::analysisOf(profile));
    std::map<QString, QColor> rooflineColour;
    for (int i = 0; i < roofline.plot()->graphCount(); ++i) {
        QCPGraph* g = roofline.plot()->graph(i);
        if (g->scatterStyle().shape() == QCPScatterStyle::ssDisc)
            rooflineColour[g->name()] = g->scatterStyle().brush().color();
    }

    qt::OpTreeModel table;
    table.setAnalysis(test::analysisOf(profile));
    std::map<QString, QColor> tableColour; // category group rows
    for (int r = 0; r < table.rowCount(); ++r) {
        const QModelIndex group = table.index(r, qt::OpTreeModel::NameColumn);
        const QVariant swatch = table.data(group, Qt::DecorationRole);
        if (swatch.canConvert<QColor>())
            tableColour[table.data(group, Qt::DisplayRole).toString()] = swatch.value<QColor>();
        // An op row's swatch is its category's, too.
        if (table.rowCount(group) > 0) {
            const QVariant child = table.data(table.index(0, qt::OpTreeModel::NameColumn, group), Qt::DecorationRole);
            EXPECT_EQ(child.value<QColor>().rgb(), swatch.value<QColor>().rgb());
        }
    }

    size_t comparedWithRoofline = 0, comparedWithTable = 0;
    for (const auto& [op, category] : ops) {
        // The profile's own assignment (categoryColors): the class's colour unless an earlier
        // category of this profile already looks like it.
        const QRgb expected = chosenColours.at(category).rgb();
        EXPECT_EQ(timeline.opColor(op), expected) << category;
        const QString name = QString::fromStdString(category);
        if (auto it = rooflineColour.find(name); it != rooflineColour.end()) {
            EXPECT_EQ(it->second.rgb(), expected) << category;
            ++comparedWithRoofline;
        }
        if (auto it = tableColour.find(name); it != tableColour.end()) {
            EXPECT_EQ(it->second.rgb(), expected) << category;
            ++comparedWithTable;
        }
    }
    // On the v6e sample only the loop fusions are on the roofline: collectives, host transfers and
    // async halves are rated against the interconnect or the host link, not plotted there.
    EXPECT_GE(comparedWithRoofline, 1u);
    for (const model::RooflinePoint& p : analysis->roofline.points)
        EXPECT_EQ(
            analysis->breakdown.rows.empty() ? model::RatedAgainst::Roofline : analysis->opModel[p.op].ratedAgainst,
            model::RatedAgainst::Roofline)
            << p.name;
    EXPECT_GT(analysis->roofline.opsOffRoofline, 0u);
    EXPECT_GE(comparedWithTable, 3u);
    // Distinct well-known categories keep distinct colours; so do the halves of async pairs, and
    // no compute category takes a collective's colour.
    EXPECT_NE(colors::categoryColor("loop fusion"), colors::categoryColor("input fusion"));
    EXPECT_NE(colors::categoryColor("convolution fusion"), colors::categoryColor("output fusion"));
    EXPECT_NE(colors::categoryColor("copy-start", model::OpClass::HostTransferStart),
        colors::categoryColor("copy-done", model::OpClass::HostTransferDone));
    EXPECT_NE(colors::categoryColor("copy-start", model::OpClass::CopyStart),
        colors::categoryColor("copy-done", model::OpClass::CopyDone));
    for (const char* compute : {"reduce", "gather fusion", "broadcast", "custom-call", "dynamic-update-slice"})
        EXPECT_NE(colors::categoryColor(compute), colors::categoryColor("all-reduce", model::OpClass::SyncCollective))
            << compute;
}

TEST(Look, ShapesWrapInsteadOfEliding)
{
    const QString shape = QStringLiteral("f32[1,128,1024,4096]{3,2,1,0:T(8,128)(2,1)}");
    const QString wrappable = widgets::wrappableShapeText(shape);
    QString plain = wrappable;
    plain.remove(QChar(0x200B));
    EXPECT_EQ(plain, shape);
    EXPECT_GT(wrappable.count(QChar(0x200B)), 3);

    auto profile = tpuscope_test::makeFusionProfile();
    widgets::DetailsPanel panel;
    panel.resize(280, 800); // a narrow dock
    panel.show();
    panel.setAnalysis(test::analysisOf(profile));
    ASSERT_TRUE(panel.showOpByName(QStringLiteral("fusion.3")));
    test::deliverQueuedEvents(); // the tree's layout
    QTreeWidget* tree = panel.fusedTree();
    ASSERT_TRUE(tree && tree->topLevelItemCount() > 0);
    EXPECT_EQ(tree->textElideMode(), Qt::ElideNone);
    EXPECT_TRUE(tree->wordWrap());
    bool sawWrappedRow = false;
    for (QTreeWidgetItemIterator it(tree); *it; ++it) {
        QString text = (*it)->text(2);
        EXPECT_FALSE(text.contains(QStringLiteral("...")) || text.contains(QChar(0x2026))) << text.toStdString();
        text.remove(QChar(0x200B));
        EXPECT_EQ(qt::plainToolTip(text), (*it)->toolTip(2)); // the whole shape, as plain text
        const int needed = tree->fontMetrics().horizontalAdvance(text);
        if (needed > tree->columnWidth(2)) // does not fit on one line: the row grows instead
            sawWrappedRow |= tree->visualItemRect(*it).height() > tree->fontMetrics().height() * 3 / 2;
    }
    EXPECT_TRUE(sawWrappedRow) << "no shape needed two lines at 280 px; the test lost its point";
}

TEST(Look, AdviceNumbersHaveHumanLabelsAndUnits)
{
    const model::ProfilePtr profile = loadSample();
    if (!profile)
        GTEST_SKIP() << "sample missing";
    widgets::AdvicePanel panel;
    panel.resize(520, 820);
    panel.show();
    panel.setAnalysis(test::analysisOf(profile));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !panel.isComputing(); }, 60000));
    ASSERT_GE(panel.adviceCount(), 1);
    auto* details = panel.findChild<QTextBrowser*>(QStringLiteral("adviceDetails"));
    ASSERT_TRUE(details);
    // All advice items' details: the labels the rules' numbers get.
    auto* list = panel.findChild<QListWidget*>(QStringLiteral("adviceList"));
    ASSERT_TRUE(list);
    QString text;
    for (int row = 0; row < list->count(); ++row) {
        list->setCurrentRow(row);
        text += details->toPlainText() + QLatin1Char('\n');
    }
    // The v6e sample's host-offload advice: step_ps 7.841e11, to_device_gbps 27.03, bytes per step.
    EXPECT_TRUE(text.contains(QStringLiteral("step time"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("784 ms")));
    EXPECT_TRUE(text.contains(QStringLiteral("host → device rate")));
    EXPECT_TRUE(text.contains(QStringLiteral("27.1 GB/s")));
    EXPECT_TRUE(text.contains(QStringLiteral("14.9 GiB")));
    EXPECT_FALSE(text.contains(QStringLiteral("7.841e+11"))) << "a raw picosecond count";
    EXPECT_FALSE(text.contains(QStringLiteral("16106127360"))) << "a raw byte count";
    // Every fraction reads as a percentage: no "0.96"-style number is left beside a *_fraction key.
    const QRegularExpression rawFraction(QStringLiteral("\\n0\\.\\d+\\n[a-z_]*fraction"));
    EXPECT_FALSE(rawFraction.match(text).hasMatch()) << rawFraction.match(text).captured(0).toStdString();
}

TEST(Look, SortArrowPointsDownForLargestFirst)
{
    EXPECT_EQ(widgets::sortArrowFor(Qt::DescendingOrder), QStyleOptionHeader::SortDown);
    EXPECT_EQ(widgets::sortArrowFor(Qt::AscendingOrder), QStyleOptionHeader::SortUp);

    const model::ProfilePtr profile = loadSample();
    if (!profile)
        GTEST_SKIP() << "sample missing";
    widgets::OpTableView table;
    table.resize(1000, 400);
    table.show();
    table.setAnalysis(test::analysisOf(profile));
    test::deliverQueuedEvents(); // the header's layout
    QHeaderView* header = table.view()->header();
    ASSERT_EQ(header->sortIndicatorOrder(), Qt::DescendingOrder); // largest share first
    const int section = header->sortIndicatorSection();
    auto arrowArea = [&] {
        const int x = header->sectionViewportPosition(section);
        return QRect(x, 0, header->sectionSize(section), header->height());
    };
    const QColor background = header->palette().color(QPalette::Button);
    // Blank out the label: only the arrow differs between the two images of the section.
    auto render = [&] {
        QImage image(header->size(), QImage::Format_ARGB32);
        header->render(&image);
        return image;
    };
    const QImage descending = render();
    header->setSortIndicator(section, Qt::AscendingOrder);
    const QImage ascending = render();
    // The arrow is where the two images differ.
    QRect diff;
    const QRect area = arrowArea();
    for (int y = area.top(); y <= area.bottom(); ++y)
        for (int x = area.left(); x <= area.right(); ++x)
            if (descending.pixel(x, y) != ascending.pixel(x, y))
                diff |= QRect(x, y, 1, 1);
    ASSERT_FALSE(diff.isEmpty()) << "the sort arrow is not drawn";
    EXPECT_TRUE(arrowPointsDown(descending, diff, background)) << "largest first must point down";
    EXPECT_FALSE(arrowPointsDown(ascending, diff, background));
}

TEST(Look, ContrastRatioMatchesWcag)
{
    EXPECT_NEAR(colors::contrastRatio(Qt::black, Qt::white), 21.0, 1e-9);
    EXPECT_NEAR(colors::contrastRatio(Qt::white, Qt::white), 1.0, 1e-9);
    // WCAG's own example values: #777777 on white is 4.48:1, just under AA.
    EXPECT_NEAR(colors::contrastRatio(QColor(0x77, 0x77, 0x77), Qt::white), 4.48, 0.01);
    const QColor fixed = colors::readableOn(QColor(0x77, 0x77, 0x77), {Qt::white});
    EXPECT_GE(colors::contrastRatio(fixed, Qt::white), 4.5);
    EXPECT_EQ(colors::textOn(QColor(30, 30, 30)), QColor(Qt::white));
}

TEST(Look, HeadlineAndLinksReachAaInLightAndDarkPalettes)
{
    const model::ProfilePtr profile = loadSample();
    if (!profile)
        GTEST_SKIP() << "sample missing";
    QPalette light = QApplication::style()->standardPalette();
    light.setColor(QPalette::Link, QColor(0, 0, 255));
    for (const QPalette& system : {light, colors::darkPalette()}) {
        const bool dark = colors::isDark(system);
        SCOPED_TRACE(dark ? "dark" : "light");
        const QPalette palette = colors::withReadableLinks(system);
        const QColor window = palette.color(QPalette::Window), base = palette.color(QPalette::Base);
        EXPECT_GE(colors::contrastRatio(palette.color(QPalette::Link), window), 4.5);
        EXPECT_GE(colors::contrastRatio(palette.color(QPalette::Link), base), 4.5);
        EXPECT_GE(colors::contrastRatio(palette.color(QPalette::LinkVisited), window), 4.5);

        // The overview's critical headline and its link, as the widget writes them.
        widgets::OverviewView overview(nullptr);
        overview.setPalette(palette);
        overview.resize(1000, 700);
        overview.setAnalysis(test::analysisOf(profile));
        auto* first = overview.findChild<QLabel*>(QStringLiteral("overviewAdvice0"));
        ASSERT_TRUE(first);
        const QString html = first->text();
        const QColor severity = htmlColorAfter(html, QStringLiteral("<b"));
        const QColor link = htmlColorAfter(html, QStringLiteral("<a"));
        ASSERT_TRUE(severity.isValid() && link.isValid()) << html.toStdString();
        EXPECT_GE(colors::contrastRatio(severity, window), 4.5) << severity.name().toStdString();
        EXPECT_GE(colors::contrastRatio(link, window), 4.5) << link.name().toStdString();
        for (model::Severity s : {model::Severity::Critical, model::Severity::Warning, model::Severity::Info}) {
            EXPECT_GE(colors::contrastRatio(colors::severityTextColor(s, palette), window), 4.5);
            EXPECT_GE(colors::contrastRatio(colors::severityTextColor(s, palette), base), 4.5);
        }
        EXPECT_GE(colors::contrastRatio(colors::mutedTextColor(palette), window), 4.5);
    }
    // Without the fix the dark palette's link (the light palette's blue) would fail: the check bites.
    EXPECT_LT(colors::contrastRatio(
                  colors::darkPalette().color(QPalette::Link), colors::darkPalette().color(QPalette::Window)),
        4.5);
}
