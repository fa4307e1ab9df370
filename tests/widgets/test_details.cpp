// SPDX-License-Identifier: GPL-3.0-or-later
#include "../testanalysis.h"
#include "detailspanel.h"

#include "analysis/advice.h"
#include "analysis/padding.h"
#include "cli.h"
#include "core/profile.h"
#include "loader/loader.h"

#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QUrl>

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

using namespace tpuscope::model;
using tpuscope::widgets::DetailsPanel;

namespace tpuscope_test {

hlo::Shape f32(std::vector<int64_t> dims, std::vector<int64_t> minorToMajor, std::vector<std::vector<int64_t>> tiles)
{
    hlo::Shape s;
    s.elementType = hlo::PrimitiveType::F32;
    s.dimensions = std::move(dims);
    s.hasLayout = true;
    s.layout.minorToMajor = std::move(minorToMajor);
    for (auto& t : tiles)
        s.layout.tiles.push_back(hlo::Tile {std::move(t)});
    return s;
}

hlo::Instruction instruction(
    int64_t id, std::string name, std::string opcode, hlo::Shape shape, std::vector<int64_t> operands = {})
{
    hlo::Instruction in;
    in.id = id;
    in.name = std::move(name);
    in.opcode = std::move(opcode);
    in.shape = std::move(shape);
    in.operandIds = std::move(operands);
    return in;
}

/// A program with `fusion.3` (kOutput fusion around a convolution with output f32[16,1]{0,1:T(8,128)}:
/// batch 16 in the 128 tile, feature 1 in the 8 tile → 16·1 of 128·8 = 1.56 %) fed by `fusion.1`
/// (a loop fusion that is itself profiled), plus an op without HLO that only has a long name.
/// Two TPU cores with peaks 100 TFLOP/s and 1000 GB/s; every op sits under the roofline (the data
/// is physically possible).
ProfilePtr makeFusionProfile()
{
    auto module = std::make_shared<hlo::Module>();
    module->name = "jit_step";
    module->id = 7;
    module->entryComputationId = 1;

    hlo::Computation fused;
    fused.id = 2;
    fused.name = "fused_computation.3";
    fused.isFusion = true;
    fused.instructions.push_back(instruction(20, "param_0.1", "parameter", f32({16, 8}, {1, 0}, {{8, 128}})));
    fused.instructions.back().parameterNumber = 0;
    fused.instructions.push_back(instruction(21, "param_1.1", "parameter", f32({8, 1}, {1, 0}, {{8, 128}})));
    fused.instructions.back().parameterNumber = 1;
    auto conv = instruction(22, "convolution.1", "convolution", f32({16, 1}, {0, 1}, {{8, 128}}), {20, 21});
    conv.hasConvolutionDimensions = true;
    conv.convolution.inputBatch = 0;
    conv.convolution.inputFeature = 1;
    conv.convolution.kernelInputFeature = 0;
    conv.convolution.kernelOutputFeature = 1;
    conv.convolution.outputBatch = 0;
    conv.convolution.outputFeature = 1;
    fused.instructions.push_back(conv);
    fused.instructions.push_back(instruction(23, "copy.5", "copy", f32({16, 1}, {0, 1}, {{8, 128}}), {22}));
    fused.rootId = 23;

    hlo::Computation loop;
    loop.id = 3;
    loop.name = "fused_computation.1";
    loop.isFusion = true;
    loop.instructions.push_back(instruction(30, "param_0.2", "parameter", f32({16, 8}, {1, 0}, {{8, 128}})));
    loop.instructions.push_back(
        instruction(31, "exponential.2", "exponential", f32({16, 8}, {1, 0}, {{8, 128}}), {30}));
    loop.rootId = 31;

    hlo::Computation entry;
    entry.id = 1;
    entry.name = "main.10";
    entry.instructions.push_back(instruction(1, "Arg_0.1", "parameter", f32({16, 8}, {1, 0}, {{8, 128}})));
    entry.instructions.push_back(instruction(2, "Arg_1.2", "parameter", f32({8, 1}, {1, 0}, {{8, 128}})));
    entry.instructions.back().parameterNumber = 1;
    auto producer = instruction(3, "fusion.1", "fusion", f32({16, 8}, {1, 0}, {{8, 128}}), {1});
    producer.fusionKind = "kLoop";
    producer.calledComputationIds = {3};
    entry.instructions.push_back(producer);
    auto fusion = instruction(4, "fusion.3", "fusion", f32({16, 1}, {0, 1}, {{8, 128}}), {3, 2});
    fusion.fusionKind = "kOutput";
    fusion.calledComputationIds = {2};
    fusion.opName = "jit(step)/conv_general_dilated";
    fusion.sourceFile = "model.py";
    fusion.sourceLine = 42;
    entry.instructions.push_back(fusion);
    entry.rootId = 4;

    module->computations = {entry, fused, loop};
    module->buildIndex();

    ProfileBuilder b;
    b.addProgram(7, "jit_step", module);
    auto addOp = [&](const char* name, const char* category, double flops, double bytes, const char* longName = "") {
        OpInfo op;
        op.name = b.intern(name);
        op.category = b.intern(category);
        op.longName = b.intern(longName);
        op.programId = 7;
        op.hasProgramId = true;
        op.isXlaOp = true;
        op.flops = flops;
        op.bytesAccessed = bytes;
        return b.addOp(op);
    };
    const OpId conv3 = addOp("fusion.3", "convolution fusion", 4096, 256);
    const OpId loop1 = addOp("fusion.1", "loop fusion", 128, 64);
    const OpId text = addOp("add.9", "elementwise", 15, 24, "%add.9 = f32[3,5]{1,0:T(8,128)} add(%a, %b)");
    for (int core = 0; core < 2; ++core) {
        PlaneId plane = b.addPlane("/device:TPU:" + std::to_string(core));
        b.profile().planes[plane].peakTflops = 100;
        b.profile().planes[plane].peakHbmGbps = 1000;
        TrackId track = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
        for (int step = 0; step < 10; ++step) {
            const TimePs t = step * 1000;
            b.addEvent(track, t, 100, loop1);
            b.addEvent(track, t + 100, 400, conv3);
            b.addEvent(track, t + 600, 50, text);
        }
    }
    return b.finish();
}

OpId opNamed(const Profile& p, const std::string& name)
{
    for (OpId id = 0; id < p.ops.size(); ++id)
        if (p.str(p.ops[id].name) == name)
            return id;
    return kNone;
}

} // namespace tpuscope_test

