// SPDX-License-Identifier: GPL-3.0-or-later
// Advice rule `padding`: an array of a top op wastes most of its tiles in its non-batch dimensions.
#include "advicerules.h"

namespace tpuscope::model::advice_detail {

using layout::DimSemantics;

namespace padding {

constexpr AdviceThreshold kPaddingNonBatchEfficiency {"padding", "non_batch_efficiency", 0.75, "share",
    "...and its padded non-batch dimensions alone leave less than this fraction of the tiles to data", "ours"};
constexpr AdviceThreshold kPaddingWarningShare {
    "padding", "warning_share", 0.10, "share", "warning when the op takes this share of op time", "ours"};
constexpr AdviceThreshold kPaddingMinBytesTimeShare {"padding", "min_bytes_time_share", 0.25, "share",
    "an op off the MXU (no convolution or dot) must spend at least this share of its time moving the padded array at "
    "the peak HBM bandwidth for its padding to be what its time goes to (else it is latency- or launch-bound)",
    "ours (roofline: padded bytes / peak HBM bandwidth)"};
constexpr AdviceThreshold kPaddingMaxItems {
    "padding", "max_items", 3, "items", "at most this many padding items, for the top ops", "ours"};

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

/// Whether padding can be what the op's time goes to: always for an MXU op (padded tiles are MXU
/// work); for any other op, when moving the padded array at the peak HBM bandwidth takes a real part
/// of its time. A tiny transposed kernel whose time is launch latency is not padding-bound.
bool paddingCanCost(const Context& ctx, const OpRow& row, const OpPadding& p, const layout::PaddingInfo& pad)
{
    const double peak = ctx.profile.device.peakHbmGbpsPerCore;
    if (p.computeCore || p.source == ShapeSource::LayoutHint || peak <= 0 || pad.paddedBytes <= 0
        || row.occurrences <= 0)
        return true;
    const double bytesPs = static_cast<double>(pad.paddedBytes) * 1000.0 / peak;
    const double opPs = row.totalTimePs / static_cast<double>(row.occurrences);
    return bytesPs >= kPaddingMinBytesTimeShare.value * opPs;
}

/// Without semantics (no HLO, or a loop fusion with no convolution), a dim as large as the inferred
/// per-core batch (-1: none) is taken for the batch: that waste belongs to per-core-batch.
bool isBatchLike(const layout::DimPadding& d, int64_t batch)
{
    return d.semantics == DimSemantics::Batch || (d.semantics == DimSemantics::Unknown && d.size == batch);
}

/// A dimension the user can resize: padded in its tile, not the batch (per-core-batch's), and not of
/// size 1 (a 1-channel model output, a kernel of one output channel: the model's own shape).
bool changeable(const layout::DimPadding& d, int64_t batch)
{
    return !isBatchLike(d, batch) && d.size > 1 && d.tile > 1 && d.padded > d.size;
}

/// "feature dimension 5 is padded to 8 (tile 8): ..." for each changeable padded dimension; sets the
/// fix for the first and says whether the batch is padded too.
std::string dimensionFixes(
    const layout::PaddingInfo& pad, const OpRow& row, int64_t batch, bool& batchPadded, Advice& a)
{
    std::string fixes;
    for (const layout::DimPadding& d : pad.dims) {
        if (d.tile <= 1 || d.padded <= d.size)
            continue;
        if (isBatchLike(d, batch)) {
            batchPadded = true;
            continue;
        }
        if (!changeable(d, batch))
            continue;
        if (a.fix.action.empty())
            a.fix.action = format("Make %s's %s dimension of size %lld a multiple of %lld (or let a larger dimension "
                                  "take the %lld-wide tile).",
                row.name.c_str(), layout::semanticsName(d.semantics), static_cast<long long>(d.size),
                static_cast<long long>(d.tile), static_cast<long long>(d.tile));
        fixes += format("%s%s dimension %lld is padded to %lld (tile %lld): a size that is a multiple of %lld "
                        "costs the same tiles",
            fixes.empty() ? "" : "; ", layout::semanticsName(d.semantics), static_cast<long long>(d.size),
            static_cast<long long>(d.padded), static_cast<long long>(d.tile), static_cast<long long>(d.tile));
    }
    return fixes;
}

void run(const Context& ctx, RuleOutput& out)
{
    const int64_t batch = ctx.batch.known ? ctx.batch.perCoreBatch : -1;
    size_t items = 0;
    for (size_t i = 0; i < ctx.breakdown.rows.size() && items < kPaddingMaxItems.value; ++i) {
        const OpRow& row = ctx.breakdown.rows[i];
        if (row.timeFraction < kMinOpShare.value)
            break; // rows are sorted by time
        const OpPadding& p = ctx.paddings[i];
        const ArrayPadding* chosen = nullptr;
        double chosenNonBatch = 1;
        for (const ArrayPadding& a : p.arrays) {
            if (!a.padding.valid || a.padding.efficiency >= kPaddingEfficiency.value)
                continue;
            // The tiles are mostly padding; the non-batch dims must waste a real part of them too: a batch-only waste
            // is the per-core-batch rule's (which may fire for the same op: both are then named), and an RGB input
            // padded 3 -> 4 is not worth a line.
            double nonBatch = 1;
            for (const layout::DimPadding& d : a.padding.dims)
                if (changeable(d, batch))
                    nonBatch *= static_cast<double>(d.size) / static_cast<double>(d.padded);
            if (nonBatch < kPaddingNonBatchEfficiency.value && paddingCanCost(ctx, row, p, a.padding)
                && (!chosen || a.padding.efficiency < chosen->padding.efficiency)) {
                chosen = &a;
                chosenNonBatch = nonBatch;
            }
        }
        if (!chosen)
            continue;
        ++items;
        const layout::PaddingInfo& pad = chosen->padding;
        Advice a;
        bool batchPadded = false;
        const std::string fixes = dimensionFixes(pad, row, batch, batchPadded, a);
        const std::string layer = ctx.layer(row.op);
        a.rule = "padding";
        a.severity = row.timeFraction >= kPaddingWarningShare.value ? Severity::Warning : Severity::Info;
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
            pct(kPaddingEfficiency.value).c_str(), pct(kMinOpShare.value).c_str(),
            pct(kPaddingWarningShare.value).c_str());
        // What fixing the non-batch dims frees (the batch's share is per-core-batch's), at most the
        // time the op's useful work leaves.
        const double gainTime = addOpGain(a, ctx, row, row.totalTimePs * (1 - chosenNonBatch), true);
        a.numbers.set("non_batch_efficiency", chosenNonBatch);
        a.gainPs = ctx.perStep(gainTime);
        a.gain
            = format("up to %s (the op's time x (1 - %s), the share of its tiles the padded non-batch dimensions "
                     "waste, and at most its time x (1 - roofline efficiency)). An upper bound: only the part of the "
                     "op's time spent on padded tiles can go (dimensions of size 1 are left out: they cannot change)",
                ctx.gainText(gainTime).c_str(), pct(chosenNonBatch).c_str());
        out.items.push_back(std::move(a));
    }
}

} // namespace padding

const AdviceRuleEntry& paddingRule()
{
    using namespace padding;
    static const AdviceRuleEntry entry {AdviceRuleId::Padding,
        {kPaddingEfficiency, kPaddingNonBatchEfficiency, kPaddingWarningShare, kPaddingMinBytesTimeShare,
            kPaddingMaxItems},
        &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
