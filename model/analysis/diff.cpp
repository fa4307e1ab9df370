// SPDX-License-Identifier: GPL-3.0-or-later
#include "diff.h"

#include "../core/format.h"

#include "profileanalysis.h"

#include <algorithm>
#include <cmath>
#include <set>

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

bool DiffRow::withinNoise() const
{
    if (status != DiffStatus::Both)
        return false;
    if (test.tested)
        return !test.significant();
    return a.timePs > 0 ? std::fabs(timeDeltaPs()) < kUntestedNoiseFraction * a.timePs : b.timePs == 0;
}

std::string DiffRow::explanation() const
{
    const bool noise = withinNoise();
    for (const DiffReason& reason : reasons)
        if (!noise || reason.kind != DiffReasonKind::Time)
            return reason.text;
    return {};
}

bool StepComparison::regressed() const
{
    const ChangeTest& t = deciding();
    if (!known || !t.significant())
        return false;
    // Throughput regresses when it drops, a step when it grows.
    return &t == &stepTime ? t.relativeChange > 0 : t.relativeChange < 0;
}

std::string StepComparison::verdict() const
{
    if (!known)
        return "no step comparison (a profile has no steps)";
    const ChangeTest& t = deciding();
    const std::string what = &t == &stepTime ? "step time" : "examples per second";
    if (!t.tested)
        return what + ": " + t.describe();
    if (!t.significant())
        return what + ": no significant change, " + t.describe();
    const bool better = &t == &stepTime ? t.relativeChange < 0 : t.relativeChange > 0;
    return what + ": " + (better ? "better, " : "worse, ") + t.describe();
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
    for (const ConfigDifference& d : config)
        if (d.what != "generation")
            out.push_back("Different " + d.what + " (before " + d.before + ", after " + d.after + ")"
                + (d.what == "global batch" ? ": compare examples per second, not step time." : "."));
    return out;
}

