// SPDX-License-Identifier: GPL-3.0-or-later
#include "diffreport.h"

#include "jsonwriter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tpuscope::model {

namespace {

/// b − a, empty when either side is unknown.
std::optional<double> delta(const std::optional<double>& a, const std::optional<double>& b)
{
    if (!a || !b)
        return std::nullopt;
    return *b - *a;
}

std::string signedPercent(const std::optional<double>& maybe)
{
    if (!maybe)
        return kUnknownText;
    const double fraction = *maybe;
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%+.1f pp", 100.0 * fraction);
    return buffer;
}

std::string signedDuration(double ps)
{
    if (ps == 0)
        return "0";
    return (ps > 0 ? "+" : "-") + formatDurationPs(std::fabs(ps));
}

std::string relative(double a, double b)
{
    if (a <= 0)
        return b > 0 ? "new" : "";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%+.1f%%", 100.0 * (b - a) / a);
    return buffer;
}

} // namespace

std::string diffReport(const ProfileDiff& diff, TableFormat format, size_t top, const std::string& beforeFile,
    const std::string& afterFile)
{
    const std::vector<std::string> warnings = diff.warnings();
    const size_t n = top ? std::min(top, diff.rows.size()) : diff.rows.size();
    if (format == TableFormat::Json) {
        JsonWriter w;
        w.beginObject();
        w.field("per_step", diff.perStep);
        auto side = [&](const char* key, const DiffProfileSide& s) {
            w.key(key).beginObject();
            w.field("device", s.device).field("cores", s.cores).field("steps", s.steps).field("step_ps", s.stepPs);
            w.field("total_op_time_ps", s.totalOpTimePs).field("flops_utilization", s.flopsUtilization);
            w.field("hbm_utilization", s.hbmUtilization).field("ops", static_cast<uint64_t>(s.ops));
            w.endObject();
        };
        side("a", diff.a);
        side("b", diff.b);
        w.key("delta").beginObject();
        w.field("step_ps", diff.b.stepPs - diff.a.stepPs);
        w.field("total_op_time_ps", diff.b.totalOpTimePs - diff.a.totalOpTimePs);
        w.field("flops_utilization", delta(diff.a.flopsUtilization, diff.b.flopsUtilization));
        w.field("hbm_utilization", delta(diff.a.hbmUtilization, diff.b.hbmUtilization));
        w.endObject();
        w.field("matched", static_cast<uint64_t>(diff.matched))
            .field("matched_by_name", static_cast<uint64_t>(diff.matchedByName));
        w.field("new", static_cast<uint64_t>(diff.added)).field("removed", static_cast<uint64_t>(diff.removed));
        w.field("matched_time_fraction_a", diff.matchedTimeFractionA)
            .field("matched_time_fraction_b", diff.matchedTimeFractionB);
        w.field("related", diff.related()).field("different_generation", diff.differentGeneration());
        w.key("warnings").beginArray();
        for (const std::string& warning : warnings)
            w.value(warning);
        w.endArray();
        w.key("ops").beginArray();
        for (size_t i = 0; i < n; ++i) {
            const DiffRow& r = diff.rows[i];
            w.beginObject();
            w.field("name", r.name).field("category", r.category).field("status", diffStatusName(r.status));
            w.field("matched_by_name_only", r.matchedByNameOnly);
            auto opSide = [&](const char* key, const DiffSide& s, bool present) {
                w.key(key);
                if (!present) {
                    w.null();
                    return;
                }
                w.beginObject();
                w.field("program", s.program).field("occurrences", s.occurrences).field("time_ps", s.timePs);
                w.field("time_fraction", s.timeFraction).field("flops_utilization", s.flopsUtilization);
                w.field("hbm_utilization", s.hbmUtilization);
                w.endObject();
            };
            opSide("a", r.a, r.status != DiffStatus::New);
            opSide("b", r.b, r.status != DiffStatus::Removed);
            w.field("time_delta_ps", r.timeDeltaPs()).field("time_fraction_delta", r.fractionDelta());
            w.field("flops_utilization_delta", delta(r.a.flopsUtilization, r.b.flopsUtilization));
            w.field("occurrences_delta", r.b.occurrences - r.a.occurrences);
            w.endObject();
        }
        w.endArray();
        w.endObject();
        return w.str() + "\n";
    }

    const std::string unit = diff.perStep ? "/step" : "";
    std::string out;
    // Summary lines (a comment-free preamble; Markdown gets a small table of its own).
    Table summary;
    summary.header = {"", "Before (A)", "After (B)", "Change"};
    summary.rightAligned = {false, true, true, true};
    // Unrelated profiles: the numbers side by side, no change that would read as a result.
    const bool related = diff.related();
    const std::string notComparable = "not comparable";
    if (!beforeFile.empty() || !afterFile.empty())
        summary.rows.push_back({"File", beforeFile, afterFile, ""});
    auto stepText = [](const DiffProfileSide& s) {
        return s.stepPs > 0 ? formatDurationPs(s.stepPs) + " (" + std::to_string(s.steps) + " steps)" : "n/a";
    };
    summary.rows.push_back(
        {"Device", diff.a.device.empty() ? "unknown" : diff.a.device + " x" + std::to_string(diff.a.cores),
            diff.b.device.empty() ? "unknown" : diff.b.device + " x" + std::to_string(diff.b.cores), ""});
    summary.rows.push_back({"Step time", stepText(diff.a), stepText(diff.b),
        !related ? notComparable
            : diff.a.stepPs > 0 && diff.b.stepPs > 0
            ? signedDuration(diff.b.stepPs - diff.a.stepPs) + " (" + relative(diff.a.stepPs, diff.b.stepPs) + ")"
            : ""});
    summary.rows.push_back(
        {"Op time" + unit, formatDurationPs(diff.a.totalOpTimePs), formatDurationPs(diff.b.totalOpTimePs),
            !related ? notComparable
                     : signedDuration(diff.b.totalOpTimePs - diff.a.totalOpTimePs) + " ("
                    + relative(diff.a.totalOpTimePs, diff.b.totalOpTimePs) + ")"});
    summary.rows.push_back({"FLOPS utilization", formatOptionalPercent(diff.a.flopsUtilization),
        formatOptionalPercent(diff.b.flopsUtilization),
        !related ? notComparable : signedPercent(delta(diff.a.flopsUtilization, diff.b.flopsUtilization))});
    summary.rows.push_back(
        {"HBM utilization", formatOptionalPercent(diff.a.hbmUtilization), formatOptionalPercent(diff.b.hbmUtilization),
            !related ? notComparable : signedPercent(delta(diff.a.hbmUtilization, diff.b.hbmUtilization))});
    summary.rows.push_back({"Ops", std::to_string(diff.a.ops), std::to_string(diff.b.ops),
        std::to_string(diff.matched) + " matched (" + std::to_string(diff.matchedByName) + " by name only), "
            + std::to_string(diff.added) + " new, " + std::to_string(diff.removed) + " removed"});

    Table ops;
    ops.header = {"Op", "Category", "Status", "Time A" + unit, "Time B" + unit, "Time change", "Share A", "Share B",
        "FLOPS util A", "FLOPS util B", "Occurrences A", "Occurrences B"};
    ops.rightAligned = {false, false, false, true, true, true, true, true, true, true, true, true};
    for (size_t i = 0; i < n; ++i) {
        const DiffRow& r = diff.rows[i];
        const bool hasA = r.status != DiffStatus::New, hasB = r.status != DiffStatus::Removed;
        std::string status
            = r.status == DiffStatus::Both ? (r.matchedByNameOnly ? "matched by name" : "") : diffStatusName(r.status);
        ops.rows.push_back({r.name, r.category, status, hasA ? formatDurationPs(r.a.timePs) : "-",
            hasB ? formatDurationPs(r.b.timePs) : "-",
            signedDuration(r.timeDeltaPs()) + (hasA && hasB ? " (" + relative(r.a.timePs, r.b.timePs) + ")" : ""),
            hasA ? formatPercent(r.a.timeFraction) : "-", hasB ? formatPercent(r.b.timeFraction) : "-",
            hasA ? formatOptionalPercent(r.a.flopsUtilization) : "-",
            hasB ? formatOptionalPercent(r.b.flopsUtilization) : "-", hasA ? std::to_string(r.a.occurrences) : "-",
            hasB ? std::to_string(r.b.occurrences) : "-"});
    }
    std::string warningText;
    for (const std::string& warning : warnings)
        warningText += (format == TableFormat::Markdown ? "> **Warning:** " : "Warning: ") + warning + "\n";
    if (format == TableFormat::Markdown) {
        out += "## tpuscope diff\n\n" + (warningText.empty() ? "" : warningText + "\n") + renderTable(summary, format)
            + "\n"
            + (diff.perStep ? "Op times are per step (each profile divided by its own step count).\n\n"
                            : "Op times are totals over each profile (step counts unknown).\n\n")
            + renderTable(ops, format);
        return out;
    }
    if (format == TableFormat::Csv || format == TableFormat::Tsv)
        return renderTable(ops, format);
    out += (warningText.empty() ? "" : warningText + "\n") + renderTable(summary, format) + "\n"
        + renderTable(ops, format);
    return out;
}

} // namespace tpuscope::model
