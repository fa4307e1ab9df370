// SPDX-License-Identifier: GPL-3.0-or-later
#include "report.h"

#include "../core/neutraltext.h"

#include "jsonwriter.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>

namespace tpuscope::model {

bool parseTableFormat(std::string_view name, TableFormat& out)
{
    if (name == "table" || name == "text")
        out = TableFormat::Text;
    else if (name == "csv")
        out = TableFormat::Csv;
    else if (name == "tsv")
        out = TableFormat::Tsv;
    else if (name == "json")
        out = TableFormat::Json;
    else if (name == "md" || name == "markdown")
        out = TableFormat::Markdown;
    else
        return false;
    return true;
}

namespace {
std::string printf1(const char* fmt, double v)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, fmt, v);
    return buffer;
}
} // namespace

std::string boundByText(BoundBy bound)
{
    switch (bound) {
    case BoundBy::Compute:
        return "compute";
    case BoundBy::Hbm:
        return "HBM";
    case BoundBy::Host:
        return "host link";
    case BoundBy::Ici:
        return "ICI";
    case BoundBy::Unknown:
        break;
    }
    return kUnknownText;
}

std::string coresCountText(const DeviceInfo& device, int cores)
{
    std::string text = std::to_string(cores) + (cores == 1 ? " TPU core" : " TPU cores");
    if (device.coresSource == CoreCountSource::ReplicaGroups)
        text += " (not recorded; at least " + std::to_string(device.coresAtLeast) + " from the replica groups)";
    else if (device.coresSource == CoreCountSource::UserChoice)
        text += " (not recorded; as given)";
    else if (device.coresSource == CoreCountSource::None && cores > 0)
        text += " (not recorded; assumed)";
    return text;
}

std::string coresText(const DeviceInfo& device, const OpBreakdown& breakdown)
{
    if (breakdown.core >= 0)
        return "core " + std::to_string(breakdown.core);
    return coresCountText(device, breakdown.coresRepresented > 0 ? breakdown.coresRepresented : device.cores);
}

std::string transferRateText(const OpRow& row)
{
    auto gbps = [](double v) { return printf1("%.3g GB/s", v); };
    if (row.hostLinkToDeviceGbps || row.hostLinkToHostGbps) {
        std::string text;
        if (row.hostLinkToDeviceGbps)
            text = gbps(*row.hostLinkToDeviceGbps) + " to device";
        if (row.hostLinkToHostGbps)
            text += (text.empty() ? "" : ", ") + gbps(*row.hostLinkToHostGbps) + " to host";
        return text + " (link)";
    }
    if (row.iciGbps)
        return gbps(*row.iciGbps) + " ICI"
            + (row.iciUtilization ? " (" + formatPercent(*row.iciUtilization) + ")" : "");
    if (row.pairGbps)
        return gbps(*row.pairGbps) + " pair";
    return kUnknownText;
}

std::string flopsUtilizationText(const OpRow& row)
{
    return row.ratedAgainst == RatedAgainst::Roofline ? formatUtilization(row.flopsUtilizationUncapped)
                                                      : formatOptionalPercent(row.flopsUtilization);
}

std::string hbmUtilizationText(const OpRow& row)
{
    return row.ratedAgainst == RatedAgainst::Roofline ? formatUtilization(row.hbmUtilizationUncapped)
                                                      : formatOptionalPercent(row.hbmUtilization);
}

std::string rooflineEfficiencyText(const OpRow& row)
{
    if (row.rooflineEfficiency || row.efficiencyNote.empty())
        return formatOptionalPercent(row.rooflineEfficiency);
    return std::string(kUnknownText) + ", " + row.efficiencyNote;
}

std::optional<double> transferRateGbps(const OpRow& row)
{
    if (row.hostLinkToDeviceGbps)
        return row.hostLinkToDeviceGbps;
    if (row.hostLinkToHostGbps)
        return row.hostLinkToHostGbps;
    if (row.iciGbps)
        return row.iciGbps;
    return row.pairGbps;
}

