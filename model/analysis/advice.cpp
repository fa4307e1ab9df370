// SPDX-License-Identifier: GPL-3.0-or-later
#include "advice.h"

#include "advicerules.h"

#include "../report/jsonwriter.h"
#include "../report/report.h"
#include "summary.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <set>

namespace tpuscope::model {

using layout::DimSemantics;

// ---------------------------------------------------------------------------------------------
// Thresholds. Each one names where it comes from; "ours" marks choices without a public number.

// Smallest share of op time for an op to count as evidence (xprof op_profile hides ops below 1 %
// by default in its "top ops" view; ours for the rules below).
constexpr double kMinOpShare = 0.01;
// Per-core batch: the batch dim is padded in its tile (Cloud TPU performance guide: "batch size
// should be divisible by 8 or 128 ... cores use 8x128 vector registers"; ANCHORS §3.4/§3.5). The
// rule fires when the evidence ops take at least this share of op time (ours).
constexpr double kBatchEvidenceMinShare = 0.05;
// Severity: critical when the padded-batch ops take half the time (ours).
constexpr double kBatchCriticalShare = 0.5;
// Padding: an array whose tiles are more than half padding (performance guide: data that does not
// fill a 128x8 tile is padded -> under-utilized core; efficiency 0.5 is ours).
constexpr double kPaddingEfficiency = 0.5;
constexpr size_t kPaddingMaxItems = 3;
constexpr double kPaddingWarningShare = 0.10; // op time share for "warning" (ours)
// Low-utilization fusion: FLOPS utilization below 25 % (ours; xprof's latency-bound precondition is
// MXU < 50 %, smart_suggestion/constants.h) in a fusion with >= 10 % of time ("dominating").
constexpr double kLowFlopsUtilization = 0.25;
constexpr double kLowUtilDominantShare = 0.10;
constexpr double kLowUtilWarningShare = 0.25;
constexpr double kLowUtilCriticalShare = 0.50;
constexpr double kTargetUtilization = 0.50; // the gain assumes reaching this (xprof latency-bound line)
// HBM-bound: HBM BW util > 70 % and FLOPS/MXU util < 50 % (xprof MemoryBoundRule,
// smart_suggestion/constants.h; ANCHORS §3.2), over at least 5 % of op time (ours).
constexpr double kHbmBoundHbmUtilization = 0.70;
constexpr double kHbmBoundFlopsUtilization = 0.50;
constexpr double kHbmBoundMinShare = 0.05;
// Data formatting / copies: xprof DataShuffleBound fires at 30 % (smart_suggestion); we also
// report from 10 % as information (ours).
constexpr double kDataFormattingInfoShare = 0.10;
constexpr double kDataFormattingWarningShare = 0.30;
// Collectives: xprof overview "all-reduce bound" at 6 % of step time
// (op_stats_to_input_pipeline_analysis.cc); CollectiveBound at 30 % (smart_suggestion).
constexpr double kCollectivesInfoShare = 0.06;
constexpr double kCollectivesWarningShare = 0.30;
// Idle gaps: TensorCoreIdleBound at > 10 % idle (smart_suggestion); "HIGHLY input-bound" at 20 %
// (xprof input-pipeline analysis).
constexpr double kIdleGapShare = 0.10;
constexpr double kIdleGapCriticalShare = 0.20;

const std::vector<AdviceThreshold>& adviceThresholds()
{
    static const std::vector<AdviceThreshold> list = {
        {"all", "min_op_share", kMinOpShare, "smallest share of op time for an op to be evidence", "ours"},
        {"per-core-batch", "evidence_min_share", kBatchEvidenceMinShare,
            "ops whose batch dimension is padded in its tile take at least this share of op time",
            "Cloud TPU performance guide (batch divisible by 8 or 128; tiling); share is ours"},
        {"per-core-batch", "critical_share", kBatchCriticalShare, "critical when those ops take this share", "ours"},
        {"padding", "efficiency", kPaddingEfficiency,
            "an array of a top op uses less than this fraction of its tiles, with a padded non-batch dimension",
            "Cloud TPU performance guide (128x8 tiles, feature dims multiples of 8 or 128); 0.5 is ours"},
        {"padding", "warning_share", kPaddingWarningShare, "warning when the op takes this share of op time", "ours"},
        {"low-utilization-fusion", "flops_utilization", kLowFlopsUtilization,
            "fusion FLOPS utilization below this (and HBM utilization below 50 %)",
            "ours; xprof smart suggestions use MXU < 50 % as the latency-bound precondition"},
        {"low-utilization-fusion", "dominant_share", kLowUtilDominantShare,
            "the largest such fusion takes at least this share of op time", "ours"},
        {"hbm-bound", "hbm_utilization", kHbmBoundHbmUtilization, "HBM bandwidth utilization above this",
            "xprof MemoryBoundRule (smart_suggestion/constants.h)"},
        {"hbm-bound", "flops_utilization", kHbmBoundFlopsUtilization, "FLOPS utilization below this",
            "xprof MemoryBoundRule (smart_suggestion/constants.h)"},
        {"hbm-bound", "min_share", kHbmBoundMinShare, "such ops take at least this share of op time", "ours"},
        {"data-formatting", "info_share", kDataFormattingInfoShare, "copy/transpose/data formatting share", "ours"},
        {"data-formatting", "warning_share", kDataFormattingWarningShare, "copy/transpose/data formatting share",
            "xprof DataShuffleBound (smart_suggestion)"},
        {"collectives", "info_share", kCollectivesInfoShare, "collective share of op time",
            "xprof overview all-reduce bound (op_stats_to_input_pipeline_analysis.cc)"},
        {"collectives", "warning_share", kCollectivesWarningShare, "collective share of op time",
            "xprof CollectiveBound (smart_suggestion)"},
        {"idle-gaps", "idle_share", kIdleGapShare, "TensorCore idle between module runs, share of the span",
            "xprof TensorCoreIdleBound (smart_suggestion)"},
        {"idle-gaps", "critical_share", kIdleGapCriticalShare, "idle share for critical",
            "xprof input-pipeline analysis (HIGHLY input-bound at 20 %)"},
    };
    return list;
}

const char* severityName(Severity severity)
{
    switch (severity) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Critical:
        return "critical";
    }
    return "info";
}

