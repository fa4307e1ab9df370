// SPDX-License-Identifier: GPL-3.0-or-later
#include "diff.h"

#include "../core/format.h"

#include "opbreakdown.h"
#include "summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace tpuscope::model {

const char* diffStatusName(DiffStatus status)
{
    switch (status) {
    case DiffStatus::Both:
        return "both";
    case DiffStatus::New:
        return "new";
    case DiffStatus::Removed:
        return "removed";
    }
    return "both";
}

std::vector<std::string> ProfileDiff::warnings() const
{
    std::vector<std::string> out;
    if (!related())
        out.push_back("These profiles look unrelated: " + std::to_string(matched) + " ops matched, covering "
            + formatPercent(matchedTimeFractionA) + " of the before op time and " + formatPercent(matchedTimeFractionB)
            + " of the after op time (at least " + formatPercent(kRelatedMatchedTimeFraction)
            + " of each is needed). The changes below are not the effect of a change to one program.");
    if (differentGeneration())
        out.push_back("Different TPU generations (before " + a.generation + ", after " + b.generation
            + "): every time compares the hardware as well.");
    return out;
}

namespace {

struct Side
{
    const OpBreakdown& breakdown;
    StepStats steps;
    double divisor = 1; // steps when comparing per step
};

DiffSide sideOf(const OpRow& row, double divisor)
{
    DiffSide s;
    s.op = row.op;
    s.program = row.program;
    s.occurrences = row.occurrences;
    s.timePs = row.totalTimePs / divisor;
    s.timeFraction = row.timeFraction;
    s.flopsUtilization = row.flopsUtilization;
    s.hbmUtilization = row.hbmUtilization;
    return s;
}

DiffProfileSide profileSide(const Profile& p, const Side& s)
{
    DiffProfileSide out;
    out.device = p.device.type;
    out.generation = p.device.generation;
    out.cores = p.device.cores;
    out.steps = s.steps.count;
    out.stepPs = s.steps.averagePs;
    out.totalOpTimePs = s.breakdown.totalTimePs / s.divisor;
    out.flopsUtilization = s.breakdown.flops.capped;
    out.hbmUtilization = s.breakdown.hbm.capped;
    out.ops = s.breakdown.rows.size();
    return out;
}

} // namespace

ProfileDiff computeDiff(const Profile& a, const Profile& b)
{
    return computeDiff(a, computeOpBreakdown(a), computeStepStats(a), b, computeOpBreakdown(b), computeStepStats(b));
}

ProfileDiff computeDiff(const Profile& a, const OpBreakdown& breakdownA, const StepStats& stepsA, const Profile& b,
    const OpBreakdown& breakdownB, const StepStats& stepsB)
{
    Side sa {breakdownA, stepsA};
    Side sb {breakdownB, stepsB};
    ProfileDiff diff;
    diff.perStep = sa.steps.count > 0 && sb.steps.count > 0;
    if (diff.perStep) {
        sa.divisor = static_cast<double>(sa.steps.count);
        sb.divisor = static_cast<double>(sb.steps.count);
    }
    diff.a = profileSide(a, sa);
    diff.b = profileSide(b, sb);

    // Exact (program, name) first; then the op name alone among what is left, when it is unique
    // on both sides (the same name in two programs cannot be told apart).
    const auto& rowsA = sa.breakdown.rows;
    const auto& rowsB = sb.breakdown.rows;
    std::vector<int> matchOfA(rowsA.size(), -1);
    std::vector<bool> usedB(rowsB.size(), false);
    std::unordered_map<std::string, size_t> byKey;
    for (size_t j = 0; j < rowsB.size(); ++j)
        byKey.emplace(rowsB[j].program + '\x1f' + rowsB[j].name, j);
    for (size_t i = 0; i < rowsA.size(); ++i)
        if (auto it = byKey.find(rowsA[i].program + '\x1f' + rowsA[i].name); it != byKey.end()) {
            matchOfA[i] = static_cast<int>(it->second);
            usedB[it->second] = true;
        }
    std::unordered_map<std::string, int> nameCountA, nameCountB;
    std::unordered_map<std::string, size_t> nameToB;
    for (size_t i = 0; i < rowsA.size(); ++i)
        if (matchOfA[i] < 0)
            ++nameCountA[rowsA[i].name];
    for (size_t j = 0; j < rowsB.size(); ++j)
        if (!usedB[j]) {
            ++nameCountB[rowsB[j].name];
            nameToB[rowsB[j].name] = j;
        }
    std::vector<bool> byName(rowsA.size(), false);
    for (size_t i = 0; i < rowsA.size(); ++i) {
        if (matchOfA[i] >= 0)
            continue;
        const std::string& n = rowsA[i].name;
        if (nameCountA[n] == 1 && nameCountB[n] == 1) {
            const size_t j = nameToB[n];
            matchOfA[i] = static_cast<int>(j);
            usedB[j] = true;
            byName[i] = true;
        }
    }

    for (size_t i = 0; i < rowsA.size(); ++i) {
        DiffRow row;
        row.name = rowsA[i].name;
        row.category = rowsA[i].category;
        row.a = sideOf(rowsA[i], sa.divisor);
        if (matchOfA[i] >= 0) {
            row.b = sideOf(rowsB[static_cast<size_t>(matchOfA[i])], sb.divisor);
            row.matchedByNameOnly = byName[i];
            ++diff.matched;
            diff.matchedByName += byName[i] ? 1 : 0;
            diff.matchedTimeFractionA += rowsA[i].timeFraction;
            diff.matchedTimeFractionB += rowsB[static_cast<size_t>(matchOfA[i])].timeFraction;
        } else {
            row.status = DiffStatus::Removed;
            ++diff.removed;
        }
        diff.rows.push_back(std::move(row));
    }
    for (size_t j = 0; j < rowsB.size(); ++j) {
        if (usedB[j])
            continue;
        DiffRow row;
        row.name = rowsB[j].name;
        row.category = rowsB[j].category;
        row.status = DiffStatus::New;
        row.b = sideOf(rowsB[j], sb.divisor);
        ++diff.added;
        diff.rows.push_back(std::move(row));
    }
    std::stable_sort(diff.rows.begin(), diff.rows.end(), [](const DiffRow& x, const DiffRow& y) {
        const double dx = std::fabs(x.timeDeltaPs()), dy = std::fabs(y.timeDeltaPs());
        if (dx != dy)
            return dx > dy;
        return x.name < y.name;
    });
    return diff;
}

} // namespace tpuscope::model
