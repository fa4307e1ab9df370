// SPDX-License-Identifier: GPL-3.0-or-later
// The scenario generator's XSpace writer: the protobuf wire records written by hand (so a big line
// never exists as a message), the device plane stats, the op metadata and the metadata plane.
#include "synthinternal.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cmath>

namespace tpuscope::model::synth_detail {

namespace {

void appendVarint(std::string& out, uint64_t v)
{
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7F) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
}

void appendField(std::string& out, uint32_t fieldNumber, std::string_view bytes)
{
    appendVarint(out, (fieldNumber << 3) | 2);
    appendVarint(out, bytes.size());
    out.append(bytes);
}

// Protobuf field numbers of the repeated messages written by hand (xplane.proto).
constexpr uint32_t kSpacePlanesField = 1;
constexpr uint32_t kPlaneLinesField = 3;
constexpr uint32_t kLineEventsField = 4;
constexpr uint32_t kSpaceHostnamesField = 4; // XSpace.hostnames (newer xplane.proto only)

} // namespace

std::string serializeDeterministic(const google::protobuf::MessageLite& message)
{
    std::string out;
    {
        google::protobuf::io::StringOutputStream stream(&out);
        google::protobuf::io::CodedOutputStream coded(&stream);
        coded.SetSerializationDeterministic(true);
        message.SerializeToCodedStream(&coded);
    }
    return out;
}

void appendEvent(LineData& line, int64_t metadataId, int64_t offsetPs, int64_t durationPs)
{
    tensorflow::profiler::XEvent event;
    event.set_metadata_id(metadataId);
    event.set_offset_ps(offsetPs);
    event.set_duration_ps(durationPs);
    appendField(line.events, kLineEventsField, event.SerializeAsString());
}

bool writePlane(const Sink& sink, const tensorflow::profiler::XPlane& header, const std::vector<LineData>& lines)
{
    std::string body = serializeDeterministic(header);
    for (const LineData& line : lines) {
        std::string lineBytes = serializeDeterministic(line.header);
        lineBytes += line.events;
        appendField(body, kPlaneLinesField, lineBytes);
    }
    std::string record;
    appendVarint(record, (kSpacePlanesField << 3) | 2);
    appendVarint(record, body.size());
    return sink(record) && sink(body);
}

bool writeSpaceHostname(const Sink& sink, const std::string& hostname)
{
    std::string record;
    appendField(record, kSpaceHostnamesField, hostname);
    return sink(record);
}

// ---------------------------------------------------------------------------------------------
// Device plane stats (StatTable, in synthinternal.h, gives each stat name its per-plane id).

void addDevicePlaneStats(tensorflow::profiler::XPlane& plane, StatTable& stats, const std::string& deviceType,
    double peakTflops, double peakHbmGbps)
{
    stats.add(plane.mutable_stats(), "device_type_string")->set_str_value(deviceType);
    stats.add(plane.mutable_stats(), "peak_teraflops_per_second")->set_double_value(peakTflops);
    stats.add(plane.mutable_stats(), "peak_hbm_bw_gigabytes_per_second")->set_double_value(peakHbmGbps);
}

// ---------------------------------------------------------------------------------------------
// Op metadata on the device planes, and the metadata plane that carries the programs' HLO.

namespace {

std::string memoryBreakdown(double hbmReadBytes, double hbmWriteBytes)
{
    // MemoryAccessBreakdown: what the op reads from and writes to HBM (memory space 1). On-chip
    // traffic (VMEM) does not follow from the shapes, so none is recorded.
    tensorflow::profiler::MemoryAccessBreakdown breakdown;
    auto add = [&](int op, uint64_t space, double bytes) {
        auto* m = breakdown.add_memory_accessed();
        m->set_operation_type(op);
        m->set_memory_space(space);
        m->set_bytes_accessed(static_cast<uint64_t>(std::llround(bytes)));
    };
    add(1, 1, hbmReadBytes);
    add(2, 1, hbmWriteBytes);
    return serializeDeterministic(breakdown);
}

} // namespace

void addOpMetadata(tensorflow::profiler::XPlane& plane, StatTable& stats, int64_t id, const std::string& hloText,
    const std::string& displayName, const std::string& category, uint64_t programId, uint64_t symbolId, double flops,
    double hbmReadBytes, double hbmWriteBytes, const std::string& shapeWithLayout, const std::string& tfOp,
    const std::string& source)
{
    const double bytesAccessed = hbmReadBytes + hbmWriteBytes;
    auto& meta = (*plane.mutable_event_metadata())[id];
    meta.set_id(id);
    meta.set_name(hloText);
    meta.set_display_name(displayName);
    auto* s = meta.mutable_stats();
    stats.add(s, "hlo_category")->set_str_value(category);
    stats.add(s, "program_id")->set_uint64_value(programId);
    stats.add(s, "symbol_id")->set_uint64_value(symbolId);
    stats.add(s, "flops")->set_int64_value(std::llround(flops));
    stats.add(s, "model_flops")->set_int64_value(std::llround(flops));
    stats.add(s, "bytes_accessed")->set_int64_value(std::llround(bytesAccessed));
    stats.add(s, "memory_access_breakdown")->set_bytes_value(memoryBreakdown(hbmReadBytes, hbmWriteBytes));
    if (!source.empty())
        stats.add(s, "source")->set_str_value(source);
    stats.add(s, "raw_bytes_accessed")->set_int64_value(std::llround(bytesAccessed));
    stats.add(s, "shape_with_layout")->set_str_value(shapeWithLayout);
    if (!tfOp.empty())
        stats.add(s, "tf_op")->set_str_value(tfOp);
}

bool writeMetadataPlane(
    const Sink& sink, int64_t planeId, const std::vector<std::pair<uint64_t, const BuiltModule*>>& modules)
{
    tensorflow::profiler::XPlane plane;
    plane.set_id(planeId);
    plane.set_name("/host:metadata");
    StatTable stats(plane);
    for (const auto& [programId, module] : modules) {
        // Real files key programs by the id's bits read as int64 (FORMATS.md §2.5).
        const int64_t key = static_cast<int64_t>(programId);
        auto& meta = (*plane.mutable_event_metadata())[key];
        meta.set_id(key);
        meta.set_name(module->proto.hlo_module().name() + "(" + std::to_string(programId) + ")");
        stats.add(meta.mutable_stats(), "Hlo Proto")->set_bytes_value(serializeModule(*module));
    }
    return writePlane(sink, plane, {});
}

} // namespace tpuscope::model::synth_detail