const AdviceValue* AdviceValue::find(std::string_view name) const
{
    for (const auto& [k, v] : fields)
        if (k == name)
            return &v;
    return nullptr;
}

using namespace advice_detail;

namespace {

AdviceValue dimensionList(const layout::PaddingInfo& p)
{
    AdviceValue list = AdviceValue::list();
    for (const layout::DimPadding& d : p.dims) {
        AdviceValue o = AdviceValue::object();
        o.set("size", d.size)
            .set("padded", d.padded)
            .set("tile", d.tile)
            .set("semantics", layout::semanticsName(d.semantics));
        list.append(std::move(o));
    }
    return list;
}

std::string dimensionText(const layout::PaddingInfo& p)
{
    std::string out;
    for (const layout::DimPadding& d : p.dims) {
        if (!out.empty())
            out += ", ";
        out += format("%s %lld", layout::semanticsName(d.semantics), static_cast<long long>(d.size));
        if (d.padded != d.size)
            out += format(" -> %lld", static_cast<long long>(d.padded));
        if (d.tile > 0)
            out += format(" (tile %lld)", static_cast<long long>(d.tile));
    }
    return out + " (most-minor first)";
}

// ---------------------------------------------------------------------------------------------

void perCoreBatchRule(const Context& ctx, std::vector<Advice>& out)
{
    const BatchInference& b = ctx.batch;
    if (!b.known)
        return;
    // Evidence: ops using the inferred batch whose batch dim is padded in its tile.
    std::vector<const OpRow*> rows;
    const ArrayPadding* example = nullptr;
    double evidenceTime = 0;
    int64_t tile = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size(); ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        const OpPadding& p = ctx.paddings[i];
        if (p.batchSize != b.perCoreBatch)
            continue;
        const ArrayPadding* padded = nullptr;
        for (const ArrayPadding& a : p.arrays) {
            const int d = a.batchDim();
            if (!a.padding.valid || d < 0 || a.padding.dims[d].tile <= 1
                || a.padding.dims[d].padded <= a.padding.dims[d].size)
                continue;
            if (!padded || a.padding.efficiency < padded->padding.efficiency)
                padded = &a;
        }
        if (!padded)
            continue;
        rows.push_back(&row);
        evidenceTime += row.totalTimePs;
        if (!example) {
            example = padded;
            tile = padded->padding.dims[padded->batchDim()].tile;
        }
    }
    const double share = ctx.breakdown.totalTimePs > 0 ? evidenceTime / ctx.breakdown.totalTimePs : 0;
    if (!example || share < kBatchEvidenceMinShare)
        return;
    const int64_t perCore = b.perCoreBatch;
    const int cores = std::max(1, b.cores);
    const int64_t suggestedPerCore = (perCore + tile - 1) / tile * tile;
    const int64_t suggestedGlobal = suggestedPerCore * cores;
    const double occupancy = static_cast<double>(perCore) / static_cast<double>(suggestedPerCore);
    const WhatIfResult now = whatIfBatch(ctx.profile, ctx.breakdown, perCore, 8, perCore);
    const WhatIfResult then = whatIfBatch(ctx.profile, ctx.breakdown, suggestedPerCore, 8, perCore);

