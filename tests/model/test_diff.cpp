// SPDX-License-Identifier: GPL-3.0-or-later
#include "testutil.h"

#include "analysis/diff.h"
#include "report/diffreport.h"

#include <sstream>

using namespace tpuscope::model;

namespace {

struct OpSpec
{
    const char* name;
    const char* category;
    TimePs duration; // per occurrence
    int occurrences; // per step
    double flops; // per occurrence
};

/// One core, `steps` steps back to back, each running the ops in order.
ProfilePtr makeProfile(const char* program, uint64_t programId, const std::vector<OpSpec>& ops, int steps)
{
    ProfileBuilder b;
    const PlaneId plane = b.addPlane("/device:TPU:0");
    b.profile().planes[plane].deviceType = "TPU v5 lite";
    b.profile().planes[plane].peakTflops = 100;
    b.profile().planes[plane].peakHbmGbps = 800;
    b.addProgram(programId, program, nullptr);
    const TrackId stepTrack = b.addTrack(plane, "Steps", TrackKind::Steps);
    const TrackId opTrack = b.addTrack(plane, "XLA Ops", TrackKind::XlaOps);
    std::vector<OpId> ids;
    for (const OpSpec& s : ops) {
        OpInfo op;
        op.name = b.intern(s.name);
        op.category = b.intern(s.category);
        op.isXlaOp = true;
        op.programId = programId;
        op.hasProgramId = true;
        op.flops = s.flops;
        ids.push_back(b.addOp(op));
    }
    OpInfo stepOp;
    stepOp.name = b.intern("step");
    const OpId step = b.addOp(stepOp);
    TimePs t = 0;
    for (int i = 0; i < steps; ++i) {
        const TimePs begin = t;
        for (size_t k = 0; k < ops.size(); ++k)
            for (int n = 0; n < ops[k].occurrences; ++n) {
                b.addEvent(opTrack, t, ops[k].duration, ids[k]);
                t += ops[k].duration;
            }
        b.addEvent(stepTrack, begin, t - begin, step);
    }
    return b.finish();
}

const DiffRow* findRow(const ProfileDiff& d, const std::string& name)
{
    for (const DiffRow& r : d.rows)
        if (r.name == name)
            return &r;
    return nullptr;
}

} // namespace

