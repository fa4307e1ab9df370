// SPDX-License-Identifier: GPL-3.0-or-later
#include "advice.h"

#include "advicerules.h"
#include "deviceconsistency.h"
#include "hostlink.h"

#include "../core/format.h"
#include "summary.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
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
// ...and its non-batch dimensions alone leave less than this share of the tiles to data (a channel
// count of 5 in an 8-wide tile: 62.5 %; an RGB input padded 3 -> 4, 75 %, is not worth a line; ours).
constexpr double kPaddingNonBatchEfficiency = 0.75;
// Low-utilization fusion: FLOPS utilization below 25 % (ours; xprof's latency-bound precondition is
// MXU < 50 %, smart_suggestion/constants.h) in a fusion with >= 10 % of time ("dominating").
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
// Input-bound and capture-coverage thresholds: advicerules.h (their rules live in advice_steps.cpp).
// Memory padding: tile padding is at least a quarter of a module's HBM peak, for peaks of at least
// 16 MiB (smaller modules cannot run out of HBM); critical from 95 % of the HBM capacity (all ours:
// xprof's memory viewer shows padded and unpadded peaks without a threshold).
constexpr double kMemoryPaddingShare = 0.25;
constexpr double kMemoryPaddingMinPeakBytes = 16.0 * 1024 * 1024;
constexpr double kMemoryAtCapacityShare = 0.95;

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
        {"padding", "non_batch_efficiency", kPaddingNonBatchEfficiency,
            "...and its padded non-batch dimensions alone leave less than this fraction of the tiles to data", "ours"},
        {"padding", "warning_share", kPaddingWarningShare, "warning when the op takes this share of op time", "ours"},
        {"all", "low_utilization", kDefaultLowUtilizationThreshold,
            "an op is low-utilization when its roofline efficiency (attained FLOP/s over the roofline bound at its "
            "arithmetic intensity) is below this; ops without cost data or peaks are unknown, never low "
            "(op table, timeline, advice, share card; the GUI's \"Low utilization below\" box)",
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
        {"input-bound", "idle_share", advice_detail::kInputBoundShare,
            "steady-state idle + infeed waits, share of the steady-state step time (warm-up and tail excluded)",
            "xprof TensorCoreIdleBound (smart_suggestion)"},
        {"device-consistency", "tolerance", kDeviceTolerance,
            "ordinary XLA ops (>= 20 µs per occurrence, custom kernels excluded) above the device peak by more than "
            "this, or an array larger than one chip's HBM, contradict the device",
            "ours; capacities FORMATS.md §6.1"},
        {"strided-update", "max_hbm_share", advice_detail::kStridedMaxHbmShare,
            "an update op writing slices thinner than its tile runs below this share of the HBM peak",
            "ours; tiling from the XLA tiled-layout docs (FORMATS.md §6.2)"},
        {"strided-update", "min_time_share", advice_detail::kStridedMinTimeShare,
            "such ops take at least this share of op time", "ours"},
        {"strided-update", "warning_share", advice_detail::kStridedWarningShare, "warning from this share of op time",
            "ours"},
        {"host-offload", "min_share", advice_detail::kHostOffloadMinShare,
            "waiting in copy-done for host-memory (S(5)) copies, share of op time", "ours"},
        {"host-offload", "warning_share", advice_detail::kHostOffloadWarningShare, "warning from this share", "ours"},
        {"host-offload", "critical_share", advice_detail::kHostOffloadCriticalShare, "critical from this share",
            "ours"},
        {"input-bound", "critical_share", advice_detail::kInputBoundCriticalShare, "that share for critical",
            "xprof input-pipeline analysis (HIGHLY input-bound at 20 %)"},
        {"capture-coverage", "busy_share", advice_detail::kCaptureMinBusyShare,
            "the device is busy less than this share of the profile span", "ours"},
        {"capture-coverage", "min_runs", advice_detail::kCaptureMinRuns,
            "the dominant program ran fewer times than this per core", "ours"},
        {"memory-padding", "peak_padding_share", kMemoryPaddingShare,
            "tile padding is at least this share of a module's HBM peak", "ours"},
        {"memory-padding", "min_peak_bytes", kMemoryPaddingMinPeakBytes, "only modules whose HBM peak is this large",
            "ours"},
        {"memory-padding", "at_capacity_share", kMemoryAtCapacityShare,
            "critical when the peak is this share of the HBM capacity", "ours"},
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
    if (!ctx.coresKnown) {
        // An op_profile without collectives says nothing about the cores: only per-core figures hold.
        a.title = format("Per-core batch %lld fills %s of its %lld-wide tile: use %lld per core",
            static_cast<long long>(perCore), pct(occupancy).c_str(), static_cast<long long>(tile),
            static_cast<long long>(suggestedPerCore));
    }
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
    if (!ctx.coresKnown)
        a.detail = format("Each core sees %lld examples; this file does not record how many cores ran the program, "
                          "so the global batch is %lld x your number of cores (the figures below count %d).",
                       static_cast<long long>(perCore), static_cast<long long>(perCore), cores)
            + a.detail.substr(a.detail.find(" In "));
    if (!ctx.coresKnown)
        if (const size_t at = a.detail.find(" The smallest global batch"); at != std::string::npos)
            a.detail.erase(at, a.detail.find(". ", at + 1) + 1 - at);
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
    // Per op: its time x (1 - occupancy), never more than the time its useful work leaves to save.
    double gainTime = 0;
    for (const OpRow* r : rows)
        gainTime += addOpGain(a, ctx, *r, r->totalTimePs * (1.0 - occupancy), true);
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s of the evidence ops' time per %lld examples per core (their time x (1 - %lld/%lld), at "
                    "most their time x (1 - roofline efficiency)): at %lld per core the same padded tiles would hold "
                    "%.0fx the examples. An upper bound: it assumes these ops' time is dominated by padded tile work "
                    "and does not grow until the tile is full, and that the larger batch fits in memory and trains "
                    "as well",
        ctx.perStepText(gainTime).c_str(), static_cast<long long>(perCore), static_cast<long long>(perCore),
        static_cast<long long>(suggestedPerCore), static_cast<long long>(suggestedPerCore), 1.0 / occupancy);
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
        double chosenNonBatch = 1;
        for (const ArrayPadding& a : p.arrays) {
            if (!a.padding.valid || a.padding.efficiency >= kPaddingEfficiency)
                continue;
            // The tiles are mostly padding; the non-batch dims must waste a real part of them too: a batch-only waste
            // is the per-core-batch rule's (which may fire for the same op: both are then named), and an RGB input
            // padded 3 -> 4 is not worth a line.
            double nonBatch = 1;
            for (const layout::DimPadding& d : a.padding.dims)
                if (!isBatchLike(d) && d.tile > 1 && d.padded > d.size)
                    nonBatch *= static_cast<double>(d.size) / static_cast<double>(d.padded);
            if (nonBatch < kPaddingNonBatchEfficiency
                && (!chosen || a.padding.efficiency < chosen->padding.efficiency)) {
                chosen = &a;
                chosenNonBatch = nonBatch;
            }
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
            layer.c_str(), chosen->role.c_str(), arrayShapeText(*chosen).c_str(), dimensionText(pad).c_str(),
            pct(pad.efficiency).c_str(), fixes.c_str(),
            batchPadded ? " The batch dimension is padded too (see per-core-batch)." : "");
        if (!chosen->assumption.empty())
            a.detail += " Tiling: " + chosen->assumption + ".";
        const bool bound = paddingBound(pad.efficiency, row, p);
        if (bound)
            a.detail += paddingBoundText(pad.efficiency, row);
        addEvidence(a, ctx, row.op);
        a.numbers.set("padding_bound", bound ? 1 : 0);
        if (!chosen->assumption.empty())
            a.numbers.set("tiling", chosen->assumption);
        a.numbers.set("padding_efficiency", pad.efficiency)
            .set("dimensions", dimensionList(pad))
            .set("time_fraction", row.timeFraction);
        if (pad.paddedBytes > 0) // a layout analysis records no element size
            a.numbers.set("logical_bytes", pad.logicalBytes).set("padded_bytes", pad.paddedBytes);
        a.numbers.set("shape", arrayShapeText(*chosen)).set("array", chosen->role);
        a.threshold = format("tile efficiency < %s with a padded non-batch dimension, op >= %s of op time (warning "
                             "from %s). Source: Cloud TPU performance guide (8x128 tiles)",
            pct(kPaddingEfficiency).c_str(), pct(kMinOpShare).c_str(), pct(kPaddingWarningShare).c_str());
        // What fixing the non-batch dims frees (the batch's share is per-core-batch's), at most the
        // time the op's useful work leaves.
        const double gainTime = addOpGain(a, ctx, row, row.totalTimePs * (1 - chosenNonBatch), true);
        a.numbers.set("non_batch_efficiency", chosenNonBatch);
        a.gainPs = ctx.perStep(gainTime);
        a.gain
            = format("up to %s (the op's time x (1 - %s), the share of its tiles the padded non-batch dimensions "
                     "waste, and at most its time x (1 - roofline efficiency)). An upper bound: only the part of the "
                     "op's time spent on padded tiles can go, and some dimensions (a 1-channel model output) "
                     "cannot change",
                ctx.perStepText(gainTime).c_str(), pct(chosenNonBatch).c_str());
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
    if (ctx.profile.bytesNotRecorded) {
        // Far from the roofline needs both roofs: a low FLOPS utilization alone may be an op that
        // is bound by HBM bandwidth, which this file cannot show.
        notes.push_back("low-utilization-fusion and hbm-bound not checked: the file records no bytes, so no op's "
                        "position under the roofline is known (FLOPS utilizations are the file's)");
        return;
    }
    std::vector<const OpRow*> rows;
    std::vector<size_t> indexes;
    double time = 0, gainTime = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size(); ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.op == kNone || row.timeFraction < kMinOpShare || !isFusionCategory(row.category))
            continue;
        // One definition of "low utilization" for every view: far from the roofline at the op's
        // arithmetic intensity. Ops without cost data or peaks are unknown and never evidence.
        if (row.lowUtilization != true)
            continue;
        rows.push_back(&row);
        indexes.push_back(i);
        time += row.totalTimePs;
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
    const double topFlops = top.flopsUtilization.value_or(0);
    const double topHbm = top.hbmUtilization.value_or(0);
    const double topEfficiency = top.rooflineEfficiency.value_or(0);
    a.title = format("%s takes %s of op time at %s of its roofline bound (%s FLOPS utilization)", top.name.c_str(),
        pct(top.timeFraction).c_str(), pct(topEfficiency).c_str(), pct(topFlops).c_str());
    std::string why;
    if (const ArrayPadding* w = topPadding.worst(); w && paddingBound(w->padding.efficiency, top, topPadding))
        why = format(" Its %s uses only %s of its tiles (%s).%s See the padding and per-core-batch advice.",
            w->role.c_str(), pct(w->padding.efficiency).c_str(), w->padding.usedOfTileText().c_str(),
            paddingBoundText(w->padding.efficiency, top).c_str());
    else if (w && w->padding.efficiency < kPaddingEfficiency)
        why = format(" Its %s uses only %s of its tiles (%s), which explains much of the low utilization: see the "
                     "padding and per-core-batch advice.",
            w->role.c_str(), pct(w->padding.efficiency).c_str(), w->padding.usedOfTileText().c_str());
    else if (topHbm < 0.2)
        why = " It is neither compute- nor bandwidth-bound, which points at latency: small shapes, padding or a "
              "poor fusion.";
    a.detail = format("%s (%s%s) runs at %s of the peak FLOP rate and %s of the HBM bandwidth: %s of what the "
                      "roofline allows at its arithmetic intensity (%.3g %s).%s Fusions below %s of their roofline "
                      "bound with at least %s of the time: %s (together %s of op time).",
        top.name.c_str(), top.category.c_str(),
        topPadding.computeCore ? (", around " + topPadding.computeCore->name).c_str() : "", pct(topFlops).c_str(),
        pct(topHbm).c_str(), pct(topEfficiency).c_str(), top.arithmeticIntensity.value_or(0), kIntensityUnit,
        why.c_str(), pct(kDefaultLowUtilizationThreshold).c_str(), pct(kMinOpShare).c_str(), opList(ctx, rows).c_str(),
        pct(time / ctx.breakdown.totalTimePs).c_str());
    for (const OpRow* r : rows) {
        addEvidence(a, ctx, r->op);
        gainTime += addOpGain(
            a, ctx, *r, r->totalTimePs * std::max(0.0, 1 - *r->rooflineEfficiency / kTargetUtilization), false);
    }
    a.numbers.set("flops_utilization", topFlops)
        .set("hbm_utilization", topHbm)
        .set("roofline_efficiency", topEfficiency)
        .set("time_fraction", top.timeFraction)
        .set("evidence_time_fraction", time / ctx.breakdown.totalTimePs)
        .set("fusions", static_cast<int64_t>(rows.size()));
    a.threshold = format("fusion with >= %s of op time below %s of its roofline bound (the low-utilization setting; "
                         "ours, xprof's latency-bound precondition is MXU < 50 %%); warning from %s, critical from %s",
        pct(kLowUtilDominantShare).c_str(), pct(kDefaultLowUtilizationThreshold).c_str(),
        pct(kLowUtilWarningShare).c_str(), pct(kLowUtilCriticalShare).c_str());
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s if these fusions reached %s of their roofline bound (time x (1 - efficiency/%s)). An "
                    "upper bound under that assumption; the profile cannot say which fixes get there",
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
        if (!row.hbmUtilization || !row.flopsUtilization || !row.rooflineEfficiency)
            continue; // unknown cost or peak, or an op not on the roofline: no evidence of HBM limits
        if (*row.hbmUtilization > kHbmBoundHbmUtilization && *row.flopsUtilization < kHbmBoundFlopsUtilization) {
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
    double gainTime = 0;
    for (const OpRow* r : rows) {
        addEvidence(a, ctx, r->op);
        gainTime += addOpGain(a, ctx, *r, r->totalTimePs * 0.5, false);
    }
    a.numbers.set("hbm_utilization", *rows.front()->hbmUtilization)
        .set("flops_utilization", *rows.front()->flopsUtilization)
        .set("evidence_time_fraction", share);
    a.threshold = format("HBM BW utilization > %s and FLOPS utilization < %s (xprof MemoryBoundRule) in ops with >= %s "
                         "of op time",
        pct(kHbmBoundHbmUtilization).c_str(), pct(kHbmBoundFlopsUtilization).c_str(), pct(kHbmBoundMinShare).c_str());
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s if their bytes halved (f32 -> bf16): bandwidth-bound time scales with bytes. An upper "
                    "bound for that change; ops already in 16-bit gain nothing from it",
        ctx.perStepText(gainTime).c_str());
    out.push_back(std::move(a));
}