namespace diff_detail {

/// The per-step op times the op tests may hold per profile (8 bytes each).
constexpr size_t kMaxOpStepSamples = 10'000'000;

/// What per-step and per-core figures divide by: steps × cores, or cores alone without steps.
struct Divisor
{
    double steps = 1;
    double cores = 1;
    double total() const { return steps * cores; }
};

DiffSide sideOf(const OpRow& row, const Divisor& divisor)
{
    DiffSide s;
    s.op = row.op;
    s.name = row.name;
    s.program = row.program;
    s.frameworkOp = row.frameworkOp;
    s.source = row.source;
    s.occurrences = row.occurrences;
    s.occurrencesPerStep = static_cast<double>(row.occurrences) / divisor.total();
    s.timePs = row.totalTimePs / divisor.total();
    s.timeFraction = row.timeFraction;
    s.flopsUtilization = row.flopsUtilization;
    s.hbmUtilization = row.hbmUtilization;
    s.hbmBytes = row.hbmBytes / divisor.total();
    return s;
}

std::vector<double> stepDurations(const StepAnalysis& steps)
{
    std::vector<double> out;
    for (const StepRow& row : steps.steps)
        out.push_back(row.durationPs);
    return out;
}

DiffProfileSide profileSide(const ProfileAnalysis& analysis, const Divisor& divisor)
{
    const Profile& p = *analysis.profile;
    DiffProfileSide out;
    out.device = p.device.type;
    out.generation = p.device.generation;
    out.cores = p.device.cores;
    out.hosts = p.device.hosts;
    std::set<std::string> programs;
    for (const OpRow& row : analysis.breakdown.rows)
        if (!row.program.empty())
            programs.insert(row.program);
    out.programs.assign(programs.begin(), programs.end());
    out.steps = analysis.steps.stepsPerCore;
    out.warmupSteps = warmupSteps(stepDurations(analysis.steps));
    out.stepPs = analysis.steps.avgStepPs;
    out.totalOpTimePs = analysis.breakdown.totalTimePs / divisor.total();
    out.flopsUtilization = analysis.breakdown.flops.capped;
    out.hbmUtilization = analysis.breakdown.hbm.capped;
    out.ops = analysis.breakdown.rows.size();
    if (const BatchInference& batch = analysis.advice.batch; batch.known && batch.perCoreBatch > 0) {
        out.perCoreBatch = batch.perCoreBatch;
        if (batch.globalBatch > 0)
            out.globalBatch = batch.globalBatch;
    }
    for (const ModuleMemory& module : analysis.memory.modules)
        out.hbmPeakBytes = std::max(out.hbmPeakBytes.value_or(0), module.peakHeapBytes);
    return out;
}

std::string programsText(const std::vector<std::string>& programs)
{
    std::string text;
    for (const std::string& p : programs)
        text += (text.empty() ? "" : ", ") + p;
    return text.empty() ? "none" : text;
}

std::vector<ConfigDifference> configDifferences(const DiffProfileSide& a, const DiffProfileSide& b)
{
    std::vector<ConfigDifference> out;
    const auto known = [](const std::string& s) { return s.empty() ? std::string("unknown") : s; };
    if (!a.generation.empty() && !b.generation.empty() && a.generation != b.generation)
        out.push_back({"generation", a.generation, b.generation});
    if (a.cores != b.cores)
        out.push_back({"cores", std::to_string(a.cores), std::to_string(b.cores)});
    if (a.hosts != b.hosts)
        out.push_back({"hosts", std::to_string(a.hosts), std::to_string(b.hosts)});
    if (a.programs != b.programs)
        out.push_back({"programs", known(programsText(a.programs)), known(programsText(b.programs))});
    if (a.globalBatch && b.globalBatch && *a.globalBatch != *b.globalBatch)
        out.push_back({"global batch", std::to_string(*a.globalBatch), std::to_string(*b.globalBatch)});
    return out;
}

/// Examples per second of each step: the global batch over the step's time.
std::vector<double> throughputs(const std::vector<double>& stepsPs, int64_t globalBatch)
{
    std::vector<double> out;
    for (double ps : stepsPs)
        if (ps > 0)
            out.push_back(static_cast<double>(globalBatch) / (ps * 1e-12));
    return out;
}

StepComparison compareSteps(const ProfileAnalysis& before, const ProfileAnalysis& after, ProfileDiff& diff)
{
    StepComparison out;
    const std::vector<double> a = stepDurations(before.steps), b = stepDurations(after.steps);
    out.known = !a.empty() && !b.empty();
    if (!out.known)
        return out;
    const std::vector<double> steadyA(a.begin() + static_cast<std::ptrdiff_t>(diff.a.warmupSteps), a.end());
    const std::vector<double> steadyB(b.begin() + static_cast<std::ptrdiff_t>(diff.b.warmupSteps), b.end());
    out.stepTime = compareSamples(steadyA, steadyB);
    if (diff.a.globalBatch && diff.b.globalBatch) {
        out.batchDiffers = *diff.a.globalBatch != *diff.b.globalBatch;
        out.throughput
            = compareSamples(throughputs(steadyA, *diff.a.globalBatch), throughputs(steadyB, *diff.b.globalBatch));
        diff.a.examplesPerSecond = out.throughput->medianA;
        diff.b.examplesPerSecond = out.throughput->medianB;
    }
    return out;
}

/// Tests each matched op's time per step, before against after, where both profiles have an op
/// timeline and steps: the ops with at least kLowUtilizationMinShare of either side's op time.
void testOps(const ProfileAnalysis& before, const ProfileAnalysis& after, ProfileDiff& diff)
{
    if (!diff.steps.known)
        return;
    std::vector<OpId> opsA, opsB;
    std::vector<size_t> rows;
    for (size_t i = 0; i < diff.rows.size(); ++i) {
        const DiffRow& r = diff.rows[i];
        if (r.status == DiffStatus::Both && std::max(r.a.timeFraction, r.b.timeFraction) >= kLowUtilizationMinShare) {
            opsA.push_back(r.a.op);
            opsB.push_back(r.b.op);
            rows.push_back(i);
        }
    }
    // At most kMaxOpStepSamples figures per side (a hostile file may claim a million steps): the
    // ops with the most time first, as the rows come in the breakdown's order.
    const size_t steps = std::max<size_t>({1, before.steps.steps.size(), after.steps.steps.size()});
    const size_t fit = std::max<size_t>(1, kMaxOpStepSamples / steps);
    if (rows.size() > fit) {
        rows.resize(fit);
        opsA.resize(fit);
        opsB.resize(fit);
    }
    const auto samplesA = opTimePerStep(*before.profile, before.steps, opsA, diff.a.warmupSteps);
    const auto samplesB = opTimePerStep(*after.profile, after.steps, opsB, diff.b.warmupSteps);
    if (samplesA.size() != rows.size() || samplesB.size() != rows.size())
        return;
    for (size_t k = 0; k < rows.size(); ++k)
        diff.rows[rows[k]].test = compareSamples(samplesA[k], samplesB[k]);
}

DiffRow matchedRow(const ProfileAnalysis& before, const OpRow& rowA, const Divisor& da, const ProfileAnalysis& after,
    const OpRow& rowB, const Divisor& db, MatchedBy how)
{
    const auto batch = [](const ProfileAnalysis& x) { return x.advice.batch.known ? x.advice.batch.perCoreBatch : 0; };
    DiffRow row;
    row.name = rowB.name;
    row.category = rowB.category;
    row.matchedBy = how;
    row.a = sideOf(rowA, da);
    row.b = sideOf(rowB, db);
    row.reasons = explainOpChange(*before.profile, rowA.op, row.a.figures(), *after.profile, rowB.op, row.b.figures(),
        batch(before), batch(after));
    return row;
}

void addRows(const ProfileAnalysis& before, const Divisor& da, const ProfileAnalysis& after, const Divisor& db,
    ProfileDiff& diff)
{
    const auto& rowsA = before.breakdown.rows;
    const auto& rowsB = after.breakdown.rows;
    const OpMatching m
        = matchOps(opMatchKeys(*before.profile, before.breakdown), opMatchKeys(*after.profile, after.breakdown));
    for (size_t i = 0; i < rowsA.size(); ++i) {
        if (m.matchOfA[i] < 0) {
            DiffRow row;
            row.name = rowsA[i].name;
            row.category = rowsA[i].category;
            row.status = DiffStatus::Removed;
            row.a = sideOf(rowsA[i], da);
            ++diff.removed;
            diff.rows.push_back(std::move(row));
            continue;
        }
        const OpRow& rowB = rowsB[static_cast<size_t>(m.matchOfA[i])];
        diff.rows.push_back(matchedRow(before, rowsA[i], da, after, rowB, db, m.how[i]));
        ++diff.matched;
        diff.matchedByName += m.how[i] == MatchedBy::Name ? 1 : 0;
        diff.matchedByFingerprint += m.how[i] == MatchedBy::Fingerprint ? 1 : 0;
        diff.matchedByFrameworkOp += m.how[i] == MatchedBy::FrameworkOp ? 1 : 0;
        diff.matchedTimeFractionA += rowsA[i].timeFraction;
        diff.matchedTimeFractionB += rowB.timeFraction;
    }
    for (size_t j = 0; j < rowsB.size(); ++j) {
        if (m.usedB[j])
            continue;
        DiffRow row;
        row.name = rowsB[j].name;
        row.category = rowsB[j].category;
        row.status = DiffStatus::New;
        row.b = sideOf(rowsB[j], db);
        ++diff.added;
        diff.rows.push_back(std::move(row));
    }
}

std::vector<std::string> pathParts(const std::string& path)
{
    std::vector<std::string> parts;
    size_t begin = 0;
    while (begin <= path.size()) {
        const size_t end = std::min(path.find('/', begin), path.size());
        if (end > begin && path.compare(begin, end - begin, ".") != 0)
            parts.push_back(path.substr(begin, end - begin));
        begin = end + 1;
    }
    return parts;
}

/// A log dir's run reads "<logdir> · <run>" (the run alone is a timestamp two runs may share),
/// a file its name; `parents` more folders in front of it.
std::string pathLabel(const std::vector<std::string>& parts, size_t parents)
{
    const size_t n = parts.size();
    if (n == 0)
        return {};
    const bool run = n >= 4 && parts[n - 3] == "plugins" && parts[n - 2] == "profile";
    std::string text = run ? parts[n - 4] + " \u00b7 " + parts[n - 1] : parts[n - 1];
    const size_t last = run ? n - 4 : n - 1;
    for (size_t k = 1; k <= parents && k <= last; ++k)
        text = parts[last - k] + "/" + text;
    return text;
}

} // namespace diff_detail

