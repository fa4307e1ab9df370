// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/profileanalysis.h"
#include "analysistestutil.h"
#include "testutil.h"

#include "analysis/advice.h"
#include "analysis/opbreakdown.h"
#include "analysis/summary.h"
#include "loader/loader.h"
#include "report/report.h"
#include "share/sharefile.h"
#include "synth/synth.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace tpuscope::model;
using namespace tpuscope::test;

namespace {

ProfilePtr loadShare(const std::string& bytes)
{
    LoadResult loaded = loadProfileFromBytes(bytes, "shared.tpuscope");
    EXPECT_TRUE(loaded.ok()) << loaded.error;
    return loaded.profile;
}

bool near(double a, double b)
{
    return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

/// Every op row of the loaded share that is a real op equals the original's row with the same
/// (program, name); the kept rows come first in the same order.
void expectSameTopOps(const Profile& original, const Profile& shared, size_t kept)
{
    const OpBreakdown a = computeOpBreakdown(original);
    const OpBreakdown b = computeOpBreakdown(shared);
    ASSERT_GE(b.rows.size(), kept);
    EXPECT_TRUE(near(a.totalTimePs, b.totalTimePs));
    EXPECT_TRUE(near(a.flops.capped.value_or(-1), b.flops.capped.value_or(-1)));
    EXPECT_TRUE(near(a.hbm.capped.value_or(-1), b.hbm.capped.value_or(-1)));
    for (size_t i = 0; i < kept; ++i) {
        const OpRow& x = a.rows[i];
        const OpRow& y = b.rows[i];
        SCOPED_TRACE(x.name);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.program, y.program);
        EXPECT_EQ(x.category, y.category);
        EXPECT_EQ(x.occurrences, y.occurrences);
        EXPECT_TRUE(near(x.totalTimePs, y.totalTimePs));
        EXPECT_TRUE(near(x.timeFraction, y.timeFraction));
        EXPECT_TRUE(near(x.flops, y.flops));
        EXPECT_TRUE(near(x.hbmBytes, y.hbmBytes));
        EXPECT_EQ(x.flopsUtilization.has_value(), y.flopsUtilization.has_value());
        EXPECT_TRUE(near(x.flopsUtilization.value_or(-1), y.flopsUtilization.value_or(-1)));
        EXPECT_EQ(x.hbmUtilization.has_value(), y.hbmUtilization.has_value());
        EXPECT_TRUE(near(x.hbmUtilization.value_or(-1), y.hbmUtilization.value_or(-1)));
    }
}

void expectSameAdvice(const Profile& original, const Profile& shared, bool sameNames = true)
{
    const AdviceReport a = computeAdvice(original);
    const AdviceReport b = computeAdvice(shared);
    ASSERT_EQ(a.advice.size(), b.advice.size());
    for (size_t i = 0; i < a.advice.size(); ++i) {
        SCOPED_TRACE(a.advice[i].title);
        EXPECT_EQ(a.advice[i].rule, b.advice[i].rule);
        EXPECT_EQ(a.advice[i].severity, b.advice[i].severity);
        EXPECT_TRUE(near(a.advice[i].gainPs, b.advice[i].gainPs));
        if (sameNames) {
            EXPECT_EQ(a.advice[i].title, b.advice[i].title);
            EXPECT_EQ(a.advice[i].opNames, b.advice[i].opNames);
        }
        ASSERT_EQ(a.advice[i].numbers.fields.size(), b.advice[i].numbers.fields.size());
        for (size_t f = 0; f < a.advice[i].numbers.fields.size(); ++f) {
            const auto& [key, x] = a.advice[i].numbers.fields[f];
            const auto& y = b.advice[i].numbers.fields[f].second;
            EXPECT_EQ(key, b.advice[i].numbers.fields[f].first);
            if (x.kind == AdviceValue::Kind::Number && key == "footprint_bytes") {
                // A lower bound from the parameters the ops read: the share keeps the top ops
                // only, so it may see fewer of them, never more.
                EXPECT_LE(y.number, x.number * (1 + 1e-9)) << key;
                EXPECT_GE(y.number, x.number * 0.9) << key;
            } else if (x.kind == AdviceValue::Kind::Number) {
                EXPECT_TRUE(near(x.number, y.number)) << key << ": " << x.number << " vs " << y.number;
            } else if (x.kind == AdviceValue::Kind::Text && sameNames) {
                EXPECT_EQ(x.text, y.text) << key;
            }
        }
    }
    EXPECT_EQ(a.batch.perCoreBatch, b.batch.perCoreBatch);
    EXPECT_EQ(a.steps, b.steps);
    EXPECT_TRUE(near(a.stepPs, b.stepPs));
}

} // namespace

