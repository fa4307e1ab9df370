// SPDX-License-Identifier: GPL-3.0-or-later
#include "advicenumbers.h"

#include "report.h"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <utility>

namespace tpuscope::model {

namespace {

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool contains(std::string_view s, std::string_view part)
{
    return s.find(part) != std::string_view::npos;
}

// Keys whose generic wording would read badly. Everything else is derived from the key.
constexpr std::array<std::pair<std::string_view, std::string_view>, 46> kLabels = {{
    {"time_fraction", "share of time"},
    {"host_memory_fraction", "in host memory"},
    {"evidence_time_fraction", "share of time in the evidence"},
    {"copy_wait_time_fraction", "share of time waiting in copy-done"},
    {"f32_time_fraction", "share of time in f32 ops"},
    {"busy_fraction", "device busy"},
    {"idle_fraction", "idle"},
    {"infeed_fraction", "waiting for infeed"},
    {"hbm_fraction", "share of HBM"},
    {"peak_capacity_fraction", "peak of HBM capacity"},
    {"peak_padding_fraction", "padding at the peak"},
    {"padding_bound", "padding bounds the op"},
    {"step_ps", "step time"},
    {"span_ps", "time span"},
    {"steady_idle_ps", "idle between steps"},
    {"warmup_idle_ps", "idle during warm-up"},
    {"overlap_headroom_ps", "time overlap could save"},
    {"transfer_bound_step_ps", "step time bound by transfers"},
    {"compute_ps_per_step", "compute per step"},
    {"link_busy_either_direction_ps", "host link busy (either direction)"},
    {"to_device_busy_ps_per_step", "host → device busy per step"},
    {"to_host_busy_ps_per_step", "device → host busy per step"},
    {"to_device_bytes_per_step", "host → device per step"},
    {"to_host_bytes_per_step", "device → host per step"},
    {"offloaded_bytes_per_step", "offloaded per step"},
    {"to_device_gbps", "host → device rate"},
    {"to_host_gbps", "device → host rate"},
    {"attained_gbps", "attained bandwidth"},
    {"hbm_peak_gbps", "HBM peak bandwidth"},
    {"fastest_hbm_gbps_per_core", "fastest op's HBM bandwidth per core"},
    {"fastest_tflops_per_core", "fastest op's TFLOP/s per core"},
    {"hbm_peak_bytes", "HBM peak"},
    {"hbm_capacity_bytes", "HBM capacity"},
    {"hbm_peak_bytes_at_double_batch", "HBM peak at twice the batch"},
    {"hbm_peak_bytes_at_suggested_batch", "HBM peak at the suggested batch"},
    {"per_core_batch", "batch per core"},
    {"global_batch", "global batch"},
    {"suggested_global_batch", "suggested global batch"},
    {"suggested_per_core_batch", "suggested batch per core"},
    {"runs", "runs"},
    {"cores", "cores"},
    {"throughput_factor", "examples/s at the suggested batch ÷ now"},
    {"throughput_assumption", "assuming"},
    {"step_ps_at_suggested_batch", "step time at the suggested batch"},
    {"op_ps_per_core", "op time per core"},
    {"op_ps_per_core_at_suggested_batch", "op time per core at the suggested batch"},
}};

std::string humanize(std::string_view key)
{
    for (std::string_view suffix : {"_fraction", "_bytes", "_ps", "_gbps"})
        if (endsWith(key, suffix) && key.size() > suffix.size()) {
            key.remove_suffix(suffix.size());
            break;
        }
    std::string out;
    size_t start = 0;
    while (start <= key.size()) {
        size_t end = key.find('_', start);
        if (end == std::string_view::npos)
            end = key.size();
        std::string word(key.substr(start, end - start));
        if (word == "ps") { // a unit inside the key ("copy_wait_ps_per_step"): the value says it
            start = end + 1;
            continue;
        }
        if (word == "hbm" || word == "vmem" || word == "hlo" || word == "flops" || word == "f32" || word == "bf16")
            for (char& c : word)
                c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (!out.empty())
            out += ' ';
        out += word;
        start = end + 1;
    }
    return out;
}

} // namespace

std::string adviceNumberLabel(std::string_view key)
{
    for (const auto& [k, label] : kLabels)
        if (k == key)
            return std::string(label);
    return humanize(key);
}

std::string formatAdviceNumber(std::string_view key, double value)
{
    if (!std::isfinite(value))
        return std::string(kUnknownText);
    if (key == "padding_bound") // a flag (1 when the padded bytes set the op's time), not a count
        return value != 0 ? "yes" : "no";
    if (endsWith(key, "_fraction") || contains(key, "efficiency") || endsWith(key, "_utilization")
        || endsWith(key, "_occupancy") || endsWith(key, "_share") || key == "confidence" || endsWith(key, "_fill"))
        return formatPercent(value);
    if (endsWith(key, "_factor")) { // a ratio of rates: "2.14x"
        char text[32];
        std::snprintf(text, sizeof text, "%.3gx", value);
        return text;
    }
    if (endsWith(key, "_ps") || contains(key, "_ps_"))
        return formatDurationPs(value);
    if (contains(key, "bytes"))
        return formatBytes(value);
    if (contains(key, "gbps")) {
        char text[48];
        std::snprintf(text, sizeof text, "%.3g GB/s", value);
        return text;
    }
    if (contains(key, "tflops")) {
        char text[48];
        std::snprintf(text, sizeof text, "%.3g TFLOP/s", value);
        return text;
    }
    if (value == std::floor(value) && std::fabs(value) < 1e15) {
        char text[32];
        std::snprintf(text, sizeof text, "%.0f", value);
        return text;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}

} // namespace tpuscope::model