using namespace diff_detail;

ProfileDiff computeDiff(const ProfileAnalysis& before, const ProfileAnalysis& after)
{
    ProfileDiff diff;
    diff.perStep = before.steps.stepsPerCore > 0 && after.steps.stepsPerCore > 0;
    const auto divisor = [&](const ProfileAnalysis& x) {
        Divisor d;
        d.cores = std::max(1, x.breakdown.coresRepresented);
        if (diff.perStep)
            d.steps = static_cast<double>(x.steps.stepsPerCore);
        return d;
    };
    const Divisor da = divisor(before), db = divisor(after);
    diff.a = profileSide(before, da);
    diff.b = profileSide(after, db);
    diff.config = configDifferences(diff.a, diff.b);
    addRows(before, da, after, db, diff);
    diff.steps = compareSteps(before, after, diff);
    testOps(before, after, diff);
    // The ops that moved most per step first: the ranking a reader acts on.
    std::stable_sort(diff.rows.begin(), diff.rows.end(), [](const DiffRow& x, const DiffRow& y) {
        const double dx = std::fabs(x.timeDeltaPs()), dy = std::fabs(y.timeDeltaPs());
        if (dx != dy)
            return dx > dy;
        return x.name < y.name;
    });
    return diff;
}

ProfileDiff computeDiff(const ProfilePtr& before, const ProfilePtr& after)
{
    return computeDiff(*buildProfileAnalysis(before), *buildProfileAnalysis(after));
}