TEST(ShareFile, DemoRoundTripKeepsTopOpsAdviceAndSummary)
{
    ProfilePtr original = demoProfile();
    const ShareResult share = buildShareFile(*buildProfileAnalysis(original));
    ASSERT_TRUE(share.ok()) << share.error;
    EXPECT_TRUE(share.bytes.starts_with("TPUSCOPE-SHARE 1\n"));
    EXPECT_LT(share.bytes.size(), 64u * 1024) << "demo share file should stay under 64 KB";
    EXPECT_GT(share.stats.hloInstructions, 0u);
    ProfilePtr shared = loadShare(share.bytes);
    ASSERT_TRUE(shared);
    EXPECT_EQ(shared->load.format, "tpuscope-share");
    EXPECT_EQ(shared->device.type, original->device.type);
    EXPECT_EQ(shared->device.cores, original->device.cores);
    EXPECT_DOUBLE_EQ(shared->device.peakTflopsPerCore, original->device.peakTflopsPerCore);
    expectSameTopOps(*original, *shared, share.stats.keptOps);
    expectSameAdvice(*original, *shared);
    const ProfileSummary a = computeSummary(*original);
    const ProfileSummary b = computeSummary(*shared);
    EXPECT_EQ(a.steps.count, b.steps.count);
    EXPECT_TRUE(near(a.steps.averagePs, b.steps.averagePs));
    EXPECT_TRUE(near(a.steps.minPs, b.steps.minPs));
    EXPECT_TRUE(near(a.steps.maxPs, b.steps.maxPs));
    EXPECT_EQ(a.spanPs, b.spanPs);
    // The steps' busy and idle time travel with the file (per step, per core).
    EXPECT_EQ(a.stepBreakdown.steps.size(), b.stepBreakdown.steps.size());
    EXPECT_TRUE(near(a.stepBreakdown.steady.idlePs, b.stepBreakdown.steady.idlePs));
    EXPECT_TRUE(near(a.stepBreakdown.steady.busyPs(), b.stepBreakdown.steady.busyPs()));
    EXPECT_TRUE(near(a.stepBreakdown.warmupPs, b.stepBreakdown.warmupPs));
    // Where the step time went travels too (the share file records each step's split).
    EXPECT_TRUE(b.stepBreakdown.opTimesKnown);
    EXPECT_TRUE(near(a.stepBreakdown.steady.computePs, b.stepBreakdown.steady.computePs));
    EXPECT_TRUE(near(a.stepBreakdown.steady.collectivePs, b.stepBreakdown.steady.collectivePs));
    // The flagged op's drill-down works from the reduced HLO (fusion.3, the low-utilization fusion).
    const Advice* padding = nullptr;
    const AdviceReport advice = computeAdvice(*shared);
    for (const Advice& x : advice.advice)
        if (x.rule == "low-utilization-fusion")
            padding = &x;
    ASSERT_TRUE(padding);
    const OpPadding p = resolveOpPadding(*shared, padding->ops.front());
    EXPECT_EQ(p.source, ShapeSource::Hlo);
    OpId originalOp = kNone;
    for (OpId id = 0; id < original->ops.size(); ++id)
        if (original->ops[id].isXlaOp && original->str(original->ops[id].name) == p.name)
            originalOp = id;
    ASSERT_NE(originalOp, kNone);
    const OpPadding q = resolveOpPadding(*original, originalOp);
    EXPECT_EQ(p.computeCore != nullptr, q.computeCore != nullptr);
    ASSERT_EQ(p.arrays.size(), q.arrays.size());
    for (size_t i = 0; i < p.arrays.size(); ++i) {
        EXPECT_EQ(p.arrays[i].role, q.arrays[i].role);
        EXPECT_EQ(hlo::shapeToString(p.arrays[i].shape), hlo::shapeToString(q.arrays[i].shape));
        EXPECT_EQ(p.arrays[i].padding.usedOfTileText(), q.arrays[i].padding.usedOfTileText());
    }
    // Every op's drill-down (padding, batch) matches for all kept ops.
    for (const OpRow& row : computeOpBreakdown(*shared).rows) {
        if (row.name.starts_with("("))
            continue;
        OpId o = kNone;
        for (OpId id = 0; id < original->ops.size(); ++id)
            if (original->ops[id].isXlaOp && original->str(original->ops[id].name) == row.name)
                o = id;
        const OpPadding x = resolveOpPadding(*shared, row.op);
        const OpPadding y = resolveOpPadding(*original, o);
        EXPECT_EQ(x.batchSize, y.batchSize) << row.name;
        EXPECT_EQ(x.arrays.size(), y.arrays.size()) << row.name;
        EXPECT_EQ(x.source, y.source) << row.name;
    }
}