std::string utilizationCaveat(const OpRow& row, const DeviceInfo& device)
{
    if (row.costCoverage <= 0)
        return "No cost data: the profile records neither FLOPs nor bytes for this op (custom kernels often "
               "record none), so its utilization is unknown, not zero.";
    if (row.ratedAgainst == RatedAgainst::HostLink)
        return "Host transfer (S(5)): rated against the host link, not HBM: " + transferRateText(row)
            + (row.hostGbps ? "; this op's own start→done rate is " + printf1("%.3g", *row.hostGbps)
                        + " GB/s (it includes queueing behind other transfers)"
                            : std::string())
            + "; no host-link peak is recorded, so its efficiency is unknown.";
    if (row.ratedAgainst == RatedAgainst::Ici)
        return "Collective: rated against the inter-chip interconnect, not HBM: " + transferRateText(row)
            + "; the HBM column is xprof's figure over the op's own time.";
    if (row.ratedAgainst == RatedAgainst::OnChip)
        return "Copy into on-chip memory (VMEM): not rated against HBM; xprof's bound is Unknown.";
    if (device.peakTflopsPerCore <= 0 || device.peakHbmGbpsPerCore <= 0)
        return "The TPU generation is unknown, so there is no peak to compare with: choose a device "
               "(--device, or the device chooser in the GUI).";
    if (row.capped)
        return "Over peak: the uncapped value is above 100%, so the op's cost estimate"
            + std::string(row.customKernelCost ? " (a custom kernel's own estimate)" : "")
            + " or the chosen device is wrong; xprof shows 100%"
            + (row.efficiencyNote.empty() ? "." : "; its roofline efficiency is unknown (" + row.efficiencyNote + ").");
    if (row.costCoverage < 1)
        return "Rated over the " + formatPercent(row.costCoverage) + " of its time whose ops have cost data.";
    if (row.costSource == CostSource::Shapes)
        return "Estimated: the kernel records no cost, so its FLOPs (2·M·N·K) and bytes come from the operand and "
               "result shapes in its HLO text.";
    return {};
}

std::string lowUtilizationOpsText(std::optional<int> count)
{
    if (!count)
        return kUnknownText;
    return std::to_string(*count) + (*count == 1 ? " low-utilization op" : " low-utilization ops");
}

std::string lowUtilizationRuleText(double threshold)
{
    return "each below " + formatPercent(threshold, 0)
        + " of its roofline bound with >= " + formatPercent(kLowUtilizationMinShare, 0) + " of op time";
}

std::string headlineUtilizationText(const HeadlineUtilization& h)
{
    if (!h.capped)
        return kUnknownText;
    // xprof's program figure: all counted work over all op time. What it cannot speak for is said
    // beside it: the time without cost data, and the share of the work over-peak ops claim.
    std::string text = formatPercent(*h.capped);
    if (*h.uncapped > 1)
        text += " (" + formatPercent(*h.uncapped, 0) + " uncapped)";
    std::vector<std::string> notes;
    if (h.fromFile)
        notes.push_back("the file's own figure");
    if (h.coveredFraction < 0.995)
        notes.push_back("work of the " + formatPercent(h.coveredFraction) + " of op time with cost data");
    if (h.overPeakOps > 0)
        notes.push_back(printf1("%.0f", h.overPeakPoints * 100) + "% of it from " + std::to_string(h.overPeakOps)
            + " over-peak op" + (h.overPeakOps == 1 ? "" : "s"));
    for (size_t i = 0; i < notes.size(); ++i)
        text += (i == 0 ? " (" : "; ") + notes[i] + (i + 1 == notes.size() ? ")" : "");
    return text;
}

std::string markdownCell(std::string_view text)
{
    return neutralForMarkdown(text);
}

namespace {

size_t displayWidth(std::string_view s)
{
    size_t width = 0;
    for (unsigned char c : s)
        width += (c & 0xC0) != 0x80; // count UTF-8 code points
    return width;
}

std::atomic<size_t> g_textCellWidth {0};

std::string renderTextTable(const Table& table);

/// Byte offset of code point `n` (or the end).
size_t codePointOffset(std::string_view s, size_t n)
{
    size_t seen = 0;
    for (size_t i = 0; i < s.size(); ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && seen++ == n)
            return i;
    return s.size();
}

} // namespace

void setTextCellWidth(size_t width)
{
    g_textCellWidth = width;
}

size_t textCellWidth()
{
    return g_textCellWidth;
}

std::string elideMiddle(std::string_view text, size_t width)
{
    const size_t length = displayWidth(text);
    if (width == 0 || length <= width)
        return std::string(text);
    if (width == 1)
        return "…";
    // Keep a little more of the end than of the start: the suffix tells similar names apart.
    const size_t tail = width / 2;
    const size_t head = width - 1 - tail;
    std::string out(text.substr(0, codePointOffset(text, head)));
    out += "…";
    out += text.substr(codePointOffset(text, length - tail));
    return out;
}

