// SPDX-License-Identifier: GPL-3.0-or-later
#include "detailsdocument.h"

#include "analysis/layout.h"

#include <QPalette>

#include <gtest/gtest.h>

using namespace tpuscope;
using widgets::DetailsDocument;

// One builder, two outputs: what the dock shows (HTML) and what Copy puts on the clipboard (Markdown).
TEST(DetailsDocument, WritesTheSameContentAsHtmlAndMarkdown)
{
    DetailsDocument doc {QPalette()};
    doc.heading(QStringLiteral("Performance"));
    doc.kv(QStringLiteral("Total time"), QStringLiteral("3.19 s <1%>"));
    doc.para(QStringLiteral("a & b"));
    const QString html = doc.html();
    const QString md = doc.markdown();
    EXPECT_TRUE(html.contains(QStringLiteral(">Performance</h4>")));
    EXPECT_TRUE(html.contains(QStringLiteral("3.19 s &lt;1%&gt;"))); // escaped in HTML
    EXPECT_TRUE(html.contains(QStringLiteral("a &amp; b")));
    EXPECT_TRUE(md.contains(QStringLiteral("### Performance\n")));
    EXPECT_TRUE(md.contains(QStringLiteral("- **Total time:** 3.19 s <1%>\n")));
    EXPECT_TRUE(md.contains(QStringLiteral("a & b\n")));
    // The key/value list is flushed before the paragraph that follows it, in both outputs.
    EXPECT_LT(html.indexOf(QStringLiteral("Total time")), html.indexOf(QStringLiteral("a &amp; b")));
    EXPECT_LT(md.indexOf(QStringLiteral("Total time")), md.indexOf(QStringLiteral("a & b")));
}

TEST(DetailsDocument, ShapeSectionWrapsTheShapeInHtmlOnly)
{
    model::hlo::Shape shape;
    shape.elementType = model::hlo::PrimitiveType::F32;
    shape.dimensions = {5, 1024, 1024, 256};
    shape.hasLayout = true;
    shape.layout.minorToMajor = {3, 2, 1, 0};
    shape.layout.tiles.push_back(model::hlo::Tile {{8, 128}});
    DetailsDocument doc {QPalette()};
    widgets::addShapeSection(doc, QPalette(), shape, {}, QStringLiteral("Shape"));
    const QString md = doc.markdown();
    const QString html = doc.html();
    EXPECT_FALSE(md.contains(QChar(0x200B))) << "the copied text stays plain";
    EXPECT_TRUE(md.contains(QStringLiteral("f32[5,1024,1024,256]")));
    EXPECT_TRUE(html.contains(QChar(0x200B)));
    EXPECT_TRUE(md.contains(QStringLiteral("Padding efficiency")));
    EXPECT_TRUE(md.contains(QStringLiteral("Dim"))) << md.toStdString(); // the per-dimension table
}