    Advice a;
    a.rule = "per-core-batch";
    a.severity = share >= kBatchCriticalShare ? Severity::Critical : Severity::Warning;
    a.title = format("Per-core batch %lld fills %s of its %lld-wide tile: use global batch %lld (%lld per core)",
        static_cast<long long>(perCore), pct(occupancy).c_str(), static_cast<long long>(tile),
        static_cast<long long>(suggestedGlobal), static_cast<long long>(suggestedPerCore));
    a.detail = format(
        "The global batch is split over %d TPU cores, so each core sees %lld examples (global %lld, assuming all "
        "cores are data-parallel). In %s the batch dimension sits in a %lld-wide tile of the TPU layout "
        "(%s: %s), so %lld of every %lld rows are padding. The smallest global batch that makes the per-core "
        "batch a multiple of the tile is %lld x %d = %lld. The Cloud TPU performance guide gives two good "
        "shapes: a per-core batch of 128 with feature dimensions that are multiples of 8, or a per-core batch "
        "that is a multiple of 8 with feature dimensions that are multiples of 128 (XLA picks the layout from the "
        "batch size, so a larger batch may also change which dimension gets the 128-wide tile). How the batch "
        "was inferred: %s (confidence %s).",
        cores, static_cast<long long>(perCore), static_cast<long long>(b.globalBatch), opList(ctx, rows).c_str(),
        static_cast<long long>(tile), example->role.c_str(), example->padding.usedOfTileText().c_str(),
        static_cast<long long>(suggestedPerCore - perCore), static_cast<long long>(suggestedPerCore),
        static_cast<long long>(suggestedPerCore), cores, static_cast<long long>(suggestedGlobal),
        b.explanation(ctx.profile).c_str(), b.confidence.c_str());
    for (const OpRow* r : rows)
        addEvidence(a, ctx, r->op);
    a.numbers.set("cores", cores)
        .set("per_core_batch", perCore)
        .set("global_batch", b.globalBatch)
        .set("suggested_per_core_batch", suggestedPerCore)
        .set("suggested_global_batch", suggestedGlobal)
        .set("batch_tile", tile)
        .set("batch_tile_occupancy", occupancy)
        .set("evidence_time_fraction", share)
        .set("confidence", b.confidence)
        .set("batch_agreeing_share", b.agreeingShare);
    if (now.valid && then.valid) {
        a.numbers.set("padding_efficiency_now", now.currentWeightedEfficiency)
            .set("padding_efficiency_at_suggested", then.newWeightedEfficiency);
    }
    a.threshold = format("batch dimension padded in its tile in ops taking >= %s of op time (here %s); critical "
                         "from %s. Source: Cloud TPU performance guide (batch divisible by 8 or 128, 8x128 tiles)",
        pct(kBatchEvidenceMinShare).c_str(), pct(share).c_str(), pct(kBatchCriticalShare).c_str());
    a.gainPs = ctx.perStep(evidenceTime) * (1.0 - occupancy);
    a.gain = format("up to %s of the evidence ops' time per %lld examples per core (their time x (1 - %lld/%lld)): "
                    "at %lld per core the same padded tiles would hold %.0fx the examples. An upper bound: it assumes "
                    "these ops' time is dominated by padded tile work and does not grow until the tile is full, "
                    "and that the larger batch fits in memory and trains as well",
        ctx.perStepText(evidenceTime * (1.0 - occupancy)).c_str(), static_cast<long long>(perCore),
        static_cast<long long>(perCore), static_cast<long long>(suggestedPerCore),
        static_cast<long long>(suggestedPerCore), 1.0 / occupancy);
    out.push_back(std::move(a));
}

void paddingRule(const Context& ctx, std::vector<Advice>& out)
{
    // Without semantics (no HLO, or a loop fusion with no convolution), a dim as large as the
    // inferred per-core batch is taken for the batch: that waste belongs to per-core-batch.
    const int64_t batch = ctx.batch.known ? ctx.batch.perCoreBatch : -1;
    auto isBatchLike = [batch](const layout::DimPadding& d) {
        return d.semantics == DimSemantics::Batch || (d.semantics == DimSemantics::Unknown && d.size == batch);
    };
    size_t items = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size() && items < kPaddingMaxItems; ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.timeFraction < kMinOpShare)
            break; // rows are sorted by time
        const OpPadding& p = ctx.paddings[i];
        const ArrayPadding* chosen = nullptr;
        for (const ArrayPadding& a : p.arrays) {
            if (!a.padding.valid || a.padding.efficiency >= kPaddingEfficiency)
                continue;
            // The padding of the non-batch dims alone must be large: a batch-only waste is the
            // per-core-batch rule's, and an RGB input padded 3 -> 4 is not worth a line.
            double nonBatch = 1;
            for (const layout::DimPadding& d : a.padding.dims)
                if (!isBatchLike(d) && d.tile > 1 && d.padded > d.size)
                    nonBatch *= static_cast<double>(d.size) / static_cast<double>(d.padded);
            if (nonBatch < kPaddingEfficiency && (!chosen || a.padding.efficiency < chosen->padding.efficiency))
                chosen = &a;
        }
        if (!chosen)
            continue;
        ++items;
        const layout::PaddingInfo& pad = chosen->padding;
        std::string fixes;
        bool batchPadded = false;
        for (const layout::DimPadding& d : pad.dims) {
            if (d.tile <= 1 || d.padded <= d.size)
                continue;
            if (isBatchLike(d)) {
                batchPadded = true;
                continue;
            }
            fixes += format("%s%s dimension %lld is padded to %lld (tile %lld): a size that is a multiple of %lld "
                            "costs the same tiles",
                fixes.empty() ? "" : "; ", layout::semanticsName(d.semantics), static_cast<long long>(d.size),
                static_cast<long long>(d.padded), static_cast<long long>(d.tile), static_cast<long long>(d.tile));
        }
        const std::string layer = ctx.layer(row.op);
        Advice a;
        a.rule = "padding";
        a.severity = row.timeFraction >= kPaddingWarningShare ? Severity::Warning : Severity::Info;
        a.title = format("%s: %s of its %s tiles are padding (%s)", row.name.c_str(), pct(1 - pad.efficiency).c_str(),
            chosen->role.substr(0, chosen->role.find(' ')).c_str(), pad.usedOfTileText().c_str());
        a.detail = format(
            "%s (%s, %s of op time%s%s) works on %s laid out as %s: %s. Only %s of the tile elements hold data. %s. "
            "The Cloud TPU guide suggests feature dimensions that are multiples of 8 when the batch takes the 128-wide "
            "tile, or multiples of 128 when the feature does.%s",
            row.name.c_str(), row.category.c_str(), pct(row.timeFraction).c_str(), layer.empty() ? "" : ", layer ",
            layer.c_str(), chosen->role.c_str(), hlo::shapeToString(chosen->shape).c_str(), dimensionText(pad).c_str(),
            pct(pad.efficiency).c_str(), fixes.c_str(),
            batchPadded ? " The batch dimension is padded too (see per-core-batch)." : "");
        addEvidence(a, ctx, row.op);
        a.numbers.set("padding_efficiency", pad.efficiency)
            .set("dimensions", dimensionList(pad))
            .set("time_fraction", row.timeFraction)
            .set("logical_bytes", pad.logicalBytes)
            .set("padded_bytes", pad.paddedBytes)
            .set("shape", hlo::shapeToString(chosen->shape))
            .set("array", chosen->role);
        a.threshold = format("tile efficiency < %s with a padded non-batch dimension, op >= %s of op time (warning "
                             "from %s). Source: Cloud TPU performance guide (8x128 tiles)",
            pct(kPaddingEfficiency).c_str(), pct(kMinOpShare).c_str(), pct(kPaddingWarningShare).c_str());
        a.gainPs = ctx.perStep(row.totalTimePs) * (1 - pad.efficiency);
        a.gain = format("up to %s (the op's time x (1 - %s)). An upper bound: only the part of the op's time spent on "
                        "padded tiles can go, and some dimensions (a 1-channel model output) cannot change",
            ctx.perStepText(row.totalTimePs * (1 - pad.efficiency)).c_str(), pct(pad.efficiency).c_str());
        out.push_back(std::move(a));
    }
}