TEST(ShareFile, SamplesRoundTripAndStaySmall)
{
    for (const char* name :
        {"tpu_v6e_inference.xplane.pb", "tpu_vllm_serving.trace.json.gz", "tpu_v5_training.op_profile.json.gz"}) {
        SCOPED_TRACE(name);
        if (!haveSample(name))
            continue;
        LoadResult loaded = loadProfile(samplePath(name));
        ASSERT_TRUE(loaded.ok()) << loaded.error;
        const ShareResult share = buildShareFile(*buildProfileAnalysis(loaded.profile));
        ASSERT_TRUE(share.ok()) << share.error;
        EXPECT_LT(share.bytes.size(), 64u * 1024);
        ProfilePtr shared = loadShare(share.bytes);
        ASSERT_TRUE(shared);
        expectSameTopOps(*loaded.profile, *shared, share.stats.keptOps);
        expectSameAdvice(*loaded.profile, *shared);
    }
}

TEST(ShareFile, KeepsOpsUntil95PercentAndGroupsTheRest)
{
    ProfilePtr original = demoProfile();
    ShareOptions options;
    options.maxOps = 2;
    const ShareResult share = buildShareFile(*buildProfileAnalysis(original), options);
    ASSERT_TRUE(share.ok());
    // Ops above 1 % are kept even past maxOps; the rest is grouped but the totals stay.
    const OpBreakdown a = computeOpBreakdown(*original);
    size_t above = 0;
    for (const OpRow& r : a.rows)
        above += r.timeFraction >= 0.01 ? 1 : 0;
    EXPECT_EQ(share.stats.keptOps, std::max<size_t>(2, above));
    ProfilePtr shared = loadShare(share.bytes);
    expectSameTopOps(*original, *shared, share.stats.keptOps);
}

