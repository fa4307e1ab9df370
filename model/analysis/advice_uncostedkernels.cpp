// SPDX-License-Identifier: GPL-3.0-or-later
// Advice rule `uncosted-kernels`: custom kernels (Pallas/Mosaic custom calls) that record no cost take a
// large share of op time, so no other rule can rate them: say what is known about them and what to
// measure next.
#include "advicerules.h"

#include <cctype>

namespace tpuscope::model::advice_detail {

namespace uncosted_kernels {

constexpr AdviceThreshold kUncostedMinShare {"uncosted-kernels", "min_share", 0.10, "share",
    "custom kernels without cost data (no FLOPs or bytes recorded, none estimated from their shapes) take at least "
    "this share of op time",
    "ours (xprof rates no op without cost data either)"};
constexpr AdviceThreshold kUncostedWarningShare {
    "uncosted-kernels", "warning_share", 0.25, "share", "warning from this share", "ours"};
constexpr AdviceThreshold kUncostedMaxGroups {
    "uncosted-kernels", "max_groups", 4, "items", "the kernel groups the item names, largest first", "ours"};

/// The parameters a kernel's name carries ("RPA-bq_32-bkvp_64-p_64-" -> "bq=32, bkvp=64, p=64"):
/// Pallas kernels are usually named after their block sizes.
std::string nameParameters(std::string_view name)
{
    std::string out;
    for (size_t i = 0; i < name.size();) {
        if (!std::isalpha(static_cast<unsigned char>(name[i]))
            || (i > 0 && std::isalnum(static_cast<unsigned char>(name[i - 1])))) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < name.size() && std::isalpha(static_cast<unsigned char>(name[j])))
            ++j;
        size_t k = j + 1;
        while (k < name.size() && std::isdigit(static_cast<unsigned char>(name[k])))
            ++k;
        if (j < name.size() && (name[j] == '_' || name[j] == '=') && k > j + 1) {
            out += (out.empty() ? "" : ", ") + std::string(name.substr(i, j - i)) + "="
                + std::string(name.substr(j + 1, k - j - 1));
            i = k;
        } else {
            i = j;
        }
    }
    return out;
}

struct KernelGroup
{
    std::string label;
    int64_t ops = 0;
    int64_t occurrences = 0;
    double timePs = 0;
    std::string parameters;
};

std::string groupText(const Context& ctx, const KernelGroup& g)
{
    const double total = ctx.breakdown.totalTimePs;
    const double runs
        = static_cast<double>(std::max(1, ctx.cores)) * static_cast<double>(std::max<int64_t>(1, ctx.steps));
    const double callsPerOp
        = static_cast<double>(g.occurrences) / static_cast<double>(std::max<int64_t>(1, g.ops)) / runs;
    std::string text = format("%s: %s of op time in %lld op%s%s, each called %.3g time%s per %s and core, %s per call",
        g.label.c_str(), pct(total > 0 ? g.timePs / total : 0).c_str(), static_cast<long long>(g.ops),
        g.ops > 1 ? "s" : "", g.ops > 1 ? " (one per layer: the same kernel under one name stem)" : "", callsPerOp,
        callsPerOp == 1 ? "" : "s", ctx.steps > 0 ? "step" : "capture",
        formatDurationPs(g.occurrences > 0 ? g.timePs / static_cast<double>(g.occurrences) : 0).c_str());
    if (!g.parameters.empty())
        text += "; its name gives " + g.parameters + " (the block sizes it was built with)";
    return text;
}

void run(const Context& ctx, RuleOutput& out)
{
    std::vector<const OpRow*> rows;
    double time = 0;
    for (const OpRow& row : ctx.breakdown.rows)
        if (row.op != kNone && ctx.traits(row).customKernel && row.costSource == CostSource::None) {
            rows.push_back(&row);
            time += row.totalTimePs;
        }
    const double total = ctx.breakdown.totalTimePs;
    const double share = total > 0 ? time / total : 0;
    if (rows.empty() || share < kUncostedMinShare.value)
        return;
    Advice a;
    // The groups worth naming: each with at least kMinOpShare of op time (the largest always).
    std::vector<KernelGroup> groups;
    for (const RowGroup& g : rowsByGroup(ctx, rows)) {
        if (!groups.empty()
            && (g.timePs < kMinOpShare.value * total || groups.size() >= static_cast<size_t>(kUncostedMaxGroups.value)))
            break;
        KernelGroup k {g.rows.size() > 1 && g.group ? g.group->label : g.rows.front()->name,
            static_cast<int64_t>(g.rows.size()), 0, g.timePs, nameParameters(g.rows.front()->name)};
        for (const OpRow* r : g.rows)
            k.occurrences += r->occurrences;
        groups.push_back(std::move(k));
        addEvidence(a, ctx, g.rows.front()->op);
    }
    a.severity = share >= kUncostedWarningShare.value ? Severity::Warning : Severity::Info;
    a.title = format(
        "Custom kernels without cost data take %s of op time: %s", pct(share).c_str(), groups.front().label.c_str());
    std::string known;
    int64_t listedOps = 0;
    AdviceValue list = AdviceValue::list();
    for (size_t i = 0; i < groups.size(); ++i) {
        known += (i ? "; " : "") + groupText(ctx, groups[i]);
        listedOps += groups[i].ops;
        list.append(AdviceValue::object()
                        .set("kernel", groups[i].label)
                        .set("ops", groups[i].ops)
                        .set("time_fraction", total > 0 ? groups[i].timePs / total : 0.0)
                        .set("occurrences", groups[i].occurrences)
                        .set("name_parameters", groups[i].parameters));
    }
    a.detail
        = format("These Pallas/Mosaic kernels record no FLOPs or bytes, and their shapes do not show a matmul whose "
                 "cost would follow from them, so no rule can place them under the roofline or call them "
                 "slow: %s. What to measure next: give each kernel a cost estimate (pallas_call(..., "
                 "cost_estimate=pl.CostEstimate(flops=..., bytes_accessed=..., transcendentals=...))) so the "
                 "profile records it and its utilization becomes known, then time the kernel alone at this "
                 "run's shapes over the block sizes its name gives, against the roofline of your TPU.",
            known.c_str());
    a.fix.action = "Give the kernels a cost estimate (pl.CostEstimate in their pallas_call) so the profile rates them, "
                   "then tune their block sizes at this run's shapes against the roofline.";
    a.numbers.set("time_fraction", share)
        .set("kernel_groups", static_cast<int64_t>(groups.size()))
        .set("ops", listedOps)
        .set("groups", std::move(list));
    a.threshold = format("custom kernels without cost data take >= %s of op time (ours); warning from %s",
        pct(kUncostedMinShare.value).c_str(), pct(kUncostedWarningShare.value).c_str());
    a.gain = "none by itself: with a cost estimate the kernels get a utilization and the other rules can rate them";
    out.items.push_back(std::move(a));
}

} // namespace uncosted_kernels

const AdviceRuleEntry& uncostedKernelsRule()
{
    using namespace uncosted_kernels;
    static const AdviceRuleEntry entry {
        AdviceRuleId::UncostedKernels, {kUncostedMinShare, kUncostedWarningShare, kUncostedMaxGroups}, &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