void lowUtilizationFusionRule(const Context& ctx, std::vector<Advice>& out, std::vector<std::string>& notes)
{
    if (ctx.profile.device.peakTflopsPerCore <= 0) {
        notes.push_back(
            "low-utilization-fusion and hbm-bound not checked: the device peaks are unknown (use --device)");
        return;
    }
    std::vector<const OpRow*> rows;
    std::vector<size_t> indexes;
    double time = 0, gainTime = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size(); ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.op == kNone || row.timeFraction < kMinOpShare || !isFusionCategory(row.category))
            continue;
        if (row.flopsUtilization >= kLowFlopsUtilization || row.hbmUtilization >= kHbmBoundFlopsUtilization)
            continue;
        rows.push_back(&row);
        indexes.push_back(i);
        time += row.totalTimePs;
        gainTime += row.totalTimePs * (1 - row.flopsUtilization / kTargetUtilization);
    }
    if (rows.empty() || rows.front()->timeFraction < kLowUtilDominantShare)
        return;
    const OpRow& top = *rows.front();
    const OpPadding& topPadding = ctx.paddings[indexes.front()];
    Advice a;
    a.rule = "low-utilization-fusion";
    a.severity = top.timeFraction >= kLowUtilCriticalShare ? Severity::Critical
        : top.timeFraction >= kLowUtilWarningShare         ? Severity::Warning
                                                           : Severity::Info;
    a.title = format("%s takes %s of op time at %s FLOPS utilization", top.name.c_str(), pct(top.timeFraction).c_str(),
        pct(top.flopsUtilization).c_str());
    std::string why;
    if (const ArrayPadding* w = topPadding.worst(); w && w->padding.efficiency < kPaddingEfficiency)
        why = format(" Its %s uses only %s of its tiles (%s), which explains much of the low utilization: see the "
                     "padding and per-core-batch advice.",
            w->role.c_str(), pct(w->padding.efficiency).c_str(), w->padding.usedOfTileText().c_str());
    else if (top.hbmUtilization < 0.2)
        why = " It is neither compute- nor bandwidth-bound, which points at latency: small shapes, padding or a "
              "poor fusion.";
    a.detail = format("%s (%s%s) runs at %s of the peak FLOP rate and %s of the HBM bandwidth.%s Fusions below %s "
                      "FLOPS utilization with at least %s of the time: %s (together %s of op time).",
        top.name.c_str(), top.category.c_str(),
        topPadding.computeCore ? (", around " + topPadding.computeCore->name).c_str() : "",
        pct(top.flopsUtilization).c_str(), pct(top.hbmUtilization).c_str(), why.c_str(),
        pct(kLowFlopsUtilization).c_str(), pct(kMinOpShare).c_str(), opList(ctx, rows).c_str(),
        pct(time / ctx.breakdown.totalTimePs).c_str());
    for (const OpRow* r : rows)
        addEvidence(a, ctx, r->op);
    a.numbers.set("flops_utilization", top.flopsUtilization)
        .set("hbm_utilization", top.hbmUtilization)
        .set("time_fraction", top.timeFraction)
        .set("evidence_time_fraction", time / ctx.breakdown.totalTimePs)
        .set("fusions", static_cast<int64_t>(rows.size()));
    a.threshold = format("fusion with >= %s of op time, FLOPS utilization < %s and HBM utilization < %s (ours; xprof's "
                         "latency-bound precondition is MXU < 50 %%); warning from %s, critical from %s",
        pct(kLowUtilDominantShare).c_str(), pct(kLowFlopsUtilization).c_str(), pct(kHbmBoundFlopsUtilization).c_str(),
        pct(kLowUtilWarningShare).c_str(), pct(kLowUtilCriticalShare).c_str());
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s if these fusions reached %s FLOPS utilization (time x (1 - util/%s)). An upper bound "
                    "under that assumption; the profile cannot say which fixes get there",
        ctx.perStepText(gainTime).c_str(), pct(kTargetUtilization).c_str(), pct(kTargetUtilization).c_str());
    out.push_back(std::move(a));
}