TEST(ShareFile, RedactionRemovesPathsFrameworkNamesAndOpNames)
{
    ProfilePtr original = demoProfile();
    // The test must be able to fail: the demo has source paths, framework names and op names.
    std::set<std::string> sources, tfOps, names;
    for (const OpInfo& op : original->ops) {
        if (!original->str(op.source).empty())
            sources.insert(original->str(op.source));
        if (!original->str(op.tfOp).empty())
            tfOps.insert(original->str(op.tfOp));
        if (op.isXlaOp)
            names.insert(original->str(op.name));
    }
    for (const Program& p : original->programs)
        if (p.hlo)
            for (const auto& c : p.hlo->computations)
                for (const auto& in : c.instructions) {
                    if (!in.sourceFile.empty())
                        sources.insert(in.sourceFile);
                    if (!in.opName.empty())
                        tfOps.insert(in.opName);
                }
    ASSERT_FALSE(sources.empty());
    ASSERT_FALSE(tfOps.empty());
    ASSERT_FALSE(names.empty());
    const ShareResult plain = buildShareFile(*buildProfileAnalysis(original));
    EXPECT_NE(plain.json.find(*names.begin()), std::string::npos);
    EXPECT_NE(plain.json.find(*tfOps.begin()), std::string::npos);

    ShareOptions options;
    std::string error;
    ASSERT_TRUE(parseShareRedaction("paths,names,hash", options.redaction, error)) << error;
    const ShareResult share = buildShareFile(*buildProfileAnalysis(original), options);
    ASSERT_TRUE(share.ok());
    std::string json;
    ASSERT_TRUE(shareFileJson(share.bytes, json, error)) << error;
    EXPECT_EQ(json, share.json);
    for (const std::string& s : sources) {
        EXPECT_EQ(json.find(s), std::string::npos) << "source path survived: " << s;
        const std::string file = s.substr(0, s.find(':'));
        EXPECT_EQ(json.find(file), std::string::npos) << "source file survived: " << file;
    }
    for (const std::string& t : tfOps)
        EXPECT_EQ(json.find("\"" + t), std::string::npos) << "framework op name survived: " << t;
    EXPECT_EQ(json.find("source_file"), std::string::npos);
    EXPECT_EQ(json.find("op_name="), std::string::npos);
    for (const std::string& n : names) {
        // Whole-token search: "fusion.3" must not appear, "fusion.31" would be another op.
        for (size_t at = json.find(n); at != std::string::npos; at = json.find(n, at + 1)) {
            const char before = at ? json[at - 1] : ' ';
            const char after = at + n.size() < json.size() ? json[at + n.size()] : ' ';
            const bool token = !(std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == '.')
                && !(std::isalnum(static_cast<unsigned char>(after)) || after == '_'
                    || (after == '.' && at + n.size() + 1 < json.size()
                        && std::isdigit(static_cast<unsigned char>(json[at + n.size() + 1]))));
            EXPECT_FALSE(token) << "op name survived: " << n << " near: " << json.substr(at > 40 ? at - 40 : 0, 100);
        }
    }
    // Hashes are stable and consistent: the advice of the loaded file names the hashed op.
    ProfilePtr shared = loadShare(share.bytes);
    ASSERT_TRUE(shared);
    expectSameAdvice(*original, *shared, false);
    const AdviceReport advice = computeAdvice(*shared);
    bool foundPadding = false;
    for (const Advice& a : advice.advice)
        if (a.rule == "low-utilization-fusion" && !foundPadding) {
            foundPadding = true;
            EXPECT_EQ(a.opNames.front(), redactedName("fusion.3"));
            EXPECT_NE(a.title.find(redactedName("fusion.3")), std::string::npos);
            // The hashed op still has its HLO (fused computation and layout) for the drill-down.
            const OpPadding p = resolveOpPadding(*shared, a.ops.front());
            EXPECT_EQ(p.source, ShapeSource::Hlo);
        }
    EXPECT_TRUE(foundPadding);
    EXPECT_EQ(redactedName("fusion.3"), redactedName("fusion.3"));
    EXPECT_NE(redactedName("fusion.3"), redactedName("fusion.4"));
}

TEST(ShareFile, RedactionListIsValidated)
{
    ShareRedaction r;
    std::string error;
    EXPECT_TRUE(parseShareRedaction("", r, error));
    EXPECT_FALSE(r.any());
    EXPECT_TRUE(parseShareRedaction("paths, names", r, error));
    EXPECT_TRUE(r.paths && r.names && !r.hashNames);
    EXPECT_FALSE(parseShareRedaction("paths,secrets", r, error));
    EXPECT_NE(error.find("secrets"), std::string::npos);
}

TEST(ShareFile, TextFormRoundTrips)
{
    const ShareResult share = buildShareFile(*buildProfileAnalysis(demoProfile()));
    ASSERT_TRUE(share.ok());
    const std::string text = shareFileToText(share.bytes);
    EXPECT_TRUE(text.starts_with("```tpuscope\n"));
    EXPECT_TRUE(text.ends_with("\n```\n"));
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        EXPECT_LE(line.size(), 76u);
    std::string bytes, error;
    ASSERT_TRUE(shareFileFromText(text, bytes, error)) << error;
    EXPECT_EQ(bytes, share.bytes);
    // Pasted inside a post, quoted by the forum.
    std::string quoted = "Here is my profile:\n\n";
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        quoted += "> " + line + "\r\n";
    quoted += "\nThanks!\n";
    ASSERT_TRUE(shareFileFromText(quoted, bytes, error)) << error;
    EXPECT_EQ(bytes, share.bytes);
}