std::vector<std::vector<double>> opTimePerStep(
    const Profile& profile, const StepAnalysis& steps, const std::vector<OpId>& ops, size_t first)
{
    const std::vector<PlaneId> cores = profile.tpuCorePlanes();
    if (ops.empty() || steps.coreSteps.size() != cores.size() || steps.steps.size() <= first || !steps.opTimesKnown)
        return {};
    std::vector<int> slot(profile.ops.size(), -1);
    for (size_t k = 0; k < ops.size(); ++k)
        if (ops[k] < slot.size())
            slot[ops[k]] = static_cast<int>(k);
    const size_t count = steps.steps.size() - first;
    std::vector<std::vector<double>> out(ops.size(), std::vector<double>(count, 0.0));
    bool anyEvent = false;
    for (size_t c = 0; c < cores.size(); ++c) {
        const std::vector<CoreStep>& windows = steps.coreSteps[c];
        for (TrackId id : profile.planes[cores[c]].tracks) {
            const Track& track = profile.tracks[id];
            if (track.kind != TrackKind::XlaOps)
                continue;
            size_t w = first;
            for (size_t i = 0; i < track.size() && w < windows.size(); ++i) {
                const int k = track.op[i] < slot.size() ? slot[track.op[i]] : -1;
                while (w < windows.size() && track.start[i] >= windows[w].end)
                    ++w;
                if (k < 0 || w >= windows.size() || track.start[i] < windows[w].begin || w - first >= count)
                    continue;
                out[static_cast<size_t>(k)][w - first] += static_cast<double>(track.duration[i]);
                anyEvent = true;
            }
        }
    }
    if (!anyEvent)
        return {};
    for (auto& perStep : out)
        for (double& ps : perStep)
            ps /= static_cast<double>(cores.size());
    return out;
}

std::pair<std::string, std::string> comparisonLabels(const std::string& beforePath, const std::string& afterPath)
{
    const std::vector<std::string> a = pathParts(beforePath), b = pathParts(afterPath);
    if (a == b) // one file against itself: its name twice
        return {pathLabel(a, 0), pathLabel(b, 0)};
    constexpr size_t kMaxParents = 6;
    for (size_t parents = 0;; ++parents) {
        std::string x = pathLabel(a, parents), y = pathLabel(b, parents);
        if (x != y || parents == kMaxParents)
            return {std::move(x), std::move(y)};
    }
}

} // namespace tpuscope::model