void hbmBoundRule(const Context& ctx, std::vector<Advice>& out)
{
    if (ctx.profile.device.peakHbmGbpsPerCore <= 0 || ctx.profile.device.peakTflopsPerCore <= 0)
        return;
    std::vector<const OpRow*> rows;
    double time = 0;
    for (const OpRow& row : ctx.breakdown.rows) {
        if (row.op == kNone || row.timeFraction < kMinOpShare)
            continue;
        if (row.hbmUtilization > kHbmBoundHbmUtilization && row.flopsUtilization < kHbmBoundFlopsUtilization) {
            rows.push_back(&row);
            time += row.totalTimePs;
        }
    }
    const double share = ctx.breakdown.totalTimePs > 0 ? time / ctx.breakdown.totalTimePs : 0;
    if (rows.empty() || share < kHbmBoundMinShare)
        return;
    Advice a;
    a.rule = "hbm-bound";
    a.severity = share >= 0.3 ? Severity::Warning : Severity::Info;
    a.title = format("%zu op%s (%s of op time) limited by HBM bandwidth", rows.size(), rows.size() > 1 ? "s" : "",
        pct(share).c_str());
    a.detail = format("%s: more than %s of the peak HBM bandwidth used, less than %s of the peak "
                      "FLOP rate: these ops wait for memory, not for the MXU. Moving fewer bytes helps: 16-bit (bf16) "
                      "activations, fusing them into their producer or consumer, or a larger batch per core to raise "
                      "arithmetic intensity (xprof MemoryBoundRule advice).",
        opList(ctx, rows).c_str(), pct(kHbmBoundHbmUtilization).c_str(), pct(kHbmBoundFlopsUtilization).c_str());
    for (const OpRow* r : rows)
        addEvidence(a, ctx, r->op);
    a.numbers.set("hbm_utilization", rows.front()->hbmUtilization)
        .set("flops_utilization", rows.front()->flopsUtilization)
        .set("evidence_time_fraction", share);
    a.threshold = format("HBM BW utilization > %s and FLOPS utilization < %s (xprof MemoryBoundRule) in ops with >= %s "
                         "of op time",
        pct(kHbmBoundHbmUtilization).c_str(), pct(kHbmBoundFlopsUtilization).c_str(), pct(kHbmBoundMinShare).c_str());
    a.gainPs = ctx.perStep(time) * 0.5;
    a.gain = format("up to %s if their bytes halved (f32 -> bf16): bandwidth-bound time scales with bytes. An upper "
                    "bound for that change; ops already in 16-bit gain nothing from it",
        ctx.perStepText(time * 0.5).c_str());
    out.push_back(std::move(a));
}

bool isCopyCategory(const std::string& c)
{
    return c == "data formatting" || c == "copy" || c == "transpose" || c == "copy-start" || c == "copy-done"
        || c == "reshape";
}

bool isCollectiveCategory(const std::string& c)
{
    static const char* const prefixes[]
        = {"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute", "all-reduce-scatter"};
    for (const char* p : prefixes)
        if (c.rfind(p, 0) == 0)
            return true;
    return false;
}

// Memory space S(5) is host memory (FORMATS.md §6.2): a copy from or to it is host offloading.
constexpr int64_t kHostMemorySpace = 5;

bool touchesHostMemory(const Profile& profile, OpId op, const OpPadding& padding)
{
    for (const ArrayPadding& a : padding.arrays)
        if (a.shape.hasLayout && a.shape.layout.memorySpace == kHostMemorySpace)
            return true;
    if (padding.instruction)
        for (const hlo::Shape& s : padding.instruction->operandShapes)
            if (s.hasLayout && s.layout.memorySpace == kHostMemorySpace)
                return true;
    // The HLO text names operand layouts too ("copy-done((..., f32[..]{..S(5)}, ...) %copy-start)").
    return profile.str(profile.ops[op].longName).find("S(5)}") != std::string::npos;
}