void dataFormattingRule(const Context& ctx, std::vector<Advice>& out)
{
    std::vector<const OpRow*> rows;
    double time = 0, hostTime = 0, asyncTime = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size(); ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.op == kNone || !ctx.traits(row).movesData())
            continue;
        rows.push_back(&row);
        time += row.totalTimePs;
        if (ctx.traits(row).async != AsyncRole::None)
            asyncTime += row.totalTimePs;
        if (ctx.traits(row).isHostTransfer())
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
    double gainTime = 0;
    for (const OpRow* r : rows)
        gainTime += addOpGain(a, ctx, *r, r->totalTimePs, false);
    a.numbers.set("time_fraction", share)
        .set("host_memory_fraction", time > 0 ? hostTime / time : 0.0)
        .set("ops", static_cast<int64_t>(rows.size()));
    a.threshold = format(">= %s of op time (ours, information); warning from %s (xprof DataShuffleBound)",
        pct(kDataFormattingInfoShare).c_str(), pct(kDataFormattingWarningShare).c_str());
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s (their whole time) if they disappeared or were fully overlapped. An upper bound",
        ctx.perStepText(gainTime).c_str());
    out.push_back(std::move(a));
}

// "all-gather", "reduce-scatter (async)", "async collective": what the op model says a collective is.
std::string collectiveKindText(const OpTraits& t)
{
    if (t.collective == CollectiveKind::Fused)
        return "async collective";
    std::string kind = collectiveKindName(t.collective);
    if (kind.empty())
        kind = "collective";
    return t.opClass == OpClass::SyncCollective ? kind : kind + " (async)";
}

