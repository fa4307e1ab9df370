// SPDX-License-Identifier: GPL-3.0-or-later
// Advice rule `per-core-batch`: the inferred per-core batch is padded in its tile.
#include "advicerules.h"

namespace tpuscope::model::advice_detail {

namespace per_core_batch {

constexpr AdviceThreshold kBatchEvidenceMinShare {"per-core-batch", "evidence_min_share", 0.05, "share",
    "ops whose batch dimension is padded in its tile take at least this share of op time",
    "Cloud TPU performance guide (batch divisible by 8 or 128; tiling); share is ours"};
constexpr AdviceThreshold kBatchCriticalShare {
    "per-core-batch", "critical_share", 0.5, "share", "critical when those ops take this share", "ours"};

/// The throughput estimate of a batch-size fix: examples per second at the suggested per-core batch
/// over now. A step at k = suggested / now times the examples: each evidence op keeps its time until
/// its tiles are full, and at most its useful work at the roofline grows with the batch (time x
/// max(1, efficiency x k)); every other op and the rest of the step grow in proportion (k x their
/// time). It saves no time per step (the step gets longer), so it sets no time gain.
void setThroughput(
    const Context& ctx, const std::vector<const OpRow*>& rows, int64_t perCore, int64_t suggestedPerCore, Advice& a)
{
    const double k = static_cast<double>(suggestedPerCore) / static_cast<double>(perCore);
    const double opTime = ctx.perStep(ctx.breakdown.totalTimePs);
    const bool steps = ctx.steps > 0 && ctx.stepAnalysis && ctx.stepAnalysis->avgStepPs > 0;
    const double now = steps ? std::max(opTime, ctx.stepAnalysis->avgStepPs) : opTime;
    double evidence = 0, evidenceThen = 0;
    for (const OpRow* r : rows) {
        const double t = ctx.perStep(r->totalTimePs);
        const std::optional<double> u = r->rooflineEfficiency ? r->rooflineEfficiency : r->flopsUtilization;
        evidence += t;
        evidenceThen += t * std::max(1.0, std::min(1.0, u.value_or(0)) * k);
    }
    const double then = k * (now - evidence) + evidenceThen;
    if (now <= 0 || then <= 0)
        return;
    a.throughputFactor = k * now / then;
    const char* unit = steps ? "step" : "pass over the op time of the capture";
    a.numbers.set("throughput_factor", a.throughputFactor)
        .set(steps ? "step_ps" : "op_ps_per_core", now)
        .set(steps ? "step_ps_at_suggested_batch" : "op_ps_per_core_at_suggested_batch", then)
        .set("throughput_assumption",
            "the evidence ops' time stays until their tiles are full (at most their useful work at the roofline "
            "grows with the batch); every other op and the rest of the step grow in proportion to the batch");
    a.gain = format("throughput, not time per step: at %lld per core a %s would take about %s instead of %s for "
                    "%.0fx the examples, so up to %.2fx the examples per second (throughput_factor). An upper bound: "
                    "it assumes the evidence ops' time stays until their tiles are full (at most their useful work "
                    "at the roofline grows with the batch), every other op and the rest of the step grow in "
                    "proportion to the batch, and the larger batch fits in memory and trains as well. A larger batch "
                    "makes the step longer and each example cheaper, so this is not added to the time the other "
                    "fixes save",
        static_cast<long long>(suggestedPerCore), unit, formatDurationPs(then).c_str(), formatDurationPs(now).c_str(),
        k, a.throughputFactor);
}

void run(const Context& ctx, RuleOutput& out)
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
    if (!example || share < kBatchEvidenceMinShare.value)
        return;
    const int64_t perCore = b.perCoreBatch;
    const int cores = std::max(1, b.cores);
    const int64_t suggestedPerCore = (perCore + tile - 1) / tile * tile;
    const int64_t suggestedGlobal = suggestedPerCore * cores;
    const double occupancy = static_cast<double>(perCore) / static_cast<double>(suggestedPerCore);
    const WhatIfResult now = whatIfBatch(ctx.profile, ctx.breakdown, perCore, 8, perCore);
    const WhatIfResult then = whatIfBatch(ctx.profile, ctx.breakdown, suggestedPerCore, 8, perCore);

    Advice a;
    a.severity = share >= kBatchCriticalShare.value ? Severity::Critical : Severity::Warning;
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
    a.fix.action = ctx.coresKnown
        ? format("Raise the global batch to %lld (%lld per core) so each core's batch fills its %lld-wide tile.",
            static_cast<long long>(suggestedGlobal), static_cast<long long>(suggestedPerCore),
            static_cast<long long>(tile))
        : format("Raise the batch to %lld per core so it fills its %lld-wide tile.",
            static_cast<long long>(suggestedPerCore), static_cast<long long>(tile));
    a.fix.perCoreBatch = suggestedPerCore;
    a.fix.globalBatch = suggestedGlobal;
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
        pct(kBatchEvidenceMinShare.value).c_str(), pct(share).c_str(), pct(kBatchCriticalShare.value).c_str());
    setThroughput(ctx, rows, perCore, suggestedPerCore, a);
    out.items.push_back(std::move(a));
}

} // namespace per_core_batch

const AdviceRuleEntry& perCoreBatchRule()
{
    using namespace per_core_batch;
    static const AdviceRuleEntry entry {
        AdviceRuleId::PerCoreBatch, {kBatchEvidenceMinShare, kBatchCriticalShare}, &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