void dataFormattingRule(const Context& ctx, std::vector<Advice>& out)
{
    std::vector<const OpRow*> rows;
    double time = 0, hostTime = 0, asyncTime = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size(); ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.op == kNone || !isCopyCategory(row.category))
            continue;
        rows.push_back(&row);
        time += row.totalTimePs;
        if (row.category == "copy-start" || row.category == "copy-done")
            asyncTime += row.totalTimePs;
        if (touchesHostMemory(ctx.profile, row.op, ctx.paddings[i]))
            hostTime += row.totalTimePs;
    }
    const double share = ctx.breakdown.totalTimePs > 0 ? time / ctx.breakdown.totalTimePs : 0;
    if (rows.empty() || share < kDataFormattingInfoShare)
        return;
    Advice a;
    a.rule = "data-formatting";
    a.severity = share >= kDataFormattingWarningShare ? Severity::Warning : Severity::Info;
    std::string kind;
    if (hostTime > 0.5 * time) {
        a.title = format("Copies to or from host memory take %s of op time", pct(share).c_str());
        kind = format(" %s of that time is in copies whose arrays live in memory space S(5), host memory: this is host "
                      "offloading (activations or optimizer state moved out of HBM), bounded by the host link, not by "
                      "the TensorCore. Offload less, overlap the transfers with compute, or keep the arrays in HBM "
                      "if they fit.",
            pct(hostTime / time).c_str());
    } else if (asyncTime > 0.5 * time) {
        a.title = format("Asynchronous copies (copy-start/copy-done) take %s of op time", pct(share).c_str());
        kind = " Most of it is waiting in copy-done for an asynchronous copy, i.e. the copy is not hidden behind "
               "compute.";
    } else {
        a.title = format("Copies and transposes (data formatting) take %s of op time", pct(share).c_str());
        kind = " These ops only change the layout of arrays. Feeding data in the layout the TPU wants (for "
               "convolutions: NHWC with batch and feature sizes that tile well), or letting XLA fuse the transposes, "
               "removes them.";
    }
    a.detail = format("%s.%s", opList(ctx, rows).c_str(), kind.c_str());
    for (const OpRow* r : rows)
        if (r->timeFraction >= kMinOpShare || a.ops.size() < 3)
            addEvidence(a, ctx, r->op);
    a.numbers.set("time_fraction", share)
        .set("host_memory_fraction", time > 0 ? hostTime / time : 0.0)
        .set("ops", static_cast<int64_t>(rows.size()));
    a.threshold = format(">= %s of op time (ours, information); warning from %s (xprof DataShuffleBound)",
        pct(kDataFormattingInfoShare).c_str(), pct(kDataFormattingWarningShare).c_str());
    a.gainPs = ctx.perStep(time);
    a.gain = format("up to %s (their whole time) if they disappeared or were fully overlapped. An upper bound",
        ctx.perStepText(time).c_str());
    out.push_back(std::move(a));
}

void collectivesRule(const Context& ctx, std::vector<Advice>& out)
{
    std::vector<const OpRow*> rows;
    double time = 0;
    for (const OpRow& row : ctx.breakdown.rows) {
        if (row.op == kNone || !isCollectiveCategory(row.category))
            continue;
        rows.push_back(&row);
        time += row.totalTimePs;
    }
    const double share = ctx.breakdown.totalTimePs > 0 ? time / ctx.breakdown.totalTimePs : 0;
    if (rows.empty() || share < kCollectivesInfoShare)
        return;
    Advice a;
    a.rule = "collectives";
    a.severity = share >= kCollectivesWarningShare ? Severity::Warning : Severity::Info;
    a.title = format("Collectives take %s of op time", pct(share).c_str());
    a.detail = format("%s. Time in all-reduce/all-gather/... is time the cores synchronize instead of computing. "
                      "Overlap communication with compute, reduce gradients in bf16, or communicate less often "
                      "(gradient accumulation, a larger per-core batch); a single slow core (straggler) also shows "
                      "up here.",
        opList(ctx, rows).c_str());
    for (const OpRow* r : rows)
        if (r->timeFraction >= kMinOpShare || a.ops.size() < 3)
            addEvidence(a, ctx, r->op);
    a.numbers.set("time_fraction", share).set("ops", static_cast<int64_t>(rows.size()));
    a.threshold = format(">= %s of op time (xprof all-reduce bound); warning from %s (xprof CollectiveBound)",
        pct(kCollectivesInfoShare).c_str(), pct(kCollectivesWarningShare).c_str());
    a.gainPs = ctx.perStep(time);
    a.gain = format("up to %s if fully overlapped with compute. An upper bound", ctx.perStepText(time).c_str());
    out.push_back(std::move(a));
}

