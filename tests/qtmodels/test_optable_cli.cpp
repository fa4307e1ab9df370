// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 22 ("every path, same answer"): the GUI's op table shows, for every op of the real samples,
// the same texts as `tpuscope-cli ops` in the columns both have: xprof's FLOPS and HBM utilization,
// bound by, roofline efficiency, wasted, and the transfer rate (host link, ICI or pair).
#include "../testanalysis.h"
#include "qt/optreemodel.h"

#include "loader/loader.h"
#include "report/report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

using namespace tpuscope::model;
using tpuscope::qt::OpTreeModel;

namespace {

std::vector<std::string> splitMarkdownRow(const std::string& line)
{
    // "| a | b |": cells between pipes, an escaped pipe ("\|") stays in its cell.
    std::vector<std::string> cells;
    std::string cell;
    for (size_t i = 1; i < line.size(); ++i) {
        if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
            cell += '|';
            ++i;
        } else if (line[i] == '|') {
            const size_t b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
            cells.push_back(b == std::string::npos ? std::string() : cell.substr(b, e - b + 1));
            cell.clear();
        } else {
            cell += line[i];
        }
    }
    return cells;
}

} // namespace

TEST(OpTableMatchesCli, EveryOpOfTheSamplesReadsTheSameInBoth)
{
    int compared = 0;
    for (const char* name :
        {"tpu_v6e_inference.xplane.pb", "tpu_v5_training.op_profile.json.gz", "tpu_vllm_serving.trace.json.gz"}) {
        const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/" + name;
        if (!std::filesystem::exists(path))
            continue;
        SCOPED_TRACE(name);
        LoadResult loaded = loadProfile(path);
        ASSERT_TRUE(loaded.ok()) << loaded.error;
        const ProfileAnalysisPtr analysis = tpuscope::test::analysisOf(loaded.profile);

        // The CLI's table (`ops --format md`, every row), keyed by op and program.
        std::istringstream md(opsReport(*loaded.profile, analysis->breakdown, TableFormat::Markdown));
        std::vector<std::string> header;
        std::map<std::pair<std::string, std::string>, std::vector<std::string>> cliRows;
        for (std::string line; std::getline(md, line);) {
            if (!line.starts_with("| "))
                continue;
            std::vector<std::string> cells = splitMarkdownRow(line);
            if (header.empty()) {
                header = cells;
                continue;
            }
            if (cells.size() == header.size())
                cliRows[{cells[1], cells[3]}] = std::move(cells);
        }
        auto column = [&](const char* title) {
            return static_cast<size_t>(std::find(header.begin(), header.end(), title) - header.begin());
        };
        const std::pair<int, size_t> columns[] = {{OpTreeModel::FlopsUtilizationColumn, column("FLOPS util")},
            {OpTreeModel::HbmUtilizationColumn, column("HBM util")}, {OpTreeModel::BoundByColumn, column("Bound by")},
            {OpTreeModel::RooflineEfficiencyColumn, column("Roofline eff")},
            {OpTreeModel::WastedColumn, column("Wasted %")},
            {OpTreeModel::TransferRateColumn, column("Transfer rate")}};
        for (const auto& [gui, cli] : columns)
            ASSERT_LT(cli, header.size()) << gui;

        OpTreeModel model;
        model.setAnalysis(analysis);
        for (int g = 0; g < model.rowCount(); ++g) {
            const QModelIndex group = model.index(g, 0);
            for (int r = 0; r < model.rowCount(group); ++r) {
                const QModelIndex index = model.index(r, 0, group);
                const OpId op = index.data(OpTreeModel::OpIdRole).toUInt();
                const OpRow* row = nullptr;
                for (const OpRow& candidate : analysis->breakdown.rows)
                    if (candidate.op == op)
                        row = &candidate;
                ASSERT_TRUE(row);
                // Markdown cells are Markdown-neutral (escaped): compare what they render.
                const auto it = cliRows.find({markdownCell(row->name), markdownCell(row->program)});
                ASSERT_NE(it, cliRows.end()) << row->name << " in " << row->program;
                for (const auto& [gui, cli] : columns)
                    EXPECT_EQ(markdownCell(model.index(r, gui, group).data().toString().toStdString()), it->second[cli])
                        << row->name << ", column " << header[cli];
                ++compared;
            }
        }
    }
    if (compared == 0)
        GTEST_SKIP() << "no samples in " TPUSCOPE_SAMPLES_DIR;
    EXPECT_GT(compared, 100);
}

// Issue 41: the op table's "By layer group" shows the groups `tpuscope-cli ops --by group` prints,
// each with its ops and total share: on the vLLM sample the 64 attention kernels are one row.
TEST(OpTableMatchesCli, LayerGroupsAreTheCliGroups)
{
    const std::string path = std::string(TPUSCOPE_SAMPLES_DIR) + "/tpu_vllm_serving.trace.json.gz";
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "sample not found";
    LoadResult loaded = loadProfile(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const ProfileAnalysisPtr analysis = tpuscope::test::analysisOf(loaded.profile);
    const OpBreakdown groups = regroupOpBreakdown(analysis->breakdown, GroupBy::LayerGroup);
    std::map<std::string, double> cli;
    for (const OpRow& row : groups.rows)
        if (row.memberOps > 1)
            cli[row.name + " (" + std::to_string(row.memberOps) + " ops)"] += row.timeFraction;

    OpTreeModel model;
    model.setAnalysis(analysis);
    model.setGrouping(OpTreeModel::Grouping::LayerGroup);
    EXPECT_EQ(static_cast<size_t>(model.rowCount()), groups.rows.size());
    std::map<std::string, double> gui;
    for (int r = 0; r < model.rowCount(); ++r) {
        const QModelIndex group = model.index(r, OpTreeModel::NameColumn);
        if (model.rowCount(group) > 1)
            gui[group.data().toString().toStdString()]
                += group.siblingAtColumn(OpTreeModel::TimeFractionColumn).data(OpTreeModel::SortRole).toDouble();
    }
    ASSERT_EQ(gui.size(), cli.size());
    for (const auto& [name, share] : cli) {
        ASSERT_TRUE(gui.count(name)) << name;
        EXPECT_NEAR(gui[name], share, 1e-9) << name;
    }
    EXPECT_TRUE(gui.count("RPA-bq_32-bkvp_64-p_64-.* (64 ops)"));
}