// Whether the program has a backward pass: JAX names its ops transpose(jvp(...)), TF1 puts them under
// gradients/; a program called train_step is a training step too.
bool hasBackwardPass(const Context& ctx)
{
    for (const OpRow& row : ctx.breakdown.rows) {
        if (row.op == kNone)
            continue;
        const std::string& f = row.frameworkOp;
        if (f.find("transpose(jvp(") != std::string::npos || f.rfind("gradients/", 0) == 0
            || f.find("/gradients/") != std::string::npos)
            return true;
        if (row.program.find("train") != std::string::npos)
            return true;
    }
    return false;
}

// The element type of the largest array an op moves (its outputs), "" when unknown.
std::string largestArrayType(const OpPadding& padding)
{
    int64_t best = -1;
    std::string type;
    for (const ArrayPadding& a : padding.arrays)
        if (a.padding.logicalBytes > best) {
            best = a.padding.logicalBytes;
            type = hlo::primitiveTypeName(a.shape.elementType);
        }
    return type;
}

void collectivesRule(const Context& ctx, std::vector<Advice>& out)
{
    std::vector<const OpRow*> rows;
    std::vector<std::pair<std::string, double>> byKind; // in order of first appearance (by time)
    std::vector<const OpRow*> f32Rows;
    double time = 0, f32Time = 0;
    double syncTime = 0, asyncTime = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size(); ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.op == kNone || !ctx.traits(row).isCollective())
            continue;
        const std::string kind = collectiveKindText(ctx.traits(row));
        rows.push_back(&row);
        time += row.totalTimePs;
        (ctx.traits(row).opClass == OpClass::SyncCollective ? syncTime : asyncTime) += row.totalTimePs;
        auto it = std::find_if(byKind.begin(), byKind.end(), [&](const auto& k) { return k.first == kind; });
        if (it == byKind.end())
            byKind.emplace_back(kind, row.totalTimePs);
        else
            it->second += row.totalTimePs;
        // bf16 advice is worth a sentence for collectives that are evidence (>= 1 % of op time) only.
        if (row.timeFraction >= kMinOpShare && largestArrayType(ctx.paddings[i]) == "f32") {
            f32Rows.push_back(&row);
            f32Time += row.totalTimePs;
        }
    }
    const double total = ctx.breakdown.totalTimePs;
    const double share = total > 0 ? time / total : 0;
    if (rows.empty() || share < kCollectivesInfoShare)
        return;
    const bool training = hasBackwardPass(ctx);
    std::stable_sort(byKind.begin(), byKind.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    std::string kinds;
    AdviceValue kindNumbers = AdviceValue::object();
    for (const auto& [kind, t] : byKind) {
        kinds += (kinds.empty() ? "" : ", ") + kind + " " + pct(t / total);
        kindNumbers.set(kind, t / total);
    }
    Advice a;
    a.rule = "collectives";
    a.severity = share >= kCollectivesWarningShare ? Severity::Warning : Severity::Info;
    a.title = format("Collectives take %s of op time", pct(share).c_str());
    std::string what;
    if (training)
        what = " The program has a backward pass (framework ops under transpose(jvp(...)) or gradients/, or a "
               "training step): these are weight all-gathers (FSDP) and gradient reductions.";
    else
        what = " The program has no backward pass (no transpose(jvp(...)) ops and no training step): these "
               "collectives move weights or activations between devices.";
    // Only synchronous collectives can be made asynchronous; the time of async ones is what the
    // latency-hiding scheduler could not hide.
    if (syncTime > 0)
        what += format(" The synchronous ones (%s of op time) block the core: make them asynchronous so XLA's "
                       "latency-hiding scheduler can overlap them with compute.",
            pct(syncTime / total).c_str());
    if (asyncTime > 0)
        what += format(" The asynchronous ones (%s of op time) are already async: this is the part the scheduler could "
                       "not hide behind compute, so give it more independent compute to overlap (a larger per-device "
                       "batch, microbatching) or move fewer bytes.",
            pct(asyncTime / total).c_str());
    what += training ? " Communicating less often (gradient accumulation, less sharding) also helps."
                     : " Sharding less (replicating small weights, fewer devices per model copy) also helps.";
    if (f32Time > 0 && training)
        what += format(" %s %s f32 arrays (%s of op time): reducing gradients in bf16 halves their bytes.",
            opList(ctx, f32Rows, 3).c_str(), f32Rows.size() > 1 ? "move" : "moves", pct(f32Time / total).c_str());
    else if (f32Time > 0)
        what += format(" %s %s f32 arrays (%s of op time): bf16 would halve their bytes if the precision allows.",
            opList(ctx, f32Rows, 3).c_str(), f32Rows.size() > 1 ? "move" : "moves", pct(f32Time / total).c_str());
    a.detail = format("%s. By kind: %s.%s A single slow core (straggler) also shows up as collective time.",
        opList(ctx, rows).c_str(), kinds.c_str(), what.c_str());
    for (const OpRow* r : rows)
        if (r->timeFraction >= kMinOpShare || a.ops.size() < 3)
            addEvidence(a, ctx, r->op);
    double gainTime = 0;
    for (const OpRow* r : rows)
        gainTime += addOpGain(a, ctx, *r, r->totalTimePs, false);
    a.numbers.set("time_fraction", share)
        .set("sync_time_fraction", total > 0 ? syncTime / total : 0.0)
        .set("async_time_fraction", total > 0 ? asyncTime / total : 0.0)
        .set("by_kind", kindNumbers)
        .set("f32_time_fraction", total > 0 ? f32Time / total : 0.0)
        .set("backward_pass", training ? 1 : 0)
        .set("cores", ctx.cores)
        .set("steps", ctx.steps)
        .set("ops", static_cast<int64_t>(rows.size()));
    a.threshold = format(">= %s of op time (xprof all-reduce bound); warning from %s (xprof CollectiveBound)",
        pct(kCollectivesInfoShare).c_str(), pct(kCollectivesWarningShare).c_str());
    a.gainPs = ctx.perStep(gainTime);
    a.gain = format("up to %s if fully overlapped with compute (their time / %d cores%s). An upper bound",
        ctx.perStepText(gainTime).c_str(), ctx.cores,
        ctx.steps > 0 ? format(" / %lld steps", static_cast<long long>(ctx.steps)).c_str()
                      : "; the profile records no steps, so this is over the whole profile");
    out.push_back(std::move(a));
}

} // namespace