void idleGapsRule(const Context& ctx, std::vector<Advice>& out)
{
    double gaps = 0, span = 0;
    int64_t runs = 0;
    std::string lineName;
    for (PlaneId planeId : ctx.profile.tpuCorePlanes()) {
        const Plane& plane = ctx.profile.planes[planeId];
        const Track* chosen = nullptr;
        for (TrackKind kind : {TrackKind::XlaModules, TrackKind::Steps}) {
            for (TrackId t : plane.tracks)
                if (ctx.profile.tracks[t].kind == kind && ctx.profile.tracks[t].size() > 1) {
                    chosen = &ctx.profile.tracks[t];
                    break;
                }
            if (chosen)
                break;
        }
        if (!chosen)
            continue;
        lineName = ctx.profile.str(chosen->name);
        TimePs first = 0, lastEnd = 0;
        bool any = false;
        for (size_t i = 0; i < chosen->size(); ++i) {
            if (chosen->depth[i] != 0)
                continue;
            if (!any) {
                first = chosen->start[i];
                lastEnd = chosen->end(i);
                any = true;
                ++runs;
                continue;
            }
            if (chosen->start[i] > lastEnd)
                gaps += static_cast<double>(chosen->start[i] - lastEnd);
            lastEnd = std::max(lastEnd, chosen->end(i));
            ++runs;
        }
        if (any)
            span += static_cast<double>(lastEnd - first);
    }
    if (span <= 0)
        return;
    const double share = gaps / span;
    if (share < kIdleGapShare)
        return;
    Advice a;
    a.rule = "idle-gaps";
    a.severity = share >= kIdleGapCriticalShare ? Severity::Critical : Severity::Warning;
    a.title = format("TensorCores sit idle %s of the time between program runs", pct(share).c_str());
    a.detail = format("Between consecutive events on the %s line of the TPU cores (%lld runs) the cores do nothing for "
                      "%s of the span. The device waits for the host: for input (infeed, data pipeline), Python "
                      "between steps, or small launches. Prefetch and parallelize the input pipeline, run several "
                      "steps per call (host training loop), and move checkpointing/logging off the critical path.",
        lineName.c_str(), static_cast<long long>(runs), pct(share).c_str());
    a.numbers.set("idle_fraction", share).set("runs", runs).set("line", lineName);
    a.threshold = format("idle > %s of the span (xprof TensorCoreIdleBound); critical from %s (xprof HIGHLY "
                         "input-bound)",
        pct(kIdleGapShare).c_str(), pct(kIdleGapCriticalShare).c_str());
    const double idlePerCore = gaps / std::max<size_t>(1, ctx.profile.tpuCorePlanes().size());
    a.gainPs = idlePerCore / std::max<int64_t>(1, ctx.steps);
    a.gain = format("up to %s%s of idle time (all of it). An upper bound: some gap between launches always remains",
        formatDurationPs(a.gainPs).c_str(), ctx.steps > 0 ? "/step" : " per core");
    out.push_back(std::move(a));
}

} // namespace

AdviceReport computeAdvice(const Profile& profile)
{
    return computeAdvice(profile, computeOpBreakdown(profile));
}

AdviceReport computeAdvice(const Profile& profile, const OpBreakdown& breakdown)
{
    AdviceReport report;
    if (!profile.hasTpuOps()) {
        report.notes.push_back("no advice: the profile has no XLA ops on TPU cores");
        return report;
    }
    Context ctx {profile, breakdown};
    const StepStats steps = computeStepStats(profile);
    ctx.steps = steps.count;
    ctx.cores = std::max(1, breakdown.coresCounted);
    report.steps = steps.count;
    report.stepPs = steps.averagePs;
    ctx.paddings.reserve(breakdown.rows.size());
    for (const OpRow& row : breakdown.rows)
        ctx.paddings.push_back(row.op == kNone ? OpPadding {} : resolveOpPadding(profile, row.op));
    ctx.batch = inferPerCoreBatch(profile, breakdown);
    report.batch = ctx.batch;
    if (!ctx.batch.known)
        report.notes.push_back(ctx.batch.reason);

    perCoreBatchRule(ctx, report.advice);
    paddingRule(ctx, report.advice);
    lowUtilizationFusionRule(ctx, report.advice, report.notes);
    hbmBoundRule(ctx, report.advice);
    dataFormattingRule(ctx, report.advice);
    collectivesRule(ctx, report.advice);
    idleGapsRule(ctx, report.advice);
    std::stable_sort(report.advice.begin(), report.advice.end(), [](const Advice& a, const Advice& b) {
        if (a.severity != b.severity)
            return a.severity > b.severity;
        return a.gainPs > b.gainPs;
    });
    return report;
}

bool parseAdviceFormat(std::string_view name, AdviceFormat& out)
{
    if (name.empty() || name == "text")
        out = AdviceFormat::Text;
    else if (name == "json")
        out = AdviceFormat::Json;
    else if (name == "md" || name == "markdown")
        out = AdviceFormat::Markdown;
    else
        return false;
    return true;
}

void writeAdviceValue(JsonWriter& w, const AdviceValue& v, const std::function<std::string(std::string_view)>& text)
{
    switch (v.kind) {
    case AdviceValue::Kind::Number:
        w.value(v.number);
        break;
    case AdviceValue::Kind::Text:
        if (text)
            w.value(text(v.text));
        else
            w.value(v.text);
        break;
    case AdviceValue::Kind::List:
        w.beginArray();
        for (const AdviceValue& i : v.items)
            writeAdviceValue(w, i, text);
        w.endArray();
        break;
    case AdviceValue::Kind::Object:
        w.beginObject();
        for (const auto& [k, f] : v.fields) {
            w.key(k);
            writeAdviceValue(w, f, text);
        }
        w.endObject();
        break;
    }
}

