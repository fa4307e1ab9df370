// SPDX-License-Identifier: GPL-3.0-or-later
#include "diffreport.h"

#include "jsonwriter.h"

#include <algorithm>
#include <cmath>

namespace tpuscope::model {

namespace {

/// b − a, empty when either side is unknown.
std::optional<double> delta(const std::optional<double>& a, const std::optional<double>& b)
{
    if (!a || !b)
        return std::nullopt;
    return *b - *a;
}

std::string signedPoints(const std::optional<double>& maybe)
{
    if (!maybe)
        return kUnknownText;
    std::string text = formatSignedPercent(*maybe);
    text.pop_back(); // the "%": a change of a percentage is in points
    return text + " pp";
}

std::string relative(double a, double b)
{
    if (a <= 0)
        return b > 0 ? "new" : "";
    return formatSignedPercent(b / a - 1);
}

void writeTest(JsonWriter& w, const char* key, const ChangeTest& t)
{
    w.key(key).beginObject();
    w.field("tested", t.tested).field("significant", t.significant());
    w.field("count_a", static_cast<uint64_t>(t.countA)).field("count_b", static_cast<uint64_t>(t.countB));
    w.field("median_a", t.medianA).field("median_b", t.medianB).field("relative_change", t.relativeChange);
    w.field("interval_low", t.intervalLow).field("interval_high", t.intervalHigh);
    w.field("p_value", t.tested ? std::optional<double>(t.pValue) : std::nullopt);
    w.endObject();
}

void writeProfileSide(JsonWriter& w, const char* key, const DiffProfileSide& s, const std::string& label)
{
    w.key(key).beginObject();
    w.field("label", label).field("device", s.device).field("generation", s.generation);
    w.field("cores", s.cores).field("hosts", s.hosts);
    w.key("programs").beginArray();
    for (const std::string& p : s.programs)
        w.value(p);
    w.endArray();
    w.field("steps", s.steps).field("warmup_steps", static_cast<uint64_t>(s.warmupSteps)).field("step_ps", s.stepPs);
    w.field("total_op_time_ps", s.totalOpTimePs).field("flops_utilization", s.flopsUtilization);
    w.field("hbm_utilization", s.hbmUtilization).field("ops", static_cast<uint64_t>(s.ops));
    w.field("per_core_batch", s.perCoreBatch).field("global_batch", s.globalBatch);
    w.field("examples_per_second", s.examplesPerSecond).field("hbm_peak_bytes", s.hbmPeakBytes);
    w.endObject();
}

void writeOpSide(JsonWriter& w, const char* key, const DiffSide& s, bool present)
{
    w.key(key);
    if (!present) {
        w.null();
        return;
    }
    w.beginObject();
    w.field("name", s.name).field("program", s.program).field("framework_op", s.frameworkOp).field("source", s.source);
    w.field("occurrences", s.occurrences).field("occurrences_per_step", s.occurrencesPerStep);
    w.field("time_ps", s.timePs).field("time_fraction", s.timeFraction);
    w.field("flops_utilization", s.flopsUtilization).field("hbm_utilization", s.hbmUtilization);
    w.field("hbm_bytes", s.hbmBytes);
    w.endObject();
}

void writeOpRow(JsonWriter& w, const DiffRow& r)
{
    w.beginObject();
    w.field("name", r.name).field("category", r.category).field("status", diffStatusName(r.status));
    if (const char* how = matchedByName(r.matchedBy))
        w.field("matched_by", how);
    else
        w.key("matched_by").null();
    writeOpSide(w, "a", r.a, r.status != DiffStatus::New);
    writeOpSide(w, "b", r.b, r.status != DiffStatus::Removed);
    w.field("time_delta_ps", r.timeDeltaPs()).field("time_fraction_delta", r.fractionDelta());
    w.field("flops_utilization_delta", delta(r.a.flopsUtilization, r.b.flopsUtilization));
    w.field("occurrences_delta", r.b.occurrences - r.a.occurrences);
    w.field("within_noise", r.withinNoise());
    if (r.test.tested)
        writeTest(w, "test", r.test);
    else
        w.key("test").null();
    w.field("explanation", r.explanation());
    w.key("reasons").beginArray();
    for (const DiffReason& reason : r.reasons) {
        w.beginObject();
        w.field("kind", diffReasonKindName(reason.kind)).field("text", reason.text);
        w.endObject();
    }
    w.endArray();
    w.endObject();
}

void writeSteps(JsonWriter& w, const StepComparison& s)
{
    w.key("steps").beginObject();
    w.field("known", s.known);
    writeTest(w, "step_time", s.stepTime);
    w.field("batch_differs", s.batchDiffers);
    if (s.throughput)
        writeTest(w, "throughput", *s.throughput);
    else
        w.key("throughput").null();
    w.field("regressed", s.regressed()).field("verdict", s.verdict());
    w.endObject();
}

std::string diffJson(const ProfileDiff& diff, size_t n, const std::string& beforeFile, const std::string& afterFile)
{
    JsonWriter w;
    w.beginReport();
    w.field("per_step", diff.perStep).field("figures", diff.perStep ? "per step and core" : "per core");
    writeProfileSide(w, "a", diff.a, beforeFile);
    writeProfileSide(w, "b", diff.b, afterFile);
    w.key("delta").beginObject();
    w.field("step_ps", diff.b.stepPs - diff.a.stepPs);
    w.field("total_op_time_ps", diff.b.totalOpTimePs - diff.a.totalOpTimePs);
    w.field("flops_utilization", delta(diff.a.flopsUtilization, diff.b.flopsUtilization));
    w.field("hbm_utilization", delta(diff.a.hbmUtilization, diff.b.hbmUtilization));
    w.endObject();
    writeSteps(w, diff.steps);
    w.key("config_differences").beginArray();
    for (const ConfigDifference& d : diff.config) {
        w.beginObject();
        w.field("what", d.what).field("before", d.before).field("after", d.after);
        w.endObject();
    }
    w.endArray();
    w.field("matched", static_cast<uint64_t>(diff.matched))
        .field("matched_by_name", static_cast<uint64_t>(diff.matchedByName))
        .field("matched_by_fingerprint", static_cast<uint64_t>(diff.matchedByFingerprint))
        .field("matched_by_framework_op", static_cast<uint64_t>(diff.matchedByFrameworkOp));
    w.field("new", static_cast<uint64_t>(diff.added)).field("removed", static_cast<uint64_t>(diff.removed));
    w.field("matched_time_fraction_a", diff.matchedTimeFractionA)
        .field("matched_time_fraction_b", diff.matchedTimeFractionB);
    w.field("related", diff.related()).field("different_generation", diff.differentGeneration());
    w.key("warnings").beginArray();
    for (const std::string& warning : diff.warnings())
        w.value(warning);
    w.endArray();
    w.key("ops").beginArray();
    for (size_t i = 0; i < n; ++i)
        writeOpRow(w, diff.rows[i]);
    w.endArray();
    w.endObject();
    return w.str() + "\n";
}

std::string batchText(const DiffProfileSide& s)
{
    if (!s.globalBatch)
        return s.perCoreBatch ? std::to_string(*s.perCoreBatch) + " per core" : "unknown";
    return std::to_string(*s.globalBatch) + " (" + std::to_string(s.perCoreBatch.value_or(0)) + " per core)";
}

Table summaryTable(const ProfileDiff& diff, const std::string& beforeFile, const std::string& afterFile)
{
    Table summary;
    summary.header = {"", "Before (A)", "After (B)", "Change"};
    summary.rightAligned = {false, true, true, true};
    summary.elideWideCells = false;
    // Unrelated profiles: the numbers side by side, no change that would read as a result.
    const bool related = diff.related();
    const auto change = [&](const std::string& text) { return related ? text : std::string("not comparable"); };
    const std::string unit = diff.perStep ? " per step and core" : " per core";
    if (!beforeFile.empty() || !afterFile.empty())
        summary.rows.push_back({"Profile", beforeFile, afterFile, ""});
    const auto device = [](const DiffProfileSide& s) {
        return s.device.empty() ? std::string("unknown")
                                : s.device + " x" + std::to_string(s.cores)
                + (s.hosts > 1 ? " (" + std::to_string(s.hosts) + " hosts)" : "");
    };
    summary.rows.push_back({"Device", device(diff.a), device(diff.b), ""});
    summary.rows.push_back({"Global batch", batchText(diff.a), batchText(diff.b), ""});
    const auto steps = [](const DiffProfileSide& s) {
        return s.stepPs > 0 ? formatDurationPs(s.stepPs) + " (" + std::to_string(s.steps) + " steps, "
                + std::to_string(s.warmupSteps) + " warm-up)"
                            : std::string("n/a");
    };
    const StepComparison& st = diff.steps;
    summary.rows.push_back({"Step time (median)", steps(diff.a), steps(diff.b),
        !st.known ? "" : change(st.stepTime.tested ? st.stepTime.describe() : relative(diff.a.stepPs, diff.b.stepPs))});
    if (diff.a.examplesPerSecond && diff.b.examplesPerSecond)
        summary.rows.push_back({"Examples/s (global)", formatCount(*diff.a.examplesPerSecond),
            formatCount(*diff.b.examplesPerSecond), change(st.throughput ? st.throughput->describe() : "")});
    summary.rows.push_back(
        {"Op time" + unit, formatDurationPs(diff.a.totalOpTimePs), formatDurationPs(diff.b.totalOpTimePs),
            change(formatSignedDurationPs(diff.b.totalOpTimePs - diff.a.totalOpTimePs) + " ("
                + relative(diff.a.totalOpTimePs, diff.b.totalOpTimePs) + ")")});
    summary.rows.push_back({"FLOPS utilization", formatOptionalPercent(diff.a.flopsUtilization),
        formatOptionalPercent(diff.b.flopsUtilization),
        change(signedPoints(delta(diff.a.flopsUtilization, diff.b.flopsUtilization)))});
    summary.rows.push_back(
        {"HBM utilization", formatOptionalPercent(diff.a.hbmUtilization), formatOptionalPercent(diff.b.hbmUtilization),
            change(signedPoints(delta(diff.a.hbmUtilization, diff.b.hbmUtilization)))});
    const auto peak = [](const DiffProfileSide& s) {
        return s.hbmPeakBytes ? formatBytes(double(*s.hbmPeakBytes)) : std::string(kUnknownText);
    };
    summary.rows.push_back({"HBM peak per core", peak(diff.a), peak(diff.b),
        diff.a.hbmPeakBytes && diff.b.hbmPeakBytes
            ? relative(double(*diff.a.hbmPeakBytes), double(*diff.b.hbmPeakBytes))
            : ""});
    summary.rows.push_back({"Ops", std::to_string(diff.a.ops), std::to_string(diff.b.ops),
        std::to_string(diff.matched) + " matched (" + std::to_string(diff.matchedByName) + " by name, "
            + std::to_string(diff.matchedByFingerprint) + " by fingerprint, "
            + std::to_string(diff.matchedByFrameworkOp) + " by framework op), " + std::to_string(diff.added) + " new, "
            + std::to_string(diff.removed) + " removed"});
    return summary;
}

std::string noiseText(const DiffRow& r)
{
    if (r.status != DiffStatus::Both)
        return "";
    if (r.test.tested)
        return r.test.significant() ? "beyond noise" : "noise";
    return r.withinNoise() ? "noise (untested)" : "untested";
}

Table opsTable(const ProfileDiff& diff, size_t n)
{
    Table ops;
    ops.header = {"Op", "Before name", "Matched by", "Category", "Status", "Time A", "Time B", "Time change", "Noise",
        "FLOPS util A", "FLOPS util B", "Why"};
    ops.rightAligned = {false, false, false, false, false, true, true, true, false, true, true, false};
    for (size_t i = 0; i < n; ++i) {
        const DiffRow& r = diff.rows[i];
        const bool hasA = r.status != DiffStatus::New, hasB = r.status != DiffStatus::Removed;
        const char* how = matchedByName(r.matchedBy);
        ops.rows.push_back({r.name, hasA && hasB && r.a.name != r.name ? r.a.name : "", how ? how : "", r.category,
            r.status == DiffStatus::Both ? "" : diffStatusName(r.status), hasA ? formatDurationPs(r.a.timePs) : "-",
            hasB ? formatDurationPs(r.b.timePs) : "-",
            formatSignedDurationPs(r.timeDeltaPs())
                + (hasA && hasB ? " (" + relative(r.a.timePs, r.b.timePs) + ")" : ""),
            noiseText(r), hasA ? formatOptionalPercent(r.a.flopsUtilization) : "-",
            hasB ? formatOptionalPercent(r.b.flopsUtilization) : "-", r.explanation()});
    }
    return ops;
}

std::string prose(const ProfileDiff& diff)
{
    std::string text = "Steps: " + diff.steps.verdict() + "\n";
    text += diff.config.empty() ? "Configuration: the same generation, cores, hosts, programs and global batch.\n"
                                : "Configuration: differs (see the warnings above).\n";
    text += diff.perStep ? "Op times are per step and TPU core (each profile divided by its own steps and cores).\n"
                         : "Op times are per TPU core over each profile (step counts unknown).\n";
    return text;
}

} // namespace

std::string diffReport(const ProfileDiff& diff, TableFormat format, size_t top, const std::string& beforeFile,
    const std::string& afterFile)
{
    const size_t n = top ? std::min(top, diff.rows.size()) : diff.rows.size();
    if (format == TableFormat::Json)
        return diffJson(diff, n, beforeFile, afterFile);
    const Table ops = opsTable(diff, n);
    if (format == TableFormat::Csv || format == TableFormat::Tsv)
        return renderTable(ops, format);
    std::string warningText;
    for (const std::string& warning : diff.warnings())
        warningText += (format == TableFormat::Markdown ? "> **Warning:** " : "Warning: ") + warning + "\n";
    const Table summary = summaryTable(diff, beforeFile, afterFile);
    if (format == TableFormat::Markdown) {
        std::string proseText = prose(diff);
        std::string md;
        for (size_t start = 0, end; start < proseText.size(); start = end + 1) {
            end = proseText.find('\n', start);
            md += markdownCell(proseText.substr(start, end - start)) + "\n\n";
        }
        return "## tpuscope diff\n\n" + (warningText.empty() ? "" : warningText + "\n") + renderTable(summary, format)
            + "\n" + md + renderTable(ops, format);
    }
    return (warningText.empty() ? "" : warningText + "\n") + renderTable(summary, format) + "\n" + prose(diff) + "\n"
        + renderTable(ops, format);
}

} // namespace tpuscope::model
