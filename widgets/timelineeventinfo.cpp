// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelineeventinfo.h"

#include "detailsdocument.h"

#include "qt/qstrings.h"

#include "core/diagnostics.h"
#include "report/report.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

namespace tpuscope::widgets {

using model::kNone;
using model::TimePs;
using model::Track;
using model::TrackKind;

namespace {

using tpuscope::qt::qs;

QString trEventInfo(const char* text)
{
    return QCoreApplication::translate("TimelineEventInfo", text);
}

QString offset(const model::Profile& p, TimePs t)
{
    return QStringLiteral("+") + qs(model::formatDurationPs(double(t - p.spanBegin)));
}

/// A step's number: its name when the name is a number (xprof names step events by number).
std::optional<int64_t> stepNumber(const std::string& name)
{
    int64_t value = 0;
    const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), value);
    if (error != std::errc() || end != name.data() + name.size() || name.empty())
        return std::nullopt;
    return value;
}

/// The event of the plane's Steps line that contains time t (kNone when none does).
std::pair<const Track*, uint32_t> stepAt(const model::Profile& p, model::PlaneId plane, TimePs t)
{
    if (!TPUSCOPE_CHECK(plane < p.planes.size()))
        return {nullptr, kNone};
    for (model::TrackId id : p.planes[plane].tracks) {
        const Track& steps = p.tracks[id];
        if (steps.kind != TrackKind::Steps || steps.size() == 0)
            continue;
        auto it = std::upper_bound(steps.start.begin(), steps.start.end(), t);
        if (it == steps.start.begin())
            return {nullptr, kNone};
        const auto i = uint32_t(it - steps.start.begin() - 1);
        if (t < steps.end(i))
            return {&steps, i};
    }
    return {nullptr, kNone};
}

/// The XLA modules that start inside [begin, end) on the plane's XLA Modules line: what a step ran.
QString modulesDuring(const model::Profile& p, model::PlaneId plane, TimePs begin, TimePs end)
{
    QStringList names;
    int runs = 0;
    for (model::TrackId id : p.planes[plane].tracks) {
        const Track& modules = p.tracks[id];
        if (modules.kind != TrackKind::XlaModules)
            continue;
        auto it = std::lower_bound(modules.start.begin(), modules.start.end(), begin);
        for (auto i = size_t(it - modules.start.begin()); i < modules.size() && modules.start[i] < end; ++i) {
            ++runs;
            const model::OpInfo& op = p.ops[modules.op[i]];
            const QString name = op.program != kNone && op.program < p.programs.size() ? qs(p.programs[op.program].name)
                                                                                       : qs(p.str(op.name));
            if (!names.contains(name) && names.size() < 3)
                names << name;
        }
    }
    if (names.isEmpty())
        return {};
    return runs > 1 ? trEventInfo("%1 (%2 module runs)").arg(names.join(QStringLiteral(", "))).arg(runs)
                    : names.front();
}

} // namespace

QString timelineEventKind(const model::Profile& profile, model::TrackId track)
{
    if (!TPUSCOPE_CHECK(track < profile.tracks.size()))
        return trEventInfo("Event");
    switch (profile.tracks[track].kind) {
    case TrackKind::Steps:
        return trEventInfo("Step");
    case TrackKind::XlaModules:
        return trEventInfo("XLA module run");
    default:
        break;
    }
    const model::Plane& plane = profile.planes[profile.tracks[track].plane];
    return plane.kind == model::PlaneKind::Host ? trEventInfo("Host event") : trEventInfo("Event");
}

std::vector<std::pair<QString, QString>> timelineEventFacts(
    const model::Profile& p, model::TrackId trackId, uint32_t index)
{
    std::vector<std::pair<QString, QString>> facts;
    if (trackId >= p.tracks.size() || index >= p.tracks[trackId].size())
        return facts;
    const Track& track = p.tracks[trackId];
    const model::OpInfo& op = p.ops[track.op[index]];
    const std::string& name = p.str(op.name);
    facts.emplace_back(trEventInfo("Event"), timelineEventKind(p, trackId) + QStringLiteral(": ") + qs(name));
    facts.emplace_back(
        trEventInfo("Line"), qs(p.str(p.planes[track.plane].name)) + QStringLiteral(" / ") + qs(p.str(track.name)));
    facts.emplace_back(trEventInfo("Duration"), qs(model::formatDurationPs(double(track.duration[index]))));
    facts.emplace_back(trEventInfo("Start"), offset(p, track.start[index]) + trEventInfo(" from the profile start"));
    facts.emplace_back(trEventInfo("End"), offset(p, track.end(index)));

    // The step: the event itself on a Steps line, else the step of the same core it starts in.
    if (track.kind == TrackKind::Steps) {
        const auto number = stepNumber(name);
        facts.emplace_back(trEventInfo("Step number"),
            number ? QString::number(*number)
                   : trEventInfo("%1 of %2 on this line (the event is not named by a number)")
                         .arg(index + 1)
                         .arg(track.size()));
    } else if (const auto [steps, step] = stepAt(p, track.plane, track.start[index]); steps) {
        const std::string& stepName = p.str(p.ops[steps->op[step]].name);
        const auto number = stepNumber(stepName);
        facts.emplace_back(trEventInfo("Step number"), number ? QString::number(*number) : qs(stepName));
    }

    QString program;
    if (op.program != kNone && op.program < p.programs.size())
        program = qs(p.programs[op.program].name);
    if (op.hasProgramId)
        program
            += (program.isEmpty() ? QString() : QStringLiteral(" ")) + trEventInfo("(program id %1)").arg(op.programId);
    if (program.isEmpty() && track.kind == TrackKind::XlaModules)
        program = qs(name);
    if (program.isEmpty() && track.kind == TrackKind::Steps)
        program = modulesDuring(p, track.plane, track.start[index], track.end(index));
    if (!program.isEmpty())
        facts.emplace_back(trEventInfo("Program"), program);

    // How often this name runs on the line, so one run can be put next to the others.
    int64_t runs = 0;
    double total = 0;
    for (size_t i = 0; i < track.size(); ++i) {
        if (track.op[i] == track.op[index]) {
            ++runs;
            total += double(track.duration[i]);
        }
    }
    if (runs > 1)
        facts.emplace_back(trEventInfo("On this line"),
            trEventInfo("%1 events of this name, %2 on average")
                .arg(runs)
                .arg(qs(model::formatDurationPs(total / double(runs)))));
    return facts;
}