namespace {

std::string valueText(const AdviceValue& v)
{
    switch (v.kind) {
    case AdviceValue::Kind::Number: {
        char buffer[32];
        if (v.number == std::floor(v.number) && std::fabs(v.number) < 1e15)
            std::snprintf(buffer, sizeof buffer, "%.0f", v.number);
        else
            std::snprintf(buffer, sizeof buffer, "%.4g", v.number);
        return buffer;
    }
    case AdviceValue::Kind::Text:
        return v.text;
    case AdviceValue::Kind::List: {
        std::string out = "[";
        for (size_t i = 0; i < v.items.size(); ++i)
            out += (i ? ", " : "") + valueText(v.items[i]);
        return out + "]";
    }
    case AdviceValue::Kind::Object: {
        std::string out = "{";
        for (size_t i = 0; i < v.fields.size(); ++i)
            out += (i ? ", " : "") + v.fields[i].first + "=" + valueText(v.fields[i].second);
        return out + "}";
    }
    }
    return {};
}

std::string headerLine(const Profile& profile, const AdviceReport& report)
{
    std::string device = profile.device.type.empty() ? "unknown TPU" : profile.device.type;
    std::string out = format("%s, %d TPU cores", device.c_str(), profile.device.cores);
    if (report.steps > 0)
        out += format(
            ", %lld steps (average %s)", static_cast<long long>(report.steps), formatDurationPs(report.stepPs).c_str());
    return out;
}

std::string batchLine(const Profile& profile, const BatchInference& b)
{
    if (!b.known)
        return "Per-core batch: not inferred. " + b.reason;
    return format("Per-core batch: %lld, global batch %lld = %lld x %d cores (all cores assumed data-parallel); "
                  "confidence %s: %s. How: %s.",
        static_cast<long long>(b.perCoreBatch), static_cast<long long>(b.globalBatch),
        static_cast<long long>(b.perCoreBatch), b.cores, b.confidence.c_str(), b.reason.c_str(),
        b.explanation(profile).c_str());
}

} // namespace

std::string adviceReport(const Profile& profile, const AdviceReport& report, AdviceFormat fmt)
{
    if (fmt == AdviceFormat::Json) {
        JsonWriter w;
        w.beginObject();
        w.field("device", profile.device.type).field("cores", profile.device.cores).field("steps", report.steps);
        w.key("batch").beginObject();
        w.field("known", report.batch.known);
        if (report.batch.known) {
            w.field("per_core_batch", report.batch.perCoreBatch)
                .field("global_batch", report.batch.globalBatch)
                .field("confidence", report.batch.confidence)
                .field("agreeing_share", report.batch.agreeingShare)
                .field("covered_share", report.batch.coveredShare);
        }
        w.field("explanation", report.batch.known ? report.batch.explanation(profile) : report.batch.reason);
        w.endObject();
        w.key("advice").beginArray();
        for (const Advice& a : report.advice) {
            w.beginObject();
            w.field("rule", a.rule).field("severity", severityName(a.severity)).field("title", a.title);
            w.field("detail", a.detail);
            w.key("ops").beginArray();
            for (const std::string& n : a.opNames)
                w.value(n);
            w.endArray();
            w.key("op_ids").beginArray();
            for (OpId id : a.ops)
                w.value(static_cast<int64_t>(id));
            w.endArray();
            w.key("numbers");
            writeAdviceValue(w, a.numbers);
            w.field("threshold", a.threshold).field("gain", a.gain).field("gain_ps_per_step", a.gainPs);
            w.endObject();
        }
        w.endArray();
        w.key("notes").beginArray();
        for (const std::string& n : report.notes)
            w.value(n);
        w.endArray();
        w.endObject();
        return w.str() + "\n";
    }
    const bool md = fmt == AdviceFormat::Markdown;
    std::string out;
    if (md) {
        out += "## tpuscope advice\n\n" + headerLine(profile, report) + "\n\n" + batchLine(profile, report.batch)
            + "\n\n";
    } else {
        out += "Advice: " + headerLine(profile, report) + "\n" + batchLine(profile, report.batch) + "\n\n";
    }
    if (report.advice.empty())
        out += md ? "No rule fired.\n\n" : "No rule fired.\n\n";
    int n = 0;
    for (const Advice& a : report.advice) {
        ++n;
        std::string numbers;
        for (const auto& [k, v] : a.numbers.fields)
            numbers += (numbers.empty() ? "" : ", ") + k + "=" + valueText(v);
        std::string ops;
        for (size_t i = 0; i < a.opNames.size(); ++i)
            ops += (i ? ", " : "") + (md ? "`" + a.opNames[i] + "`" : a.opNames[i]);
        if (md) {
            out += format("### %d. [%s] %s\n\n", n, severityName(a.severity), a.title.c_str());
            out += "Rule `" + a.rule + "`. " + a.detail + "\n\n";
            if (!ops.empty())
                out += "- **Evidence:** " + ops + "\n";
            out += "- **Numbers:** " + numbers + "\n";
            out += "- **Threshold:** " + a.threshold + "\n";
            out += "- **Estimated gain:** " + a.gain + "\n\n";
        } else {
            out += format("%d. [%s] %s: %s\n", n, severityName(a.severity), a.rule.c_str(), a.title.c_str());
            out += "   " + a.detail + "\n";
            if (!ops.empty())
                out += "   Evidence: " + ops + "\n";
            out += "   Numbers: " + numbers + "\n";
            out += "   Threshold: " + a.threshold + "\n";
            out += "   Estimated gain: " + a.gain + "\n\n";
        }
    }
    for (const std::string& note : report.notes)
        out += (md ? "> Note: " : "Note: ") + note + "\n";
    return toValidUtf8(out); // file paths and op names come from the file
}

} // namespace tpuscope::model
