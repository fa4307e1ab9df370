// SPDX-License-Identifier: GPL-3.0-or-later
#include "hostsreport.h"

#include "jsonwriter.h"

#include <cmath>
#include <cstdio>

namespace tpuscope::model {

namespace {

std::string wholePs(double v)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f", v);
    return buffer;
}

template <typename T> std::string optionalPs(const std::optional<T>& v)
{
    return v ? wholePs(static_cast<double>(*v)) : std::string();
}

std::string durationOrUnknown(const std::optional<double>& v)
{
    return v ? formatDurationPs(*v) : std::string(kUnknownText);
}

/// A signed offset ("-312 µs"): the formatter prints magnitudes.
std::string signedOffset(const std::optional<TimePs>& v)
{
    if (!v)
        return kUnknownText;
    const double d = static_cast<double>(*v);
    return (d < 0 ? "-" : d > 0 ? "+" : "") + formatDurationPs(std::fabs(d));
}

} // namespace

std::string hostsReport(const HostAnalysis& h, TableFormat format)
{
    if (format == TableFormat::Json) {
        JsonWriter w;
        w.beginReport();
        w.key("hosts").beginArray();
        for (const HostRow& r : h.hosts) {
            w.beginObject();
            w.field("name", r.name)
                .field("chips", r.chips)
                .field("cores", r.cores)
                .field("steps", r.steps)
                .field("avg_step_ps", r.avgStepPs)
                .field("compute_ps", r.computePs)
                .field("collective_ps", r.collectivePs)
                .field("collective_wait_ps", r.collectiveWaitPs)
                .field("idle_ps", r.idlePs)
                .field("host_transfer_ps", r.hostTransferPs)
                .field("late_steps", r.lateSteps)
                .field("late_vs_others_ps", r.lateVsOthersPs)
                .field("clock_offset_ps", r.clockOffsetPs)
                .field("offset_source", r.offsetSource)
                .field("slowest_core", r.slowestCore)
                .field("slowest_core_compute_ps", r.slowestCoreComputePs);
            w.endObject();
        }
        w.endArray();
        w.field("steps", h.steps).field("avg_step_ps", h.avgStepPs);
        w.field("sync_collective", h.syncCollective);
        w.field("late_margin_share_of_step", kLateMarginShareOfStep);
        w.field("note", h.note);
        w.endObject();
        return w.str() + "\n";
    }
    Table t;
    if (format == TableFormat::Csv || format == TableFormat::Tsv) {
        t.header
            = {"name", "chips", "cores", "steps", "avg_step_ps", "compute_ps", "collective_ps", "collective_wait_ps",
                "idle_ps", "host_transfer_ps", "late_steps", "late_vs_others_ps", "clock_offset_ps", "offset_source"};
        for (const HostRow& r : h.hosts)
            t.rows.push_back({r.name, r.chips ? std::to_string(*r.chips) : std::string(), std::to_string(r.cores),
                std::to_string(r.steps), wholePs(r.avgStepPs), wholePs(r.computePs), wholePs(r.collectivePs),
                optionalPs(r.collectiveWaitPs), wholePs(r.idlePs), wholePs(r.hostTransferPs),
                r.lateSteps ? std::to_string(*r.lateSteps) : std::string(), optionalPs(r.lateVsOthersPs),
                optionalPs(r.clockOffsetPs), r.offsetSource});
        t.rightAligned.assign(t.header.size(), true);
        t.rightAligned[0] = false;
        return renderTable(t, format);
    }
    const bool md = format == TableFormat::Markdown;
    t.header = {"Host", "Chips", "Cores", "Steps", "Avg step", "Compute", "Collectives", "Coll. wait", "Idle",
        "Host transfer", "Late steps", "Late vs others", "Clock offset", "Offset from"};
    t.rightAligned = {false, true, true, true, true, true, true, true, true, true, true, true, true, false};
    for (const HostRow& r : h.hosts) {
        std::string lateVsOthers = kUnknownText;
        if (r.lateVsOthersPs)
            lateVsOthers = (*r.lateVsOthersPs < 0 ? "-" : "") + formatDurationPs(std::fabs(*r.lateVsOthersPs));
        t.rows.push_back({r.name, r.chips ? std::to_string(*r.chips) : std::string(kUnknownText),
            std::to_string(r.cores), std::to_string(r.steps), formatDurationPs(r.avgStepPs),
            formatDurationPs(r.computePs), formatDurationPs(r.collectivePs), durationOrUnknown(r.collectiveWaitPs),
            formatDurationPs(r.idlePs), formatDurationPs(r.hostTransferPs),
            r.lateSteps ? std::to_string(*r.lateSteps) : std::string(kUnknownText), lateVsOthers,
            signedOffset(r.clockOffsetPs), r.offsetSource});
    }
    std::string out = md ? "## Hosts\n\n" : "Hosts: ";
    out += std::to_string(h.hosts.size()) + " host" + (h.hosts.size() == 1 ? "" : "s") + ", " + std::to_string(h.steps)
        + " steps matched, average step " + formatDurationPs(h.avgStepPs)
        + ". Times are per step and per core, averaged over each host's cores";
    if (!h.syncCollective.empty())
        out += "; the step's synchronizing collective is " + (md ? markdownCell(h.syncCollective) : h.syncCollective);
    out += ".\n";
    out += (md ? "\n" : "")
        + std::string("Coll. wait: time in collectives beyond the shortest duration of the same instance over the "
                      "cores (waiting for the last one). Late steps: steps in which the host reaches the "
                      "synchronizing collective last and at least ")
        + formatPercent(kLateMarginShareOfStep, 0)
        + " of the step after the other hosts' median. Clock offset: the host's clock minus the first host's, "
          "subtracted before comparing arrivals.\n";
    if (!h.note.empty())
        out += (md ? "\n> Note: " + markdownCell(h.note) : "Note: " + h.note) + "\n";
    out += "\n" + renderTable(t, md ? TableFormat::Markdown : TableFormat::Text);
    return out;
}

} // namespace tpuscope::model
