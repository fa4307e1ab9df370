// SPDX-License-Identifier: GPL-3.0-or-later
// Rule `device-consistency`: the device peaks in use against what the profile's ops did.
#include "advicerules.h"
#include "deviceconsistency.h"

namespace tpuscope::model::advice_detail {

namespace device_consistency {

std::string rateText(const std::string& what, double value)
{
    if (what == "FLOP rate")
        return format("%.4g TFLOP/s", value);
    if (what == "HBM bandwidth")
        return format("%.4g GB/s", value);
    return formatBytes(value);
}

std::string generationList(const DeviceConsistency& check)
{
    std::string out;
    for (const TpuGeneration* g : check.fittingGenerations)
        out += (out.empty() ? "" : ", ") + std::string(g->displayName);
    return out.empty() ? "none of the known generations" : out;
}

AdviceValue generationKeys(const DeviceConsistency& check)
{
    AdviceValue list = AdviceValue::list();
    for (const TpuGeneration* g : check.fittingGenerations)
        list.append(g->key);
    return list;
}

std::string evidenceText(const DeviceConsistency& check)
{
    std::string out;
    if (check.fastestFlops.known())
        out += format("the fastest op over 20 µs, %s, runs at %.4g TFLOP/s per core", check.fastestFlops.op.c_str(),
            check.fastestFlops.value);
    if (check.fastestHbm.known())
        out += format("%s%s moves %.4g GB/s of HBM per core", out.empty() ? "" : "; ", check.fastestHbm.op.c_str(),
            check.fastestHbm.value);
    if (check.footprint.known() && check.footprint.value > 0)
        out += format("%s%s holds at least %s in HBM per core (its parameters)", out.empty() ? "" : "; ",
            check.footprint.op.c_str(), formatBytes(check.footprint.value).c_str());
    return out;
}

} // namespace device_consistency

namespace device_consistency {

void run(const Context& ctx, RuleOutput& out)
{
    // The analysis computes the check once (ProfileAnalysis::deviceConsistency); alone, the rule does.
    const DeviceConsistency computed
        = ctx.deviceCheck ? DeviceConsistency {} : checkDeviceConsistency(ctx.profile, ctx.breakdown);
    const DeviceConsistency& check = ctx.deviceCheck ? *ctx.deviceCheck : computed;
    if (!check.measured())
        return; // nothing measured to compare with
    const DeviceInfo& device = ctx.profile.device;
    Advice a;
    a.numbers.set("fastest_tflops_per_core", check.fastestFlops.value)
        .set("fastest_tflops_op", check.fastestFlops.op)
        .set("fastest_hbm_gbps_per_core", check.fastestHbm.value)
        .set("fastest_hbm_op", check.fastestHbm.op)
        .set("footprint_bytes", check.footprint.value)
        .set("fitting_generations", generationKeys(check));
    for (const TpuGeneration* g : check.fittingGenerations)
        a.fix.devices.push_back(g->key);
    // Named only when the file names it ("the program" reads well in a sentence, not as a value).
    if (!check.footprint.program.empty())
        a.numbers.set("footprint_program", check.footprint.program);
    a.threshold = format("a rate of ordinary XLA ops (at least 20 µs per occurrence; custom kernels' own estimates "
                         "excluded) more than %s above the device peak, or a footprint larger than one chip's HBM "
                         "(FORMATS.md §6.1); ours",
        pct(kDeviceTolerance).c_str());
    a.gain = "none by itself: the right device makes every utilization and the advice built on them correct";
    const std::string fitting = generationList(check);
    if (!check.deviceKnown) {
        a.severity = Severity::Info;
        a.title = "The file names no TPU generation; its data fit " + fitting;
        a.detail = "Without a generation there is no peak, so every utilization is unknown. The profile's own ops "
                   "narrow it down: "
            + evidenceText(check) + ". Generations whose per-core peaks and HBM hold that: " + fitting
            + ". Choose the one you ran on with --device (or the device chooser in the GUI).";
        a.fix.action = "Choose the one you ran on with --device (or the device chooser in the GUI).";
        out.items.push_back(std::move(a));
        return;
    }
    if (check.excesses.empty())
        return;
    a.severity = Severity::Warning;
    const DeviceConsistency::Excess& first = check.excesses.front();
    const std::string deviceName = device.type.empty() ? std::string("the chosen device") : device.type;
    a.title = format("The data contradict %s: %s reaches %s, %s of its %s", deviceName.c_str(),
        first.evidence.op.c_str(), rateText(first.what, first.evidence.value).c_str(),
        pct(first.evidence.value / first.limit).c_str(), first.what.c_str());
    std::string excesses;
    AdviceValue list = AdviceValue::list();
    for (const DeviceConsistency::Excess& e : check.excesses) {
        excesses += format("%s%s: %s in %s, against a limit of %s", excesses.empty() ? "" : "; ", e.what.c_str(),
            rateText(e.what, e.evidence.value).c_str(), e.evidence.op.c_str(), rateText(e.what, e.limit).c_str());
        list.append(AdviceValue::object()
                        .set("what", e.what)
                        .set("op", e.evidence.op)
                        .set("value", e.evidence.value)
                        .set("limit", e.limit));
        for (const OpRow& row : ctx.breakdown.rows)
            if (row.op != kNone && row.name == e.evidence.op && row.program == e.evidence.program)
                addEvidence(a, ctx, row.op);
    }
    a.numbers.set("excesses", std::move(list));
    a.fix.action = "Choose the generation you ran on with --device (or the device chooser in the GUI).";
    a.detail = format("The peaks in use (%.4g TFLOP/s and %.4g GB/s per core, %s) are below what ordinary XLA ops in "
                      "this profile did: %s. Every utilization against these peaks is wrong (some read above 100%%). "
                      "The data fit %s: choose the generation you ran on with --device (or the device chooser in "
                      "the GUI).",
        device.peakTflopsPerCore, device.peakHbmGbpsPerCore, peakSourceName(device.peakSource), excesses.c_str(),
        fitting.c_str());
    out.items.push_back(std::move(a));
}

} // namespace device_consistency

const AdviceRuleEntry& deviceConsistencyRule()
{
    using namespace device_consistency;
    // The check itself (deviceconsistency.cpp) is an analysis of its own, so its limits live there.
    static const AdviceRuleEntry entry {AdviceRuleId::DeviceConsistency,
        {{"device-consistency", "tolerance", kDeviceTolerance, "share",
             "ordinary XLA ops (>= 20 µs per occurrence, custom kernels excluded) above the device peak by more than "
             "this, or an array larger than one chip's HBM, contradict the device",
             "ours; capacities FORMATS.md §6.1"},
            {"device-consistency", "min_occurrence_ps", kDeviceEvidenceMinOccurrencePs, "ps",
                "ops shorter than this per occurrence are no evidence (launch overheads and clock rounding dominate)",
                "ours"}},
        &run};
    return entry;
}

} // namespace tpuscope::model::advice_detail