TEST(Diff, KnownDifferences)
{
    // Before: conv dominates. After (recompiled: other program name): conv twice as fast, the
    // copy is gone, a new fusion appears, the reduce runs twice per step; twice as many steps.
    ProfilePtr a = makeProfile("jit_step_v1", 1,
        {{"convolution.1", "convolution", 1'000'000, 1, 5e7}, {"copy.2", "data formatting", 200'000, 1, 0},
            {"reduce.3", "reduce", 100'000, 1, 1e6}},
        4);
    ProfilePtr b = makeProfile("jit_step_v2", 2,
        {{"convolution.1", "convolution", 500'000, 1, 5e7}, {"fusion.9", "loop fusion", 50'000, 1, 0},
            {"reduce.3", "reduce", 100'000, 2, 1e6}},
        8);
    const ProfileDiff d = computeDiff(a, b);
    EXPECT_TRUE(d.perStep);
    EXPECT_EQ(d.a.steps, 4);
    EXPECT_EQ(d.b.steps, 8);
    EXPECT_DOUBLE_EQ(d.a.stepPs, 1'300'000);
    EXPECT_DOUBLE_EQ(d.b.stepPs, 750'000);
    EXPECT_DOUBLE_EQ(d.a.totalOpTimePs, 1'300'000); // per step
    EXPECT_DOUBLE_EQ(d.b.totalOpTimePs, 750'000);
    EXPECT_EQ(d.matched, 2u);
    EXPECT_EQ(d.matchedByName, 2u); // the program names differ
    EXPECT_EQ(d.added, 1u);
    EXPECT_EQ(d.removed, 1u);

    const DiffRow* conv = findRow(d, "convolution.1");
    ASSERT_TRUE(conv);
    EXPECT_EQ(conv->status, DiffStatus::Both);
    EXPECT_EQ(conv->matchedBy, MatchedBy::Name); // no HLO: the same unique name, across programs
    EXPECT_DOUBLE_EQ(conv->timeDeltaPs(), -500'000);
    // 5e7 FLOP in 1 µs at 100 TFLOP/s = 50 %; in 0.5 µs = 100 %.
    EXPECT_NEAR(conv->a.flopsUtilization.value_or(-1), 0.5, 1e-12);
    EXPECT_NEAR(conv->b.flopsUtilization.value_or(-1), 1.0, 1e-12);
    EXPECT_EQ(conv->a.occurrences, 4);
    EXPECT_EQ(conv->b.occurrences, 8);
    const DiffRow* reduce = findRow(d, "reduce.3");
    ASSERT_TRUE(reduce);
    EXPECT_DOUBLE_EQ(reduce->timeDeltaPs(), 100'000);
    EXPECT_EQ(reduce->b.occurrences - reduce->a.occurrences, 16 - 4);
    const DiffRow* copy = findRow(d, "copy.2");
    ASSERT_TRUE(copy);
    EXPECT_EQ(copy->status, DiffStatus::Removed);
    EXPECT_DOUBLE_EQ(copy->timeDeltaPs(), -200'000);
    const DiffRow* fusion = findRow(d, "fusion.9");
    ASSERT_TRUE(fusion);
    EXPECT_EQ(fusion->status, DiffStatus::New);
    // Largest change first.
    EXPECT_EQ(d.rows.front().name, "convolution.1");
}

TEST(Diff, SameProgramMatchesExactlyAndAmbiguousNamesDoNotMatch)
{
    ProfilePtr a = makeProfile("jit_f", 1, {{"add.1", "add", 100, 1, 0}, {"mul.2", "multiply", 100, 1, 0}}, 1);
    ProfilePtr b = makeProfile("jit_f", 7, {{"add.1", "add", 300, 1, 0}}, 1);
    const ProfileDiff d = computeDiff(a, b);
    EXPECT_EQ(d.matched, 1u);
    EXPECT_EQ(d.matchedByName, 1u);
    EXPECT_EQ(d.removed, 1u);
    const DiffRow* add = findRow(d, "add.1");
    ASSERT_TRUE(add);
    EXPECT_EQ(add->matchedBy, MatchedBy::Name);
    EXPECT_DOUBLE_EQ(add->timeDeltaPs(), 200);
}

TEST(Diff, MarkdownIsAValidTable)
{
    ProfilePtr a = makeProfile("jit_f", 1, {{"add.1", "add", 100, 1, 0}, {"a|b", "weird|category", 50, 1, 0}}, 2);
    ProfilePtr b = makeProfile("jit_f", 1, {{"add.1", "add", 300, 1, 0}}, 2);
    const std::string md = diffReport(computeDiff(a, b), TableFormat::Markdown);
    // Every table: a header row, a separator with the same number of cells, rows with that count.
    auto cells = [](const std::string& line) {
        int n = 0;
        for (size_t i = 0; i < line.size(); ++i)
            if (line[i] == '|' && (i == 0 || line[i - 1] != '\\'))
                ++n;
        return n - 1;
    };
    std::istringstream in(md);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    int tables = 0;
    for (size_t i = 0; i + 1 < lines.size(); ++i) {
        if (!lines[i].starts_with("|") || lines[i + 1].find("---") == std::string::npos
            || (i && lines[i - 1].starts_with("|")))
            continue;
        ++tables;
        const int columns = cells(lines[i]);
        EXPECT_GT(columns, 1);
        EXPECT_EQ(cells(lines[i + 1]), columns) << lines[i + 1];
        for (size_t j = i + 2; j < lines.size() && lines[j].starts_with("|"); ++j)
            EXPECT_EQ(cells(lines[j]), columns) << lines[j];
    }
    EXPECT_EQ(tables, 2) << md;
    EXPECT_NE(md.find("removed"), std::string::npos);

    const std::string json = diffReport(computeDiff(a, b), TableFormat::Json);
    EXPECT_NE(json.find("\"status\": \"removed\""), std::string::npos);
    EXPECT_NE(json.find("\"step_ps\""), std::string::npos);
}
