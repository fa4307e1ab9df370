// SPDX-License-Identifier: GPL-3.0-or-later
#include "memoryreport.h"

#include "../core/neutraltext.h"
#include "jsonwriter.h"

namespace tpuscope::model {

namespace {

std::string joinedPaddedDims(const BufferAtPeak& buffer)
{
    std::string out;
    for (const auto& dim : buffer.paddedDims)
        out += (out.empty() ? "" : "; ") + dim.text();
    return out;
}

std::string memoryJson(const MemoryReport& report)
{
    JsonWriter w;
    w.beginReport().key("modules").beginArray();
    for (const auto& m : report.modules) {
        w.beginObject();
        w.field("name", m.name)
            .field("peak_heap_bytes", m.peakHeapBytes)
            .field("peak_unpadded_bytes", m.peakUnpaddedBytes)
            .field("peak_padding_bytes", m.peakPaddingBytes)
            .field("entry_parameter_bytes", m.entryParameterBytes)
            .field("maybe_live_out_bytes", m.maybeLiveOutBytes)
            .field("indefinite_bytes", m.indefiniteBytes)
            .field("total_allocation_bytes", m.totalAllocationBytes);
        w.key("buffers_at_peak").beginArray();
        for (const auto& b : m.buffersAtPeak) {
            w.beginObject()
                .field("instruction", b.instructionName)
                .field("framework_op", b.frameworkOp)
                .field("shape", b.shape)
                .field("kind", bufferKindName(b.kind))
                .field("size_bytes", b.sizeBytes)
                .field("unpadded_bytes", b.unpaddedBytes);
            w.key("padded_dims").beginArray();
            for (const auto& dim : b.paddedDims)
                w.value(dim.text());
            w.endArray().endObject();
        }
        w.endArray();
        w.key("timeline").beginArray();
        for (const auto& p : m.timeline)
            w.beginObject()
                .field("position", p.position)
                .field("heap_bytes", p.heapBytes)
                .field("unpadded_bytes", p.unpaddedBytes)
                .endObject();
        w.endArray();
        w.endObject();
    }
    w.endArray().endObject();
    return w.str() + "\n";
}

} // namespace

std::string memoryReport(const MemoryReport& report, TableFormat format, size_t top)
{
    if (format == TableFormat::Json)
        return memoryJson(report);
    const bool md = format == TableFormat::Markdown;
    std::string out;
    if (report.modules.empty())
        return "No module in this file carries a buffer assignment (HloProto field 3), so there is no memory view.\n";
    for (const auto& m : report.modules) {
        out += md ? "## " + neutralForMarkdown(m.name) + "\n\n" : "Module " + m.name + "\n";
        auto line = [&](const std::string& label, const std::string& value) {
            out += md ? "- " + label + ": " + value + "\n" : "  " + label + ": " + value + "\n";
        };
        std::string peak = formatBytes(static_cast<double>(m.peakHeapBytes));
        if (const double share = report.capacityFraction(m); share >= 0)
            peak += " (" + formatPercent(share) + " of " + formatBytes(report.hbmCapacityBytes) + " HBM, "
                + report.capacityNote + ")";
        line("peak heap", peak);
        line("padding at peak",
            formatBytes(static_cast<double>(m.peakPaddingBytes)) + " (" + formatPercent(m.paddingFraction())
                + " of the peak; unpadded " + formatBytes(static_cast<double>(m.peakUnpaddedBytes)) + ")");
        line("entry parameters", formatBytes(static_cast<double>(m.entryParameterBytes)));
        line("maybe live-out", formatBytes(static_cast<double>(m.maybeLiveOutBytes)));
        line("indefinite lifetime", formatBytes(static_cast<double>(m.indefiniteBytes)));
        line("all allocations", formatBytes(static_cast<double>(m.totalAllocationBytes)));
        line("heap simulation",
            m.heapTrace < 0
                ? std::string("none for this memory (the peak is the indefinite allocations)")
                : "trace " + std::to_string(m.heapTrace) + ", peak at position " + std::to_string(m.peakPosition)
                    + " of " + std::to_string(m.timeline.size() - 1) + " (the timeline is in --format json)");
        for (const auto& warning : m.warnings)
            line("warning", warning);
        if (md)
            out += "\n";
        Table table;
        table.header = {"Instruction", "Kind", "Size", "Unpadded", "Padding", "Shape", "Padded dims", "Framework op"};
        table.rightAligned = {false, false, true, true, true, false, false, false};
        size_t shown = 0;
        for (const auto& b : m.buffersAtPeak) {
            if (top && shown++ >= top)
                break;
            table.rows.push_back({b.instructionName, bufferKindName(b.kind),
                formatBytes(static_cast<double>(b.sizeBytes)), formatBytes(static_cast<double>(b.unpaddedBytes)),
                formatBytes(static_cast<double>(b.paddingBytes())), b.shape, joinedPaddedDims(b), b.frameworkOp});
        }
        if (!table.rows.empty())
            out += renderTable(table, md ? TableFormat::Markdown : TableFormat::Text);
        if (top && m.buffersAtPeak.size() > top)
            out += (md ? "\n" : "  ") + std::string("... ") + std::to_string(m.buffersAtPeak.size() - top)
                + " more buffer(s) at the peak (without --top: all)\n";
        out += "\n";
    }
    return out;
}

} // namespace tpuscope::model