std::string renderTable(const Table& input, TableFormat format)
{
    // Cells may carry file bytes (paths, names from older builders): every format is UTF-8.
    Table repaired;
    const bool valid = std::all_of(input.rows.begin(), input.rows.end(), [](const auto& row) {
        return std::all_of(row.begin(), row.end(), [](const std::string& cell) { return isValidUtf8(cell); });
    });
    if (!valid) {
        repaired = input;
        for (auto& row : repaired.rows)
            for (auto& cell : row)
                cell = toValidUtf8(cell);
    }
    const Table& table = valid ? input : repaired;
    std::string out;
    const size_t columns = table.header.size();
    auto right = [&](size_t c) { return c < table.rightAligned.size() && table.rightAligned[c]; };
    if (format == TableFormat::Csv || format == TableFormat::Tsv) {
        const char sep = format == TableFormat::Csv ? ',' : '\t';
        auto line = [&](const std::vector<std::string>& cells) {
            for (size_t c = 0; c < cells.size(); ++c) {
                if (c)
                    out += sep;
                out += neutralCsvCell(cells[c], sep);
            }
            out += '\n';
        };
        line(table.header);
        for (const auto& row : table.rows)
            line(row);
        return out;
    }
    if (format == TableFormat::Markdown) {
        auto line = [&](const std::vector<std::string>& cells) {
            out += '|';
            for (const auto& cell : cells)
                out += ' ' + markdownCell(cell) + " |";
            out += '\n';
        };
        // The header is ours ("#", "Time %"): written as is; the cells may hold a file's strings.
        out += '|';
        for (const auto& cell : table.header)
            out += ' ' + cell + " |";
        out += '\n';
        out += '|';
        for (size_t c = 0; c < columns; ++c)
            out += right(c) ? " ---: |" : " --- |";
        out += '\n';
        for (const auto& row : table.rows)
            line(row);
        return out;
    }
    const size_t cellWidth = table.elideWideCells ? textCellWidth() : 0;
    Table elided;
    const bool needsEliding = cellWidth > 0 && std::any_of(table.rows.begin(), table.rows.end(), [&](const auto& row) {
        for (size_t c = 0; c < row.size(); ++c)
            if (!right(c) && displayWidth(row[c]) > cellWidth)
                return true;
        return false;
    });
    if (needsEliding) {
        elided = table;
        for (auto& row : elided.rows)
            for (size_t c = 0; c < row.size(); ++c)
                if (!right(c))
                    row[c] = elideMiddle(row[c], cellWidth);
    }
    return renderTextTable(needsEliding ? elided : table);
}

namespace {

std::string renderTextTable(const Table& table)
{
    std::string out;
    const size_t columns = table.header.size();
    auto right = [&](size_t c) { return c < table.rightAligned.size() && table.rightAligned[c]; };
    std::vector<size_t> widths(columns, 0);
    for (size_t c = 0; c < columns; ++c)
        widths[c] = displayWidth(table.header[c]);
    for (const auto& row : table.rows)
        for (size_t c = 0; c < columns && c < row.size(); ++c)
            widths[c] = std::max(widths[c], displayWidth(row[c]));
    auto line = [&](const std::vector<std::string>& cells) {
        std::string text;
        for (size_t c = 0; c < columns; ++c) {
            const std::string cell = c < cells.size() ? cells[c] : std::string();
            const std::string pad(widths[c] - displayWidth(cell), ' ');
            if (c)
                text += "  ";
            text += right(c) ? pad + cell : cell + (c + 1 < columns ? pad : std::string());
        }
        while (!text.empty() && text.back() == ' ')
            text.pop_back();
        out += text + '\n';
    };
    line(table.header);
    std::vector<std::string> rule;
    for (size_t c = 0; c < columns; ++c)
        rule.emplace_back(widths[c], '-');
    line(rule);
    for (const auto& row : table.rows)
        line(row);
    return out;
}

} // namespace