TEST(ShareFile, DamagedInputGivesClearErrors)
{
    const ShareResult share = buildShareFile(*buildProfileAnalysis(demoProfile()));
    ASSERT_TRUE(share.ok());
    // Truncated binary.
    LoadResult truncated = loadProfileFromBytes(share.bytes.substr(0, share.bytes.size() / 2), "cut.tpuscope");
    EXPECT_FALSE(truncated.ok());
    EXPECT_NE(truncated.error.find("share file"), std::string::npos) << truncated.error;
    // Header only.
    LoadResult header = loadProfileFromBytes("TPUSCOPE-SHARE 1\n", "empty.tpuscope");
    EXPECT_FALSE(header.ok());
    EXPECT_NE(header.error.find("truncated"), std::string::npos) << header.error;
    // Unknown version.
    std::string future = share.bytes;
    future.replace(0, 16, "TPUSCOPE-SHARE 9");
    LoadResult version = loadProfileFromBytes(future, "future.tpuscope");
    EXPECT_FALSE(version.ok());
    EXPECT_NE(version.error.find("version"), std::string::npos) << version.error;
    // Flipped bytes in the middle of the compressed data.
    std::string corrupt = share.bytes;
    for (size_t i = corrupt.size() / 2; i < corrupt.size() / 2 + 16; ++i)
        corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
    LoadResult damaged = loadProfileFromBytes(corrupt, "bad.tpuscope");
    EXPECT_FALSE(damaged.ok());
    EXPECT_FALSE(damaged.error.empty());

    const std::string text = shareFileToText(share.bytes);
    std::string bytes, error;
    // Text cut off in the middle (no closing fence).
    EXPECT_FALSE(shareFileFromText(text.substr(0, text.size() / 2), bytes, error));
    EXPECT_NE(error.find("closing"), std::string::npos) << error;
    // A line lost in copy-paste.
    std::string missing = text;
    const size_t second = missing.find('\n', missing.find('\n') + 1);
    missing.erase(second + 1, 77);
    EXPECT_FALSE(shareFileFromText(missing, bytes, error));
    EXPECT_NE(error.find("damaged"), std::string::npos) << error;
    // Garbage.
    EXPECT_FALSE(shareFileFromText("```tpuscope\nnot base64 at all!\n```\n", bytes, error));
    EXPECT_NE(error.find("invalid character"), std::string::npos) << error;
    EXPECT_FALSE(shareFileFromText("", bytes, error));
}

TEST(ShareFile, NothingToShareIsAnError)
{
    ProfileBuilder builder;
    builder.addPlane("/host:CPU");
    ProfilePtr empty = builder.finish();
    const ShareResult share = buildShareFile(*buildProfileAnalysis(empty));
    EXPECT_FALSE(share.ok());
    EXPECT_NE(share.error.find("nothing to share"), std::string::npos);
}

TEST(ShareFile, AtomicWriteReplacesTarget)
{
    const std::string dir = tempDir("share_atomic");
    const std::string path = dir + "/out.tpuscope";
    writeFile(path, "old");
    std::string error;
    ASSERT_TRUE(writeFileAtomically(path, "new contents", error)) << error;
    EXPECT_EQ(readFile(path), "new contents");
    EXPECT_FALSE(writeFileAtomically(dir + "/no/such/dir/x", "x", error));
    EXPECT_FALSE(error.empty());
}

// ---------------------------------------------------------------------------------------------
// CLI