using namespace tpuscope_test;

TEST(DetailsPanel, FusionShowsPaddingOfTheOutput)
{
    auto profile = makeFusionProfile();
    DetailsPanel panel;
    panel.resize(700, 900);
    panel.setAnalysis(tpuscope::test::analysisOf(profile));
    ASSERT_TRUE(panel.showOpByName(QStringLiteral("fusion.3")));
    EXPECT_EQ(panel.currentOp(), opNamed(*profile, "fusion.3"));

    const QString text = panel.browser()->toPlainText();
    EXPECT_TRUE(text.contains(QStringLiteral("16·1 of 128·8 used = 1.56%"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("convolution fusion")));
    EXPECT_TRUE(text.contains(QStringLiteral("jit_step")));
    EXPECT_TRUE(text.contains(QStringLiteral("jit(step)/conv_general_dilated")));
    EXPECT_TRUE(text.contains(QStringLiteral("model.py:42")));
    EXPECT_TRUE(text.contains(QStringLiteral("kOutput")));
    // Semantics come from the convolution inside the fusion.
    EXPECT_TRUE(text.contains(QStringLiteral("batch")));
    EXPECT_TRUE(text.contains(QStringLiteral("feature")));
    // 20 occurrences over two cores; 4096 FLOP in 400 ps = 10.24 TFLOP/s of 100 → 10.2 %.
    EXPECT_TRUE(text.contains(QStringLiteral("Occurrences"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("10.2%"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("16 FLOP per HBM byte"))) << text.toStdString();

    // Fused instructions: root and compute core are marked, the convolution is shown first.
    QTreeWidget* tree = panel.fusedTree();
    ASSERT_EQ(tree->topLevelItemCount(), 4);
    EXPECT_TRUE(tree->topLevelItem(3)->text(0).contains(QStringLiteral("ROOT")));
    EXPECT_TRUE(tree->topLevelItem(2)->text(0).contains(QStringLiteral("compute")));
    EXPECT_EQ(tree->topLevelItem(2)->text(3), QStringLiteral("1.56%"));
    ASSERT_TRUE(tree->currentItem());
    EXPECT_TRUE(tree->currentItem()->text(0).startsWith(QStringLiteral("convolution.1")));
    EXPECT_TRUE(panel.instructionBrowser()->toPlainText().contains(QStringLiteral("16·1 of 128·8")));

    // A parameter leads to the fusion operand, which is the profiled op fusion.1.
    ASSERT_TRUE(panel.selectFusedInstruction(QStringLiteral("param_0.1")));
    const QString paramHtml = panel.instructionBrowser()->toHtml();
    const OpId producer = opNamed(*profile, "fusion.1");
    EXPECT_TRUE(paramHtml.contains(QStringLiteral("op:%1").arg(producer))) << paramHtml.toStdString();
    EXPECT_TRUE(panel.instructionBrowser()->toPlainText().contains(QStringLiteral("8·16 of 128·16")));

    // Clicking an operand that is a profiled op asks the app to show it.
    EXPECT_TRUE(panel.browser()->toHtml().contains(QStringLiteral("op:%1").arg(producer)));
    QSignalSpy spy(&panel, &DetailsPanel::opActivated);
    emit panel.browser()->anchorClicked(QUrl(QStringLiteral("op:%1").arg(producer)));
    ASSERT_EQ(spy.count(), 1);
    EXPECT_EQ(spy.at(0).at(0).value<OpId>(), producer);

    // Clicking an operand inside the fusion selects that instruction.
    ASSERT_TRUE(panel.selectFusedInstruction(QStringLiteral("copy.5")));
    emit panel.instructionBrowser()->anchorClicked(QUrl(QStringLiteral("instr:22")));
    EXPECT_TRUE(tree->currentItem()->text(0).startsWith(QStringLiteral("convolution.1")));

    // Markdown copy carries the same facts.
    const QString md = panel.markdown();
    EXPECT_TRUE(md.startsWith(QStringLiteral("## fusion.3")));
    EXPECT_TRUE(md.contains(QStringLiteral("16·1 of 128·8 used = 1.56%")));
    EXPECT_TRUE(md.contains(QStringLiteral("### Fused instructions")));
    EXPECT_TRUE(md.contains(QStringLiteral("| convolution.1 | convolution |")));
    EXPECT_TRUE(md.contains(QStringLiteral("```\n%fusion.3 = f32[16,1]{0,1:T(8,128)} fusion(%fusion.1, %Arg_1.2)")))
        << md.toStdString();
}

TEST(DetailsPanel, OpWithoutHloUsesTheLongNameShape)
{
    auto profile = makeFusionProfile();
    DetailsPanel panel;
    panel.setAnalysis(tpuscope::test::analysisOf(profile));
    ASSERT_TRUE(panel.showOpByName(QStringLiteral("add.9")));
    const QString text = panel.browser()->toPlainText();
    // f32[3,5] in T(8,128): 5·3 of 128·8 = 15/1024.
    EXPECT_TRUE(text.contains(QStringLiteral("5·3 of 128·8 used = 1.46%"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("%add.9 = f32[3,5]")));
    EXPECT_FALSE(panel.fusedTree()->isVisibleTo(&panel));
}

TEST(DetailsPanel, ClearsAndRejectsUnknownNames)
{
    auto profile = makeFusionProfile();
    DetailsPanel panel;
    EXPECT_FALSE(panel.showOpByName(QStringLiteral("fusion.3"))); // no profile yet
    panel.setAnalysis(tpuscope::test::analysisOf(profile));
    EXPECT_FALSE(panel.showOpByName(QStringLiteral("no.such.op")));
    panel.showOp(opNamed(*profile, "fusion.1"));
    EXPECT_FALSE(panel.markdown().isEmpty());
    panel.showOp(kNone);
    EXPECT_EQ(panel.currentOp(), kNone);
    EXPECT_TRUE(panel.markdown().isEmpty());
    panel.showOp(123456); // out of range is treated as none, never a crash
    EXPECT_EQ(panel.currentOp(), kNone);
    panel.setAnalysis(nullptr);
    EXPECT_TRUE(panel.browser()->toPlainText().isEmpty());
}

TEST(DetailsPanel, RealSample)
{
    const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v6e_inference.xplane.pb";
    if (!QFile::exists(QString::fromStdString(path)))
        GTEST_SKIP() << "sample not found: " << path;
    auto result = loadProfile(path);
    ASSERT_TRUE(result.ok()) << result.error;
    DetailsPanel panel;
    panel.resize(720, 1000);
    panel.setAnalysis(tpuscope::test::analysisOf(result.profile));
    ASSERT_TRUE(panel.showOpByName(QStringLiteral("broadcast_add_fusion")));
    const QString text = panel.browser()->toPlainText();
    EXPECT_TRUE(text.contains(QStringLiteral("loop fusion")));
    EXPECT_TRUE(text.contains(QStringLiteral("Padding efficiency"))) << text.toStdString();
    EXPECT_GT(panel.fusedTree()->topLevelItemCount(), 0);
    if (const QByteArray dir = qgetenv("TPUSCOPE_SHOT_DIR"); !dir.isEmpty()) {
        panel.show();
        panel.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/details_sample.png"));
        QFile md(QString::fromLocal8Bit(dir) + QStringLiteral("/details_sample.md"));
        if (md.open(QIODevice::WriteOnly))
            md.write(panel.markdown().toUtf8());
        DetailsPanel handBuilt;
        handBuilt.resize(720, 1000);
        handBuilt.setAnalysis(tpuscope::test::analysisOf(makeFusionProfile()));
        handBuilt.showOpByName(QStringLiteral("fusion.3"));
        handBuilt.show();
        handBuilt.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/details_fusion.png"));
        // Palette-aware colours: the same view in a dark palette.
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(45, 45, 48));
        dark.setColor(QPalette::WindowText, QColor(220, 220, 220));
        dark.setColor(QPalette::Base, QColor(30, 30, 32));
        dark.setColor(QPalette::AlternateBase, QColor(50, 50, 54));
        dark.setColor(QPalette::Text, QColor(220, 220, 220));
        dark.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
        dark.setColor(QPalette::Button, QColor(55, 55, 58));
        dark.setColor(QPalette::ButtonText, QColor(220, 220, 220));
        dark.setColor(QPalette::Mid, QColor(90, 90, 90));
        dark.setColor(QPalette::Link, QColor(110, 170, 255));
        handBuilt.setPalette(dark);
        handBuilt.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/details_fusion_dark.png"));
    }
}

namespace {

// A TF1 op_profile as in the model's Tf1Layout tests: fusion.3 has a layout analysis (batch 16 in a
// 128 alignment, 1 feature in an 8 one, FLOPS utilization 1.5 %: padding-bound), fusion.9 an f32
// layout without tiles, which the model takes as T(8,128).
constexpr const char* kTf1OpProfile = R"({"byCategory": {"name": "byCategory", "metrics": {"time": 1, "flops": 0.02},
 "children": [{"name": "convolution fusion", "metrics": {"time": 0.8, "flops": 0.012}, "category": {},
   "children": [{"name": "%fusion.3", "metrics": {"time": 0.8, "flops": 0.012, "rawTime": 8e11},
     "xla": {"op": "fusion:kOutput",
       "expression": "%fusion.3 = f32[16,128,128,1]{0,3,2,1} fusion(f32[16,128,128,32]{0,3,2,1} %a), kind=kOutput",
       "provenance": "unet/conv2d_18/Conv2D", "category": "convolution fusion",
       "layout": {"dimensions": [{"size": 16, "alignment": 128, "semantics": "batch"},
                                 {"size": 1, "alignment": 8, "semantics": "feature"},
                                 {"size": 128, "alignment": 0, "semantics": "spatial"},
                                 {"size": 128, "alignment": 0, "semantics": "spatial"}]}}, "children": []}]},
  {"name": "loop fusion", "metrics": {"time": 0.2, "flops": 0.008}, "category": {},
   "children": [{"name": "%fusion.9", "metrics": {"time": 0.2, "flops": 0.008, "rawTime": 2e11},
     "xla": {"op": "fusion:kLoop", "expression": "%fusion.9 = f32[16,1000]{1,0} fusion(f32[16,1000]{1,0} %b), kind=kLoop",
       "provenance": "unet/dense/add", "category": "loop fusion"}, "children": []}]}]}})";

std::string fusionCommandOutput(const std::string& path, const std::string& op)
{
    tpuscope::cli::Arguments args;
    args.command = "fusion";
    args.positional = {path, op};
    std::ostringstream out, err;
    EXPECT_EQ(tpuscope::cli::runFusion(args, out, err), 0) << err.str();
    return out.str();
}

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

// The panel lays out what resolveOpPadding decides, as `tpuscope-cli fusion` prints it: every array
// with its role, shape, padding and how its tiling is known, in the model's order, and the model's
// reason when there is none. One op of each kind the model tells apart.
TEST(DetailsPanel, ShowsTheArraysOfResolveOpPaddingAsTheCliDoes)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const std::string tf1 = dir.path().toStdString() + "/tf1.op_profile.json";
    {
        QFile file(q(tf1));
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(kTf1OpProfile);
    }
    const std::string samples = TPUSCOPE_SAMPLES_DIR;
    struct Case
    {
        std::string path, op;
        ShapeSource source;
        size_t arrays; // as the model resolves them, so that the case shows what it is here for
        bool assumption = false; // an array's tiling is assumed or read from the layout analysis
        bool paddingBound = false;
    };
    const std::vector<Case> cases {
        // A convolution fusion: its output and the convolution's activation input.
        {std::string(TPUSCOPE_TEST_DATA_DIR) + "/../../resources/demo.xplane.pb", "fusion.3", ShapeSource::Hlo, 2},
        // An async copy's output tuple (f32 in host memory, f32 in HBM, the u32 context), element by
        // element; its HLO prints the tuple without a layout, the shape stat has one.
        {samples + "/tpu_v6e_inference.xplane.pb", "copy-start.1", ShapeSource::ShapeWithLayout, 3},
        // A multi-output fusion of 18 elements: the first ones in full, the rest a row each.
        {samples + "/tpu_v5_training.op_profile.json.gz", "fusion.743", ShapeSource::HloText, 18},
        // op_profile layout analyses, one of them padding-bound.
        {samples + "/demo_synthetic.op_profile.json", "convolution", ShapeSource::LayoutHint, 1, true},
        {tf1, "fusion.3", ShapeSource::LayoutHint, 1, true, true},
        // A TF1 f32 layout without tiles: T(8,128) assumed.
        {tf1, "fusion.9", ShapeSource::HloText, 1, true},
        // "%fusion = something": no shape at all, and the model says why.
        {samples + "/demo_synthetic.op_profile.json", "fusion", ShapeSource::None, 0},
    };
    std::vector<std::string> missing;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.path + " " + c.op);
        if (!QFile::exists(q(c.path))) {
            missing.push_back(c.path);
            continue;
        }
        LoadResult loaded = loadProfile(c.path);
        ASSERT_TRUE(loaded.ok()) << loaded.error;
        const auto analysis = tpuscope::test::analysisOf(loaded.profile);
        DetailsPanel panel;
        panel.resize(720, 1000);
        panel.setAnalysis(analysis);
        ASSERT_TRUE(panel.showOpByName(q(c.op)));
        const OpPadding padding = resolveOpPadding(*loaded.profile, panel.currentOp());
        QString shown = panel.browser()->toPlainText();
        shown.remove(QChar(0x200B)); // the shapes' break opportunities
        const std::string cli = fusionCommandOutput(c.path, c.op);

        EXPECT_EQ(padding.source, c.source);
        ASSERT_EQ(padding.arrays.size(), c.arrays) << padding.error;
        if (padding.arrays.empty()) {
            ASSERT_FALSE(padding.error.empty());
            EXPECT_TRUE(shown.contains(q(padding.error))) << shown.toStdString();
            EXPECT_NE(cli.find(padding.error), std::string::npos) << cli;
        }
        EXPECT_EQ(std::any_of(padding.arrays.begin(), padding.arrays.end(),
                      [](const ArrayPadding& array) { return !array.assumption.empty(); }),
            c.assumption);
        qsizetype at = 0;
        for (const ArrayPadding& array : padding.arrays) {
            const std::string shape = arrayShapeText(array);
            const std::string padded = paddingText(array.padding);
            // In the panel: the role, then its shape and padding (a section, or a table row).
            at = shown.indexOf(q(array.role), at);
            if (at < 0) {
                ADD_FAILURE() << array.role << " not in\n" << shown.toStdString();
                break; // the next case still runs
            }
            EXPECT_GT(shown.indexOf(q(shape), at), at) << shape;
            EXPECT_GT(shown.indexOf(q(padded), at), at) << padded;
            EXPECT_NE(cli.find(array.role + ": " + shape), std::string::npos) << cli;
            EXPECT_NE(cli.find("padding: " + padded), std::string::npos) << cli;
            if (!array.assumption.empty()) {
                EXPECT_GT(shown.indexOf(q(array.assumption), at), at) << array.assumption;
                EXPECT_NE(cli.find("tiling: " + array.assumption), std::string::npos) << cli;
            }
        }
        const OpRow* row = nullptr;
        for (const OpRow& r : analysis->breakdown.rows)
            if (r.op == panel.currentOp())
                row = &r;
        const std::string bound = row ? paddingBoundFinding(*row, padding) : std::string();
        EXPECT_EQ(!bound.empty(), c.paddingBound);
        if (!bound.empty()) {
            EXPECT_TRUE(shown.contains(q(bound))) << shown.toStdString();
        }
    }
    if (!missing.empty())
        GTEST_SKIP() << "samples not found, their cases not run: " << missing.front() << " ...";
}

