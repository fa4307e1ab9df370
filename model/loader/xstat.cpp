// SPDX-License-Identifier: GPL-3.0-or-later
#include "xstat.h"

namespace tpuscope::model::xspace {

StatKind PlaneContext::sparseKindOf(int64_t id) const
{
    auto it = statMeta.find(id);
    return it == statMeta.end() ? StatKind::Other : it->second.kind;
}

StatKind statKindFromName(std::string_view name)
{
    static const std::unordered_map<std::string_view, StatKind> kinds {
        {"hlo_category", StatKind::HloCategory},
        {"program_id", StatKind::ProgramId},
        {"flops", StatKind::Flops},
        {"model_flops", StatKind::ModelFlops},
        {"bytes_accessed", StatKind::BytesAccessed},
        {"memory_access_breakdown", StatKind::MemoryAccessBreakdown},
        {"shape_with_layout", StatKind::ShapeWithLayout},
        {"tf_op", StatKind::TfOp},
        {"source", StatKind::Source},
        {"deduplicated_name", StatKind::DeduplicatedName},
        {"device_offset_ps", StatKind::DeviceOffsetPs},
        {"device_duration_ps", StatKind::DeviceDurationPs},
        {"device_type_string", StatKind::DeviceTypeString},
        {"peak_teraflops_per_second", StatKind::PeakTflops},
        {"peak_hbm_bw_gigabytes_per_second", StatKind::PeakHbmGbps},
        {"Hlo Proto", StatKind::HloProto},
        {"HLO Proto", StatKind::HloProto},
        {"step_num", StatKind::StepNum},
    };
    auto it = kinds.find(name);
    return it == kinds.end() ? StatKind::Other : it->second;
}

double hbmBytesFromBreakdown(std::string_view bytes)
{
    Reader r(bytes);
    double hbm = 0;
    bool any = false;
    while (r.next()) {
        if (r.field() != 1 || r.type() != wire::Len) {
            r.skip();
            continue;
        }
        Reader entry = r.sub();
        uint64_t space = 0, accessed = 0;
        while (entry.next()) {
            if (entry.field() == 2)
                space = entry.u64();
            else if (entry.field() == 3)
                accessed = entry.u64();
            else
                entry.skip();
        }
        any = true;
        if (space == 1)
            hbm += static_cast<double>(accessed);
    }
    return any && !r.failed() ? hbm : -1;
}

void readMetadataStats(const std::vector<std::string_view>& stats, const PlaneContext& ctx, EventMeta& meta)
{
    for (std::string_view blob : stats) {
        StatValue v;
        const int64_t id = readStat(Reader(blob), v);
        switch (ctx.kindOf(id)) {
        case StatKind::HloCategory:
            meta.category = ctx.text(v);
            break;
        case StatKind::ProgramId:
            meta.programId = ctx.unsignedValue(v);
            meta.hasProgramIdStat = true;
            break;
        case StatKind::Flops:
            meta.flops = ctx.number(v);
            meta.flopsRecorded = true;
            break;
        case StatKind::ModelFlops:
            meta.modelFlops = ctx.number(v);
            meta.flopsRecorded = true;
            break;
        case StatKind::BytesAccessed:
            meta.bytesAccessed = ctx.number(v);
            meta.bytesRecorded = true;
            break;
        case StatKind::MemoryAccessBreakdown:
            meta.hbmBytes = hbmBytesFromBreakdown(v.s);
            break;
        case StatKind::ShapeWithLayout:
            meta.shapeWithLayout = ctx.text(v);
            break;
        case StatKind::TfOp:
            meta.tfOp = ctx.text(v);
            break;
        case StatKind::Source:
            meta.source = ctx.text(v);
            break;
        case StatKind::DeduplicatedName:
            meta.deduplicatedName = ctx.text(v);
            break;
        case StatKind::HloProto:
            meta.hloProto = v.s;
            break;
        default:
            break;
        }
    }
    // xprof: model_flops "can be 0, assume same as flops" and the reverse for JSON-era data.
    if (meta.modelFlops == 0)
        meta.modelFlops = meta.flops;
    if (meta.flops == 0)
        meta.flops = meta.modelFlops;
}

} // namespace tpuscope::model::xspace