namespace {

/// Within `relative` of each other (both zero counts as equal).
bool within(double a, double b, double relative)
{
    return std::fabs(a - b) <= relative * std::max(std::fabs(a), std::fabs(b)) + 1e-9;
}

void expectSamePoints(const std::optional<double>& a, const std::optional<double>& b, const char* what)
{
    EXPECT_EQ(a.has_value(), b.has_value()) << what;
    if (a && b) {
        EXPECT_LE(std::fabs(*a - *b), 0.002) << what << ": " << *a << " vs " << *b; // 0.2 points
    }
}

void expectSameRate(const std::optional<double>& a, const std::optional<double>& b, const char* what)
{
    EXPECT_EQ(a.has_value(), b.has_value()) << what;
    if (a && b) {
        EXPECT_TRUE(within(*a, *b, 0.02)) << what << ": " << *a << " vs " << *b; // 2 %
    }
}

/// What a user compares between a profile and its share file: the advice (rule, severity, gain
/// within 5 %), the top ops (utilizations within 0.2 points, host, pair and ICI rates within 2 %),
/// the steps, the host link, the core count and the memory headline.
void expectFaithfulShare(const ProfileAnalysis& a, const ProfileAnalysis& b, size_t kept)
{
    EXPECT_EQ(a.profile->device.type, b.profile->device.type);
    EXPECT_EQ(a.profile->device.cores, b.profile->device.cores);
    EXPECT_EQ(a.profile->device.coresSource, b.profile->device.coresSource);
    EXPECT_EQ(a.breakdown.coresRepresented, b.breakdown.coresRepresented);
    expectSamePoints(a.breakdown.flops.capped, b.breakdown.flops.capped, "FLOPS headline");
    expectSamePoints(a.breakdown.hbm.capped, b.breakdown.hbm.capped, "HBM headline");
    EXPECT_EQ(a.breakdown.flops.fromFile, b.breakdown.flops.fromFile);

    ASSERT_EQ(a.advice.advice.size(), b.advice.advice.size());
    for (size_t i = 0; i < a.advice.advice.size(); ++i) {
        const Advice& x = a.advice.advice[i];
        const Advice& y = b.advice.advice[i];
        SCOPED_TRACE(x.rule + ": " + x.title);
        EXPECT_EQ(x.rule, y.rule);
        EXPECT_EQ(x.severity, y.severity);
        EXPECT_TRUE(within(x.gainPs, y.gainPs, 0.05)) << x.gainPs << " vs " << y.gainPs;
        EXPECT_EQ(x.overlapsWith, y.overlapsWith);
        // The typed fix the overview and the advice panel show (issue 26 point 3).
        EXPECT_EQ(x.fix.action, y.fix.action);
        EXPECT_EQ(x.fix.perCoreBatch, y.fix.perCoreBatch);
        EXPECT_EQ(x.fix.globalBatch, y.fix.globalBatch);
        EXPECT_EQ(x.fix.devices, y.fix.devices);
    }
    EXPECT_TRUE(within(a.advice.combinedGainPs, b.advice.combinedGainPs, 0.05));
    // The share file records each item's fix as the author's analysis said it.
    ASSERT_TRUE(b.profile->recorded);
    const std::vector<RecordedAdviceFix>& recorded = b.profile->recorded->adviceFixes;
    ASSERT_EQ(recorded.size(), a.advice.advice.size());
    for (size_t i = 0; i < recorded.size(); ++i) {
        const Advice& x = a.advice.advice[i];
        SCOPED_TRACE(x.rule);
        EXPECT_EQ(recorded[i].rule, x.rule);
        EXPECT_EQ(recorded[i].action, x.fix.action);
        EXPECT_EQ(recorded[i].perCoreBatch, x.fix.perCoreBatch);
        EXPECT_EQ(recorded[i].globalBatch, x.fix.globalBatch);
        EXPECT_EQ(recorded[i].devices, x.fix.devices);
    }

    ASSERT_GE(b.breakdown.rows.size(), kept);
    for (size_t i = 0; i < kept; ++i) {
        const OpRow& x = a.breakdown.rows[i];
        const OpRow* y = nullptr;
        for (const OpRow& row : b.breakdown.rows)
            if (row.name == x.name && row.program == x.program)
                y = &row;
        SCOPED_TRACE(x.name);
        ASSERT_TRUE(y);
        EXPECT_EQ(x.opClass, y->opClass);
        EXPECT_EQ(x.boundBy, y->boundBy);
        EXPECT_TRUE(within(x.timeFraction, y->timeFraction, 1e-6));
        expectSamePoints(x.flopsUtilization, y->flopsUtilization, "flops_utilization");
        expectSamePoints(x.hbmUtilization, y->hbmUtilization, "hbm_utilization");
        expectSamePoints(x.rooflineEfficiency, y->rooflineEfficiency, "roofline_efficiency");
        expectSameRate(x.flopsUtilizationUncapped, y->flopsUtilizationUncapped, "flops uncapped");
        expectSameRate(x.hostGbps, y->hostGbps, "host_gbps");
        expectSameRate(x.hostLinkToDeviceGbps, y->hostLinkToDeviceGbps, "host link to device");
        expectSameRate(x.hostLinkToHostGbps, y->hostLinkToHostGbps, "host link to host");
        expectSameRate(x.pairGbps, y->pairGbps, "pair_gbps");
        expectSameRate(x.iciGbps, y->iciGbps, "ici_gbps");
    }

    EXPECT_TRUE(within(a.hostLink.toDevice.gbps(), b.hostLink.toDevice.gbps(), 0.02));
    EXPECT_TRUE(within(a.hostLink.toHost.gbps(), b.hostLink.toHost.gbps(), 0.02));

    EXPECT_EQ(a.steps.stepsPerCore, b.steps.stepsPerCore);
    EXPECT_TRUE(within(a.steps.avgStepPs, b.steps.avgStepPs, 1e-6));
    const StepTimeSplit x = a.steps.averageStep(), y = b.steps.averageStep();
    for (auto part : {&StepTimeSplit::computePs, &StepTimeSplit::collectivePs, &StepTimeSplit::hostTransferPs,
             &StepTimeSplit::infeedPs, &StepTimeSplit::idlePs})
        EXPECT_LE(std::fabs(x.*part - y.*part), 0.001 * std::max(1.0, a.steps.avgStepPs));
    EXPECT_TRUE(within(a.steps.busyFraction, b.steps.busyFraction, 1e-6));

    // The memory headline of every module the share keeps HLO for.
    for (const ModuleMemory& m : b.memory.modules) {
        const ModuleMemory* original = a.memory.find(m.name);
        ASSERT_TRUE(original) << m.name;
        EXPECT_EQ(original->peakHeapBytes, m.peakHeapBytes) << m.name;
        EXPECT_EQ(original->peakUnpaddedBytes, m.peakUnpaddedBytes) << m.name;
    }
    if (!a.memory.modules.empty()) {
        const auto largest = std::max_element(a.memory.modules.begin(), a.memory.modules.end(),
            [](const ModuleMemory& p, const ModuleMemory& q) { return p.peakHeapBytes < q.peakHeapBytes; });
        EXPECT_TRUE(b.memory.find(largest->name)) << largest->name;
    }
}

} // namespace

