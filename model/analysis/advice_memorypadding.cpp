// SPDX-License-Identifier: GPL-3.0-or-later
// Advice rule memory-padding: tile padding is a large share of a module's HBM peak. It also
// bounds the per-core-batch advice by the HBM a larger batch would need.
#include "advicerules.h"
#include "memory.h"

#include <algorithm>

namespace tpuscope::model::advice_detail {

namespace memory_padding {

std::string bytes(int64_t n)
{
    return formatBytes(static_cast<double>(n));
}

/// "fusion.7 (256 MiB for 32 MiB of data: dim 0 of size 16 padded to 128 by tile T(8,128))".
std::string bufferText(const BufferAtPeak& b)
{
    std::string dims;
    for (const auto& d : b.paddedDims)
        dims += (dims.empty() ? "" : ", ") + d.text();
    return format("%s (%s for %s of data%s%s)", b.instructionName.c_str(), bytes(b.sizeBytes).c_str(),
        bytes(b.unpaddedBytes).c_str(), dims.empty() ? "" : ": ", dims.c_str());
}

/// How many times its data a buffer takes because of its most padded dimension (16 in 128 -> 8).
double worstDimensionFactor(const BufferAtPeak& b, const PaddedDimension** worst)
{
    double factor = 1;
    for (const auto& d : b.paddedDims) {
        const double f = d.size > 0 ? static_cast<double>(d.padded) / static_cast<double>(d.size) : 1;
        if (f > factor) {
            factor = f;
            *worst = &d;
        }
    }
    return factor;
}

/// The module with the largest HBM peak: it bounds what a larger batch fits in (not empty).
const ModuleMemory& largestPeakModule(const MemoryReport& report)
{
    return *std::max_element(report.modules.begin(), report.modules.end(),
        [](const ModuleMemory& a, const ModuleMemory& b) { return a.peakHeapBytes < b.peakHeapBytes; });
}

void boundBatchAdviceByMemory(const Context& ctx, const MemoryReport& report, std::vector<Advice>& out)
{
    auto batchAdvice
        = std::find_if(out.begin(), out.end(), [](const Advice& a) { return a.id == AdviceRuleId::PerCoreBatch; });
    if (batchAdvice == out.end() || report.modules.empty() || !ctx.batch.known || batchAdvice->fix.perCoreBatch <= 0)
        return;
    const int64_t newBatch = batchAdvice->fix.perCoreBatch;
    const ModuleMemory& largest = largestPeakModule(report);
    const MemoryBatchWhatIf whatIf = whatIfMemoryBatch(largest, ctx.batch.perCoreBatch, newBatch);
    if (whatIf.scaledBuffers == 0)
        return;
    batchAdvice->numbers.set("hbm_peak_bytes", largest.peakHeapBytes)
        .set("hbm_peak_bytes_at_suggested_batch", whatIf.peakHeapBytes);
    std::string fit;
    if (report.hbmCapacityBytes > 0) {
        batchAdvice->numbers.set("hbm_capacity_bytes", report.hbmCapacityBytes);
        const double share = static_cast<double>(whatIf.peakHeapBytes) / report.hbmCapacityBytes;
        fit = share <= 1
            ? format(", %s of the %s HBM: it fits", pct(share).c_str(), formatBytes(report.hbmCapacityBytes).c_str())
            : format(", %s of the %s HBM: it does not fit, so a batch that large needs less memory "
                     "elsewhere (see memory-padding) or rematerialization",
                pct(share).c_str(), formatBytes(report.hbmCapacityBytes).c_str());
    }
    batchAdvice->gain += format(". Memory: at per-core batch %lld the buffers alive at the HBM peak of %s would take "
                                "about %s (now %s; %lld of the %lld buffers with a batch dimension keep their padded "
                                "size because the batch already fills the tile)%s",
        static_cast<long long>(newBatch), largest.name.c_str(), bytes(whatIf.peakHeapBytes).c_str(),
        bytes(largest.peakHeapBytes).c_str(), static_cast<long long>(whatIf.unchangedPaddedBuffers),
        static_cast<long long>(whatIf.scaledBuffers), fit.c_str());
}

/// The collectives advice suggests a larger per-core batch without a size: say what doubling it
/// would need at the HBM peak.
void boundCollectivesAdviceByMemory(const Context& ctx, const MemoryReport& report, std::vector<Advice>& out)
{
    auto collectives
        = std::find_if(out.begin(), out.end(), [](const Advice& a) { return a.id == AdviceRuleId::Collectives; });
    if (collectives == out.end() || report.modules.empty() || !ctx.batch.known || ctx.batch.perCoreBatch <= 0)
        return;
    const ModuleMemory& largest = largestPeakModule(report);
    const int64_t doubled = 2 * ctx.batch.perCoreBatch;
    const MemoryBatchWhatIf whatIf = whatIfMemoryBatch(largest, ctx.batch.perCoreBatch, doubled);
    if (whatIf.scaledBuffers == 0)
        return;
    collectives->numbers.set("hbm_peak_bytes", largest.peakHeapBytes)
        .set("hbm_peak_bytes_at_double_batch", whatIf.peakHeapBytes);
    std::string fit;
    if (report.hbmCapacityBytes > 0) {
        collectives->numbers.set("hbm_capacity_bytes", report.hbmCapacityBytes);
        const double share = static_cast<double>(whatIf.peakHeapBytes) / report.hbmCapacityBytes;
        fit = format(", %s of the %s HBM: %s", pct(share).c_str(), formatBytes(report.hbmCapacityBytes).c_str(),
            share <= 1 ? "it fits" : "it does not fit");
    }
    collectives->gain += format(". Memory: at per-core batch %lld (twice %lld) the buffers alive at the HBM peak of %s "
                                "would take about %s (now %s)%s",
        static_cast<long long>(doubled), static_cast<long long>(ctx.batch.perCoreBatch), largest.name.c_str(),
        bytes(whatIf.peakHeapBytes).c_str(), bytes(largest.peakHeapBytes).c_str(), fit.c_str());
}

} // namespace memory_padding

namespace memory_padding {

constexpr AdviceThreshold kMemoryPaddingShare {"memory-padding", "peak_padding_share", 0.25, "share",
    "tile padding is at least this share of a module's HBM peak", "ours"};
constexpr AdviceThreshold kMemoryPaddingMinPeakBytes {"memory-padding", "min_peak_bytes", 16.0 * 1024 * 1024, "bytes",
    "only modules whose HBM peak is this large", "ours"};
constexpr AdviceThreshold kMemoryAtCapacityShare {"memory-padding", "at_capacity_share", 0.95, "share",
    "critical when the peak is this share of the HBM capacity", "ours"};

void run(const Context& ctx, RuleOutput& out)
{
    const MemoryReport computed = ctx.memory ? MemoryReport {} : analyzeMemory(ctx.profile);
    const MemoryReport& report = ctx.memory ? *ctx.memory : computed;
    boundBatchAdviceByMemory(ctx, report, out.items);
    boundCollectivesAdviceByMemory(ctx, report, out.items);
    for (const ModuleMemory& m : report.modules) {
        const double share = m.paddingFraction();
        const double capacityShare = report.capacityFraction(m);
        const bool atCapacity = capacityShare >= kMemoryAtCapacityShare.value;
        // At capacity the module needs to shrink whatever its padding; otherwise only padding counts.
        if (static_cast<double>(m.peakHeapBytes) < kMemoryPaddingMinPeakBytes.value
            || (share < kMemoryPaddingShare.value && !atCapacity))
            continue;

        std::vector<const BufferAtPeak*> responsible;
        for (const auto& b : m.buffersAtPeak)
            if (b.paddingBytes() > 0)
                responsible.push_back(&b);
        std::stable_sort(responsible.begin(), responsible.end(),
            [](const BufferAtPeak* a, const BufferAtPeak* b) { return a->paddingBytes() > b->paddingBytes(); });
        const size_t shown = std::min<size_t>(responsible.size(), 4);
        int64_t shownPadding = 0;
        std::string list;
        for (size_t i = 0; i < shown; ++i) {
            list += (i ? "; " : "") + bufferText(*responsible[i]);
            shownPadding += responsible[i]->paddingBytes();
        }
        const PaddedDimension* worst = nullptr;
        const double factor = responsible.empty() ? 1 : worstDimensionFactor(*responsible.front(), &worst);

        Advice a;
        a.rule = "memory-padding";
        a.severity = atCapacity ? Severity::Critical : Severity::Warning;
        a.title = share >= kMemoryPaddingShare.value
            ? format("Tile padding is %s of the HBM peak of %s (%s of %s)", pct(share).c_str(), m.name.c_str(),
                bytes(m.peakPaddingBytes).c_str(), bytes(m.peakHeapBytes).c_str())
            : format("The HBM peak of %s is %s of the HBM capacity (%s of %s): shrink its largest buffers",
                m.name.c_str(), pct(capacityShare).c_str(), bytes(m.peakHeapBytes).c_str(),
                formatBytes(report.hbmCapacityBytes).c_str());
        std::string batchNote;
        if (worst && ctx.batch.known && worst->size == ctx.batch.perCoreBatch)
            batchNote = format(" Here the padded dimension has the size of the per-core batch (%lld): a per-core batch "
                               "of %lld would fill the same tiles, so in these buffers the batch could grow %.0fx "
                               "without more HBM (see per-core-batch).",
                static_cast<long long>(worst->size), static_cast<long long>(worst->padded), factor);
        std::string capacityNote;
        if (capacityShare >= 0 && atCapacity) {
            std::string largest;
            for (size_t i = 0; i < m.buffersAtPeak.size() && i < 4; ++i)
                largest += (i ? ", " : "") + m.buffersAtPeak[i].instructionName + " ("
                    + bytes(m.buffersAtPeak[i].sizeBytes) + ")";
            capacityNote = format(" The peak is %s of the %s HBM (%s): shrink the largest buffers at the peak first: "
                                  "%s; removing all tile padding at the peak would free %s.",
                pct(capacityShare).c_str(), formatBytes(report.hbmCapacityBytes).c_str(), report.capacityNote.c_str(),
                largest.c_str(), bytes(m.peakPaddingBytes).c_str());
        } else if (capacityShare >= 0) {
            capacityNote = format(" The peak is %s of the %s HBM (%s).", pct(capacityShare).c_str(),
                formatBytes(report.hbmCapacityBytes).c_str(), report.capacityNote.c_str());
        }
        const std::string paddingText = responsible.empty()
            ? std::string(" None of it is tile padding.")
            : format(" Most of the padding is in %s%s. A dimension of size n in a tile t wide takes t/n times its "
                     "bytes: per-core batch 8 in the 128-wide lane tile costs 16x the bytes, batch 16 costs 8x. Make "
                     "the padded dimension a multiple of its tile (the batch: a multiple of 8 or 128 per core; "
                     "features: multiples of 8 or 128), or let a dimension that is already large take the 128-wide "
                     "minor tile.",
                list.c_str(),
                responsible.size() > shown ? format(" and %zu more", responsible.size() - shown).c_str() : "");
        if (!responsible.empty())
            a.fix.action = "Make the padded dimension a multiple of its tile (the batch: a multiple of 8 or 128 per "
                           "core; features: multiples of 8 or 128), or let a dimension that is already large take "
                           "the 128-wide minor tile.";
        else
            a.fix.action = "Shrink the largest buffers alive at the HBM peak (rematerialize activations, a smaller "
                           "batch per core, or shard them over more devices).";
        a.detail = format("At the peak of the compiler's heap simulation %zu buffers are alive: %s of data in %s of "
                          "TPU tiles.%s%s%s",
            m.buffersAtPeak.size(), bytes(m.peakUnpaddedBytes).c_str(), bytes(m.peakHeapBytes).c_str(),
            paddingText.c_str(), batchNote.c_str(), capacityNote.c_str());
        for (size_t i = 0; i < shown; ++i)
            for (const OpRow& row : ctx.breakdown.rows)
                if (row.op != kNone && responsible[i]->instruction && row.name == responsible[i]->instruction->name)
                    addEvidence(a, ctx, row.op);
        AdviceValue buffers = AdviceValue::list();
        for (size_t i = 0; i < shown; ++i) {
            const BufferAtPeak& b = *responsible[i];
            AdviceValue dims = AdviceValue::list();
            for (const auto& d : b.paddedDims)
                dims.append(d.text());
            buffers.append(AdviceValue::object()
                               .set("instruction", b.instructionName)
                               .set("kind", bufferKindName(b.kind))
                               .set("size_bytes", b.sizeBytes)
                               .set("unpadded_bytes", b.unpaddedBytes)
                               .set("padded_dims", std::move(dims)));
        }
        a.numbers.set("module", m.name)
            .set("peak_heap_bytes", m.peakHeapBytes)
            .set("peak_unpadded_bytes", m.peakUnpaddedBytes)
            .set("peak_padding_bytes", m.peakPaddingBytes)
            .set("peak_padding_fraction", share)
            .set("buffers", std::move(buffers));
        if (capacityShare >= 0)
            a.numbers.set("hbm_capacity_bytes", report.hbmCapacityBytes).set("peak_capacity_fraction", capacityShare);
        a.threshold = format("tile padding >= %s of a module's HBM peak (here %s), for peaks of at least %s; "
                             "critical when the peak reaches %s of the HBM capacity. Source: ours (xprof's memory "
                             "viewer shows the padded and unpadded peak, without a threshold)",
            pct(kMemoryPaddingShare.value).c_str(), pct(share).c_str(),
            formatBytes(kMemoryPaddingMinPeakBytes.value).c_str(), pct(kMemoryAtCapacityShare.value).c_str());
        a.gain = format("up to %s of HBM at the peak (%s in the buffers listed) if those tiles were full; memory, "
                        "not time: it is what lets a larger batch or model fit",
            bytes(m.peakPaddingBytes).c_str(), bytes(shownPadding).c_str());
        out.items.push_back(std::move(a));
    }
}

} // namespace memory_padding

const AdviceRuleEntry& memoryPaddingRule()
{
    using namespace memory_padding;
    static const AdviceRuleEntry entry {
        AdviceRuleId::MemoryPadding, {kMemoryPaddingShare, kMemoryPaddingMinPeakBytes, kMemoryAtCapacityShare}, &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