void addEventOccurrenceSection(
    DetailsDocument& doc, const QPalette& pal, const model::EventOccurrence& e, bool comparing)
{
    if (!e.found)
        return;
    doc.heading(trEventInfo("This occurrence"));
    doc.kv(trEventInfo("Start"),
        qs(model::formatEventTime(e.startPs, e.durationPs)) + trEventInfo(" from the profile start"));
    doc.kv(trEventInfo("End"), qs(model::formatEventTime(e.endPs, e.durationPs)));
    doc.kv(trEventInfo("Duration"), qs(model::formatDurationPs(double(e.durationPs))));
    QString core = qs(e.plane) + QStringLiteral(" / ") + qs(e.line);
    if (!e.host.empty())
        core += trEventInfo(" on host %1").arg(qs(e.host));
    doc.kv(trEventInfo("Core"), core);

    QString step;
    if (e.stepIndex) {
        const QString place = trEventInfo("step %1 of %2").arg(*e.stepIndex + 1).arg(e.stepCount);
        step = e.stepNumber >= 0 ? trEventInfo("%1 (%2)").arg(e.stepNumber).arg(place)
                                 : place + trEventInfo(", not numbered");
    } else if (e.coreOrdinal >= 0) {
        step = e.stepCount > 0 ? trEventInfo("none: before the first step or after the last")
                               : trEventInfo("none: this profile has no steps");
    }
    if (!step.isEmpty())
        doc.kv(trEventInfo("Step"), step);
    doc.kv(trEventInfo("Program"), e.program.empty() ? trEventInfo("unknown") : qs(e.program));
    if (!e.moduleRun.empty())
        doc.kv(trEventInfo("Module run"),
            trEventInfo("%1 at %2 for %3")
                .arg(qs(e.moduleRun), qs(model::formatEventTime(e.moduleRunStartPs, e.moduleRunDurationPs)),
                    qs(model::formatDurationPs(double(e.moduleRunDurationPs)))));

    if (e.occurrences > 0) {
        doc.kv(trEventInfo("Occurrence"),
            trEventInfo("%1 of %2 on this core (%3 on all cores)")
                .arg(e.occurrenceOnCore)
                .arg(e.occurrencesOnCore)
                .arg(e.occurrences));
        // The ends by name; between them the share rounded down, so 399 of 400 never reads "100%".
        const double duration = double(e.durationPs);
        QString rank = trEventInfo("longer than %1 of them")
                           .arg(qs(model::formatPercent(std::floor(e.shorterFraction * 100) / 100, 0)));
        if (e.occurrences == 1 || e.minPs >= e.maxPs)
            rank = e.occurrences == 1 ? trEventInfo("the only one") : trEventInfo("all as long");
        else if (duration >= e.maxPs)
            rank = trEventInfo("the longest");
        else if (duration <= e.minPs)
            rank = trEventInfo("the shortest");
        doc.kv(trEventInfo("Against the op's"),
            trEventInfo("min %1 · median %2 · max %3; %4")
                .arg(qs(model::formatDurationPs(e.minPs)), qs(model::formatDurationPs(e.medianPs)),
                    qs(model::formatDurationPs(e.maxPs)), rank));
    } else if (comparing) {
        doc.kv(trEventInfo("Occurrence"), trEventInfo("counting the op's occurrences…"));
    }

    QString note
        = trEventInfo("The profile keeps no arguments per event: the op's recorded ones (HLO, provenance) are below.");
    if (e.xlaOp) {
        auto rate = [&](const std::optional<double>& u, const std::optional<double>& attained, double scale,
                        const char* unit, QColor (*color)(double, const QPalette&)) {
            const QString util = qs(model::formatUtilization(u));
            const QString rest
                = attained ? QStringLiteral(" (%1)").arg(qs(model::formatCount(*attained * scale, unit))) : QString();
            return std::make_pair(util + rest, u ? chip(util, color(std::min(1.0, *u), pal)) + esc(rest) : QString());
        };
        const auto [fu, fuHtml] = rate(e.flopsUtilization, e.attainedTflops, 1e12, "FLOP/s", flopsUtilColor);
        doc.kv(trEventInfo("FLOPS utilization, this occurrence"), fu, fuHtml);
        const auto [hu, huHtml] = rate(e.hbmUtilization, e.attainedHbmGbps, 1e9, "B/s", hbmUtilColor);
        doc.kv(trEventInfo("HBM bandwidth, this occurrence"), hu, huHtml);
        note
            = (e.flopsUtilization || e.hbmUtilization
                      ? trEventInfo("Its rates: the op's cost per occurrence (%1, %2 of HBM traffic) over this event's "
                                    "duration. ")
                            .arg(qs(model::formatCount(e.flops, "FLOP")), qs(model::formatBytes(e.hbmBytes)))
                      : trEventInfo(
                          "Its rates are unknown where the op's are (no cost data, no device peak, or an op not "
                          "rated on the roofline). "))
            + note;
    }
    doc.para(note);
}

} // namespace tpuscope::widgets
