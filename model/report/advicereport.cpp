// SPDX-License-Identifier: GPL-3.0-or-later
#include "advicereport.h"

#include "../analysis/advicerules.h"
#include "../analysis/attribution.h"
#include "../analysis/summary.h"
#include "../core/neutraltext.h"
#include "jsonwriter.h"
#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tpuscope::model {

using advice_detail::format;

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

void writeAdviceFix(JsonWriter& w, const AdviceFix& fix, const std::function<std::string(std::string_view)>& text)
{
    w.beginObject();
    w.field("action", text ? text(fix.action) : fix.action);
    if (fix.perCoreBatch > 0)
        w.field("per_core_batch", fix.perCoreBatch);
    if (fix.globalBatch > 0)
        w.field("global_batch", fix.globalBatch);
    if (!fix.devices.empty()) {
        w.key("devices").beginArray();
        for (const std::string& key : fix.devices)
            w.value(key);
        w.endArray();
    }
    w.endObject();
}

void writeAdviceGain(JsonWriter& w, const AdviceReport& report, const Advice& a)
{
    // One unit per key: time per step, or without steps a share of op time and a time over the
    // capture; a throughput gain (numbers.throughput_factor) has neither.
    if (a.gainPs <= 0)
        return;
    if (report.gainsPerStep())
        w.field("gain_ps_per_step", a.gainPs);
    else
        w.field("gain_ps_over_capture", a.gainPs).field("gain_op_time_fraction", a.gainOpTimeFraction);
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

} // namespace

std::string adviceCoresText(const Profile& profile, const AdviceReport& report)
{
    // The cores the per-core numbers divide by, said as every other report says them.
    return coresCountText(profile.device, report.cores > 0 ? report.cores : profile.device.cores);
}

namespace {

void writeEvidence(JsonWriter& w, const Advice& a)
{
    w.key("evidence").beginArray();
    for (const AdviceEvidence& e : a.evidence) {
        w.beginObject();
        w.field("op", e.name).field("framework_op", e.frameworkOp).field("source", e.source);
        w.field("time_fraction", e.timeFraction);
        if (e.groupOps > 1) // an op repeated per layer: its group and the group's total
            w.field("group", e.group).field("group_ops", e.groupOps).field("group_time_fraction", e.groupTimeFraction);
        w.endObject();
    }
    w.endArray();
}

/// "fusion.3 (unet/conv2d_18/Conv2D, unet.py:87), all-reduce.12 [one of all-reduce.*: 128 ops, 5.10%]".
std::string evidenceText(const Advice& a, bool md)
{
    std::string ops;
    for (size_t i = 0; i < a.opNames.size(); ++i) {
        ops += (i ? ", " : "") + (md ? neutralMarkdownCode(a.opNames[i]) : a.opNames[i]);
        if (i >= a.evidence.size())
            continue;
        const AdviceEvidence& e = a.evidence[i];
        if (const std::string whose = attributionText({e.frameworkOp, e.source}); !whose.empty())
            ops += md ? " (" + neutralMarkdownCode(whose) + ")" : " (" + whose + ")";
        if (e.groupOps > 1)
            ops += format(" [one of %s: %lld ops, %s]", (md ? neutralMarkdownCode(e.group) : e.group).c_str(),
                static_cast<long long>(e.groupOps), advice_detail::pct(e.groupTimeFraction).c_str());
    }
    return ops;
}

std::string headerLine(const Profile& profile, const AdviceReport& report)
{
    if (!profile.hasTpuOps())
        return noTpuOpDataStatement(profile); // "unknown TPU, 0 TPU cores" would invent a TPU
    std::string device = profile.device.type.empty() ? "unknown TPU" : profile.device.type;
    std::string out = device + ", " + adviceCoresText(profile, report);
    if (report.steps > 0)
        out += format(", %lld step%s (average %s)", static_cast<long long>(report.steps), report.steps == 1 ? "" : "s",
            formatDurationPs(report.stepPs).c_str());
    return out;
}

std::string batchLine(const Profile& profile, const BatchInference& b)
{
    if (!b.known)
        return "Per-core batch: not inferred: " + b.reason + ".";
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
        w.beginReport();
        w.field("device", profile.device.type).field("cores", report.cores > 0 ? report.cores : profile.device.cores);
        w.field("cores_source", coreCountSourceName(profile.device.coresSource)).field("steps", report.steps);
        if (report.gainsPerStep())
            w.field("combined_gain_ps_per_step", report.combinedGainPs);
        else
            w.field("combined_gain_ps_over_capture", report.combinedGainPs)
                .field("combined_gain_op_time_fraction", report.combinedGainOpTimeFraction);
        w.field("combined_gain", report.combinedGain);
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
            writeEvidence(w, a);
            w.key("numbers");
            writeAdviceValue(w, a.numbers);
            w.field("threshold", a.threshold).field("gain", a.gain);
            writeAdviceGain(w, report, a);
            w.key("fix");
            writeAdviceFix(w, a.fix);
            w.key("overlaps_with").beginArray();
            for (const std::string& rule : a.overlapsWith)
                w.value(rule);
            w.endArray();
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
        // The device type and op names come from the file: Markdown-neutral, as the titles below.
        out += "## tpuscope advice\n\n" + neutralForMarkdown(headerLine(profile, report)) + "\n\n"
            + neutralForMarkdown(batchLine(profile, report.batch)) + "\n\n";
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
        const std::string ops = evidenceText(a, md);
        if (md) {
            // Titles and texts name ops, layers and devices from the file: Markdown-neutral.
            out += format("### %d. [%s] %s\n\n", n, severityName(a.severity), neutralForMarkdown(a.title).c_str());
            out += "Rule " + neutralMarkdownCode(a.rule) + ". " + neutralForMarkdown(a.detail) + "\n\n";
            if (!ops.empty())
                out += "- **Evidence:** " + ops + "\n";
            out += "- **Numbers:** " + neutralForMarkdown(numbers) + "\n";
            out += "- **Threshold:** " + neutralForMarkdown(a.threshold) + "\n";
            out += "- **Estimated gain:** " + neutralForMarkdown(a.gain) + "\n\n";
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
    if (!report.combinedGain.empty() && report.advice.size() > 1)
        out += (md ? "**All together:** " + neutralForMarkdown(report.combinedGain)
                   : "All together: " + report.combinedGain)
            + ".\n\n";
    for (const std::string& note : report.notes)
        out += (md ? "> Note: " + neutralForMarkdown(note) : "Note: " + note) + "\n";
    return toValidUtf8(out); // file paths and op names come from the file
}

} // namespace tpuscope::model