namespace {

const char* groupByName(GroupBy g)
{
    switch (g) {
    case GroupBy::Op:
        return "op";
    case GroupBy::Category:
        return "category";
    case GroupBy::Program:
        return "program";
    case GroupBy::FrameworkOp:
        return "framework-op";
    case GroupBy::Source:
        return "source";
    case GroupBy::LayerGroup:
        return "group";
    }
    return "op";
}

void writeDevice(JsonWriter& json, const Profile& profile)
{
    const DeviceInfo& d = profile.device;
    json.key("device").beginObject();
    json.field("type", d.type);
    json.field("generation", d.generation);
    json.field("cores", d.cores);
    json.field("cores_source", coreCountSourceName(d.coresSource));
    json.field("cores_at_least", d.coresAtLeast);
    if (!d.coresNote.empty())
        json.field("cores_note", d.coresNote);
    else
        json.key("cores_note").null();
    json.field("hosts", d.hosts);
    json.field("peak_tflops_per_core", d.peakTflopsPerCore);
    json.field("peak_hbm_gbps_per_core", d.peakHbmGbpsPerCore);
    json.field("ici_gbps_per_core", d.iciGbpsPerCore > 0 ? std::optional<double>(d.iciGbpsPerCore) : std::nullopt);
    json.field("peak_source", peakSourceName(d.peakSource));
    json.field("peak_note", d.peakNote);
    json.endObject();
}

void writeHeadlineOne(JsonWriter& json, const char* name, const HeadlineUtilization& h)
{
    json.field(name, h.capped);
    json.field(std::string(name) + "_uncapped", h.uncapped);
    json.field(
        std::string(name) + "_over_peak_share", h.capped ? std::optional<double>(h.overPeakPoints) : std::nullopt);
    json.field(std::string(name) + "_over_peak_ops", h.overPeakOps);
    json.field(std::string(name) + "_covered_fraction", h.coveredFraction);
    json.field(std::string(name) + "_from_file", h.fromFile);
}

void writeHeadline(JsonWriter& json, const HeadlineUtilization& flops, const HeadlineUtilization& hbm, double coverage)
{
    writeHeadlineOne(json, "flops_utilization", flops);
    writeHeadlineOne(json, "hbm_utilization", hbm);
    json.field("cost_coverage", coverage);
}

void writeHeadline(JsonWriter& json, const OpBreakdown& b)
{
    writeHeadline(json, b.flops, b.hbm, b.costCoverage);
}

std::string peakText(const DeviceInfo& d)
{
    if (d.peakTflopsPerCore <= 0 && d.peakHbmGbpsPerCore <= 0)
        return "peak unknown (no TPU generation: utilizations are –; choose one with --device)";
    return "peak " + printf1("%.4g", d.peakTflopsPerCore) + " TFLOP/s and " + printf1("%.4g", d.peakHbmGbpsPerCore)
        + " GB/s per core (" + peakSourceName(d.peakSource) + ")";
}

} // namespace

void writeRates(JsonWriter& json, const OpRow& r)
{
    json.field("op_class", opClassName(r.opClass));
    json.field("rated_against", ratedAgainstName(r.ratedAgainst));
    json.field("cost_coverage", r.costCoverage);
    json.field("custom_kernel_cost", r.customKernelCost);
    json.field("cost_source", costSourceName(r.costSource));
    if (!r.asyncPartner.empty())
        json.field("async_partner", r.asyncPartner);
    else
        json.key("async_partner").null();
    json.field("rate_time_ps", r.rateTimePs);
    json.field("counted_flops", r.countedFlops);
    json.field("counted_hbm_bytes", r.countedHbmBytes);
    // xprof's columns: own time, capped as xprof caps them.
    json.field("flops_utilization", r.flopsUtilization);
    json.field("hbm_utilization", r.hbmUtilization);
    if (const char* bound = boundByName(r.boundBy))
        json.field("bound_by", bound);
    else
        json.key("bound_by").null();
    // Ours.
    json.field("flops_utilization_uncapped", r.flopsUtilizationUncapped);
    json.field("hbm_utilization_uncapped", r.hbmUtilizationUncapped);
    json.field("capped", r.capped);
    json.field("host_bytes", r.hostBytes);
    json.field("host_gbps", r.hostGbps);
    json.field(
        "host_gbps_basis", r.hostGbps ? std::optional<std::string>("start to done, includes queueing") : std::nullopt);
    json.field("host_link_to_device_gbps", r.hostLinkToDeviceGbps);
    json.field("host_link_to_host_gbps", r.hostLinkToHostGbps);
    json.field("pair_gbps", r.pairGbps);
    json.field("pair_hbm_utilization", r.pairHbmUtilization);
    json.field("ici_gbps", r.iciGbps);
    json.field("ici_utilization", r.iciUtilization);
    json.field("roofline_efficiency", r.rooflineEfficiency);
    if (!r.efficiencyNote.empty())
        json.field("efficiency_note", r.efficiencyNote);
    json.field("low_utilization", r.lowUtilization);
    json.field("wasted_fraction", r.wastedFraction);
    json.field("arithmetic_intensity", r.arithmeticIntensity);
    json.field("arithmetic_intensity_unit", kIntensityUnit);
}