// Issue 25.9: the drill-down of a dynamic-update-slice shows its update operand, shape and layout,
// and the strided write in the strided-update advice's words, the same in the panel and the CLI.
TEST(DetailsPanel, DynamicUpdateSliceShowsTheUpdateOperandAsTheAdviceCitesIt)
{
    const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_v5_training.op_profile.json.gz";
    if (!QFile::exists(q(path)))
        GTEST_SKIP() << "sample missing";
    LoadResult loaded = loadProfile(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const auto analysis = tpuscope::test::analysisOf(loaded.profile);
    DetailsPanel panel;
    panel.resize(720, 1000);
    panel.setAnalysis(analysis);
    ASSERT_TRUE(panel.showOpByName(QStringLiteral("dynamic-update-slice.33")));
    const OpPadding padding = resolveOpPadding(*loaded.profile, panel.currentOp());
    ASSERT_TRUE(padding.update);
    const UpdateWrite& u = *padding.update;
    EXPECT_EQ(u.role(), "update (operand 1 of dynamic-update-slice.33)");
    EXPECT_EQ(hlo::shapeToString(u.update), "f32[1,7168,512]{2,0,1:T(1,128)}");
    EXPECT_TRUE(u.strided);
    const std::string write = updateWriteText(u);
    EXPECT_NE(
        write.find("each update fills 1 of the 8 rows of every tile it writes (12.5% of the tile)"), std::string::npos)
        << write;

    QString shown = panel.browser()->toPlainText();
    shown.remove(QChar(0x200B));
    const std::string cli = fusionCommandOutput(path, "dynamic-update-slice.33");
    const std::string heading = u.role() + ": " + hlo::shapeToString(u.update);
    EXPECT_TRUE(shown.contains(q(heading))) << shown.toStdString();
    const std::string sentence = "dynamic-update-slice.33 " + write; // the advice's words
    EXPECT_TRUE(shown.contains(q(sentence))) << shown.toStdString();
    EXPECT_TRUE(shown.contains(q(paddingText(u.updatePadding)))) << shown.toStdString();
    EXPECT_NE(cli.find(heading), std::string::npos) << cli;
    EXPECT_NE(cli.find("  " + sentence), std::string::npos) << cli;
    EXPECT_NE(cli.find("padding: " + paddingText(u.updatePadding)), std::string::npos) << cli;

    // The advice cites the very phrase.
    const Advice* strided = nullptr;
    for (const Advice& a : analysis->advice.advice)
        if (a.rule == "strided-update")
            strided = &a;
    ASSERT_TRUE(strided);
    EXPECT_NE(strided->detail.find(sentence), std::string::npos) << strided->detail;

    // An op that is no update op has none.
    ASSERT_TRUE(panel.showOpByName(QStringLiteral("fusion.743")));
    EXPECT_FALSE(resolveOpPadding(*loaded.profile, panel.currentOp()).update);
    EXPECT_FALSE(panel.browser()->toPlainText().contains(QStringLiteral("update (operand")));
}
