// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepsreport.h"

#include "jsonwriter.h"
#include "report.h"

#include <algorithm>
#include <cmath>

namespace tpuscope::model {

std::string stepsReport(const StepAnalysis& s, TableFormat format)
{
    if (format == TableFormat::Json) {
        JsonWriter w;
        w.beginReport();
        w.field("source", stepSourceName(s.source)).field("source_line", s.sourceLine).field("program", s.program);
        w.field("core", s.core).field("cores", s.cores);
        w.field("steps_per_core", s.stepsPerCore)
            .field("avg_step_ps", s.avgStepPs)
            .field("min_step_ps", s.minStepPs)
            .field("max_step_ps", s.maxStepPs);
        w.field("span_ps", s.spanPs).field("busy_fraction", s.busyFraction);
        w.key("programs").beginArray();
        for (const ProgramRunStats& p : s.programs) {
            w.beginObject();
            w.field("name", p.name)
                .field("runs", p.runs)
                .field("runs_per_core", p.runsPerCore)
                .field("avg_ps", p.avgPs)
                .field("min_ps", p.minPs)
                .field("max_ps", p.maxPs)
                .field("stddev_ps", p.stddevPs)
                .field("time_fraction", p.timeFraction);
            w.endObject();
        }
        w.endArray();
        w.key("steps").beginArray();
        for (const StepRow& r : s.steps) {
            w.beginObject();
            w.field("index", r.index);
            if (r.stepNumber >= 0)
                w.field("step_num", r.stepNumber);
            w.field("program", s.program)
                .field("start_ps", r.startPs - s.originPs)
                .field("duration_ps", r.durationPs)
                .field("compute_ps", r.time.computePs)
                .field("collective_ps", r.time.collectivePs)
                .field("host_transfer_ps", r.time.hostTransferPs)
                .field("infeed_ps", r.time.infeedPs)
                .field("idle_ps", r.time.idlePs);
            w.endObject();
        }
        w.endArray();
        w.field("warmup_ps", s.warmupPs).field("tail_ps", s.tailPs);
        w.field("warmup_idle_ps", s.warmup.idlePs)
            .field("steady_idle_ps", s.steady.idlePs)
            .field("tail_idle_ps", s.tail.idlePs)
            .field("steady_idle_fraction", s.steadyIdleFraction());
        w.field("note", s.note);
        w.endObject();
        return w.str() + "\n";
    }

    Table steps;
    steps.header = {"Step", "Start", "Duration", "Compute", "Collectives", "Host transfer", "Infeed", "Idle"};
    steps.rightAligned = {true, true, true, true, true, true, true, true};
    for (const StepRow& r : s.steps) {
        auto part = [](double ps) { return formatDurationPs(ps); };
        steps.rows.push_back({r.stepNumber >= 0 ? std::to_string(r.stepNumber) : std::to_string(r.index),
            part(static_cast<double>(r.startPs)), part(r.durationPs), part(r.time.computePs), part(r.time.collectivePs),
            part(r.time.hostTransferPs), part(r.time.infeedPs), part(r.time.idlePs)});
    }
    if (format == TableFormat::Csv || format == TableFormat::Tsv) {
        steps.header = {"index", "step_num", "start_ps", "duration_ps", "compute_ps", "collective_ps",
            "host_transfer_ps", "infeed_ps", "idle_ps"};
        steps.rows.clear();
        for (const StepRow& r : s.steps) {
            auto ps = [](double v) {
                char buffer[32];
                std::snprintf(buffer, sizeof buffer, "%.0f", v);
                return std::string(buffer);
            };
            steps.rows.push_back({std::to_string(r.index), std::to_string(r.stepNumber),
                std::to_string(r.startPs - s.originPs), ps(r.durationPs), ps(r.time.computePs), ps(r.time.collectivePs),
                ps(r.time.hostTransferPs), ps(r.time.infeedPs), ps(r.time.idlePs)});
        }
        steps.rightAligned.assign(steps.header.size(), true);
        return renderTable(steps, format);
    }

    const bool md = format == TableFormat::Markdown;
    std::string out;
    std::string where = s.core >= 0 ? "core " + std::to_string(s.core)
                                    : "average of " + std::to_string(s.cores) + " TPU core" + (s.cores == 1 ? "" : "s");
    if (s.source == StepSource::None) {
        out += (md ? "## Steps\n\n" : "Steps: ") + s.note + "\n";
    } else {
        std::string source = s.source == StepSource::ProgramRuns ? "runs of " + s.program + " on the XLA Modules line"
            : s.source == StepSource::StepsLine                  ? "the device " + s.sourceLine + " line"
                                                                 : "host step markers '" + s.sourceLine + "'";
        out += (md ? "## Steps\n\n" : "Steps: ") + std::to_string(s.stepsPerCore) + " per core from " + source + " ("
            + where + "), average " + formatDurationPs(s.avgStepPs) + ", min " + formatDurationPs(s.minStepPs)
            + ", max " + formatDurationPs(s.maxStepPs) + "\n";
        const StepTimeSplit a = s.averageStep();
        const double total = std::max(1.0, a.totalPs());
        out += (md ? "\n" : "") + std::string("Average step: compute ") + formatPercent(a.computePs / total)
            + ", collectives " + formatPercent(a.collectivePs / total) + ", host transfer "
            + formatPercent(a.hostTransferPs / total) + ", infeed/outfeed " + formatPercent(a.infeedPs / total)
            + ", idle " + formatPercent(a.idlePs / total) + "\n";
        out += (md ? "\n" : "") + std::string("Idle: warm-up ") + formatDurationPs(s.warmup.idlePs) + " (of "
            + formatDurationPs(s.warmupPs) + " before the first step), steady state "
            + formatDurationPs(s.steady.idlePs) + " (" + formatPercent(s.steadyIdleFraction()) + " of the steps), tail "
            + formatDurationPs(s.tail.idlePs) + " (of " + formatDurationPs(s.tailPs) + " after the last step)\n";
        if (!s.note.empty())
            out += (md ? "\n> Note: " : "Note: ") + s.note + "\n";
    }
    if (!s.programs.empty()) {
        Table programs;
        programs.header = {"Program", "Runs/core", "Average", "Min", "Max", "Std dev", "Time %"};
        programs.rightAligned = {false, true, true, true, true, true, true};
        for (const ProgramRunStats& p : s.programs) {
            char runs[32];
            std::snprintf(runs, sizeof runs, "%g", p.runsPerCore);
            programs.rows.push_back({p.name, runs, formatDurationPs(p.avgPs), formatDurationPs(p.minPs),
                formatDurationPs(p.maxPs), formatDurationPs(p.stddevPs), formatPercent(p.timeFraction)});
        }
        out += "\n" + std::string(md ? "### Programs\n\n" : "Programs (XLA Modules line):\n")
            + renderTable(programs, md ? TableFormat::Markdown : TableFormat::Text);
    }
    if (!s.steps.empty()) {
        // Start times as offsets from the first step keep the column readable.
        const TimePs first = s.steps.front().startPs;
        for (size_t i = 0; i < s.steps.size(); ++i)
            steps.rows[i][1] = formatDurationPs(static_cast<double>(s.steps[i].startPs - first));
        steps.header[1] = "Start (from step 0)";
        out += "\n" + std::string(md ? "### Steps\n\n" : "Steps:\n")
            + renderTable(steps, md ? TableFormat::Markdown : TableFormat::Text);
    }
    return out;
}

} // namespace tpuscope::model