std::string opsReport(const Profile& profile, const OpBreakdown& breakdown, TableFormat format, size_t top)
{
    const size_t count = top ? std::min(top, breakdown.rows.size()) : breakdown.rows.size();
    if (format == TableFormat::Json) {
        JsonWriter json;
        json.beginReport();
        json.field("file", profile.load.path);
        writeDevice(json, profile);
        json.field("group_by", groupByName(breakdown.groupBy));
        if (breakdown.core >= 0)
            json.field("core", breakdown.core);
        else
            json.key("core").null();
        json.field("cores_counted", breakdown.coresCounted);
        json.field("total_time_ps", breakdown.totalTimePs);
        writeHeadline(json, breakdown);
        json.field("low_utilization_ops", countLowUtilizationOps(breakdown));
        json.key("rows").beginArray();
        for (size_t i = 0; i < count; ++i) {
            const OpRow& r = breakdown.rows[i];
            json.beginObject();
            json.field("name", r.name);
            if (breakdown.groupBy != GroupBy::Op)
                json.field("ops", r.memberOps);
            json.field("program", r.program);
            json.field("category", r.category);
            json.field("framework_op", r.frameworkOp);
            json.field("source", r.source);
            json.field("occurrences", r.occurrences);
            json.field("total_time_ps", r.totalTimePs);
            json.field("self_time_ps", r.selfTimePs);
            json.field("avg_time_ps", r.occurrences ? r.totalTimePs / r.occurrences : 0.0);
            json.field("time_fraction", r.timeFraction);
            json.field("flops", r.flops);
            json.field("model_flops", r.modelFlops);
            json.field("bytes_accessed", r.bytesAccessed);
            json.field("hbm_bytes", r.hbmBytes);
            json.field("hbm_bytes_source", r.hbmFromBreakdown ? "memory_access_breakdown" : "bytes_accessed");
            writeRates(json, r);
            json.endObject();
        }
        json.endArray();
        json.endObject();
        return json.str() + '\n';
    }

    Table table;
    const bool byOp = breakdown.groupBy == GroupBy::Op;
    const char* nameHeader = "Op";
    switch (breakdown.groupBy) {
    case GroupBy::Op:
        break;
    case GroupBy::Category:
        nameHeader = "Category";
        break;
    case GroupBy::Program:
        nameHeader = "Program";
        break;
    case GroupBy::FrameworkOp:
        nameHeader = "Framework op";
        break;
    case GroupBy::Source:
        nameHeader = "Source";
        break;
    case GroupBy::LayerGroup:
        nameHeader = "Layer group";
        break;
    }
    table.header = {"#", nameHeader};
    if (byOp)
        table.header.insert(table.header.end(), {"Category", "Program"});
    table.header.insert(table.header.end(),
        {"Time %", "Total time", "Self time", "Occurrences", "Avg time", "FLOPS util", "HBM util", "Bound by",
            "Roofline eff", "Wasted %", "Transfer rate", "FLOPs", "Bytes"});
    table.rightAligned.assign(table.header.size(), true);
    table.rightAligned[1] = false;
    if (byOp)
        table.rightAligned[2] = table.rightAligned[3] = false;
    const bool machine = format == TableFormat::Csv || format == TableFormat::Tsv;
    for (size_t i = 0; i < count; ++i) {
        const OpRow& r = breakdown.rows[i];
        std::vector<std::string> cells {std::to_string(i + 1),
            breakdown.groupBy == GroupBy::LayerGroup && r.memberOps > 1
                ? r.name + " (" + std::to_string(r.memberOps) + " ops)"
                : r.name};
        if (byOp)
            cells.insert(cells.end(), {r.category, r.program});
        const double avg = r.occurrences ? r.totalTimePs / r.occurrences : 0;
        if (machine) {
            // Spreadsheet-friendly: plain numbers, ps and fractions.
            auto num = [](double v) {
                char b[40];
                // Integral totals (ps, FLOPs, bytes) are printed exactly; fractions with 10 digits.
                if (v == std::floor(v) && std::fabs(v) < 9e18)
                    std::snprintf(b, sizeof b, "%.0f", v);
                else
                    std::snprintf(b, sizeof b, "%.10g", v);
                return std::string(b);
            };
            // Unknown values are empty cells: a spreadsheet must not average in a made-up zero.
            auto opt = [&](const std::optional<double>& v) { return v ? num(*v) : std::string(); };
            const char* bound = boundByName(r.boundBy);
            const std::string rate = transferRateText(r);
            cells.insert(cells.end(),
                {num(r.timeFraction), num(r.totalTimePs), num(r.selfTimePs), std::to_string(r.occurrences), num(avg),
                    opt(r.flopsUtilization), opt(r.hbmUtilization), bound ? bound : "", opt(r.rooflineEfficiency),
                    opt(r.wastedFraction), rate == kUnknownText ? std::string() : rate, num(r.flops),
                    num(r.bytesAccessed)});
        } else {
            cells.insert(cells.end(),
                {formatPercent(r.timeFraction), formatDurationPs(r.totalTimePs), formatDurationPs(r.selfTimePs),
                    std::to_string(r.occurrences), formatDurationPs(avg), flopsUtilizationText(r),
                    hbmUtilizationText(r), boundByText(r.boundBy), rooflineEfficiencyText(r),
                    formatOptionalPercent(r.wastedFraction), transferRateText(r), formatCount(r.flops),
                    formatBytes(r.bytesAccessed)});
        }
        table.rows.push_back(std::move(cells));
    }
    if (machine) {
        for (size_t c = 0; c < table.header.size(); ++c) {
            std::string& h = table.header[c];
            if (h == "Time %" || h == "FLOPS util" || h == "HBM util" || h == "Roofline eff" || h == "Wasted %")
                h += " (fraction)";
            else if (h == "Total time" || h == "Self time" || h == "Avg time")
                h += " (ps)";
        }
    }
    std::string out;
    const DeviceInfo& d = profile.device;
    const std::string scope = coresText(d, breakdown);
    // The count of the whole breakdown (not only the rows shown), as the GUI's overview shows it.
    const std::optional<int> lowCount = countLowUtilizationOps(breakdown);
    auto lowOps = [&](const char* separator) {
        return lowCount ? separator + lowUtilizationOpsText(lowCount) + " (" + lowUtilizationRuleText() + ")"
                        : std::string();
    };
    if (format == TableFormat::Markdown) {
        // The device type and the warnings come from the file: escaped like every Markdown cell.
        out += "**" + (d.type.empty() ? std::string("TPU") : neutralForMarkdown(d.type)) + "**, " + scope
            + ", total op time " + formatDurationPs(breakdown.totalTimePs) + ", FLOPS utilization "
            + headlineUtilizationText(breakdown.flops) + ", HBM utilization " + headlineUtilizationText(breakdown.hbm)
            + ", " + costCoverageText(breakdown.costCoverage) + lowOps(", ") + "\n\n";
        for (const std::string& w : breakdownWarnings(profile, breakdown))
            out += "> " + neutralForMarkdown(w) + "\n\n";
    } else if (format == TableFormat::Text) {
        out += (d.type.empty() ? std::string("TPU") : d.type) + " · " + scope + " · total op time "
            + formatDurationPs(breakdown.totalTimePs) + " · FLOPS util " + headlineUtilizationText(breakdown.flops)
            + " · HBM util " + headlineUtilizationText(breakdown.hbm) + " · " + costCoverageText(breakdown.costCoverage)
            + lowOps(" · ") + "\n";
        out += peakText(d) + "\n";
        for (const std::string& w : breakdownWarnings(profile, breakdown))
            out += "Warning: " + w + "\n";
        out += "\n";
    }
    out += renderTable(table, format);
    if (format == TableFormat::Markdown && count < breakdown.rows.size())
        out += "\n_" + std::to_string(breakdown.rows.size() - count) + " more rows not shown (tpuscope)._\n";
    else if (format == TableFormat::Markdown)
        out += "\n_Generated by tpuscope; utilizations are xprof's definitions (achieved ÷ per-core peak)._\n";
    return out;
}