// Point 2 of issue 22: a share file reopens with what the original shows, on every sample and the
// demo. The share file is the reason tpuscope exists: a stranger on a forum reads the same
// diagnosis the author saw.
TEST(ShareFile, EverySampleReopensWithTheSameDiagnosis)
{
    std::vector<std::pair<std::string, ProfilePtr>> inputs;
    inputs.emplace_back("demo", demoProfile());
    for (const char* name : {"tpu_v6e_inference.xplane.pb", "tpu_vllm_serving.trace.json.gz",
             "tpu_v5_training.op_profile.json.gz", "demo_synthetic.op_profile.json", "gpu_multiworker.xplane.pb"}) {
        if (!haveSample(name))
            continue;
        LoadResult loaded = loadProfile(samplePath(name));
        ASSERT_TRUE(loaded.ok()) << loaded.error;
        inputs.emplace_back(name, loaded.profile);
    }
    for (const auto& [name, profile] : inputs) {
        SCOPED_TRACE(name);
        const ProfileAnalysisPtr original = buildProfileAnalysis(profile);
        const ShareResult share = buildShareFile(*original);
        if (!profile->hasTpuOps()) {
            // Nothing TPU to share: a clear refusal, not a file without content.
            EXPECT_FALSE(share.ok());
            EXPECT_NE(share.error.find("nothing to share"), std::string::npos) << share.error;
            continue;
        }
        ASSERT_TRUE(share.ok()) << share.error;
        const ProfilePtr shared = loadShare(share.bytes);
        ASSERT_TRUE(shared);
        expectFaithfulShare(*original, *buildProfileAnalysis(shared), share.stats.keptOps);
        // And once more: a share file of a share file says the same.
        const ShareResult again = buildShareFile(*buildProfileAnalysis(shared));
        ASSERT_TRUE(again.ok()) << again.error;
        expectFaithfulShare(*original, *buildProfileAnalysis(loadShare(again.bytes)), share.stats.keptOps);
    }
}