AdviceReport computeAdvice(const Profile& profile)
{
    return computeAdvice(profile, computeOpBreakdown(profile));
}

AdviceReport computeAdvice(const Profile& profile, const OpBreakdown& breakdown)
{
    return computeAdvice(profile, breakdown, computeSteps(profile));
}

namespace {

/// Marks the items whose gains come from the same ops and bounds what all of them save together:
/// per op at most its time, all together at most the step.
void combineGains(const Context& ctx, AdviceReport& report)
{
    std::map<OpId, double> byOp, largestByOp;
    double elsewhere = 0;
    for (const Advice& a : report.advice) {
        if (a.gainByOp.empty())
            elsewhere += a.gainPs;
        for (const auto& [op, g] : a.gainByOp) {
            byOp[op] += g;
            largestByOp[op] = std::max(largestByOp[op], g);
        }
    }
    for (Advice& a : report.advice)
        for (const Advice& b : report.advice) {
            if (&a == &b || a.gainPs <= 0 || b.gainPs <= 0)
                continue;
            const bool shared = std::any_of(a.gainByOp.begin(), a.gainByOp.end(), [&](const auto& x) {
                return x.second > 0 && std::any_of(b.gainByOp.begin(), b.gainByOp.end(), [&](const auto& y) {
                    return y.first == x.first && y.second > 0;
                });
            });
            if (shared && std::find(a.overlapsWith.begin(), a.overlapsWith.end(), b.rule) == a.overlapsWith.end())
                a.overlapsWith.push_back(b.rule);
        }
    double combined = elsewhere;
    for (const auto& [op, g] : byOp) {
        // However many fixes claim an op, its useful work at the roof still takes its time, unless
        // one fix removes the op as a whole (a copy that goes away): then its time is the bound.
        double opTime = g;
        for (const OpRow& row : ctx.breakdown.rows)
            if (row.op == op) {
                opTime = std::max(ctx.perStep(saveableTimePs(row, true)), largestByOp[op]);
                break;
            }
        combined += std::min(g, opTime);
    }
    const double limit = ctx.steps > 0 && report.stepPs > 0 ? report.stepPs : ctx.perStep(ctx.breakdown.totalTimePs);
    const bool capped = combined > limit;
    combined = std::min(combined, limit);
    report.combinedGainPs = combined;
    double sum = 0;
    for (const Advice& a : report.advice)
        sum += a.gainPs;
    if (combined <= 0)
        return;
    report.combinedGain
        = format("all the fixes together save at most %s (the items' gains add up to %s; where they "
                 "share ops, an op counts once, at most its time beyond its useful work at the roofline bound%s)",
            ctx.perStepText(combined * std::max(1, ctx.cores) * std::max<int64_t>(1, ctx.steps)).c_str(),
            ctx.perStepText(sum * std::max(1, ctx.cores) * std::max<int64_t>(1, ctx.steps)).c_str(),
            capped ? (ctx.steps > 0 ? ", and never more than the step" : ", and never more than the op time") : "");
    for (Advice& a : report.advice) {
        if (a.overlapsWith.empty())
            continue;
        std::string names;
        for (size_t i = 0; i < a.overlapsWith.size(); ++i)
            names += (i == 0 ? "" : i + 1 == a.overlapsWith.size() ? " and " : ", ") + a.overlapsWith[i];
        a.gain += ". It overlaps with " + names + " (the same ops' time): do not add these gains up; "
            + report.combinedGain;
    }
}

AdviceReport runAdviceRules(const Profile& profile, const OpBreakdown& breakdown, const StepAnalysis& steps,
    const MemoryReport* memory, const OpModel& model, const HostLinkStats& hostLink)
{
    AdviceReport report;
    if (!profile.hasTpuOps()) {
        report.notes.push_back("no advice: the profile has no XLA ops on TPU cores");
        return report;
    }
    Context ctx {profile, breakdown, model, hostLink};
    ctx.stepAnalysis = &steps;
    ctx.memory = memory;
    ctx.steps = steps.stepsPerCore;
    // One core count for every figure: the one the breakdown's per-core numbers divide by.
    ctx.cores = std::max(1, breakdown.coresRepresented);
    ctx.coresKnown = profile.device.coresSource == CoreCountSource::Planes
        || profile.device.coresSource == CoreCountSource::UserChoice;
    if (!profile.device.coresNote.empty())
        report.notes.push_back(profile.device.coresNote);
    report.cores = ctx.cores;
    report.steps = steps.stepsPerCore;
    report.stepPs = steps.avgStepPs;
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
    inputBoundRule(ctx, report.advice);
    captureCoverageRule(ctx, report.advice);
    deviceConsistencyRule(ctx, report.advice);
    stridedUpdateRule(ctx, report.advice);
    hostOffloadRule(ctx, report.advice);
    memoryPaddingRule(ctx, report.advice, kMemoryPaddingShare, kMemoryPaddingMinPeakBytes, kMemoryAtCapacityShare);
    // Copies to and from host memory are host-offload's: data-formatting's "their whole time" overstates
    // what overlapping them can gain (the link stays the bound). Without a timeline that rule cannot run.
    const bool hostOffload = std::any_of(
        report.advice.begin(), report.advice.end(), [](const Advice& a) { return a.rule == "host-offload"; });
    for (auto it = report.advice.begin(); it != report.advice.end(); ++it) {
        const AdviceValue* host = it->numbers.find("host_memory_fraction");
        if (it->rule != "data-formatting" || !host || host->number <= 0.5)
            continue;
        if (!hostOffload)
            report.notes.push_back("copies to or from host memory (S(5)) take "
                + pct(it->numbers.find("time_fraction")->number)
                + " of op time; the host-offload diagnosis needs the XLA Modules and XLA Ops timeline, which this file "
                  "does not have");
        report.advice.erase(it);
        break;
    }
    for (Advice& a : report.advice)
        nameTopEvidence(a);
    std::stable_sort(report.advice.begin(), report.advice.end(), [](const Advice& a, const Advice& b) {
        if (a.severity != b.severity)
            return a.severity > b.severity;
        return a.gainPs > b.gainPs;
    });
    combineGains(ctx, report);
    return report;
}

} // namespace

AdviceReport computeAdvice(const Profile& profile, const OpBreakdown& breakdown, const StepAnalysis& steps)
{
    const OpModel model = buildOpModel(profile);
    return runAdviceRules(profile, breakdown, steps, nullptr, model, computeHostLink(profile, model));
}

AdviceReport computeAdvice(
    const Profile& profile, const OpBreakdown& breakdown, const StepAnalysis& steps, const MemoryReport& memory)
{
    const OpModel model = buildOpModel(profile);
    return runAdviceRules(profile, breakdown, steps, &memory, model, computeHostLink(profile, model));
}

AdviceReport computeAdvice(const Profile& profile, const OpBreakdown& breakdown, const StepAnalysis& steps,
    const MemoryReport& memory, const OpModel& model, const HostLinkStats& hostLink)
{
    return runAdviceRules(profile, breakdown, steps, &memory, model, hostLink);
}

} // namespace tpuscope::model