std::string summaryReport(const Profile& profile, const ProfileSummary& s, bool asJson)
{
    const DeviceInfo& d = profile.device;
    if (asJson) {
        JsonWriter json;
        json.beginReport();
        json.field("file", profile.load.path);
        json.field("format", profile.load.format);
        writeDevice(json, profile);
        json.field("has_tpu_ops", s.hasTpuOps);
        if (!s.message.empty())
            json.field("message", s.message);
        json.field("span_ps", static_cast<int64_t>(s.spanPs));
        json.field("total_op_time_ps", s.totalOpTimePs);
        json.field("busy_fraction", s.busyFraction);
        writeHeadline(json, s.flops, s.hbm, s.costCoverage);
        json.field("low_utilization_ops", s.lowUtilizationOps);
        json.key("steps").beginObject();
        json.field("source", s.steps.source);
        json.field("count", s.steps.count);
        json.field("average_ps", s.steps.averagePs);
        json.field("min_ps", s.steps.minPs);
        json.field("max_ps", s.steps.maxPs);
        json.field("program", s.steps.program);
        {
            const StepTimeSplit a = s.stepBreakdown.averageStep();
            json.field("compute_ps", a.computePs)
                .field("collective_ps", a.collectivePs)
                .field("host_transfer_ps", a.hostTransferPs)
                .field("infeed_ps", a.infeedPs)
                .field("idle_ps", a.idlePs);
            json.field("warmup_idle_ps", s.stepBreakdown.warmup.idlePs)
                .field("steady_idle_ps", s.stepBreakdown.steady.idlePs)
                .field("tail_idle_ps", s.stepBreakdown.tail.idlePs);
        }
        json.endObject();
        json.key("top_categories").beginArray();
        for (const auto& c : s.topCategories) {
            json.beginObject();
            json.field("category", c.name);
            json.field("total_time_ps", c.totalTimePs);
            json.field("time_fraction", c.timeFraction);
            json.field("cost_coverage", c.costCoverage);
            json.field("flops_utilization", c.flopsUtilization);
            json.field("flops_utilization_uncapped", c.flopsUtilizationUncapped);
            json.field("hbm_utilization", c.hbmUtilization);
            json.field("hbm_utilization_uncapped", c.hbmUtilizationUncapped);
            json.field("roofline_efficiency", c.rooflineEfficiency);
            json.endObject();
        }
        json.endArray();
        json.key("load").beginObject();
        json.field("events", static_cast<uint64_t>(s.events));
        json.field("planes", static_cast<uint64_t>(s.planes));
        json.field("tracks", static_cast<uint64_t>(s.tracks));
        json.field("ops", static_cast<uint64_t>(s.ops));
        json.field("programs", static_cast<uint64_t>(s.programs));
        json.field("programs_with_hlo", static_cast<uint64_t>(s.programsWithHlo));
        json.field("file_bytes", profile.load.fileBytes);
        json.field("decoded_bytes", profile.load.decodedBytes);
        json.field("seconds", profile.load.seconds);
        json.key("warnings").beginArray();
        for (const auto& w : profile.load.warnings)
            json.value(w);
        json.endArray();
        json.key("limitations").beginArray();
        for (const auto& l : profile.load.limitations)
            json.value(l);
        json.endArray();
        json.endObject();
        const ImportStats& st = profile.stats;
        json.key("import_stats").beginObject();
        json.field("negative_durations", st.negativeDurations);
        json.field("unknown_metadata_ids", st.unknownMetadataIds);
        json.field("partial_overlaps", st.partialOverlaps);
        json.field("depth_limit_hits", st.depthLimitHits);
        json.field("unmatched_begins", st.unmatchedBegins);
        json.field("unmatched_ends", st.unmatchedEnds);
        json.field("malformed_events", st.malformedEvents);
        json.field("hlo_decode_failures", st.hloDecodeFailures);
        json.field("aggregated_events", st.aggregatedEvents);
        json.endObject();
        json.endObject();
        return json.str() + '\n';
    }
    std::string out;
    out += "File:            " + profile.load.path + " (" + profile.load.format + ")\n";
    if (s.hasTpuOps) {
        out += "Device:          " + (d.type.empty() ? std::string("unknown TPU") : d.type) + ", "
            + coresCountText(d, d.cores);
        if (d.hosts > 1)
            out += " on " + std::to_string(d.hosts) + " hosts";
        out += "\n";
        if (d.peakTflopsPerCore > 0 || d.peakHbmGbpsPerCore > 0)
            out += "Peak per core:   " + printf1("%.4g", d.peakTflopsPerCore) + " TFLOP/s, "
                + printf1("%.4g", d.peakHbmGbpsPerCore) + " GB/s HBM (" + d.peakNote + ")\n";
        else
            out += "Peak per core:   unknown (" + d.peakNote + ")\n";
    }
    if (s.spanPs > 0)
        out += "Profile span:    " + formatDurationPs(static_cast<double>(s.spanPs)) + "\n";
    else
        out += "Profile span:    - (no timeline in this file)\n";
    if (!s.hasTpuOps) {
        out += "\n" + s.message + "\n";
    } else {
        out += "Total op time:   " + formatDurationPs(s.totalOpTimePs) + " over " + std::to_string(d.cores)
            + (d.cores == 1 ? " core" : " cores");
        if (s.spanPs > 0)
            out += " (busy " + formatPercent(s.busyFraction) + " of span × cores)";
        out += "\n";
        out += "FLOPS util:      " + headlineUtilizationText(s.flops) + "\n";
        out += "HBM BW util:     " + headlineUtilizationText(s.hbm) + "\n";
        out += "Cost coverage:   " + costCoverageText(s.costCoverage) + "\n";
        if (s.lowUtilizationOps)
            out += "Low utilization: " + lowUtilizationOpsText(s.lowUtilizationOps) + " (" + lowUtilizationRuleText()
                + ")\n";
        for (const std::string& w : s.warnings)
            out += "Warning:         " + w + "\n";
        if (s.steps.count) {
            const std::string what = s.steps.program.empty()
                ? s.steps.source + " line"
                : s.steps.program + " runs on the " + s.steps.source + " line";
            out += "Steps:           " + std::to_string(s.steps.count) + " per core (" + what + "), average "
                + formatDurationPs(s.steps.averagePs) + "\n";
            const StepTimeSplit a = s.stepBreakdown.averageStep();
            const double total = std::max(1.0, a.totalPs());
            out += "Step time:       compute " + formatPercent(a.computePs / total) + ", collectives "
                + formatPercent(a.collectivePs / total) + ", host transfer " + formatPercent(a.hostTransferPs / total)
                + ", infeed/outfeed " + formatPercent(a.infeedPs / total) + ", idle " + formatPercent(a.idlePs / total)
                + "\n";
            out += "Idle:            warm-up " + formatDurationPs(s.stepBreakdown.warmup.idlePs) + ", steady state "
                + formatDurationPs(s.stepBreakdown.steady.idlePs) + ", tail "
                + formatDurationPs(s.stepBreakdown.tail.idlePs) + " per core\n";
        }
        out += "\nTop categories:\n";
        Table table;
        table.header = {"Category", "Time %", "Total time", "FLOPS util", "HBM util", "Roofline eff", "Transfer rate"};
        table.rightAligned = {false, true, true, true, true, true, true};
        for (size_t i = 0; i < s.topCategories.size() && i < 10; ++i) {
            const auto& c = s.topCategories[i];
            table.rows.push_back({c.name, formatPercent(c.timeFraction), formatDurationPs(c.totalTimePs),
                flopsUtilizationText(c), hbmUtilizationText(c), rooflineEfficiencyText(c), transferRateText(c)});
        }
        out += renderTable(table, TableFormat::Text);
    }
    out += "\nLoad:            " + std::to_string(s.events) + " events, " + std::to_string(s.planes) + " planes, "
        + std::to_string(s.tracks) + " lines, " + std::to_string(s.programs) + " programs ("
        + std::to_string(s.programsWithHlo) + " with HLO), " + formatBytes(static_cast<double>(profile.load.fileBytes))
        + " read in " + printf1("%.3f", profile.load.seconds) + " s\n";
    for (const auto& w : profile.load.warnings)
        out += "Warning:         " + w + "\n";
    for (const auto& l : profile.load.limitations)
        out += "Format limit:    " + l + "\n";
    const ImportStats& st = profile.stats;
    if (st.negativeDurations || st.unknownMetadataIds || st.partialOverlaps || st.malformedEvents
        || st.hloDecodeFailures || st.unmatchedBegins || st.unmatchedEnds)
        out += "Data problems:   " + std::to_string(st.negativeDurations) + " negative durations, "
            + std::to_string(st.unknownMetadataIds) + " unknown metadata ids, " + std::to_string(st.partialOverlaps)
            + " partial overlaps, " + std::to_string(st.malformedEvents) + " malformed events, "
            + std::to_string(st.unmatchedBegins + st.unmatchedEnds) + " unmatched B/E, "
            + std::to_string(st.hloDecodeFailures) + " undecodable HLO protos\n";
    return toValidUtf8(out); // the file path comes from the file system
}

} // namespace tpuscope::model
